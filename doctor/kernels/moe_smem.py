"""Shared memory of the fused-MoE Triton kernels, buffer by buffer, placed by Triton's allocator.

`fused_moe_kernel` (bf16/fp16, fp8 and int8 w8a8 per tensor / channel / block, int8 w8a16, with
TMA descriptors for a USE_TMA config) and `fused_moe_kernel_gptq_awq` (int4 / int8 weights with
a K group size). The buffers of one config on one target:

* the A and B tiles of the K loop: a ring of S-1 slots per operand fed by cp.async or TMA
  (mma.sync), or S slots when the async MMA (wgmma, tcgen05) reads shared memory directly; a
  single slot around the dot when the loop is not pipelined (S=1) or a load is too narrow for
  cp.async (< 4 bytes per thread);
* operands the MMA needs in shared memory that are computed in registers (int8 weights widened
  for wgmma/tcgen05, dequantised int4/int8 weights);
* mbarriers: one per ring slot of TMA loads, and the tcgen05 commit barriers;
* the scratch of layout conversions: per-block scales moved into the accumulator's layout
  inside the loop, and the accumulator moved into the store layout after it.

Sizes of conversions come from `cvt_scratch` (Triton's swizzled conversion); placement from
`alloc` (Triton's allocator replayed), so packing quirks are reproduced, not bounded.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from . import layouts as ll
from . import triton_layouts as tl
from .alloc import Buffer, allocate, nvmma_alignment
from .arch import Arch, parse_arch
from .cvt_scratch import scratch_bytes
from .exact_launch import uses_gptq_awq
from .fp8 import native_fp8_mma

# bits per element of the A (activation) and B (weight) tiles as loaded, per fused-MoE dtype name
_BITS = {"bf16": (16, 16), "fp16": (16, 16), "float16": (16, 16), "bfloat16": (16, 16),
         "fp8_w8a8": (8, 8), "int8_w8a8": (8, 8), "int8_w8a16": (16, 8), "int4_w4a16": (16, 8)}
_WIDTHS = _BITS  # the dtype names command.py validates against
NEWEST = (3, 9)

# program order of the kernel (Triton's operation ids, coarsely): rings live across the loop
_RING = (10, 90)
_EPILOGUE = (100, 101)


@dataclass(frozen=True)
class MoeConfig:
    cc: Arch
    triton: tuple[int, int]
    dtype: str
    bm: int
    bn: int
    bk: int
    warps: int
    stages: int
    block_shape: tuple[int, int] | None = None
    tma: str | None = None
    swap_ab: bool = False
    gptq: bool = False
    k_iterations: int | None = None  # known when K is a constexpr (the gptq_awq kernel)
    has_zp: bool = False
    b_scale_vector: bool = False  # the source reads block scales as a BLOCK_N vector even when BN <= group_n

    @property
    def threads(self) -> int:
        return 32 * self.warps

    @property
    def dot(self) -> tuple[int, int]:
        """(M, N) of the dot as issued (swap_ab computes B^T A^T)."""
        return (self.bn, self.bm) if self.swap_ab else (self.bm, self.bn)

    @property
    def int8(self) -> bool:
        return self.dtype == "int8_w8a8"

    @property
    def fp8(self) -> bool:
        return self.dtype == "fp8_w8a8"


def dot_kind(cfg: MoeConfig) -> str:
    """wgmma on sm90 and tcgen05 on sm10x for M tiles of 64k rows and 4k warps; else mma.sync."""
    m, _ = cfg.dot
    big = m % 64 == 0 and cfg.warps % 4 == 0
    if cfg.cc[0] == 9 and big:
        return "wgmma"
    if cfg.cc[0] == 10 and big and (not cfg.int8 or cfg.triton >= (3, 8)):
        return "tcgen05"
    return "mma"


def _pipelined(cfg: MoeConfig) -> bool:
    """The K loop is software-pipelined from 2 stages on, unless it is known to run once (a
    constexpr K no larger than BLOCK_K: the loop is folded away)."""
    return cfg.stages >= 2 and (cfg.k_iterations is None or cfg.k_iterations > 1)


def _cp_async(tile_bytes: int, cfg: MoeConfig) -> bool:
    """A load is pipelined only if each thread moves at least 4 bytes (cp.async's minimum)."""
    return tile_bytes // cfg.threads >= 4


def _gptq_operands(cfg: MoeConfig, kind: str) -> list[Buffer]:
    """`fused_moe_kernel_gptq_awq`: A pipelined as usual; int8 weights pipelined as int8 (int4
    ones are byte gathers, too narrow for cp.async); the dequantised bf16 B tile is written to
    shared memory for the dot every iteration."""
    direct = kind in ("wgmma", "tcgen05")
    a = cfg.bm * cfg.bk * 2
    out: list[Buffer] = []
    if _pipelined(cfg) and _cp_async(a, cfg):
        out.append(Buffer("a ring", (cfg.stages if direct else cfg.stages - 1) * a, *_RING, align=_align(kind, cfg)))
    else:
        out.append(Buffer("a tile", a, 40, 46, align=_align(kind, cfg)))
    b_int8 = cfg.bk * cfg.bn
    if cfg.dtype == "int8_w8a16" and _pipelined(cfg) and _cp_async(b_int8, cfg):
        out.append(Buffer("b ring", (cfg.stages - 1) * b_int8, *_RING))
    if not _dequantised_in_registers(cfg):
        out.append(Buffer("b dequantised", cfg.bk * cfg.bn * 2, 44, 46, align=_align(kind, cfg)))
    out += _gathered_scale_conversion(cfg, kind)
    if kind == "tcgen05":
        out.append(Buffer("mma barriers", 16 if _pipelined(cfg) else 8, *_RING, align=16))
    return out


def _gathered_scale_conversion(cfg: MoeConfig, kind: str) -> list[Buffer]:
    """From Triton 3.7 on tcgen05, an int4 tile with BLOCK_K equal to BLOCK_M gets its gathered [BLOCK_K,
    BLOCK_N] f32 scales (and zero points) converted into the dequantisation layout inside the loop, while the
    ring and the dequantised tile are live (measured on sm_100 with 3.7-3.9: six configs, each to the byte)."""
    if kind != "tcgen05" or cfg.dtype != "int4_w4a16" or cfg.triton < (3, 7) or cfg.bk != cfg.bm:
        return []
    shape = (cfg.bk, cfg.bn)
    size = scratch_bytes(tl.coalesced(shape, cfg.warps, 32, contig=1), tl.coalesced(shape, cfg.warps, 16), 32,
                         _cc(cfg), cfg.triton)
    return [Buffer("scale convert", size, 44, 45, align=128, scratch=True)] if size else []


def _dequantised_in_registers(cfg: MoeConfig) -> bool:
    """Before Triton 3.7 an int8 weight tile of BLOCK_K 32 read 8 per thread at BLOCK_M 16 already sits in the
    dot operand's layout: the dequantised tile is never written to shared memory (measured on sm_80-121 with
    Triton 3.4-3.6; from 3.7 it is)."""
    threads = 32 * cfg.warps
    return (cfg.dtype == "int8_w8a16" and cfg.triton < (3, 7) and cfg.bm == 16 and cfg.bk == 32
            and cfg.bk * cfg.bn // threads == 8)


def _operands(cfg: MoeConfig, kind: str) -> list[Buffer]:
    if cfg.gptq:
        return _gptq_operands(cfg, kind)
    a_bits, b_bits = _BITS[cfg.dtype]
    a, b = cfg.bm * cfg.bk * a_bits // 8, cfg.bk * cfg.bn * b_bits // 8
    direct = kind in ("wgmma", "tcgen05")
    widened = cfg.dtype == "int8_w8a16" and direct
    slots_a = cfg.stages if direct else cfg.stages - 1
    slots_b = cfg.stages - 1 if widened or not direct else cfg.stages
    out: list[Buffer] = []
    pipelined = _pipelined(cfg)
    loads = (("a", a, slots_a, cfg.tma == "down"), ("b", b, slots_b, cfg.tma is not None))
    bits = {"a": a_bits, "b": b_bits}
    for name, size, slots, tma in loads:
        if name == "b" and widened and not pipelined:
            continue  # loaded straight into registers and widened there
        if pipelined and (tma or _cp_async(size, cfg)):
            out.append(Buffer(f"{name} ring", slots * size, *_RING, align=_align(kind, cfg, bits[name])))
            if tma:
                out.append(Buffer(f"{name} tma barriers", 8 * slots, *_RING, align=16))
        else:
            out += _single(name, size, cfg, kind, tma, bits[name])
    if widened:
        out.append(Buffer("b widened", cfg.bk * cfg.bn * 2, 44, 46, align=_align(kind, cfg)))
    if kind == "tcgen05":
        out.append(Buffer("mma barriers", 8 if cfg.stages == 1 else 16, *_RING, align=16))
    return _tma_barrier_groups(out) if direct or not _own_tma_barriers(cfg) else out


def _own_tma_barriers(cfg: MoeConfig) -> bool:
    """On the mma.sync path each TMA load keeps its own barriers on sm_100 from Triton 3.6 and on sm_121 with
    3.6 and 3.7 (measured with fp8 block TMA-down configs, the only ones with two TMA loads); elsewhere A and B
    share them."""
    if cfg.cc[0] == 10:
        return cfg.triton >= (3, 6)
    return cfg.cc == (12, 1) and (3, 6) <= cfg.triton < (3, 8)


def _tma_barrier_groups(buffers: list[Buffer]) -> list[Buffer]:
    """Feeding an async MMA, A and B loads issued through TMA in the same stage share one
    barrier per slot; before Triton 3.6 so do they on the mma.sync path (later each load keeps
    its own)."""
    bars = [b for b in buffers if b.name.endswith("tma barriers")]
    if len(bars) == 2 and bars[0].size == bars[1].size:
        buffers.remove(bars[1])
    return buffers


def _single(name: str, size: int, cfg: MoeConfig, kind: str, tma: bool, bits: int) -> list[Buffer]:
    """An operand the loop does not pipeline: staged in shared memory around the dot."""
    start = 40 if name == "a" else 41
    if cfg.fp8 and kind == "mma" and not native_fp8_mma(cfg.cc, cfg.triton) and not tma:
        # upcast to fp16 in registers one operand at a time: the two tiles never overlap
        start = 40 if name == "a" else 43
        return [Buffer(f"{name} tile", size, start, start + 3)]
    out = [Buffer(f"{name} tile", size, start, 46, align=_align(kind, cfg, bits))]
    if tma:
        # an unpipelined descriptor load lands in its own buffer (with a barrier), which the
        # dot may stage again; counted as all live together (an upper bound, S=1 TMA configs
        # are not shipped)
        out += [Buffer(f"{name} tma tile", size, start, 46, align=_align(kind, cfg, bits)),
                Buffer(f"{name} tma barrier", 8, start, 46, align=16)]
    return out


def _align(kind: str, cfg: MoeConfig, bits: int = 16) -> int:
    """Operands of the async MMAs live in NVMMA layouts, aligned to their swizzle (the K
    extent of a tile is its contiguous dimension); mma.sync operands to 16 bytes."""
    return nvmma_alignment(cfg.bk * bits // 8) if kind in ("wgmma", "tcgen05") else 16


def _acc_layout(cfg: MoeConfig, kind: str, shape: tuple[int, int]) -> ll.Layout:
    """The accumulator's layout over `shape` (the tile, or a [BM, 1] / [1, BN] slice of it)."""
    m, n = cfg.dot
    dims = (shape[1], shape[0]) if cfg.swap_ab else shape
    if kind == "mma":
        layout = ll.mma(dims, tl.warps_v2(m, n, cfg.warps), 2)
    elif kind == "wgmma":
        layout = ll.mma(dims, tl.warps_v3(m, cfg.warps), 3, tl.wgmma_instr_n(m, n, cfg.warps, cfg.int8))
    else:
        full = tl.tmem_load((m, n), cfg.warps)
        layout = ll.blocked(dims, *_blocked_params(full, m, n, cfg.warps))
    return tl.transposed(layout) if cfg.swap_ab else layout


def _blocked_params(_: ll.Layout, m: int, n: int, warps: int):
    if m >= 128:
        wm = min(warps, m // 32)
        return (1, n // (warps // wm)), (32, 1), (wm, warps // wm), (0, 1)
    return (1, n // (2 * (warps // 4))), (16, 2), (4, warps // 4), (0, 1)


def _scale_rings(cfg: MoeConfig, kind: str) -> list[Buffer]:
    """Triton 3.6-3.8 pipeline a per-block b_scale vector (BN > group_n) feeding tcgen05's
    accumulation like an operand: a ring of S-1 slots of BN floats."""
    if kind != "tcgen05" or cfg.block_shape is None or not (cfg.fp8 or cfg.int8):
        return []
    if not (3, 6) <= cfg.triton < (3, 9) or cfg.bn <= cfg.block_shape[0] or not _pipelined(cfg):
        return []
    return [Buffer("b_scale ring", (cfg.stages - 1) * cfg.bn * 4, *_RING)]


def _scale_conversions(cfg: MoeConfig, kind: str) -> list[Buffer]:
    """Per-block scales (a_scale [BM], b_scale [BN] when BN > group_n) are gathered in a 1-D
    layout and moved into the accumulator's row/column slice inside the loop. A gather of fewer
    elements than threads is cheap, so Triton reloads it in the target layout instead
    (isExpensiveLoadOrStore) and there is no conversion."""
    if cfg.block_shape is None or not (cfg.fp8 or cfg.int8):
        return []
    out = []
    # a_scale follows offs_token (a coalesced int32 load, up to 4 per thread); b_scale is a
    # gather of its own (one per thread)
    vectors = [("a_scale", cfg.bm, 1, 46, 4)]
    if (cfg.bn > cfg.block_shape[0] or cfg.b_scale_vector) and not _scale_rings(cfg, kind):
        vectors.append(("b_scale", cfg.bn, 0, 47, 1))
    for name, length, dim, at, per_thread in vectors:
        if length < cfg.threads:
            continue
        shape = (length, 1) if dim == 1 else (1, length)
        target = ll.sliced(_acc_layout(cfg, kind, shape), dim)
        size = scratch_bytes(tl.vector_layout(length, cfg.warps, per_thread), target, 32, _cc(cfg), cfg.triton)
        if size:
            out.append(Buffer(f"{name} convert", size, at, at + 1, align=128, scratch=True))
    return out


def _epilogue(cfg: MoeConfig, kind: str) -> list[Buffer]:
    shape = (cfg.bm, cfg.bn)
    store = tl.coalesced(shape, cfg.warps, 16)
    size = scratch_bytes(_acc_layout(cfg, kind, shape), store, 16, _cc(cfg), cfg.triton)
    return [Buffer("accumulator convert", size, *_EPILOGUE, align=128, scratch=True)] if size else []


def _cc(cfg: MoeConfig) -> int:
    return cfg.cc[0] * 10 + cfg.cc[1]


def moe_buffers(cfg: MoeConfig) -> list[Buffer]:
    kind = dot_kind(cfg)
    return _operands(cfg, kind) + _scale_rings(cfg, kind) + _scale_conversions(cfg, kind) + _epilogue(cfg, kind)


def _version(text: str | None) -> tuple[int, int]:
    if not text:
        return NEWEST
    major, minor = [*text.split("."), "0"][:2]
    return int(major), int(minor)


def fused_moe_smem(cc: str | int | Arch, dtype: str, block_m: int, block_n: int, block_k: int,
                   group_m: int, num_warps: int, num_stages: int, per_channel: bool = False,
                   block_shape: list[int] | tuple[int, int] | None = None,
                   triton: str | None = None, tma: str | None = None, swap_ab: bool = False,
                   b_scale_vector: bool = False) -> int:
    """Bytes of shared memory the fused-MoE kernel needs for one config on `cc`.

    dtype uses the kernel's config names: bf16/fp16, fp8_w8a8, int8_w8a8, int8_w8a16, int4_w4a16.
    group_m and per_channel do not change the footprint; they are accepted so a tuned-config
    entry can be passed through as is. triton: compiler version ("3.5.1"); the newest known
    when not given. int4 weights, and int8 weights with a K group size, run `fused_moe_kernel_gptq_awq`
    (gptq_awq_smem). b_scale_vector: the kernel source loads block-quantized weights' scales as a BLOCK_N
    vector whatever the group size, so that vector is converted into the accumulator's layout every step.
    """
    del group_m, per_channel
    if dtype not in _BITS:
        raise ValueError(f"unknown fused-MoE dtype {dtype!r}")
    if uses_gptq_awq(dtype, list(block_shape) if block_shape else None):
        return gptq_awq_smem(cc, dtype, block_m, block_n, block_k, num_warps, num_stages, triton=triton)
    return _fused_moe_bytes(parse_arch(cc), _version(triton), dtype, block_m, block_n, block_k, num_warps,
                            num_stages, tuple(block_shape) if block_shape else None, tma, swap_ab,
                            b_scale_vector=b_scale_vector)


@functools.lru_cache(maxsize=4096)
def _fused_moe_bytes(*config: object, **flags: bool) -> int:
    """Tuned-config files repeat entries and every check sizes them again: computed once per process."""
    return allocate(moe_buffers(MoeConfig(*config, **flags)))  # type: ignore[arg-type]


def gptq_awq_smem(cc: str | int | Arch, dtype: str, block_m: int, block_n: int, block_k: int,
                  num_warps: int, num_stages: int, triton: str | None = None, k: int | None = None,
                  has_zp: bool = False) -> int:
    """Bytes of `fused_moe_kernel_gptq_awq` (int4_w4a16, or int8_w8a16 with a K group size)."""
    if dtype not in ("int4_w4a16", "int8_w8a16"):
        raise ValueError(f"fused_moe_kernel_gptq_awq takes int4_w4a16 or int8_w8a16, not {dtype!r}")
    cfg = MoeConfig(parse_arch(cc), _version(triton), dtype, block_m, block_n, block_k, num_warps,
                    num_stages, gptq=True, k_iterations=-(-k // block_k) if k else None, has_zp=has_zp)
    return allocate(moe_buffers(cfg))
