"""The result record every estimator and exact compile reports."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class SmemResult:
    """Shared memory of one kernel config on one arch, against the block limit."""

    kernel: str
    arch: str
    bytes: int
    limit: int
    fits: bool
    method: str  # "analytic" or "exact"

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
