"""One entry point for both methods, in the launch vocabulary of `exact_launch` (params dicts)."""

from __future__ import annotations

from typing import Any

from .arch import Arch, arch_name, cc_int, parse_arch, smem_limit
from .attention_smem import decode_attention_smem, extend_attention_smem, prefill_attention_smem
from .exact_launch import default_swap_ab, uses_gptq_awq
from .moe_smem import fused_moe_smem, gptq_awq_smem
from .result import SmemResult


def analytic(kernel: str, cc: str | int | Arch, params: dict[str, Any], triton: str | None = None,
             sglang: str | None = None) -> int:
    """Closed-form bytes for a job described the way `exact_launch.build` takes it."""
    arch = parse_arch(cc)
    if kernel == "fused_moe":
        return _fused_moe(arch, params, triton)
    if kernel == "extend_attention":
        return extend_attention_smem(arch, **params, triton=triton, sglang=sglang)
    if kernel == "decode_attention":
        return decode_attention_smem(arch, **{k: v for k, v in params.items() if k != "kv_group"}, triton=triton,
                                     sglang=sglang)
    if kernel == "prefill_attention":
        return prefill_attention_smem(arch, **{k: v for k, v in params.items() if k != "kv_group"}, triton=triton)
    raise ValueError(f"unknown kernel {kernel!r}")


def _fused_moe(arch: Arch, params: dict[str, Any], triton: str | None) -> int:
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


def result(kernel: str, cc: str | int | Arch, nbytes: int, method: str) -> SmemResult:
    arch = parse_arch(cc)
    limit = smem_limit(arch)
    return SmemResult(kernel, arch_name(arch), int(nbytes), limit, nbytes <= limit, method)


def target(cc: str | int | Arch) -> int:
    return cc_int(parse_arch(cc))
