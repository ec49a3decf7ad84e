"""Triton's distributed layouts as linear layouts over GF(2), and the scratch a conversion needs.

Triton (lib/Tools/LinearLayout.cpp, lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp) writes
every register layout as a linear map from (register, lane, warp) bits to tensor coordinates:
each input bit has a basis vector and an index maps to the XOR of the bases of its set bits.
A `convert_layout` that cannot be done in registers or with warp shuffles goes through shared
memory, and the scratch it needs (lib/Analysis/Allocation.cpp, getNumScratchElemsSwizzledCvt;
lib/Tools/GenericSwizzling.cpp) is the tensor divided by the number of "reps": bases that are
registers on both sides can be moved in successive rounds through a smaller buffer.

Only power-of-two shapes and single-CTA layouts occur in the kernels modelled here.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

Basis = tuple[int, ...]


def _log2(x: int) -> int:
    return max(0, x.bit_length() - 1)


@dataclass(frozen=True)
class Layout:
    """A linear layout: in-dim name -> bases (one coordinate per out dim); out dims with sizes."""

    bases: tuple[tuple[str, tuple[Basis, ...]], ...]
    outs: tuple[tuple[str, int], ...]

    def get(self, in_dim: str) -> tuple[Basis, ...]:
        return next((b for name, b in self.bases if name == in_dim), ())

    def out_size(self, out_dim: str) -> int:
        return next((size for name, size in self.outs if name == out_dim), 1)

    @property
    def out_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.outs)


def identity1d(size: int, in_dim: str, out_dim: str) -> Layout:
    return Layout(((in_dim, tuple((1 << i,) for i in range(_log2(size)))),), ((out_dim, max(size, 1)),))


def zeros1d(size: int, in_dim: str, out_dim: str) -> Layout:
    return Layout(((in_dim, tuple((0,) for _ in range(_log2(size)))),), ((out_dim, 1),))


def product(inner: Layout, outer: Layout) -> Layout:
    """Triton's `inner * outer`: outer's coordinates are shifted past inner's for shared out dims."""
    outs = list(inner.out_names) + [n for n in outer.out_names if n not in inner.out_names]
    size = {n: inner.out_size(n) * outer.out_size(n) for n in outs}

    def lift(layout: Layout, basis: Basis, scale: dict[str, int]) -> Basis:
        coords = dict(zip(layout.out_names, basis, strict=True))
        return tuple(coords.get(n, 0) * scale.get(n, 1) for n in outs)

    shift = {n: inner.out_size(n) for n in outer.out_names}
    in_dims = list(dict.fromkeys([n for n, _ in inner.bases] + [n for n, _ in outer.bases]))
    bases = tuple((d, tuple(lift(inner, b, {}) for b in inner.get(d))
                   + tuple(lift(outer, b, shift) for b in outer.get(d))) for d in in_dims)
    return Layout(bases, tuple((n, size[n]) for n in outs))


def transpose_outs(layout: Layout, order: tuple[str, ...]) -> Layout:
    index = [layout.out_names.index(n) for n in order]
    bases = tuple((d, tuple(tuple(b[i] for i in index) for b in bs)) for d, bs in layout.bases)
    return Layout(bases, tuple((n, layout.out_size(n)) for n in order))


def dims(rank: int) -> tuple[str, ...]:
    return tuple(f"dim{i}" for i in range(rank))


def identity_nd(in_dim: str, shape: tuple[int, ...], order: tuple[int, ...]) -> Layout:
    """identityStandardND: bases along order[0] first; out dims in the order they appear."""
    names = dims(len(shape))
    out = Layout(((in_dim, ()),), ())
    for d in order:
        out = product(out, identity1d(shape[d], in_dim, names[d]))
    return out


def _not_smaller(layout: Layout, shape: dict[str, int]) -> Layout:
    first = layout.bases[0][0]
    for name in layout.out_names:
        actual, wanted = layout.out_size(name), shape[name]
        if wanted > actual:
            layout = product(layout, identity1d(wanted // actual, first, name))
    return layout


def _not_larger(layout: Layout, shape: dict[str, int]) -> Layout:
    """Bases pointing at or past the shape become zero (broadcast), largest first."""
    bases = {d: [list(b) for b in bs] for d, bs in layout.bases}
    outs = []
    for i, name in enumerate(layout.out_names):
        actual, wanted = layout.out_size(name), shape[name]
        outs.append((name, min(actual, wanted)))
        if actual <= wanted:
            continue
        for basis_list in bases.values():
            for b in basis_list:
                if b[i] >= wanted:
                    b[i] = 0
    return Layout(tuple((d, tuple(tuple(b) for b in bs)) for d, bs in bases.items()), tuple(outs))


def with_shape(cta: Layout, shape: tuple[int, ...]) -> Layout:
    """combineCtaCgaWithShape for one CTA: repeat in registers or broadcast to fit `shape`."""
    names = dims(len(shape))
    wanted = dict(zip(names, shape, strict=True))
    cta = _not_larger(_not_smaller(cta, wanted), wanted)
    return transpose_outs(cta, names)


@functools.lru_cache(maxsize=4096)
def blocked(shape: tuple[int, ...], spt: tuple[int, ...], tpw: tuple[int, ...], wpc: tuple[int, ...],
            order: tuple[int, ...]) -> Layout:
    cta = product(product(identity_nd("register", spt, order), identity_nd("lane", tpw, order)),
                  identity_nd("warp", wpc, order))
    return with_shape(cta, shape)


def _mma_tile(m: int, n: int, order: tuple[int, ...]) -> Layout:
    """nvidiaMmaTile with kWidth 2 for an [m, n] accumulator tile (order[0] the inner dim)."""
    names = dims(2)
    inner, outer = names[order[0]], names[order[1]]
    tile = Layout((("register", ()),), tuple((names[d], 1) for d in order))
    for part in (identity1d(2, "register", inner), identity1d(4, "lane", inner), identity1d(8, "lane", outer),
                 identity1d(m // 8, "register", outer), identity1d(n // 8, "register", inner)):
        tile = product(tile, part)
    return tile


@functools.lru_cache(maxsize=4096)
def mma(shape: tuple[int, int], warps: tuple[int, int], version: int = 2, instr_n: int = 8) -> Layout:
    """NVIDIA MMA accumulator: v2 (mma.sync, 16x8 tiles) or v3 (wgmma, 16 x instr_n per warp)."""
    tile = _mma_tile(16, instr_n if version == 3 else 8, (1, 0))
    warp_order = (0, 1) if version == 3 else (1, 0)
    cta = product(tile, transpose_outs(identity_nd("warp", warps, warp_order), tile.out_names))
    return with_shape(cta, shape)


def sliced(parent: Layout, dim: int) -> Layout:
    """SliceEncoding, given the parent laid over a shape of size 1 at `dim`: that dim dropped."""
    keep = [i for i in range(len(parent.outs)) if i != dim]
    names = dims(len(keep))
    bases = tuple((d, tuple(tuple(b[i] for i in keep) for b in bs)) for d, bs in parent.bases)
    return Layout(bases, tuple((names[j], parent.outs[i][1]) for j, i in enumerate(keep)))


def flat(layout: Layout, in_dim: str) -> list[int]:
    """Bases of one in-dim as flat indices (the first out dim most minor)."""
    strides, stride = [], 1
    for _, size in layout.outs:
        strides.append(stride)
        stride *= size
    return [sum(c * s for c, s in zip(b, strides, strict=True)) for b in layout.get(in_dim)]


def total_log2(layout: Layout) -> int:
    return sum(_log2(size) for _, size in layout.outs)
