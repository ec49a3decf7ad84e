"""The kernel families the estimators size, by name. A family is a Triton kernel's source shape (what it
keeps in shared memory per tile); engines map their launches onto these names and never the other way.

`estimate(arch, params)` takes a job in the launch vocabulary of doctor.kernels.exact_launch (the same
params dict an exact compile takes), so the closed form and the compile answer the same question."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .arch import Arch
from .attention_smem import decode_attention_smem, extend_attention_smem, prefill_attention_smem
from .moe_smem import fused_moe_smem


@dataclass(frozen=True)
class KernelFamily:
    """A family of Triton kernels and its shared-memory estimator."""

    name: str
    description: str
    estimate: Callable[[Arch, Mapping[str, Any], str | None], int]


def _fused_moe(arch: Arch, params: Mapping[str, Any], triton: str | None) -> int:
    c = params["config"]
    return fused_moe_smem(arch, params["dtype"], c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"],
                          c.get("GROUP_SIZE_M", 1), c.get("num_warps", 4), c.get("num_stages", 3),
                          params.get("per_channel", False), params.get("block_shape"), triton=triton)


def _without(keys: tuple[str, ...], params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in keys}


FAMILIES: dict[str, KernelFamily] = {f.name: f for f in (
    KernelFamily("fused_moe", "grouped GEMM of the MoE experts (up and down projections)", _fused_moe),
    KernelFamily("extend_attention", "prefill attention over a cached prefix (MLA and GQA)",
                 lambda arch, p, triton: extend_attention_smem(arch, **p)),
    KernelFamily("decode_attention", "decode attention, stage 1 (grouped or MHA)",
                 lambda arch, p, triton: decode_attention_smem(arch, **_without(("kv_group",), p))),
    KernelFamily("prefill_attention", "context attention without a prefix (vision towers, prefill)",
                 lambda arch, p, triton: prefill_attention_smem(arch, **_without(("kv_group",), p))),
)}


def family(name: str) -> KernelFamily:
    try:
        return FAMILIES[name]
    except KeyError:
        raise ValueError(f"unknown kernel family {name!r} (known: {', '.join(FAMILIES)})") from None
