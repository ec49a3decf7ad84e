"""Which kernels run MLA prefill (the new tokens and the cached-context chunks of every MLA backend, TRITON_MLA
included) on compute capability 12.x, per vLLM release, read from each wheel. None of them is a Triton kernel, so
the kernel library has nothing to size; the analysis prints where the choice is made.

- 0.9.2: always FlashAttention varlen (`flash_attn_varlen_func` from vllm.vllm_flash_attn).
- 0.10.0: `use_flashinfer_prefill` / `use_cudnn_prefill` test `has_device_capability(100)`, which is true for 12.x:
  FlashInfer's ragged prefill (BatchPrefillWithRaggedKVCacheWrapper) when FlashInfer is installed, cuDNN's (through
  FlashInfer) with VLLM_USE_CUDNN_PREFILL=1, else FlashAttention varlen.
- 0.11.0 to 0.20.x: the FlashInfer, cuDNN and TRT-LLM ragged prefills require capability 10.0 exactly (0.11, 0.12)
  or the 10.x family (0.13+): FlashAttention varlen.
- 0.21.0 on: the MLA prefill selector's priority list for a non-10.x device holds FLASH_ATTN only (selector.py,
  from 0.32 the platform's get_mla_prefill_backend_cls).

FlashAttention's version on 12.x is 2 in every release: FA3 is picked only for major 9 and FA4 only for major 10
(`get_flash_attn_version`).
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from doctor.versions import release as plain_release

# (first release, where the choice for 12.x is made: file:line in that release's wheel)
_SELECTOR = "vllm/v1/attention/backends/mla/prefill/selector.py"
_LAYER = "vllm/model_executor/layers/attention/mla_attention.py"
_COMMON = "vllm/v1/attention/backends/mla/common.py"
_WHERE = (
    (Version("0.32"), "vllm/platforms/interface.py:482 (priorities = [FLASH_ATTN] for a non-10.x device)"),
    (Version("0.31"), f"{_SELECTOR}:88 (non-10.x: [FLASH_ATTN])"),
    (Version("0.27"), f"{_SELECTOR}:87 (non-10.x: [FLASH_ATTN])"),
    (Version("0.25"), f"{_SELECTOR}:74 (non-10.x: [FLASH_ATTN])"),
    (Version("0.24"), f"{_SELECTOR}:66 (non-10.x: [FLASH_ATTN])"),
    (Version("0.21"), f"{_SELECTOR}:72 (non-10.x: [FLASH_ATTN])"),
    (Version("0.20"), f"{_LAYER}:1369 (10.x gates), :2269 (FA)"),
    (Version("0.19"), f"{_LAYER}:1285 (10.x gates), :2139 (FA)"),
    (Version("0.18"), f"{_LAYER}:1287 (10.x gates), :2141 (FA)"),
    (Version("0.17"), f"{_LAYER}:1226 (10.x gates), :2082 (FA)"),
    (Version("0.16"), f"{_LAYER}:1148 (10.x gates), :1938 (FA)"),
    (Version("0.15"), f"{_LAYER}:490 (10.x gates), :1401 (FA)"),
    (Version("0.14"), f"{_COMMON}:442 (10.x gates), :1338 (FA)"),
    (Version("0.13"), f"{_COMMON}:438 (10.x gates), :1302 (FA)"),
    (Version("0.12"), f"{_COMMON}:438 (10.0 gates), :1293 (FA)"),
    (Version("0.11"), f"{_COMMON}:414 (10.0 gates), :1130 (FA)"),
    (Version("0.10"), f"{_COMMON}:381 (has_device_capability(100)), :800 (FA)"),
    (Version("0.0"), f"{_COMMON}:655 (flash_attn_varlen_func)"),
)


def _where(plain: Version) -> str:
    return next(where for first, where in _WHERE if plain >= first)


def prefill_note(version: Any, env: dict[str, str] | None = None, flashinfer: bool | None = None) -> str:
    """One line for the analysis: what runs MLA prefill on 12.x in this release, and where that is decided.
    flashinfer: whether FlashInfer is installed (None: not known, e.g. a hardware profile)."""
    plain = plain_release(Version(version) if isinstance(version, str) else version)
    where = f"vLLM {plain} {_where(plain)}"
    if Version("0.10") <= plain < Version("0.11"):
        if (env or {}).get("VLLM_USE_CUDNN_PREFILL") in ("1", "true", "True") and flashinfer:
            kernel = "cuDNN prefill through FlashInfer (VLLM_USE_CUDNN_PREFILL=1, has_device_capability(100) on 12.x)"
        elif flashinfer:
            kernel = "FlashInfer's ragged prefill (has_device_capability(100) holds on 12.x)"
        elif flashinfer is None:
            kernel = ("FlashInfer's ragged prefill where FlashInfer is installed (has_device_capability(100) holds "
                      "on 12.x), else FlashAttention 2 varlen")
        else:
            kernel = "FlashAttention 2 varlen (FlashInfer not installed)"
    else:
        kernel = "FlashAttention 2 varlen (vllm_flash_attn)"
    return f"MLA prefill runs {kernel}, not a Triton kernel: not sized by the kernel library ({where})"
