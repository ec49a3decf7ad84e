"""The register layouts Triton picks for the tensors of the engines' Triton kernels, as linear layouts.

Accumulators (mma.sync v2, wgmma v3, tcgen05 read back from tensor memory), the blocked layouts
the coalescing pass gives stores and gathers, and their slices. Sources: Triton's
AccelerateMatmul (warpsPerTileV2/V3, mmaVersionToInstrShape), Coalesce and the TMEM load layouts
(getTmemCompatibleLayout), cross-checked against the layouts in compiled modules.
"""

from __future__ import annotations

from . import layouts as ll


def _log2(x: int) -> int:
    return max(0, x.bit_length() - 1)


def warps_v2(m: int, n: int, warps: int, chained: bool = False) -> tuple[int, int]:
    """warpsPerTileV2 for an mma.sync dot of shape [m, n]: balance the 16x8 tiles per warp,
    ties to M; a chained dot (attention) puts every warp on the longer side."""
    if chained:
        return (warps, 1) if m >= n else (1, warps)
    wm = wn = 1
    rep_m, rep_n = max(1, m // 16), max(1, n // 8)
    while wm * wn < warps:
        if rep_m >= rep_n:
            wm *= 2
            rep_m = rep_m // 2 if rep_m != 1 else 1
        else:
            wn *= 2
            rep_n //= 2
    return wm, wn


def warps_v3(m: int, warps: int, chained: bool = False) -> tuple[int, int]:
    """warpsPerTileV3: all warps along M for chained dots (attention), else warp groups of 4
    along M while M exceeds them, then along N."""
    if chained:
        return warps, 1
    wm, wn = 4, 1
    while wm * wn < warps:
        if m > 16 * wm:
            wm *= 2
        else:
            wn *= 2
    return wm, wn


_WGMMA_N = tuple(range(256, 7, -8))
_WGMMA_N_INT8 = (224, 208, 192, 176, 160, 144, 128, 112, 96, 80, 64, 48, 32, 24, 16, 8)


def wgmma_instr_n(m: int, n: int, warps: int, int8: bool = False) -> int:
    """mmaVersionToInstrShape (v3): the largest valid N dividing the tile within a warp's share."""
    m_warps = max(m // 16, 1)
    n_warps = max(warps // m_warps, 1)
    most = max(n // n_warps, 8)
    return next((size for size in (_WGMMA_N_INT8 if int8 else _WGMMA_N) if n % size == 0 and size <= most), 8)


def mma_acc(shape: tuple[int, int], warps: int, kind: str, int8: bool = False,
            chained: bool = False) -> ll.Layout:
    """Accumulator layout of a dot of `shape` computed with `kind` (mma, wgmma, tcgen05)."""
    m, n = shape
    if kind == "wgmma":
        return ll.mma(shape, warps_v3(m, warps, chained), 3, wgmma_instr_n(m, n, warps, int8))
    if kind == "tcgen05":
        return tmem_load(shape, warps)
    return ll.mma(shape, warps_v2(m, n, warps), 2)


def tmem_load(shape: tuple[int, int], warps: int) -> ll.Layout:
    """Registers an accumulator is read into from tensor memory: a row per lane (M >= 128) or
    per lane pair (M = 64); warps along M up to the rows, the rest split the columns."""
    m, n = shape
    if m >= 128:
        wm = min(warps, m // 32)
        return ll.blocked(shape, (1, n // (warps // wm)), (32, 1), (wm, warps // wm), (0, 1))
    return ll.blocked(shape, (1, n // (2 * (warps // 4))), (16, 2), (4, warps // 4), (0, 1))


def transposed(layout: ll.Layout) -> ll.Layout:
    """tl.trans of a 2-D layout: the coordinates swap."""
    bases = tuple((d, tuple((b[1], b[0]) for b in bs)) for d, bs in layout.bases)
    return ll.Layout(bases, (("dim0", layout.outs[1][1]), ("dim1", layout.outs[0][1])))


def coalesced(shape: tuple[int, ...], warps: int, elem_bits: int, contig: int | None = None,
              order: tuple[int, ...] | None = None, over: tuple[int, ...] | None = None) -> ll.Layout:
    """The blocked layout Triton's coalescing pass gives a load/store of `shape` contiguous along
    order[0]: up to 128 bits per thread, threads then warps along the contiguous dim first.
    `over`: lay that encoding over another shape (a slice's parent with a dim of size 1)."""
    spt, tpw, wpc, order = coalesced_params(shape, warps, elem_bits, contig, order)
    return ll.blocked(over or shape, spt, tpw, wpc, order)


def coalesced_params(shape: tuple[int, ...], warps: int, elem_bits: int, contig: int | None = None,
                     order: tuple[int, ...] | None = None):
    rank = len(shape)
    order = order or tuple(reversed(range(rank)))
    total = 1
    for size in shape:
        total *= size
    per = max(1, min(128 // elem_bits, contig or shape[order[0]], total // (32 * warps)))
    spt = [1] * rank
    spt[order[0]] = per
    return blocked_params(shape, tuple(spt), warps, order)


def default_blocked(shape: tuple[int, ...], spt: tuple[int, ...], warps: int,
                    order: tuple[int, ...]) -> ll.Layout:
    """BlockedEncodingAttr::get: fill threads, then warps, along `order`."""
    return ll.blocked(shape, *blocked_params(shape, spt, warps, order))


def blocked_params(shape: tuple[int, ...], spt: tuple[int, ...], warps: int, order: tuple[int, ...]):
    rank = len(shape)
    tpw, wpc = [1] * rank, [1] * rank
    left = 32
    for i, d in enumerate(order):
        take = left if i == rank - 1 else max(1, min(left, shape[d] // spt[d]))
        tpw[d], left = take, left // take
    left = warps
    for i, d in enumerate(order):
        room = max(1, shape[d] // (spt[d] * tpw[d]))
        take = left if i == rank - 1 else max(1, min(left, room))
        wpc[d], left = take, left // take
    return spt, tuple(tpw), tuple(wpc), order


def vector_layout(length: int, warps: int, per_thread: int = 1) -> ll.Layout:
    """1-D blocked layout of a vector: `per_thread` consecutive elements per thread (capped by
    the length over the threads), lanes then warps."""
    spt = max(1, min(per_thread, length // (32 * warps)))
    return ll.blocked((length,), (spt,), (32,), (warps,), (0,))


def dot_operand_b(shape: tuple[int, int], warps_mn: tuple[int, int], k_width: int) -> ll.Layout:
    """mma.sync B operand [K, N]: k_width consecutive K per register, 4 lanes along K, 8 along
    N, a second K half in registers; warps along N (the A side's warps broadcast)."""
    names = ll.dims(2)
    tile = ll.Layout((("register", ()),), (("dim0", 1), ("dim1", 1)))
    for part in (ll.identity1d(k_width, "register", names[0]), ll.identity1d(4, "lane", names[0]),
                 ll.identity1d(8, "lane", names[1]), ll.identity1d(2, "register", names[0])):
        tile = ll.product(tile, part)
    warps = ll.product(ll.zeros1d(warps_mn[0], "warp", names[0]), ll.identity1d(warps_mn[1], "warp", names[1]))
    return ll.with_shape(ll.product(tile, ll.transpose_outs(warps, tile.out_names)), shape)
