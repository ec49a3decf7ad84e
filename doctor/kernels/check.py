"""One kernel the engine will launch: its shape, launch config, and shared memory against the limit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class KernelCheck:
    """A kernel launch an engine will make, its config, and whether it fits the GPU."""

    kernel: str
    engine: str
    path: str
    when: str
    shape: dict[str, Any]
    config: dict[str, Any]
    bytes: int
    limit: int | None  # None: the facts do not know the GPU's shared-memory limit (never guessed as 0)
    method: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def fits(self) -> bool | None:
        """None when the limit is unknown: neither a fit nor an overflow is claimed."""
        return None if self.limit is None else self.bytes <= self.limit

    @property
    def verdict(self) -> str:
        return {True: "fits", False: "OVERFLOW", None: "unknown limit"}[self.fits]

    def to_dict(self) -> dict[str, Any]:
        return {"kernel": self.kernel, "engine": self.engine, "path": self.path, "when": self.when,
                "shape": self.shape, "config": self.config, "bytes": self.bytes, "limit": self.limit,
                "fits": self.fits, "method": self.method, "details": self.details}
