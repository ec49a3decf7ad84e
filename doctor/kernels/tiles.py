"""Tile arithmetic shared by the estimators and by engine code that picks tiles."""

from __future__ import annotations


def next_power_of_2(n: int) -> int:
    """Triton's `next_power_of_2`: the smallest power of two >= n (1 for n <= 1)."""
    return 1 << max(0, (int(n) - 1).bit_length())
