"""Check tuned fused-MoE config JSONs against a target, and generate ones that fit.

People copy H100 JSONs (227 KB of smem per block) to SM12x boxes (99 KB); every entry is
checked, since the engine picks the entry nearest to the live batch size.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .arch import Arch, parse_arch, smem_limit
from .moe_smem import fused_moe_smem
from .moe_tuned import TUNED_BATCH_SIZES, launch_config, load_configs


class EntryCheck(NamedTuple):
    M: int
    config: dict[str, int]
    bytes: int
    fits: bool


def config_smem(cc: str | int | Arch, dtype: str, config: Mapping[str, Any], per_channel: bool = False,
                block_shape: Sequence[int] | None = None, triton: str | None = None) -> int:
    c = launch_config(config)
    return fused_moe_smem(cc, dtype, c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"],
                          c["GROUP_SIZE_M"], c["num_warps"], c["num_stages"], per_channel,
                          list(block_shape) if block_shape else None, triton=triton)


def check_moe_configs(configs: Mapping[int, Mapping[str, Any]], cc: str | int | Arch, dtype: str,
                      per_channel: bool = False, block_shape: Sequence[int] | None = None,
                      triton: str | None = None) -> list[EntryCheck]:
    limit = smem_limit(cc)
    rows = []
    for m in sorted(configs):
        config = launch_config(configs[m])
        nbytes = config_smem(cc, dtype, config, per_channel, block_shape, triton)
        rows.append(EntryCheck(m, config, nbytes, nbytes <= limit))
    return rows


def check_moe_config_file(path: str | os.PathLike[str], cc: str | int | Arch, dtype: str,
                          per_channel: bool = False, block_shape: Sequence[int] | None = None,
                          triton: str | None = None) -> list[EntryCheck]:
    """(M, config, bytes, fits) for every entry of a tuned-config JSON, by the closed form."""
    return check_moe_configs(load_configs(path), cc, dtype, per_channel, block_shape, triton)


def _pow2_at_least(x: float) -> int:
    p = 1
    while p < x:
        p *= 2
    return p


def _block_m(m: int, topk: int, experts: int) -> int:
    """Rows per expert tile: about the tokens each expert receives, 16..128."""
    per_expert = m * topk / max(1, experts)
    return min(128, max(16, _pow2_at_least(per_expert)))


def _candidates(m: int, bm: int, dtype: str, block_shape: Sequence[int] | None):
    """(BLOCK_N, BLOCK_K) from the preferred shape down: wide N tiles for large M (compute
    bound), long K tiles for small M (weight-bandwidth bound)."""
    narrow = dtype in ("bf16", "fp16", "int8_w8a16", "int4_w4a16")
    if block_shape:
        bk = block_shape[1]
        return [(bn, bk) for bn in (256, 128, 64) if bn % min(bn, block_shape[0]) == 0]
    if m <= 64:
        shapes = [(64, 256), (128, 128), (64, 128), (32, 128), (32, 64)]
    elif bm <= 64:
        shapes = [(128, 128), (128, 64), (64, 128), (64, 64), (32, 64)]
    else:
        shapes = [(256, 128), (128, 128), (256, 64), (128, 64), (64, 64), (32, 64)]
    if narrow:
        shapes = [(bn, min(bk, 128)) for bn, bk in shapes]
    return shapes


def safe_moe_entry(m: int, cc: str | int | Arch, dtype: str, experts: int, topk: int = 8,
                   per_channel: bool = False, block_shape: Sequence[int] | None = None,
                   triton: str | None = None, max_stages: int = 5) -> dict[str, int]:
    """The config for batch size m: the first candidate tile that fits with >= 2 stages, then
    as many stages (up to max_stages; 3 for small M where the K loop is short) as still fit."""
    arch = parse_arch(cc)
    limit = smem_limit(arch)
    bm = _block_m(m, topk, experts)
    warps = 8 if bm >= 128 else 4
    group = 1 if bm <= 16 else (16 if bm <= 64 else 32)
    top = max_stages if m >= 256 else min(max_stages, 4)
    for block_m in dict.fromkeys((bm, max(16, bm // 2), 16)):
        for bn, bk in _candidates(m, block_m, dtype, block_shape):
            for stages in range(top, 1, -1):
                config = {"BLOCK_SIZE_M": block_m, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                          "GROUP_SIZE_M": group, "num_warps": warps if block_m >= 128 else 4,
                          "num_stages": stages}
                if config_smem(arch, dtype, config, per_channel, block_shape, triton) <= limit:
                    return config
    raise ValueError(f"no fused-MoE config fits {limit} bytes on {cc}")


def generate_safe_moe_config(cc: str | int | Arch, E: int, N: int, K: int, dtype: str, topk: int = 8,
                             per_channel: bool = False, block_shape: Sequence[int] | None = None,
                             triton: str | None = None,
                             batch_sizes: Sequence[int] = TUNED_BATCH_SIZES) -> dict[str, dict[str, int]]:
    """A tuned-config table (JSON-ready: str keys) whose every entry fits `cc`.

    Heuristic per batch size M (not a tuner: a safe, sensible starting point):
      * BLOCK_M ~ tokens per expert (M * topk / E) rounded up to a power of two, 16..128;
      * small M (<= 64) prefers long K tiles (weight-bandwidth bound decode), larger M wider N
        tiles (256x128 for fp8/int8 at BLOCK_M 128, 128x64 for 16-bit weights);
      * 8 warps only for BLOCK_M 128; GROUP_SIZE_M 1 / 16 / 32 with BLOCK_M;
      * then the most pipeline stages (<= 4, or <= 5 from M 256) that fit; a tile that does
        not fit with 2 stages is replaced by the next smaller candidate.
    N and K are the layer's (w2 = [E, K, N]); the same entry serves both GEMMs, whose
    footprint depends only on the tile, so one check covers both.
    """
    del N, K
    return {str(m): safe_moe_entry(m, cc, dtype, E, topk, per_channel, block_shape, triton)
            for m in batch_sizes}
