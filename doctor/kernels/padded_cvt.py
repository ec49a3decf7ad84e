"""Scratch of a `convert_layout` as Triton before 3.5 sizes it: a padded rectangular tile.

Triton 3.4 (lib/Analysis/Allocation.cpp: getRepShapeForCvt, getScratchConfigForCvt) moves the
tensor through shared memory one "rep" at a time: a tile as large, per dimension, as the larger of
what one pass of the source and of the destination layout covers (getShapePerCTATile, capped at the
tensor). Unless only one dimension is longer than 1, the fastest dimension of the destination is
padded by the wider of the two vector accesses to avoid bank conflicts. Sizes come from the linear
layouts' bases the way LinearEncodingAttr derives sizePerThread, threadsPerWarp and warpsPerCTA.
"""

from __future__ import annotations

from math import prod

from .layouts import Layout


def _dim_of(basis: tuple[int, ...]) -> int | None:
    return next((i for i, v in enumerate(basis) if v), None)


def _per_dim(bases: list[tuple[int, ...]], rank: int) -> list[int]:
    """basesPerDim: 2 per non-broadcast basis along its dimension."""
    out = [1] * rank
    for b in bases:
        d = _dim_of(b)
        if d is not None:
            out[d] *= 2
    return out


def _size_per_thread(layout: Layout) -> list[int]:
    """Registers of one pass: the trailing repeat bases stripped (LinearEncodingAttr::getSizePerThread)."""
    regs = list(layout.get("register"))
    cta = [size for _, size in layout.outs]
    seen: list[int] = []
    while regs:
        d = _dim_of(regs[-1])
        if d is None:
            break
        if d not in seen:
            seen.append(d)
        if d != seen[-1] or 2 * regs[-1][d] != cta[d]:
            break
        cta[d] //= 2
        regs.pop()
    return _per_dim(regs, len(cta))


def shape_per_tile(layout: Layout) -> list[int]:
    rank = len(layout.outs)
    spt = _size_per_thread(layout)
    lanes = _per_dim(list(layout.get("lane")), rank)
    warps = _per_dim(list(layout.get("warp")), rank)
    return [a * b * c for a, b, c in zip(spt, lanes, warps, strict=True)]


def order(layout: Layout) -> list[int]:
    """LinearEncodingAttr::getOrder: dimensions as the registers walk them, the rest from the last."""
    rank = len(layout.outs)
    out: list[int] = []
    for b in layout.get("register"):
        d = _dim_of(b)
        if d is not None and d not in out:
            out.append(d)
    return out + [d for d in reversed(range(rank)) if d not in out]


def contig_per_thread(layout: Layout) -> list[int]:
    rank = len(layout.outs)
    contig = [1] * rank
    regs = list(layout.get("register"))
    i = 0
    for d in order(layout):
        step = 1
        while i < len(regs) and _dim_of(regs[i]) == d and regs[i][d] == step and sum(map(bool, regs[i])) == 1:
            contig[d] *= 2
            step *= 2
            i += 1
    return contig


# an mma.sync / wgmma accumulator: 2 registers along the row, then 8 rows down; 4 lanes along the
# row, 8 down the column
_MMA_REGISTERS = ((0, 1), (8, 0))
_MMA_LANES = ((0, 2), (0, 4), (1, 0), (2, 0), (4, 0))


def looks_like_mma(layout: Layout) -> bool:
    """An NVIDIA MMA layout, which has no order of its own: the conversion takes the other side's."""
    return tuple(layout.get("lane")) == _MMA_LANES and tuple(layout.get("register"))[:2] == _MMA_REGISTERS


def padded_scratch_elements(src: Layout, dst: Layout, bitwidth: int, src_is_mma: bool = False,
                            dst_is_mma: bool = False) -> int:
    shape = [size for _, size in src.outs]
    rank = len(shape)
    tile_src, tile_dst = shape_per_tile(src), shape_per_tile(dst)
    rep = [max(min(s, a), min(s, b)) for s, a, b in zip(shape, tile_src, tile_dst, strict=True)]
    in_ord = order(dst) if src_is_mma else order(src)
    out_ord = order(dst)  # an mma destination walks its rows first: padding goes on its columns
    inner = rank - 1
    src_contig = contig_per_thread(src)[in_ord[0]]
    dst_contig = contig_per_thread(dst)[out_ord[0]]
    in_vec = 1 if out_ord[0] != inner or in_ord[0] != inner else src_contig
    out_vec = 1 if out_ord[0] != inner else dst_contig
    if src_is_mma and not dst_is_mma:
        out_vec = dst_contig
    widest = 128 // bitwidth  # one 128-bit access; an i1 (bitwidth 1) is not clamped at 16
    in_vec, out_vec = (min(v, rep[out_ord[0]], widest) for v in (in_vec, out_vec))
    if rank <= 1 or prod(rep) == rep[out_ord[0]]:
        return prod(rep)
    rep[out_ord[0]] += max(in_vec, out_vec)
    return prod(rep)
