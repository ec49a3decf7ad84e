"""Shared memory of the paged "unified" attention kernel (one program per [BLOCK_M query rows x one KV head],
a loop over TILE_SIZE keys of a paged KV cache) and of its split-KV reduction, buffer by buffer.

The kernel: q [BLOCK_M, D] is loaded once; each iteration gathers the tile's block-table entries, loads
K^T [D, TILE] and V [TILE, D] from the cache, qk = q @ K^T, an online softmax (row max, row sum), and
acc += p @ V. `split` kernels store the f32 partial accumulator per segment, the others the bf16 output.
D is the head size padded to a power of two.

Buffers (mma.sync targets; the loop software-pipelined at the launch's num_stages):

* q as the A operand of q @ K^T, for the whole kernel;
* per pipelined load a ring live across the loop: the two block-table gathers (i32 [TILE], one for K's and
  one for V's row layout) and K^T and V in the cache's dtype, one slot each (the gathers run a stage ahead);
  where a tile is one cache block (its index a scalar load, not pipelined) K^T and V take num_stages - 1 slots;
* K^T and V staged again as dot operands when they pass through registers first: an fp8 cache is
  dequantised to q's dtype (both, before q @ K^T), a sliding window zeroes V's rows (after the softmax);
* the cross-warp scratch of the row max and row sum, p [BLOCK_M, TILE] staged for p @ V;
* after the loop, the accumulator's conversion to the store layout.

Placed by `alloc`, Triton's allocator replayed; conversion and reduction scratch sized by `cvt_scratch` and
`reduce_scratch`.
"""

from __future__ import annotations

import functools

from . import layouts as ll
from . import triton_layouts as tl
from .alloc import allocate
from .arch import Arch, parse_arch
from .attention_smem import _BITS, _Attention, _pow2, _reduce_scratch, _Timeline
from .cvt_scratch import scratch_bytes
from .moe_smem import _version
from .reduce_scratch import reduce_scratch_bytes

# Source revisions of the unified attention kernel that allocate differently. 0: a tile is one KV-cache block,
# whose index is a scalar load (K and V rings of num_stages - 1 slots, no index rings), and the split kernel
# stores its row max and sum through conversions; 1: TILE_SIZE keys gathered through a vector of block indices,
# a sliding window only masks the scores; 2: a sliding window also zeroes V's rows before p @ V (V passes
# through registers). Engines say which revision they ship.
LATEST_REVISION = 2


def _refuse(reason: str) -> None:
    raise ValueError(f"unified attention: {reason} is not modelled: compile it with --exact")


def _check(att: _Attention, num_stages: int) -> None:
    if att.kind != "mma":
        _refuse(f"the {att.kind} path (BLOCK_M {att.bm} on sm_{att.cc_int})")
    if num_stages != 3:
        _refuse(f"num_stages={num_stages} (the pipelined loop is derived at 3 stages)")


def _loop(t: _Timeline, att: _Attention, kv_bits: int, stage_k: bool, stage_v: str, slots: int,
          gathered: bool) -> None:
    """One iteration in program order; rings live across the whole loop. stage_v: "" (V is read by the dot
    from its ring), "early" (dequantised with K, before q @ K^T) or "late" (masked after the softmax)."""
    k = att.dm * att.bn
    loop_start = t.tick()
    steps = {name: t.tick() for name in ("k", "qk", "max", "sum", "v", "p", "pv")}
    loop = (loop_start, t.tick())
    for name in ("k index", "v index"):
        t.add(f"{name} ring", att.bn * 4 if gathered else 0, *loop)
    t.add("k ring", slots * k * kv_bits // 8, *loop)
    t.add("v ring", slots * k * kv_bits // 8, *loop)
    if stage_k:
        t.add("k staged", k * att.q_bits // 8, steps["k"], steps["qk"] + 1)
    if stage_v:
        start = steps["k"] if stage_v == "early" else steps["v"]
        t.add("v staged", k * att.q_bits // 8, start, steps["pv"] + 1)
    scratch = _reduce_scratch(att)
    t.add("row max", scratch, steps["max"], steps["max"] + 1, 128)
    t.add("row sum", scratch, steps["sum"], steps["sum"] + 1, 128)
    t.add("p", _p_tile(att), steps["p"], steps["pv"] + 1)


def _p_tile(att: _Attention) -> int:
    """p goes through shared memory to become p @ V's A operand when warps split its columns."""
    return att.bm * att.bn * att.q_bits // 8 if att.warps_mn[1] > 1 else 0


def _epilogue(t: _Timeline, att: _Attention, out_bits: int, row_stats: bool) -> None:
    """The accumulator converted to the store layout; row_stats: the row max and sum too (split kernel, revision
    0), each [BLOCK_M] from the accumulator's rows to a plain vector."""
    shape = (att.bm, att.dv)
    acc = ll.mma(shape, att.warps_mn, 2)
    at = t.tick()
    size = scratch_bytes(acc, tl.coalesced(shape, att.warps, out_bits), out_bits, att.cc_int, att.triton)
    t.add("accumulator convert", size, at, at + 1, 128)
    if row_stats:
        rows = scratch_bytes(ll.sliced(acc, 1), tl.vector_layout(att.bm, att.warps), 32, att.cc_int, att.triton)
        for name in ("row max convert", "row sum convert"):
            at = t.tick()
            t.add(name, rows, at, at + 1, 128)


@functools.lru_cache(maxsize=4096)
def unified_attention_smem(cc: str | int | Arch, head_size: int, block_m: int, tile: int, num_warps: int = 4,
                           num_stages: int = 3, kv_dtype: str = "bf16", split: bool = False,
                           sliding_window: bool | int = False, sinks: bool = False, softcap: bool | float = False,
                           triton: str | None = None, revision: int = LATEST_REVISION) -> int:
    """Bytes of shared memory of the unified attention kernel for one launch.

    block_m: query rows per program (query heads per KV head x query positions); tile: keys per iteration (the
    KV-cache block size in revision 0);
    split: the split-KV variant (f32 partial output per segment) rather than the one writing the output.
    sinks and softcap do not change the footprint.
    """
    del sinks, softcap
    d = _pow2(head_size)
    att = _Attention(parse_arch(cc), _version(triton), block_m, tile, d, 0, d, num_warps, num_stages)
    _check(att, num_stages)
    kv_bits = _BITS[kv_dtype]
    fp8 = kv_bits == 8
    window = bool(sliding_window) and revision >= 2
    stage_v = "early" if fp8 and not window else ("late" if window else "")
    block_tiles = revision == 0
    slots = num_stages - 1 if block_tiles else 1
    t = _Timeline()
    q_start = t.tick()
    _loop(t, att, kv_bits, fp8, stage_v, slots, not block_tiles)
    t.add("q", block_m * d * 2, q_start, t.now)
    _epilogue(t, att, 32 if split else 16, split and block_tiles)
    return allocate(t.buffers)


@functools.lru_cache(maxsize=1024)
def segments_reduce_smem(cc: str | int | Arch, head_size: int, segments: int, num_warps: int = 4,
                         triton: str | None = None) -> int:
    """Bytes of the split-KV reduction kernel: the segments' maxima and exp-sums reduced as [segments] vectors,
    the [segments, D] f32 partials summed over the segments, the result converted to the store layout. Every
    buffer is scratch used once, so the largest is the kernel's."""
    d, version = _pow2(head_size), _version(triton)
    cc_int = parse_arch(cc)[0] * 10 + parse_arch(cc)[1]
    vector = reduce_scratch_bytes(tl.vector_layout(segments, num_warps), 0, 32, version)
    loaded = tl.coalesced((segments, d), num_warps, 32)
    summed = reduce_scratch_bytes(loaded, 0, 32, version)
    store = scratch_bytes(ll.sliced(loaded, 0), tl.coalesced((d,), num_warps, 16), 16, cc_int, version)
    return max(vector, summed, store)


__all__ = ["LATEST_REVISION", "segments_reduce_smem", "unified_attention_smem"]
