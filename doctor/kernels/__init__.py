"""Shared-memory estimates for the Triton kernels engines launch.

Extend attention (`_fwd_kernel`) as SGLang launches it: num_stages=1, no custom mask, no sliding
window. Closed form from shared/research/smem.md §4.3 for the mma.sync path (sm80/86/89/120):
q and q_pe live in shared memory for the whole kernel; k and v share one slot; p makes a round trip
through shared memory when BLOCK_M < BLOCK_DV.
"""

from __future__ import annotations

from doctor.hardware import smem_per_block_optin


def smem_limit(cc: tuple[int, int]) -> int:
    limit = smem_per_block_optin(cc)
    if limit is None:
        raise ValueError(f"no shared-memory limit known for compute capability {cc[0]}.{cc[1]}")
    return limit


def extend_attention_smem(cc: tuple[int, int], lq: int, lv: int, block_m: int, block_n: int,
                          num_warps: int, num_stages: int = 1, kv_dtype: str = "bf16", kv_group: int = 1,
                          custom_mask: bool = False, sliding_window: bool = False, logit_cap: bool = False,
                          sinks: bool = False) -> int:
    if num_stages != 1 or custom_mask or sliding_window:
        raise ValueError("only SGLang's launch (num_stages=1, no custom mask, no sliding window) is modelled")
    dmodel, dpe = {576: (512, 64), 288: (256, 32), 192: (128, 64)}.get(lq, (_pow2(lq), 0))
    dv = _pow2(lv)
    q_bytes = 2

    def loop(elem: int) -> int:
        p = block_m * block_n * elem if block_m < dv else 0
        return max(block_n * dmodel * elem, block_n * dpe * elem, block_n * dv * elem + p)

    q_tile = block_m * (dmodel + dpe) * q_bytes
    extend_part = q_tile + loop(q_bytes)
    if kv_dtype in ("bf16", "fp16"):
        return extend_part
    if kv_dtype.startswith("fp8"):
        q_fp8 = block_m * (dmodel + dpe)
        return max(q_tile + q_fp8 + loop(1), extend_part)
    raise ValueError(f"unknown kv dtype {kv_dtype!r}")


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())
