"""Shared memory of the decode stage-1 attention kernels: grouped (GQA/MQA/MLA, [BLOCK_H, BLOCK_N]
dots) and MHA (no dots: reduction and conversion scratch only), buffer by buffer as in
attention_smem."""

from __future__ import annotations

import functools

from . import layouts as ll
from . import triton_layouts as tl
from .alloc import allocate
from .arch import Arch, parse_arch
from .attention_smem import (
    _BITS,
    LATEST_REVISION,
    _Attention,
    _epilogue,
    _p_tile,
    _pow2,
    _reduce_scratch,
    _Timeline,
    head_split,
)
from .cvt_scratch import scratch_bytes
from .moe_smem import _version
from .reduce_scratch import reduce_scratch_bytes


@functools.lru_cache(maxsize=4096)
def decode_attention_smem(cc: str | int | Arch, lk: int, lv: int, block_n: int, block_h: int,
                          num_warps: int, num_stages: int, kv_dtype: str = "bf16",
                          grouped: bool = True, triton: str | None = None,
                          revision: int = LATEST_REVISION) -> int:
    """Bytes of shared memory of the decode stage-1 kernel.

    grouped=True: `_fwd_grouped_kernel_stage1` (GQA/MQA/MLA; [BLOCK_H, BLOCK_N] dots).
    grouped=False: `_fwd_kernel_stage1` (MHA, no dots: reduction and conversion scratch only).
    revision: which source of the kernels runs (see LATEST_REVISION).
    """
    if num_stages > 2:
        raise ValueError(f"decode attention is launched with one or two stages; num_stages={num_stages} is not "
                         "modelled: compile it with --exact")
    arch, version = parse_arch(cc), _version(triton)
    kv_bits = _BITS[kv_dtype]
    new = revision >= 2
    if not grouped:
        return _mha_decode(arch, version, lk, lv, block_n, num_warps, kv_bits, new)
    mla = lk in (576, 288)
    dm, dpe = head_split(lk) if mla else (_pow2(lk), 0)
    att = _Attention(arch, version, block_h, block_n, dm, dpe, _pow2(lv), num_warps, num_stages)
    t = _Timeline()
    q_start = t.tick()
    q_bits = (8 if att.native_fp8() else 16) if revision == 2 and kv_bits == 8 else 16
    if revision == 3 and mla and dm == att.dv and kv_bits == 8:
        _dequantised_mla_decode_loop(t, att)
    elif revision == 4 and kv_bits == 8:
        _dequantised_decode_loop(t, att)
    elif new and mla and dm == att.dv:
        _mla_decode_loop(t, att, kv_bits)
    else:
        _decode_loop(t, att, kv_bits)
    t.add("q", block_h * dm * q_bits // 8, q_start, t.now)
    t.add("qpe", block_h * dpe * 2, q_start, t.now)
    _epilogue(t, att, 32)
    return allocate(t.buffers)


def _ring_or_tile(t: _Timeline, att: _Attention, name: str, size: int, loop: tuple[int, int],
                  at: tuple[int, int]) -> None:
    """A gathered K/V load: a one-slot ring live across the loop when pipelined (the index load
    runs a stage ahead, so the tile itself is never multi-buffered), else staged at its dot."""
    if att.stages >= 2 and size // (32 * att.warps) >= 4:
        t.add(f"{name} ring", size, *loop)
    else:
        t.add(name, size, *at)


def _steps(t: _Timeline, names: tuple[str, ...]) -> tuple[dict[str, int], tuple[int, int]]:
    """One loop iteration's operations in program order, and the span a buffer live across the loop takes."""
    loop_start = t.now + 1
    steps = {name: t.tick() for name in names}
    return steps, (loop_start, t.now + 1)


def _softmax_and_p(t: _Timeline, att: _Attention, steps: dict[str, int], p_bits: int) -> None:
    """The row max and row sum reductions' scratch, and p staged for p @ v; then the iteration ends."""
    scratch = _reduce_scratch(att)
    t.add("row max", scratch, steps["max"], steps["max"] + 1, 128)
    t.add("p", _p_tile(att, p_bits), steps["p"], steps["pv"] + 1)
    t.add("row sum", scratch, steps["sum"], steps["sum"] + 1, 128)
    t.tick()


def _decode_loop(t: _Timeline, att: _Attention, kv_bits: int) -> None:
    """qk = q @ k (+ qpe @ kpe); the row max after v is loaded; p @ v; the row sum after."""
    k = att.bn * att.dm * kv_bits // 8
    kpe = att.bn * att.dpe * kv_bits // 8
    v = att.bn * att.dv * kv_bits // 8
    steps, loop = _steps(t, ("k", "kpe", "v", "max", "p", "pv", "sum"))
    _ring_or_tile(t, att, "k", k, loop, (steps["k"], steps["k"] + 1))
    _ring_or_tile(t, att, "kpe", kpe, loop, (steps["kpe"], steps["kpe"] + 1))
    upcast = kv_bits == 8 and not att.native_fp8()
    # upcast fp8: v is read into registers before p is staged (they never overlap)
    v_end = steps["max"] if upcast else steps["pv"] + 1
    _ring_or_tile(t, att, "v", v, loop, (steps["v"], v_end))
    _softmax_and_p(t, att, steps, 16 if upcast else kv_bits)
    if att.stages >= 3:
        t.add("kv index ring", (att.stages - 1) * att.bn * 8, *loop)


def _mla_decode_loop(t: _Timeline, att: _Attention, kv_bits: int) -> None:
    """HAS_MLA: V is K's latent part transposed; K is loaded once, staged for q @ k and moved
    into p @ v's operand layout through a conversion before K_pe is loaded (unpipelined, K_pe then
    reuses K's place)."""
    k = att.bn * att.dm * kv_bits // 8
    kpe = att.bn * att.dpe * kv_bits // 8
    steps, loop = _steps(t, ("k", "cvt", "kpe", "max", "p", "pv", "sum"))
    t.add("k", k, steps["k"], steps["cvt"] + 1)
    _ring_or_tile(t, att, "kpe", kpe, loop, (steps["kpe"], steps["kpe"] + 1))
    t.add("k as v convert", _k_to_v_scratch(att, kv_bits), steps["cvt"], steps["cvt"] + 1, 128)
    upcast = kv_bits == 8 and not att.native_fp8()
    _softmax_and_p(t, att, steps, 16 if upcast else kv_bits)


def _fp8_ring(t: _Timeline, att: _Attention, name: str, size: int, loop: tuple[int, int]) -> None:
    """An fp8 tile that is dequantised in registers: staged only as a pipelined load's one-slot ring."""
    if att.stages >= 2 and size // (32 * att.warps) >= 4:
        t.add(f"{name} fp8 ring", size, *loop)


def _dequantised_decode_loop(t: _Timeline, att: _Attention) -> None:
    """Revision 4 with an fp8 cache: K, K_pe and V are read as fp8 (one-slot rings when pipelined, else straight
    into registers) and each is dequantised to q's dtype with its scale just before its dot; p is staged beside
    the dequantised V."""
    k, kpe, v = att.bn * att.dm, att.bn * att.dpe, att.bn * att.dv
    steps, loop = _steps(t, ("k", "qk", "kpe", "qkpe", "max", "v", "p", "pv", "sum"))
    for name, size in (("k", k), ("kpe", kpe), ("v", v)):
        _fp8_ring(t, att, name, size, loop)
    t.add("k dequantised", k * 2, steps["k"], steps["qk"] + 1)
    t.add("kpe dequantised", kpe * 2, steps["kpe"], steps["qkpe"] + 1)
    t.add("v dequantised", v * 2, steps["v"], steps["pv"] + 1)
    _softmax_and_p(t, att, steps, 16)


def _dequantised_mla_decode_loop(t: _Timeline, att: _Attention) -> None:
    """Revision 3 with an fp8 cache: K and K_pe are read as fp8 (one-slot rings when pipelined) and dequantised
    to q's dtype with their scale; the dequantised K is staged twice, transposed as p @ v's operand for the
    whole iteration and as q @ k's operand around that dot, after which K_pe and p reuse its place."""
    k, kpe = att.bn * att.dm, att.bn * att.dpe
    steps, loop = _steps(t, ("v", "k", "qk", "kpe", "qkpe", "max", "p", "pv", "sum"))
    _fp8_ring(t, att, "k", k, loop)
    _fp8_ring(t, att, "kpe", kpe, loop)
    t.add("v (k transposed)", k * 2, steps["v"], steps["pv"] + 1)
    t.add("k dequantised", k * 2, steps["k"], steps["qk"] + 1)
    t.add("kpe dequantised", kpe * 2, steps["kpe"], steps["qkpe"] + 1)
    _softmax_and_p(t, att, steps, 16)


def _k_to_v_scratch(att: _Attention, bits: int) -> int:
    """K [DM, BN] as loaded (DM contiguous) -> the mma.sync B operand of p @ v^T, transposed."""
    shape = (att.dm, att.bn)
    loaded = tl.coalesced(shape, att.warps, bits, order=(0, 1))
    operand = tl.transposed(tl.dot_operand_b((att.bn, att.dm), att.warps_mn, 32 // bits if bits < 32 else 1))
    return scratch_bytes(loaded, operand, bits, att.cc_int, att.triton)


def _mha_decode(cc: Arch, version: tuple[int, int], lk: int, lv: int, block_n: int, warps: int,
                kv_bits: int, new: bool) -> int:
    """`_fwd_kernel_stage1` has no dots: q @ k and p @ v are elementwise products reduced over a
    [BLOCK_N, D] tile in its load layout. All scratch is short-lived, so the largest wins."""
    dm, dv = _pow2(lk), _pow2(lv)
    cc_int = cc[0] * 10 + cc[1]
    k_layout = tl.coalesced((block_n, dm), warps, kv_bits)
    v_layout = tl.coalesced((block_n, dv), warps, kv_bits)
    sizes = [
        # qk = sum(q * k, 1): in the product's dtype (bf16) before 0.5.10, f32 after
        reduce_scratch_bytes(k_layout, 1, 32 if new else 16, version),
        reduce_scratch_bytes(v_layout, 0, 32, version),  # acc += sum(p * v, 0)
        scratch_bytes(tl.vector_layout(dm, warps, 8),
                      ll.sliced(tl.coalesced((block_n, dm), warps, kv_bits, over=(1, dm)), 0), 16, cc_int, version),
        scratch_bytes(ll.sliced(tl.coalesced((block_n, dv), warps, kv_bits, over=(1, dv)), 0),
                      tl.vector_layout(dv, warps, 4), 32, cc_int, version),
        _kv_locations(block_n, dm, warps, kv_bits, cc_int, version),
    ]
    return max(sizes)


def _kv_locations(block_n: int, dm: int, warps: int, kv_bits: int, cc_int: int, version: tuple[int, int]) -> int:
    """The KV-cache locations (i64 offsets, [BLOCK_N, 1]) moved into the K and V tiles' row layout.
    A load of fewer elements than threads is cheap to repeat, so Triton loads the locations in the
    tiles' layout instead (isExpensiveLoadOrStore): no conversion then."""
    if block_n < 32 * warps:
        return 0
    return scratch_bytes(ll.blocked((block_n, 1), (1, 1), (32, 1), (warps, 1), (1, 0)),
                         tl.coalesced((block_n, dm), warps, kv_bits, over=(block_n, 1)), 64, cc_int, version)
