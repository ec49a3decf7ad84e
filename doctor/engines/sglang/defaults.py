"""SGLang choices the rules need that the user did not spell out: per-version defaults read from the wheels
(each function names the wheel file it was read from), and the flag view from `flags.py`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from packaging.version import Version

from doctor.engines.sglang.flags import user_flag_view
from doctor.engines.sglang.pins import kernel_torch_view
from doctor.engines.spi import Facts, Launch, release


def default_mm_attention_backend(version: Version, major: int) -> str:
    """`_determine_attention_backend` for the vision tower: fa3 on Hopper, fa4 on SM100 from 0.5.23."""
    if major == 9:
        return "fa3"
    if major == 10 and release(version) >= Version("0.5.23"):
        return "fa4"
    return "triton_attn"


def default_mxfp4_moe_runner(version: Version, major: int) -> str | None:
    """GPT-OSS MXFP4 MoE runner on SM12x when `--moe-runner-backend` is not given, read from the wheels:
    0.5.1-0.5.4 take flashinfer_mxfp4 only on `is_sm100_supported()` (major == 10; 0.5.1
    sglang/srt/server_args.py:2255, layers/utils.py:40), else triton_kernel; 0.5.5 switched the test to
    `is_blackwell_supported()` (majors [10, 12]; 0.5.5 server_args.py:982, utils/common.py:204)."""
    if major != 12:
        return None
    v = release(version)
    if v < Version("0.5.1"):
        return None  # before the GPT-OSS runner choice existed in a release the doctor has read
    if v < Version("0.5.5"):
        return "triton_kernel"
    if v < Version("0.5.10"):
        return "flashinfer_mxfp4"  # is_blackwell_supported() includes 12: the SM100 path
    if v < Version("0.5.14"):
        return "triton_kernel"  # PR #19718
    if v < Version("0.5.18"):
        return "marlin"  # PR #28231
    return "flashinfer_mxfp4"  # FlashInfer CUTLASS MXFP4 (arg_groups/model_overrides/gpt_oss.py)


# --fp8-gemm-backend and `_dispatch_auto_backend` (DeepGEMM, then FlashInfer trtllm on majors 10/12) from 0.5.6.post2
AUTO_DISPATCH = Version("0.5.6.post2")


def default_fp8_gemm_backend(version: Version, capability: tuple[int, int],
                             env: Mapping[str, str] | None = None) -> str | None:
    """What `--fp8-gemm-backend auto` resolves to on SM12x for block-FP8 linear layers, read from the wheels'
    sglang/srt/layers/quantization/fp8_utils.py. 0.5.3-0.5.9 try DeepGEMM (after the opt-in FlashInfer and CUTLASS
    switches) whenever `deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM`: sm >= 90, `import deep_gemm` works and
    SGL(ANG)_ENABLE_JIT_DEEPGEMM defaults to true (configurer.py). The x86_64 sgl-kernel wheels they pin bundle
    `deep_gemm` (read in 0.3.14.post1, 0.3.16.post5 and 0.3.21), so on a 12.0 GPU that is DeepGEMM (DG002). With
    DeepGEMM off (or on 12.1, whose aarch64 kernel wheels were not read) 0.5.6.post2-0.5.9 `_dispatch_auto_backend`
    takes FlashInfer's groupwise GEMM whenever `is_blackwell_supported()` (majors 10 and 12), which calls
    `gemm_fp8_nt_groupwise(..., backend="trtllm")` (0.5.8 line 329): the SM100 cubins. 0.5.10 forces `triton` on
    SM120 (PR #19721), 0.5.16 `cutlass` (PR #30438)."""
    major, minor = capability
    if major != 12:
        return None
    v, env = release(version), env or {}
    if v >= Version("0.5.10"):
        return "triton" if v < Version("0.5.16") else "cutlass"
    if v < Version("0.5.3"):
        return None  # not read
    # 0.5.3-0.5.4 honour the FlashInfer switch on SM100 only; 0.5.6 renamed it
    flashinfer_switch = "SGLANG_ENABLE_FLASHINFER_GEMM" if v < Version("0.5.6") else "SGLANG_ENABLE_FLASHINFER_FP8_GEMM"
    if v >= Version("0.5.5") and _env_on(env, flashinfer_switch):
        return "flashinfer_trtllm" if version >= AUTO_DISPATCH else None
    if _env_on(env, "SGLANG_SUPPORT_CUTLASS_BLOCK_FP8"):
        return "cutlass"
    deep_gemm_switch = "SGL_ENABLE_JIT_DEEPGEMM" if v < Version("0.5.4") else "SGLANG_ENABLE_JIT_DEEPGEMM"
    if minor == 0 and _env_on(env, deep_gemm_switch, default=True):
        return "deep_gemm"
    if version < AUTO_DISPATCH:
        return "triton" if minor == 0 else None  # DeepGEMM off: the last branch (12.1: deep_gemm not read)
    return "flashinfer_trtllm"


def _env_on(env: Mapping[str, str], name: str, default: bool = False) -> bool:
    """SGLang's EnvBool / get_bool_env_var reading of a switch."""
    value = env.get(name)
    return default if value is None else value.strip().lower() in ("true", "1", "yes", "y")


def sglang_view(facts: Facts, launch: Launch, version: Version) -> dict[str, Any]:
    """What SGLang rules read under `sglang.*`: choices SGLang makes by default, and the user's flags."""
    capability = facts.gpus[0].capability if facts.gpus else (0, 0)
    major = capability[0]
    given_mm = launch.get("mm_attention_backend")
    given_moe = launch.get("moe_runner_backend")
    given_fp8 = launch.get("fp8_gemm_backend")
    given_fp8 = None if given_fp8 == "auto" else given_fp8
    return {
        "version": str(version),
        "mm_attention_backend": given_mm or default_mm_attention_backend(version, major),
        "mm_attention_backend_source": "launch flags" if given_mm else "default",
        "mxfp4_moe_runner": given_moe or default_mxfp4_moe_runner(version, major),
        "mxfp4_moe_runner_source": "launch flags" if given_moe else "default",
        "fp8_gemm_backend": given_fp8 or default_fp8_gemm_backend(version, capability, facts.env),
        "fp8_gemm_backend_source": "launch flags" if given_fp8 else "default",
        **user_flag_view(list(launch.args), version),
        **kernel_torch_view(facts),
    }
