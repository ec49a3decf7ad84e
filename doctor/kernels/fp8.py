"""Where Triton runs fp8 dots natively."""

from __future__ import annotations

from .arch import Arch

# first Triton releases whose mma.sync path takes fp8 operands on sm_120, and on sm_121
SM120_FP8_MMA = (3, 5)
SM121_FP8_MMA = (3, 8)


def native_fp8_mma(cc: Arch, triton: tuple[int, int]) -> bool:
    """Triton's mma.sync takes fp8 operands on sm_89, on sm_120 from 3.5 and on sm_121 from 3.8;
    elsewhere (sm_90/10x with small tiles) an fp8 dot upcasts both operands to fp16 in registers."""
    return (cc == (8, 9) or (cc == (12, 0) and triton >= SM120_FP8_MMA)
            or (cc == (12, 1) and triton >= SM121_FP8_MMA))
