"""The kernel families the estimators size, by name. A family is a Triton kernel's source shape (what it
keeps in shared memory per tile); engines map their launches onto these names and never the other way.

`estimate(arch, params)` takes a job in the launch vocabulary of doctor.kernels.exact_launch (the same
params dict an exact compile takes), so the closed form and the compile answer the same question."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .arch import Arch, cc_int
from .attention_smem import extend_attention_smem, prefill_attention_smem
from .decode_smem import decode_attention_smem
from .exact_launch import default_swap_ab, uses_gptq_awq
from .moe_smem import fused_moe_smem, gptq_awq_smem
from .unified_attention_smem import LATEST_REVISION as UNIFIED_LATEST
from .unified_attention_smem import segments_reduce_smem, unified_attention_smem


@dataclass(frozen=True)
class KernelFamily:
    """A family of Triton kernels and its shared-memory estimator."""

    name: str
    description: str
    # (arch, params, Triton version or None for the newest, kernel source revision) -> bytes
    estimate: Callable[[Arch, Mapping[str, Any], str | None, int], int]


def _fused_moe(arch: Arch, params: Mapping[str, Any], triton: str | None, revision: int) -> int:
    del revision  # one source revision of the MoE kernels so far
    c = params["config"]
    if uses_gptq_awq(params["dtype"], params.get("block_shape")):
        return gptq_awq_smem(arch, params["dtype"], c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"],
                             c.get("num_warps", 4), c.get("num_stages", 3), triton=triton, k=params.get("k"),
                             has_zp=params.get("has_zp", False))
    swap = params.get("swap_ab")
    if swap is None:
        swap = default_swap_ab(cc_int(arch), params["dtype"], c)
    return fused_moe_smem(arch, params["dtype"], c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"],
                          c.get("GROUP_SIZE_M", 1), c.get("num_warps", 4), c.get("num_stages", 3),
                          params.get("per_channel", False), params.get("block_shape"), triton=triton,
                          tma=params.get("tma"), swap_ab=swap)


def _without(keys: tuple[str, ...], params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in keys}


FAMILIES: dict[str, KernelFamily] = {f.name: f for f in (
    KernelFamily("fused_moe", "grouped GEMM of the MoE experts (up and down projections)", _fused_moe),
    KernelFamily("extend_attention", "prefill attention over a cached prefix (MLA and GQA)",
                 lambda arch, p, triton, rev: extend_attention_smem(arch, **p, triton=triton, revision=rev)),
    KernelFamily("decode_attention", "decode attention, stage 1 (grouped or MHA)",
                 lambda arch, p, triton, rev: decode_attention_smem(arch, **_without(("kv_group",), p),
                                                                   triton=triton, revision=rev)),
    KernelFamily("prefill_attention", "context attention without a prefix (vision towers, prefill)",
                 lambda arch, p, triton, rev: prefill_attention_smem(arch, **_without(("kv_group",), p),
                                                                    triton=triton)),
    KernelFamily("unified_attention", "paged attention, one loop for prefill and decode (whole or split KV)",
                 lambda arch, p, triton, rev: unified_attention_smem(arch, **p, triton=triton,
                                                                    revision=min(rev, UNIFIED_LATEST))),
    KernelFamily("unified_attention_reduce", "the split-KV reduction after the unified attention kernel",
                 lambda arch, p, triton, rev: segments_reduce_smem(arch, **p, triton=triton)),
)}


def family(name: str) -> KernelFamily:
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown kernel family {name!r} (known: {', '.join(FAMILIES)})") from None
