"""Findings, fixes and the report that every output format renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from doctor import __version__
from doctor.pipeline.analysis import Analysis
from doctor.pipeline.facts import Facts

SEVERITIES = ("error", "warning", "info")
FIX_KINDS = ("flag", "env", "patch", "config", "upgrade", "manual")
REPORT_SCHEMA_VERSION = "1"


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


@dataclass(frozen=True)
class Report:
    """What check found: one Analysis (and composed launch) per engine analysed, the findings of all of them.
    `analysis` and `launch` are the first engine's, the one a single-engine check has."""

    facts: Facts
    analyses: tuple[Analysis, ...]
    findings: tuple[Finding, ...]
    launches: tuple[dict[str, Any], ...] = ()  # doctor.engines.base.LaunchCommand.to_dict() per engine

    @property
    def analysis(self) -> Analysis:
        return self.analyses[0]

    @property
    def launch(self) -> dict[str, Any] | None:
        return self.launches[0] if self.launches else None

    def counts(self) -> dict[str, int]:
        return severity_counts([f.severity for f in self.findings])

    def worst_at_or_above(self, threshold: str) -> bool:
        return any_at_or_above([f.severity for f in self.findings], threshold)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "tool": {"name": "sm120-doctor", "version": __version__},
            "facts": self.facts.to_dict(),
            "analysis": self.analysis.to_dict(),
            "analyses": [a.to_dict() for a in self.analyses],
            "findings": [f.to_dict() for f in self.findings],
            "summary": self.counts(),
            "launch": self.launch,
            "launches": list(self.launches),
        }


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
