"""Closed-form shared memory of SGLang's Triton attention kernels (extend, decode, prefill).

Common shape (smem.md §4.3): q (and q_pe) tiles stay in shared memory for the whole kernel;
each K/V loop holds its K, K_pe and V tiles (one slot without pipelining, S-1 / S ring slots
with it), and with mma.sync the probability tile p makes a shared-memory round trip whenever
BLOCK_M < BLOCK_DV, because chained dots then spread the warps along N.
"""

from __future__ import annotations

from dataclasses import dataclass

from .arch import Arch, mma_kind, parse_arch

_KV_WIDTH = {"bf16": 2, "fp16": 2, "fp8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp32": 4}


def _pow2(x: int) -> int:
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def head_split(lq: int) -> tuple[int, int]:
    """BLOCK_DMODEL, BLOCK_DPE as SGLang splits a query head dim (576 -> 512 + 64 etc.)."""
    return {576: (512, 64), 288: (256, 32), 192: (128, 64)}.get(lq, (_pow2(lq), 0))


@dataclass(frozen=True)
class _Loop:
    """One K/V loop of an attention kernel."""

    cc: Arch
    kind: str
    bm: int
    bn: int
    dm: int
    dpe: int
    dv: int
    stages: int
    skip_tile: bool

    aligned: bool = True

    @property
    def pipelined(self) -> bool:
        return self.stages >= 2 and not self.skip_tile and self.aligned

    def p_tile(self, width: int) -> int:
        if self.kind == "mma" and self.bm < self.dv:
            return self.bm * self.bn * width
        if self.kind == "tcgen05" and width == 1:
            return self.bm * self.bn
        return 0

    def bytes(self, width: int) -> int:
        k, kpe, v = self.bn * self.dm * width, self.bn * self.dpe * width, self.bn * self.dv * width
        if self.pipelined:
            slots = self.stages if self.kind in ("wgmma", "tcgen05") else self.stages - 1
            return slots * (k + kpe + v) + self.p_tile(width)
        return max(k, kpe, v + self.p_tile(width))

    def fallback_fp8_bytes(self) -> int:
        """fp8 K/V on sm90/10x without wgmma/tcgen05: the dots run in fp16 after an upcast."""
        return max(self.bn * self.dm, self.bn * self.dpe, self.bn * self.dv, self.bm * self.bn * 2)


def _barriers(kind: str, loops: list[_Loop]) -> int:
    if kind != "tcgen05":
        return 0
    # an 8-byte mbarrier, but depending on the layout scratch placed before it the allocation is
    # padded to the next 1 KiB; counting the padding keeps the estimate an upper bound
    del loops
    return 1024


def _two_loop_smem(cc: Arch, kind: str, bm: int, dm: int, dpe: int, prefix: _Loop, extend: _Loop,
                   kv_width: int) -> int:
    q_tile = bm * (dm + dpe) * 2
    if kv_width == 2:
        return q_tile + max(prefix.bytes(2), extend.bytes(2)) + _barriers(kind, [prefix, extend])
    stage2 = q_tile + extend.bytes(2)
    if kind == "mma" and cc[0] in (9, 10):
        stage1 = q_tile + bm * (dm + dpe) * 2 + prefix.fallback_fp8_bytes()
    else:
        q_fp8 = bm * (dm + dpe) * (2 if prefix.skip_tile else 1)
        stage1 = q_tile + q_fp8 + prefix.bytes(1)
    return max(stage1, stage2) + _barriers(kind, [prefix, extend])


def extend_attention_smem(cc: str | int | Arch, lq: int, lv: int, block_m: int, block_n: int,
                          num_warps: int, num_stages: int = 1, kv_dtype: str = "bf16",
                          kv_group: int = 1, custom_mask: bool = False,
                          sliding_window: bool | int = False, logit_cap: bool | float = False,
                          sinks: bool = False) -> int:
    """Bytes of shared memory of extend attention's `_fwd_kernel` (SGLang launches num_stages=1).

    The prefix loop reads the KV cache (kv_dtype), the extend loop the bf16 new tokens.
    custom_mask (speculative verify) and sliding_window add a SKIP_TILE branch that stops
    pipelining. logit_cap, sinks and kv_group do not change the footprint.
    """
    del kv_group, logit_cap, sinks
    arch = parse_arch(cc)
    dm, dpe = head_split(lq)
    dv = _pow2(lv)
    kind = mma_kind(arch, block_m, num_warps)
    window = bool(sliding_window)
    prefix = _Loop(arch, kind, block_m, block_n, dm, dpe, dv, num_stages, custom_mask or window)
    extend = _Loop(arch, kind, block_m, block_n, dm, dpe, dv, num_stages, custom_mask or window)
    return _two_loop_smem(arch, kind, block_m, dm, dpe, prefix, extend, _KV_WIDTH[kv_dtype])


def decode_attention_smem(cc: str | int | Arch, lk: int, lv: int, block_n: int, block_h: int,
                          num_warps: int, num_stages: int, kv_dtype: str = "bf16",
                          grouped: bool = True) -> int:
    """Bytes of shared memory of the decode stage-1 kernel.

    grouped=True: `_fwd_grouped_kernel_stage1` (GQA/MQA/MLA; a [BLOCK_H, BLOCK_N] dot per step).
    grouped=False: `_fwd_kernel_stage1` (MHA, no dots: only reduction scratch).
    """
    arch = parse_arch(cc)
    width = _KV_WIDTH[kv_dtype]
    if not grouped:
        return _mha_decode_smem(arch, lk, lv, block_n, num_warps, width)
    dm, dpe = head_split(lk) if lk in (576, 288) else (_pow2(lk), 0)
    dv = _pow2(lv)
    kind = mma_kind(arch, block_h, num_warps)
    q_tile = block_h * (dm + dpe) * 2
    if kind != "mma":
        loop = _Loop(arch, kind, block_h, block_n, dm, dpe, dv, num_stages, False)
        return q_tile + loop.bytes(width) + _barriers(kind, [loop])
    return q_tile + _gathered_kv(arch, block_h, block_n, dm, dpe, dv, num_stages, width)


def _gathered_kv(cc: Arch, bh: int, bn: int, dm: int, dpe: int, dv: int, stages: int, width: int) -> int:
    """K/V tiles of the decode loop, gathered through kv_indices.

    The index load must run a stage ahead of the K/V loads it addresses, so K and V are never
    multi-buffered: with 1 stage one tile slot is reused, with 2+ K, K_pe, V and p are all
    live, and from 3 stages the int64 index tile gets an (S-1)-deep ring.
    """
    k, kpe, v = bn * dm * width, bn * dpe * width, bn * dv * width
    p_tile = bh * bn * 2 if bh < dv else 0
    if width == 1 and cc[0] not in (9, 10) and stages <= 2:
        p_tile = bh * bn if bh < dv else 0
    if stages <= 1:
        if width == 1 and cc[0] in (9, 10):  # fp8 upcast to fp16 through one buffer
            return max(bn * dm, bn * dpe, bn * dv, bh * bn * 2)
        return max(k, kpe, v + p_tile)
    index_ring = (stages - 1) * bn * 8 if stages >= 3 else 0
    return k + kpe + v + p_tile + index_ring


def _mha_decode_smem(cc: Arch, lk: int, lv: int, block_n: int, warps: int, width: int) -> int:
    """MHA decode has no tl.dot: shared memory is only cross-warp reduction scratch."""
    del cc, lk, block_n, width
    return 4 * warps * _pow2(lv)


def prefill_attention_smem(cc: str | int | Arch, head_dim: int, block: int, num_warps: int,
                           num_stages: int = 1, dtype: str = "bf16") -> int:
    """Bytes of shared memory of `context_attention_fwd`'s kernel (vision / prefill attention)."""
    arch = parse_arch(cc)
    width = _KV_WIDTH[dtype]
    d = _pow2(head_dim)
    kind = mma_kind(arch, block, num_warps)
    loop = _Loop(arch, kind, block, block, d, 0, d, num_stages, False, head_dim % 16 == 0)
    return block * d * width + loop.bytes(width) + _barriers(kind, [loop])
