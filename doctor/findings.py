"""What every stage shares about findings: a Finding with its Fixes, how far a fix may be trusted (Safety),
and the Action `--fix` takes for it (a file to write, a source patch to apply). The pipeline makes them, the
engines add Actions for their own files, formats and `--fix` read them; this module imports none of those."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from doctor.fix.patches import Patch

SEVERITIES = ("error", "warning", "info")
FIX_KINDS = ("flag", "env", "patch", "config", "upgrade", "manual")


class Safety(str, Enum):
    """How much a fix may be trusted to run unattended, least risk first (ordered: SAFE < UNSAFE < MANUAL).

    safe: writes only new files the user owns or composes flags/env; applied by `--fix`.
    unsafe: edits installed packages or changes behaviour; applied only with `--unsafe-fixes`.
    manual: printed for the user to run (upgrades, hardware, BIOS); never applied."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    MANUAL = "manual"

    @property
    def rank(self) -> int:
        return list(Safety).index(self)

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Safety):
            return NotImplemented
        return self.rank < other.rank

    def __str__(self) -> str:
        return self.value


FIX_SAFETY = tuple(s.value for s in Safety)


@dataclass(frozen=True)
class Fix:
    """One way to fix a finding, with its kind and safety."""

    kind: str
    safety: Safety
    summary: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "safety", Safety(self.safety))

    @property
    def is_safe(self) -> bool:
        return self.safety is Safety.SAFE

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "safety": self.safety.value, "summary": self.summary, "details": self.details}


@dataclass(frozen=True)
class Finding:
    """What a rule found, with its evidence, fixes and sources."""

    id: str
    severity: str
    title: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    fixes: tuple[Fix, ...] = ()
    references: tuple[str, ...] = ()
    engines: tuple[str, ...] = ()  # the engine runs it came from, when check analysed several and not all gave it

    def to_dict(self) -> dict[str, Any]:
        data = {"id": self.id, "severity": self.severity, "title": self.title, "message": self.message,
                "evidence": self.evidence, "fixes": [f.to_dict() for f in self.fixes],
                "references": list(self.references), "explain": f"sm120-doctor explain {self.id}"}
        if self.engines:
            data["engines"] = list(self.engines)
        return data


def severity_counts(severities: list[str]) -> dict[str, int]:
    """Findings per severity, and the total."""
    counts = {s: severities.count(s) for s in SEVERITIES}
    counts["total"] = len(severities)
    return counts


def any_at_or_above(severities: list[str], threshold: str) -> bool:
    """Is any severity at or above `threshold` ("never": none is)?"""
    if threshold == "never":
        return False
    rank = SEVERITIES.index(threshold)
    return any(SEVERITIES.index(s) <= rank for s in severities)


@dataclass(frozen=True)
class Action:
    rule_id: str
    safety: Safety
    summary: str
    path: Path | None = None
    new_bytes: bytes | None = None
    old_bytes: bytes | None = None
    patch: Patch | None = None  # the engine source patch this action applies (verified before the replace)
    skipped: str | None = None  # why it will not be applied
    mode: int | None = None  # file mode for a new file (e.g. an executable script)
    env: dict[str, str] = field(default_factory=dict)  # what the launch must export for the file to count
    kernel: str | None = None  # the kernel family a config file serves

    @property
    def patch_id(self) -> str | None:
        return self.patch.id if self.patch else None

    @property
    def runnable(self) -> bool:
        return self.skipped is None and self.path is not None and self.new_bytes is not None

    def diff(self) -> str:
        if self.path is None or self.new_bytes is None:
            return ""
        old = (self.old_bytes or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
        new = self.new_bytes.decode("utf-8", errors="replace").splitlines(keepends=True)
        import difflib  # only when a diff is shown: not on every check's import path

        return "".join(difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}"))
