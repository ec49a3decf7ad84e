"""The three verdicts, best first."""

from __future__ import annotations

NATIVE = "native"
PTX_JIT = "ptx-jit"
NONE = "none"
RANK = {NATIVE: 0, PTX_JIT: 1, NONE: 2}


def worst(verdicts) -> str:
    return max(verdicts, key=RANK.__getitem__, default=NATIVE)
