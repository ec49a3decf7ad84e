"""Shared memory of the engines' Triton attention kernels, buffer by buffer (extend, decode, prefill).

Every kernel is a loop of two chained dots (qk = q @ k, acc += p @ v) over K/V tiles. The buffers:

* q (and the rope part qpe) as a dot operand, kept in shared memory for the whole kernel; the
  prefix loop of extend with an fp8 KV cache also keeps q converted for that loop;
* per loop: the k, kpe and v tiles (staged around their dot when the loop is not pipelined,
  ring slots live across the loop when it is), the probability tile p when it has to be
  re-laid out through shared memory, the cross-warp scratch of the row max / sum reductions,
  and on tcgen05 the MMA barriers and the conversions out of tensor memory;
* after the loop, the accumulator's conversion to the store layout.

The tensor-core path decides the shapes (`mma_kind`); layout conversions are sized by
`cvt_scratch` and everything is placed by `alloc`, Triton's allocator replayed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from . import layouts as ll
from . import triton_layouts as tl
from .alloc import Buffer, allocate, nvmma_alignment
from .arch import Arch, mma_kind, parse_arch
from .cvt_scratch import scratch_bytes
from .fp8 import native_fp8_mma
from .moe_smem import NEWEST, _version
from .reduce_scratch import reduce_scratch_bytes

_BITS = {"bf16": 16, "fp16": 16, "fp8": 8, "fp8_e4m3": 8, "fp8_e5m2": 8, "fp32": 32}

# The attention kernels' source exists in revisions that allocate differently. 1: the grouped
# decode kernel upcasts K and loads V, and extend adds p @ v to the rescaled accumulator in one
# expression. 2: decode casts q to the KV dtype and reads V as K^T for MLA (HAS_MLA), and extend
# scales p @ v by v_scale before adding it. 3: decode dequantises K to q's dtype with its scale and
# reads V as that K transposed for MLA (IS_MLA); otherwise as 2. 4: decode dequantises K and V to q's
# dtype with their scales and loads V; otherwise as 1. Engines say which revision they ship.
LATEST_REVISION = 2


def _pow2(x: int) -> int:
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def head_split(lq: int) -> tuple[int, int]:
    """BLOCK_DMODEL, BLOCK_DPE as the launcher splits a query head dim (576 -> 512 + 64 etc.)."""
    return {576: (512, 64), 288: (256, 32), 192: (128, 64)}.get(lq, (_pow2(lq), 0))


@dataclass
class _Timeline:
    """Program order: each step is one operation id, as Triton's allocator numbers them."""

    now: int = 0
    buffers: list[Buffer] = field(default_factory=list)

    def tick(self, steps: int = 1) -> int:
        self.now += steps
        return self.now

    def add(self, name: str, size: int, start: int, end: int, align: int = 16) -> None:
        if size > 0:
            self.buffers.append(Buffer(name, size, start, end, align, scratch=align == 128))


@dataclass(frozen=True)
class _Attention:
    """One attention kernel's shape on one target."""

    cc: Arch
    triton: tuple[int, int]
    bm: int  # rows of q per program (BLOCK_M, or BLOCK_H for grouped decode)
    bn: int
    dm: int
    dpe: int
    dv: int
    warps: int
    stages: int
    q_bits: int = 16

    @property
    def kind(self) -> str:
        return mma_kind(self.cc, self.bm, self.warps)

    @property
    def cc_int(self) -> int:
        return self.cc[0] * 10 + self.cc[1]

    @property
    def warps_mn(self) -> tuple[int, int]:
        """Chained dots put every warp on the longer side of p @ v's [M, DV] accumulator."""
        if self.kind == "wgmma":
            return tl.warps_v3(self.bm, self.warps, chained=True) if self.bm >= 16 * self.warps \
                else tl.warps_v3(self.bm, self.warps)
        return tl.warps_v2(self.bm, self.dv, self.warps, chained=True)

    def native_fp8(self) -> bool:
        """fp8 dots run as such on wgmma/tcgen05, and on mma.sync for sm_89 and sm_120;
        elsewhere (sm_90/10x small tiles, sm_121) both operands are upcast to fp16."""
        return self.kind != "mma" or native_fp8_mma(self.cc, self.triton)


def _reduce_scratch(att: _Attention) -> int:
    """Row max / sum over qk [M, BN] (f32, the qk accumulator's layout): scratch only when warps
    split the columns."""
    if att.kind != "mma" or att.warps_mn[1] == 1:
        return 0
    qk = ll.mma((att.bm, att.bn), att.warps_mn, 2)
    return reduce_scratch_bytes(qk, 1, 32, att.triton)


def _p_tile(att: _Attention, bits: int) -> int:
    """p goes back through shared memory to become the A operand of p @ v when the warps of
    the mma.sync accumulator split its columns (tcgen05 keeps 16-bit p in tensor memory)."""
    if att.kind == "mma":
        return att.bm * att.bn * bits // 8 if att.warps_mn[1] > 1 else 0
    if att.kind == "tcgen05" and bits == 8 and not _tmem_operands(att):
        return att.bm * att.bn
    return 0


def _tmem_two_groups(att: _Attention, rows: int, cols: int) -> ll.Layout:
    """qk read from tensor memory by two warp groups (M=128, 8 warps): each warp takes 16 rows
    and both column halves, lane 16 picking the half."""
    half = cols // 2
    regs = tuple((0, 1 << i) for i in range(max(0, half.bit_length() - 1)))
    lanes = ((1, 0), (2, 0), (4, 0), (8, 0), (0, half))
    warps = ((32, 0), (64, 0), (16, 0))
    cta = ll.Layout((("register", regs), ("lane", lanes), ("warp", warps)), (("dim0", 128), ("dim1", cols)))
    return ll.with_shape(cta, (rows, cols)) if (rows, cols) != (128, cols) else cta


def _tcgen05_softmax(att: _Attention, p_bits: int) -> tuple[int, int]:
    """Scratch of the conversions a two-warp-group tcgen05 softmax makes inside the loop: the
    row statistics and p, out of the qk read layout into the accumulator's (32x32b) one."""
    if att.kind != "tcgen05" or att.warps != 8 or att.bm != 128:
        return 0, 0
    qk = _tmem_two_groups(att, att.bm, att.bn)
    acc = ll.blocked((att.bm, att.bn), (1, att.bn // 2), (32, 1), (4, 2), (0, 1))
    row_src = ll.Layout(tuple((d, tuple((b[0], 0) for b in bs)) for d, bs in qk.bases), (("dim0", 128), ("dim1", 1)))
    row_dst = ll.blocked((att.bm, 1), (1, att.bn // 2), (32, 1), (4, 2), (0, 1))
    rows = scratch_bytes(row_src, row_dst, 32, att.cc_int, att.triton)
    return rows, scratch_bytes(qk, acc, p_bits, att.cc_int, att.triton)


def _qk_layout(att: _Attention) -> ll.Layout:
    """The qk accumulator's register layout."""
    shape = (att.bm, att.bn)
    if att.kind == "tcgen05":
        if att.warps == 8 and att.bm == 128:
            return _tmem_two_groups(att, att.bm, att.bn)
        return tl.tmem_load(shape, att.warps)
    if att.kind == "wgmma":
        wm, wn = att.warps_mn
        return ll.mma(shape, (wm, wn), 3, tl.wgmma_instr_n(att.bm, att.bn, att.warps))
    return ll.mma(shape, att.warps_mn, 2)


def _mask_per_thread(att: _Attention, kv_bits: int) -> int:
    """Elements per thread of the custom mask load [M, N]. Its own pointer gives no contiguity (1), but
    the coalescing pass takes the most of every load or store of the same shape and order in its slice
    (Coalesce.cpp): q and the output tile (16-bit, [M, D]) when D == N, the V tiles ([N, DV], the
    prefix's in the KV dtype) when M == N == DV."""
    shape = (att.bm, att.bn)
    widths = [1]
    if (att.bm, att.dm) == shape or (att.bm, att.dv) == shape or (att.dpe and (att.bm, att.dpe) == shape):
        widths.append(8)
    if (att.bn, att.dv) == shape:
        widths += [8, 128 // kv_bits]
    return max(1, min(max(widths), att.bm * att.bn // (32 * att.warps)))


def _mask_convert(att: _Attention, kv_bits: int) -> int:
    """A custom mask tile (i1, a byte per flag) is loaded coalesced and moved into qk's layout."""
    loaded = tl.coalesced((att.bm, att.bn), att.warps, 8, contig=_mask_per_thread(att, kv_bits))
    return scratch_bytes(loaded, _qk_layout(att), 1, att.cc_int, att.triton)


def _tmem_operands(att: _Attention) -> bool:
    """On Triton 3.4 and from 3.8 a tcgen05 A operand computed in registers (q cast to fp8, p) is
    moved into tensor memory, converted to the TMEM store layout first, instead of staged in shared
    memory (PromoteLHSToTMem); 3.5-3.7 stage it. An A operand loaded straight from global memory
    stays in shared memory."""
    return att.kind == "tcgen05" and (att.triton >= (3, 8) or att.triton < (3, 5))


def _q_to_tmem(att: _Attention, dim: int) -> int:
    """Scratch of moving q [M, dim], cast to fp8 in its load layout, into the TMEM store layout.
    Triton 3.4 loads q in the fp8 v tile's layout when the two tiles have one shape."""
    if not dim:
        return 0
    shape = (att.bm, dim)
    bits = 8 if att.triton < (3, 5) and (att.bm, dim) == (att.bn, att.dv) else 16
    return scratch_bytes(tl.coalesced(shape, att.warps, bits), tl.tmem_load(shape, att.warps), 8, att.cc_int,
                         att.triton)


def _loop(t: _Timeline, att: _Attention, kv_bits: int, label: str, mask_cvt: int = 0,
          q_per_dot: tuple[int, int] = (0, 0), fused_rescale: bool = False,
          q_cvt: tuple[int, int] = (0, 0)) -> None:
    """One unpipelined loop of qk = q @ k (+ qpe @ kpe), softmax, acc += p @ v. With an fp8 KV
    cache p is cast to fp8 for p @ v, and upcast to fp16 again where the dot is not native.
    mask_cvt: scratch of moving a custom mask tile into qk's layout (0: no mask). q_per_dot: bytes of
    q and qpe staged again for each qk dot (the A operands of tcgen05, when the cast to fp8 sits behind SKIP_TILE).
    fused_rescale: `acc * re_scale + p @ v` with nothing else on the dot (extend before 0.5.10):
    on tcgen05 with p in shared memory the rescale follows the MMA."""
    k = att.bn * att.dm * kv_bits // 8
    kpe = att.bn * att.dpe * kv_bits // 8
    v = att.bn * att.dv * kv_bits // 8
    barrier = 8 if att.kind == "tcgen05" else 0
    start = t.tick()
    t.add(f"{label} k", k, start, t.tick(2), _align(att, att.dm, kv_bits))
    t.add(f"{label} q staged", q_per_dot[0], start, t.now, _align(att, att.dm, kv_bits))
    t.add(f"{label} q to tmem", q_cvt[0], start, start + 1, 128)
    t.add(f"{label} qk barrier", barrier, start + 1 if q_cvt[0] else start, t.now)
    if kpe:
        start = t.tick()
        t.add(f"{label} kpe", kpe, start, t.tick(2), _align(att, att.dpe, kv_bits))
        t.add(f"{label} qpe staged", q_per_dot[1], start, t.now, _align(att, att.dpe, kv_bits))
        t.add(f"{label} qpe to tmem", q_cvt[1], start, start + 1, 128)
        t.add(f"{label} qpe barrier", barrier, start + 1 if q_cvt[1] else start, t.now)
    if mask_cvt:
        at = t.tick()
        t.add(f"{label} mask convert", mask_cvt, at, at + 1, 128)
    scratch = _reduce_scratch(att)
    for name in ("row max", "row sum"):
        at = t.tick()
        t.add(f"{label} {name}", scratch, at, at + 1, 128)
    row_cvt, p_cvt = _tcgen05_softmax(att, kv_bits)
    p_in_smem = att.kind == "tcgen05" and bool(_p_tile(att, kv_bits))
    late_rescale = p_in_smem and fused_rescale and row_cvt > 0
    if p_in_smem:
        p_cvt = 0  # p is staged in shared memory straight from qk's layout
    at = t.tick()
    t.add(f"{label} row statistics convert", 0 if late_rescale else row_cvt, at, at + 1, 128)
    start = t.tick()
    upcast = kv_bits == 8 and not att.native_fp8()
    p_bits = 16 if upcast else kv_bits
    if upcast:  # v is read into registers and upcast before p is staged
        t.add(f"{label} v", v, start, t.tick(), _align(att, att.dv, kv_bits))
        t.add(f"{label} p", _p_tile(att, p_bits), t.tick(), t.tick(), _align(att, att.bn, p_bits))
        return
    end = t.tick(3)
    v_start = start + 1 if kv_bits == 32 else start
    t.add(f"{label} v", v, v_start, end, _align(att, att.dv, kv_bits))
    t.add(f"{label} p", _p_tile(att, p_bits), start + 1, end, _align(att, att.bn, p_bits))
    # p into tensor memory: a 16-bit p after its cast, while v is staged; a 32-bit p (no cast)
    # before v is loaded
    at = start if kv_bits == 32 else start + 1
    t.add(f"{label} p convert", p_cvt, at, at + 1, 128)
    if late_rescale:
        t.add(f"{label} row statistics convert", row_cvt, start + 2, start + 3, 128)
    t.add(f"{label} pv barrier", barrier, start + 3 if late_rescale else start + 2, end)


def _align(att: _Attention, inner: int, bits: int) -> int:
    """NVMMA alignment for the operands of wgmma/tcgen05 (`inner` contiguous elements)."""
    return nvmma_alignment(inner * bits // 8) if att.kind in ("wgmma", "tcgen05") else 16


def _epilogue(t: _Timeline, att: _Attention, out_bits: int) -> None:
    shape = (att.bm, att.dv)
    if att.kind == "tcgen05":
        acc = tl.tmem_load(shape, att.warps)
    elif att.kind == "wgmma":
        wm, wn = att.warps_mn
        acc = ll.mma(shape, (wm, wn), 3, tl.wgmma_instr_n(att.bm, att.dv, att.warps))
    else:
        acc = ll.mma(shape, att.warps_mn, 2)
    at = t.tick()
    size = scratch_bytes(acc, tl.coalesced(shape, att.warps, out_bits), out_bits, att.cc_int, att.triton)
    t.add("accumulator convert", size, at, at + 1, 128)


def _one_stage(kernel: str, num_stages: int) -> None:
    if num_stages > 1:
        raise ValueError(f"{kernel} is launched with one stage; a software-pipelined loop (num_stages="
                         f"{num_stages}) is not modelled: compile it with --exact")


@functools.lru_cache(maxsize=4096)
def extend_attention_smem(cc: str | int | Arch, lq: int, lv: int, block_m: int, block_n: int,
                          num_warps: int, num_stages: int = 1, kv_dtype: str = "bf16",
                          kv_group: int = 1, custom_mask: bool = False,
                          sliding_window: bool | int = False, logit_cap: bool | float = False,
                          sinks: bool = False, triton: str | None = None,
                          revision: int = LATEST_REVISION) -> int:
    """Bytes of shared memory of extend attention's `_fwd_kernel` (launched with num_stages=1).

    The prefix loop reads the KV cache (kv_dtype), the extend loop the bf16 new tokens.
    kv_group, logit_cap and sinks do not change the footprint.
    """
    del kv_group, logit_cap, sinks
    _one_stage("extend attention", num_stages)
    skip_tile = bool(custom_mask or sliding_window)  # the prefix loop tests a SKIP_TILE flag
    dm, dpe = head_split(lq)
    att = _Attention(parse_arch(cc), _version(triton), block_m, block_n, dm, dpe, _pow2(lv), num_warps,
                     num_stages)
    kv_bits = _BITS[kv_dtype]
    t = _Timeline()
    q_start = t.tick()
    start = t.tick()
    per_dot = q_cvt = (0, 0)
    if kv_bits != 16 and _tmem_operands(att):
        q_cvt = (_q_to_tmem(att, dm), _q_to_tmem(att, dpe))
    elif kv_bits != 16 and skip_tile and att.kind == "tcgen05":
        # q.to(fp8) behind SKIP_TILE is not hoisted: staged again for every qk MMA
        per_dot = (block_m * dm, block_m * dpe)
    elif kv_bits != 16:
        # q.to(fp8) for the prefix dots, hoisted out of the loop: fp8 where the dot runs in
        # fp8, upcast again to fp16 where it does not; behind SKIP_TILE the 16-bit q is staged
        q_bits = 16 if not att.native_fp8() or skip_tile else 8
        t.tick(100)
        t.add("q for prefix", block_m * dm * q_bits // 8, start, t.now, _align(att, dm, q_bits))
        t.add("qpe for prefix", block_m * dpe * q_bits // 8, start, t.now, _align(att, dpe, q_bits))
        t.now = start
    fused = revision < 2
    mask_cvt = _mask_convert(att, kv_bits) if custom_mask else 0
    _loop(t, att, kv_bits, "prefix", mask_cvt, per_dot, fused, q_cvt)
    t.now = max(t.now, start + 100)
    _loop(t, att, 16, "extend", mask_cvt, fused_rescale=fused)
    t.add("q", block_m * dm * 2, q_start, t.now, _align(att, dm, 16))
    t.add("qpe", block_m * dpe * 2, q_start, t.now, _align(att, dpe, 16))
    _epilogue(t, att, 16)
    return allocate(t.buffers)


@functools.lru_cache(maxsize=4096)
def prefill_attention_smem(cc: str | int | Arch, head_dim: int, block: int, num_warps: int,
                           num_stages: int = 1, dtype: str = "bf16", triton: str | None = None) -> int:
    """Bytes of shared memory of `context_attention_fwd`'s kernel (vision / prefill attention)."""
    _one_stage("prefill attention", num_stages)
    d = _pow2(head_dim)
    bits = _BITS[dtype]
    att = _Attention(parse_arch(cc), _version(triton), block, block, d, 0, d, num_warps, num_stages, bits)
    t = _Timeline()
    q_start = t.tick()
    _loop(t, att, bits, "kv")
    t.add("q", block * d * bits // 8, q_start, t.now, _align(att, d, bits))
    _epilogue(t, att, bits)
    return allocate(t.buffers)


__all__ = ["LATEST_REVISION", "NEWEST", "extend_attention_smem", "head_split", "prefill_attention_smem"]
