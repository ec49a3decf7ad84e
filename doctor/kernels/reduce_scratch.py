"""Scratch of a `tt.reduce` across warps, as Triton sizes it.

Up to Triton 3.7 (ReduceOpHelper::getScratchRepShape) a reduction whose warps split the reduced
axis keeps one partial result per warp: the shape with the axis replaced by that warp count.
Triton 3.8 and later reduce in registers and lanes first, then moves the warp bases of the axis into
free lanes with layout conversions (getInterLayout) and sizes the scratch as the largest of
those conversions (getNumScratchElemsSwizzledCvt with ld/st.shared only).
"""

from __future__ import annotations

from . import layouts as ll
from .cvt_scratch import ldst_scratch_elements

Bases = dict[str, list[list[int]]]


def _bases(layout: ll.Layout) -> Bases:
    return {d: [list(b) for b in bs] for d, bs in layout.bases}


def _layout(bases: Bases, outs: tuple[str, ...], axis: int) -> ll.Layout:
    size = {name: 1 for name in outs}
    for basis_list in bases.values():
        for b in basis_list:
            for i, name in enumerate(outs):
                size[name] = max(size[name], b[i] * 2)
    return ll.Layout(tuple((d, tuple(tuple(b) for b in bs)) for d, bs in bases.items()),
                     tuple((name, size[name]) for name in outs))


def _zero_and_reindex(bases: Bases, axis: int, in_dim: str) -> Bases:
    """zeroBasesAlongDimAndReorder: drop `in_dim`'s share of the axis, renumber what remains."""
    out = {d: [list(b) for b in bs] for d, bs in bases.items()}
    for b in out.get(in_dim, []):
        b[axis] = 0
    step = 1
    for basis_list in out.values():
        for b in basis_list:
            if b[axis]:
                b[axis], step = step, step * 2
    return out


def _no_broadcast_regs(bases: Bases) -> Bases:
    out = dict(bases)
    out["register"] = [b for b in bases.get("register", []) if any(b)]
    return out


def _axis_first(bases: Bases, axis: int) -> Bases:
    regs = bases.get("register", [])
    out = dict(bases)
    out["register"] = [b for b in regs if b[axis]] + [b for b in regs if not b[axis]]
    return out


def _inter_layout(bases: Bases, axis: int) -> Bases:
    """getInterLayout: move the warp bases along the axis into lanes (free ones first)."""
    out = {d: [list(b) for b in bs] for d, bs in bases.items()}
    lanes, warps = out["lane"], out.get("warp", [])
    axis_warps = [i for i, b in enumerate(warps) if b[axis]]
    free = [i for i, b in enumerate(lanes) if not any(b)]
    targets = free if len(free) >= len(axis_warps) else list(range(len(lanes)))
    for lane, warp in zip(targets, axis_warps, strict=False):
        lanes[lane], warps[warp] = warps[warp], lanes[lane]
    return out


def reduce_scratch_bytes(layout: ll.Layout, axis: int, bits: int, triton: tuple[int, int]) -> int:
    """Bytes of shared memory a reduction of `layout`'s tensor along `axis` allocates."""
    if not any(b[axis] for b in layout.get("warp")):
        return 0
    if triton < (3, 8):
        kept = 1
        for i, (_, size) in enumerate(layout.outs):
            kept *= size if i != axis else 1
        warps = sum(1 for b in layout.get("warp") if b[axis])
        return kept * (1 << warps) * max(bits, 8) // 8
    outs = layout.out_names
    reg = _zero_and_reindex(_no_broadcast_regs(_axis_first(_no_broadcast_regs(_bases(layout)), axis)),
                            axis, "register")
    reg = _zero_and_reindex(_no_broadcast_regs(reg), axis, "lane")
    largest = 0
    while _layout(reg, outs, axis).outs[axis][1] > 1:
        tmp = _inter_layout(reg, axis)
        elements = ldst_scratch_elements(_layout(reg, outs, axis), _layout(tmp, outs, axis), bits)
        largest = max(largest, elements * max(bits, 8) // 8)
        reg = _zero_and_reindex(tmp, axis, "lane")
    return largest
