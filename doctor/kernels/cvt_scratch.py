"""Scratch bytes of a `convert_layout` through shared memory, as Triton's NVIDIA backend sizes it.

Triton (>= 3.5, third_party/nvidia/.../Allocation.cpp: getNumScratchElemsSwizzledCvt, and
lib/Tools/GenericSwizzling.cpp: optimalSwizzling) lays the converted tensor out in shared memory
as vector, bank and segment bases of the flattened element index, choosing among the shared
access instructions the target has (ld/st.shared; ldmatrix from sm_75, stmatrix from sm_90) the
pair with the fewest bank conflicts. Segment bases that are registers on both sides become
"reps": the tensor moves through the buffer in that many rounds, so the scratch holds
2**bits / 2**reps elements. This module replays that choice on `layouts.Layout`s.
"""

from __future__ import annotations

from dataclasses import dataclass

from .layouts import Layout, flat, total_log2
from .padded_cvt import looks_like_mma, padded_scratch_elements


@dataclass(frozen=True)
class Tile:
    """LocalMemOpTile: lanes that must hold contiguous data, lanes that carry addresses."""

    contig: tuple[int, ...]
    addr: tuple[int, ...]


LDST = Tile((), (0, 1, 2))
MATRIX = Tile((0, 1), (2, 3, 4))
MATRIX_TRANS = Tile((2, 3, 4), (0, 1))


def _log2(x: int) -> int:
    return max(0, x.bit_length() - 1)


def _rank(vectors: list[int]) -> int:
    rows: list[int] = []
    for v in vectors:
        for r in rows:
            v = min(v, v ^ r)
        if v:
            rows.append(v)
    return len(rows)


def _intersection_size(a: list[int], b: list[int]) -> int:
    a, b = [x for x in a if x], [x for x in b if x]
    return _rank(a) + _rank(b) - _rank(a + b)


def _intersection(a: list[int], b: list[int]) -> list[int]:
    """intersectionBasis for power-of-two bases: members of a also in b, in a's order."""
    members = set(b)
    return [x for x in a if x != 0 and x in members]


@dataclass(frozen=True)
class _Flat:
    """A layout flattened to one out dim, broadcast registers removed."""

    reg: list[int]
    lane: list[int]

    def locate(self, value: int) -> tuple[str, int] | None:
        """(in dim, basis index) whose basis is `value` (bases here are distinct powers of two)."""
        for name, bases in (("register", self.reg), ("lane", self.lane)):
            if value in bases:
                return name, bases.index(value)
        return None


def _flat(layout: Layout) -> _Flat:
    return _Flat([r for r in flat(layout, "register") if r], flat(layout, "lane"))


def src_dst_tiles(cc: int, bitwidth: int) -> tuple[list[Tile], list[Tile]]:
    """getSrcDstTiles: ld/st.shared everywhere, stmatrix (sm_90+) for the source, ldmatrix (sm_75+)
    for the destination."""
    src, dst = [LDST], [LDST]
    ld, st = cc >= 75, cc >= 90
    if bitwidth <= 32:
        src += [MATRIX] if st else []
        dst += [MATRIX] if ld else []
    if bitwidth == 16:
        src += [MATRIX_TRANS] if st else []
        dst += [MATRIX_TRANS] if ld else []
    return src, dst


def _swizzling_tile(a: _Flat, b: _Flat, n_reg_a: int, n_reg_b: int, lanes_a: tuple[int, ...],
                    lanes_b: tuple[int, ...]) -> list[int] | None:
    """optimalSwizzlingTile: vector bases shared by an instruction pair, or None."""
    if n_reg_a < n_reg_b:
        return _swizzling_tile(b, a, n_reg_b, n_reg_a, lanes_b, lanes_a)
    vbasis = _intersection(a.reg, b.reg)
    if len(vbasis) < n_reg_b:
        return None
    vbasis = vbasis[:n_reg_b]
    tile_a = [a.lane[i] for i in lanes_a]
    tile_b = [b.lane[i] for i in lanes_b]
    if any(x == 0 for x in tile_a + tile_b):
        return None
    for i in range(n_reg_a - n_reg_b):  # the first lanes of b must be registers of a
        where = a.locate(b.lane[lanes_b[i]])
        if where is None or where[0] != "register":
            return None
    for idx_a, idx_b in zip(lanes_a, lanes_b[len(lanes_b) - len(lanes_a):], strict=True):
        if a.locate(b.lane[idx_b]) != ("lane", idx_a):
            return None
    return vbasis + tile_b


def _segment(bank_src: list[int], bank_dst: list[int], dim: int, length: int) -> list[int]:
    """computeSegment: bits in neither bank tile first, then conflict-free XORs."""
    set_src, set_dst = set(bank_src) - {0}, set(bank_dst) - {0}
    segment = [1 << b for b in range(dim) if (1 << b) not in set_src and (1 << b) not in set_dst]
    if len(segment) >= length:
        return segment[:length]
    a = sorted(v for v in set_src if v not in set_dst)
    b = sorted(v for v in set_dst if v not in set_src)
    if len(a) > len(b):
        a, b = b, a
    conflicts = min(max(0, length - len(a) - len(segment)), len(a))
    segment += [a[i] ^ b[i] for i in range(conflicts, len(a))]
    segment += a[:conflicts] + b[:conflicts]
    return segment[:length]


@dataclass(frozen=True)
class _Smem:
    segment: list[int]  # segment bases left after the reps were split off
    reps: int


def _swizzle(src: _Flat, dst: _Flat, dim: int, bitwidth: int, vbasis: list[int], tile_src: list[int],
             tile_dst: list[int], leave_reps: int = 0) -> _Smem:
    """optimalSwizzling for given vector and lane tiles, with buildReps."""
    len_bank = min(_log2(1024 // ((1 << len(vbasis)) * bitwidth)), dim - len(vbasis))
    sbasis = _segment(vbasis + tile_src, vbasis + tile_dst, dim, dim - len_bank - len(vbasis))
    both = set(src.reg) & set(dst.reg)
    segment, reps = [], 0
    for s in sbasis:
        if s in both and leave_reps > 0:
            leave_reps -= 1
            segment.append(s)
        elif s in both:
            reps += 1
        else:
            segment.append(s)
    return _Smem(segment, reps)


def _vector_size(regs: list[int], vbasis: list[int]) -> int:
    for i, v in enumerate(vbasis):
        if not (i < len(regs) and regs[i] == v):
            return i
    return len(vbasis)


def _ld_st_vbasis(src: _Flat, dst: _Flat, bitwidth: int) -> list[int]:
    """getVbasis: registers both sides share, filled to a 32-bit bank word and widened to b32.v2/v4
    where the other side's lanes allow."""
    reg_src, reg_dst = list(src.reg), list(dst.reg)
    vbasis = _intersection(reg_src, reg_dst)[:_log2(128 // bitwidth)]
    per_bank = 0 if bitwidth > 32 else _log2(32 // bitwidth)
    max_extra = _log2(128 // max(bitwidth, 32))

    def after_bank0(regs: list[int], vb: list[int], other_lane: list[int]) -> list[int]:
        extra: list[int] = []
        for r in regs:
            if r in vb:
                continue
            if r in other_lane:
                extra.append(r)
            if len(extra) == max_extra:
                break
        return extra

    def fill(regs: list[int], vb: list[int]) -> list[int]:
        return vb + [regs[i] for i in range(len(vb), min(per_bank, len(regs)))]

    vec_src = True
    if (1 << len(vbasis)) * bitwidth < 32:
        src_prefix = reg_src[:len(vbasis)] == vbasis
        dst_prefix = reg_dst[:len(vbasis)] == vbasis
        if vbasis and not src_prefix and not dst_prefix:
            reg_src = vbasis + [r for r in reg_src if r not in vbasis]
            reg_dst = vbasis + [r for r in reg_dst if r not in vbasis]
            src_prefix = dst_prefix = True
        if src_prefix and dst_prefix:
            src_prefix = len(after_bank0(reg_src, fill(reg_src, vbasis), dst.lane)) >= \
                len(after_bank0(reg_dst, fill(reg_dst, vbasis), src.lane))
        vec_src = src_prefix
        vbasis = fill(reg_src if vec_src else reg_dst, vbasis)
    regs, other = (reg_src, dst.lane) if vec_src else (reg_dst, src.lane)
    return vbasis + after_bank0(regs, vbasis, other)


def _ld_st(src: _Flat, dst: _Flat, dim: int, bitwidth: int) -> _Smem:
    """optimalSwizzlingLdSt: plain ld/st.shared when no instruction pair vectorises fully."""
    vbasis = _ld_st_vbasis(src, dst, bitwidth)
    tiles = []
    for regs, lanes in ((src.reg, list(src.lane)), (dst.reg, list(dst.lane))):
        size = _vector_size(regs, vbasis)
        if (1 << size) * bitwidth > 32:
            del lanes[len(lanes) - _log2((1 << size) * bitwidth // 32):]
        tiles.append([b for b in lanes if b not in vbasis])
    return _swizzle(src, dst, dim, bitwidth, vbasis, tiles[0], tiles[1])


def _instruction_tile(tile: Tile, regs: list[int], lanes: list[int], vbasis: list[int]) -> list[int] | None:
    needed = 3 - len(tile.addr)
    picked = [r for r in regs if r not in vbasis][:needed]
    if len(picked) < needed:
        return None
    return picked + [lanes[i] for i in tile.addr]


def reps_log2(src: Layout, dst: Layout, bitwidth: int, cc: int, leave_reps: bool = True) -> int:
    """log2 of the rounds `convert_layout(src -> dst)` makes through its shared tile.

    leave_reps: keep two rep bases out of the reps for ldmatrix/stmatrix pairs (Triton >= 3.6;
    3.5 counts them as reps)."""
    a, b, dim = _flat(src), _flat(dst), total_log2(src)
    total = _log2(128 // bitwidth)
    src_tiles, dst_tiles = src_dst_tiles(cc, bitwidth)
    candidates: list[tuple[int, int]] = []
    for ts in src_tiles:
        for td in dst_tiles:
            vbasis = _swizzling_tile(a, b, total - len(ts.contig), total - len(td.contig), ts.contig, td.contig)
            if vbasis is None:
                continue
            tile_src = _instruction_tile(ts, a.reg, a.lane, vbasis)
            tile_dst = _instruction_tile(td, b.reg, b.lane, vbasis)
            if tile_src is None or tile_dst is None:
                continue
            leave = min(len(ts.contig) + len(ts.addr) - 3, len(td.contig) + len(td.addr) - 3) if leave_reps else 0
            smem = _swizzle(a, b, dim, bitwidth, vbasis, tile_src, tile_dst, leave)
            conflicts = (1 << _intersection_size(smem.segment, tile_src)) + \
                (1 << _intersection_size(smem.segment, tile_dst)) - 2
            candidates.append((conflicts, -smem.reps))
    if not candidates:
        return _ld_st(a, b, dim, bitwidth).reps
    return -min(candidates)[1]


def needs_shared(src: Layout, dst: Layout) -> bool:
    """cvtNeedsSharedMemory: False when only registers move (same lanes and warps), or when the
    warps hold the same data and the lane exchange is a warp shuffle of at most one
    register<->lane transposition (getWarpLayoutConvertDecomposition). Triton 3.9 also skips
    shared memory for some conversions out of warp-broadcast layouts; those are counted here
    (a small scratch counted high, never low)."""
    if flat(src, "warp") != flat(dst, "warp"):
        return True
    lane_src, lane_dst = flat(src, "lane"), flat(dst, "lane")
    if lane_src == lane_dst:
        return False
    reg_src, reg_dst = set(flat(src, "register")) - {0}, set(flat(dst, "register")) - {0}
    mixed = max(len(reg_src & set(lane_dst)), len(set(lane_src) & reg_dst))
    return mixed >= 2


def scratch_bytes(src: Layout, dst: Layout, bitwidth: int, cc: int, triton: tuple[int, int] = (3, 9)) -> int:
    """Bytes of shared memory `convert_layout(src -> dst)` allocates as scratch (0 if none); before
    Triton 3.5 a padded tile (padded_cvt), from 3.5 the swizzled layout above. bitwidth 1: an i1 tensor
    (a byte per element in shared memory; before 3.5 its vector accesses are clamped by the 1 bit)."""
    if not needs_shared(src, dst):
        return 0
    if triton < (3, 5):
        elements = padded_scratch_elements(src, dst, bitwidth, looks_like_mma(src), looks_like_mma(dst))
        return elements * max(bitwidth, 8) // 8
    bitwidth = max(bitwidth, 8)
    elements = 1 << (total_log2(src) - reps_log2(src, dst, bitwidth, cc, triton >= (3, 6)))
    return elements * bitwidth // 8


def ldst_scratch_elements(src: Layout, dst: Layout, bitwidth: int) -> int:
    """Elements of the generic (ld/st.shared only) conversion scratch: getNumScratchElemsSwizzledCvt
    as reductions use it."""
    a, b, dim = _flat(src), _flat(dst), total_log2(src)
    return 1 << (dim - _ld_st(a, b, dim, bitwidth).reps)
