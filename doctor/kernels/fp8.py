"""Where Triton runs fp8 dots natively."""

from __future__ import annotations

from .arch import Arch

# first Triton release whose mma.sync path takes fp8 operands on sm_121 as well
SM121_FP8_MMA = (3, 9)


def native_fp8_mma(cc: Arch, triton: tuple[int, int]) -> bool:
    """Triton's mma.sync takes fp8 operands on sm_89 and sm_120 (and sm_121 from 3.9); elsewhere
    (sm_90/10x with small tiles) an fp8 dot upcasts both operands to fp16 in registers."""
    return cc in ((8, 9), (12, 0)) or (cc == (12, 1) and triton >= SM121_FP8_MMA)
