"""Closed-form shared memory of the Triton `fused_moe_kernel` (the engines' fused MoE), per target arch.

Derived from compiles of the real kernel (see docs in bench/RESULTS-smem.md and smem.md §4.2):
  mma.sync (sm8x, sm12x; sm90/10x with small M tiles): cp.async ring of S-1 buffers per operand
  wgmma (sm90): S buffers; tcgen05 (sm10x): S buffers plus mbarriers.
The accumulator's layout conversion before the store needs scratch that reuses the ring, hence
max(ring, epilogue).
"""

from __future__ import annotations

from .arch import Arch, mma_kind, parse_arch

# bytes per element of the A (activation) and B (weight) tiles as loaded
_WIDTHS = {"bf16": (2, 2), "fp16": (2, 2), "float16": (2, 2), "bfloat16": (2, 2),
           "fp8_w8a8": (1, 1), "int8_w8a8": (1, 1), "int8_w8a16": (2, 1), "int4_w4a16": (2, 1)}


def _log2(x: int) -> int:
    return max(0, x.bit_length() - 1)


def _warps_v2(m: int, n: int, warps: int) -> tuple[int, int]:
    """Triton's warpsPerTileV2 for a lone mma.sync dot of shape [m, n]."""
    wm = wn = 1
    while wm * wn < warps:
        if m // 16 // wm >= n // 16 // wn:
            if wm < m // 16:
                wm *= 2
            else:
                wn *= 2
        else:
            wn *= 2
    return wm, wn


def epilogue_scratch(cc: Arch, bm: int, bn: int, warps: int, kind: str = "mma") -> int:
    """Scratch for convert_layout(mma accumulator -> coalesced store layout) of a bf16 tile.

    The conversion only needs to stage the row bits that are not register bits in both
    layouts; bits that are registers in both are iterated instead of stored.
    """
    wm = min(warps, max(1, bm // 16)) if kind == "wgmma" else _warps_v2(bm, bn, warps)[0]
    rows = _log2(bm)
    t_n = min(32, max(1, bn // 8))
    t_m = 32 // t_n
    mma_regs = {3} | set(range(4 + _log2(wm), rows))
    store_regs = set(range(_log2(t_m) + _log2(warps), rows))
    shared_bits = len({b for b in mma_regs & store_regs if b < rows})
    if cc[0] < 9:
        shared_bits = max(0, shared_bits - 2)
    return bm * bn * 2 >> shared_bits


def _ring(kind: str, cc: Arch, a: int, b: int, stages: int, warps: int, fp8: bool = False) -> int:
    if kind == "wgmma":
        return stages * (a + b)
    if kind == "tcgen05":
        return stages * (a + b) + (8 if stages == 1 else 16)
    if stages <= 1:
        # sm90/10x have no fp8 mma.sync: both tiles are upcast through one shared buffer
        return max(a, b) if fp8 and cc[0] in (9, 10) else a + b

    def copies(tile: int) -> int:
        return stages - 1 if tile // (32 * warps) >= 4 else 1

    return copies(a) * a + copies(b) * b


def _block_scale_extra(kind: str, bm: int, bn: int, warps: int) -> int:
    """Pipelined per-block scales (a_scale [BM], b_scale [BN] fp32) once a thread gets >= 1.

    mma/wgmma: measured as the larger of the two; tcgen05 varies with the layout, so both are
    counted there (at most 1.5 KiB high, never low).
    """
    threads = 32 * warps
    a_term = 4 * bm if bm >= threads else 0
    b_term = 4 * bn if bn > 128 and bn >= threads else 0
    if kind == "tcgen05":
        return 4 * bm + 4 * bn
    return max(a_term, b_term)


def fused_moe_smem(cc: str | int | Arch, dtype: str, block_m: int, block_n: int, block_k: int,
                   group_m: int, num_warps: int, num_stages: int, per_channel: bool = False,
                   block_shape: list[int] | tuple[int, int] | None = None,
                   triton: str | None = None) -> int:
    """Bytes of shared memory `fused_moe_kernel` needs for one config on `cc`.

    dtype uses the kernel's config names: bf16/fp16, fp8_w8a8, int8_w8a8, int8_w8a16, int4_w4a16.
    group_m and per_channel do not change the footprint (the scales are loaded outside the
    K loop) but are accepted so a tuned-config entry can be passed through as is.
    triton: compiler version if known. Triton >= 3.9 runs int8 dots on tcgen05 for sm10x;
    without a version the larger of both answers is returned.
    """
    del group_m, per_channel
    arch = parse_arch(cc)
    if dtype not in _WIDTHS:
        raise ValueError(f"unknown fused-MoE dtype {dtype!r}")
    if dtype == "int4_w4a16":
        return _gptq_awq_smem(arch, block_m, block_n, block_k, num_warps, num_stages)
    wa, wb = _WIDTHS[dtype]
    int8 = dtype == "int8_w8a8"
    if int8 and arch[0] == 10 and mma_kind(arch, block_m, num_warps) == "tcgen05":
        old = _moe(arch, "mma", dtype, wa, wb, block_m, block_n, block_k, num_warps, num_stages,
                   block_shape)
        new = _moe(arch, "tcgen05", dtype, wa, wb, block_m, block_n, block_k, num_warps,
                   num_stages, block_shape)
        if triton is None:
            return max(old, new)
        return new if _version(triton) >= (3, 9) else old
    kind = mma_kind(arch, block_m, num_warps, int8=int8)
    return _moe(arch, kind, dtype, wa, wb, block_m, block_n, block_k, num_warps, num_stages,
                block_shape)


def _version(text: str) -> tuple[int, int]:
    major, minor = [*text.split("."), "0"][:2]
    return int(major), int(minor)


def _moe(cc: Arch, kind: str, dtype: str, wa: int, wb: int, bm: int, bn: int, bk: int,
         warps: int, stages: int, block_shape) -> int:
    a, b = bm * bk * wa, bk * bn * wb
    if dtype == "int8_w8a16" and kind in ("wgmma", "tcgen05"):
        # the int8 tile is widened to bf16 in registers and re-stored for the async MMA
        ring = stages * a + (stages - 1) * b + bk * bn * 2
        ring += 0 if kind == "wgmma" else (8 if stages == 1 else 16)
    else:
        ring = _ring(kind, cc, a, b, stages, warps, fp8=dtype == "fp8_w8a8")
    if dtype == "fp8_w8a8" and block_shape is not None and all(block_shape) and stages >= 2:
        ring += _block_scale_extra(kind, bm, bn, warps)
    if kind == "tcgen05":
        return ring
    return max(ring, epilogue_scratch(cc, bm, bn, warps, kind))


def _gptq_awq_smem(cc: Arch, bm: int, bn: int, bk: int, warps: int, stages: int) -> int:
    """`fused_moe_kernel_gptq_awq` (int4_w4a16): the packed weights are dequantised in
    registers, so only A is ring-buffered; B lands in shared memory once, as bf16.
    tcgen05 is bounded with 1 KiB for barriers and padding (not measured)."""
    a, b = bm * bk * 2, bk * bn * 2
    kind = mma_kind(cc, bm, warps)
    if kind == "mma":
        return max(stages - 1, 1) * a + b
    return stages * a + b + (1024 if kind == "tcgen05" else 0)
