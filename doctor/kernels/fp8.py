"""Where Triton runs fp8 dots natively."""

from __future__ import annotations

from .arch import Arch


def native_fp8_mma(cc: Arch) -> bool:
    """Triton's mma.sync takes fp8 operands on sm_89 and sm_120 only; elsewhere (sm_90/10x
    with small tiles, sm_121) an fp8 dot upcasts both operands to fp16 in registers."""
    return cc in ((8, 9), (12, 0))
