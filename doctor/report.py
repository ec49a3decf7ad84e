"""Findings, fixes and the report that every output format renders."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from doctor import __version__
from doctor.analysis import Analysis
from doctor.facts import Facts

SEVERITIES = ("error", "warning", "info")
FIX_KINDS = ("flag", "env", "patch", "config", "upgrade", "manual")
FIX_SAFETY = ("safe", "unsafe", "manual")
REPORT_SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class Fix:
    kind: str
    safety: str
    summary: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "safety": self.safety, "summary": self.summary, "details": self.details}


@dataclass(frozen=True)
class Finding:
    id: str
    severity: str
    title: str
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    fixes: tuple[Fix, ...] = ()
    references: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "severity": self.severity, "title": self.title, "message": self.message,
                "evidence": self.evidence, "fixes": [f.to_dict() for f in self.fixes],
                "references": list(self.references), "explain": f"sm120-doctor explain {self.id}"}


@dataclass(frozen=True)
class Report:
    facts: Facts
    analysis: Analysis
    findings: tuple[Finding, ...]
    launch: dict[str, Any] | None = None  # doctor.compose.LaunchPlan.to_dict(): the composed command

    def counts(self) -> dict[str, int]:
        counts = {s: sum(1 for f in self.findings if f.severity == s) for s in SEVERITIES}
        counts["total"] = len(self.findings)
        return counts

    def worst_at_or_above(self, threshold: str) -> bool:
        if threshold == "never":
            return False
        rank = SEVERITIES.index(threshold)
        return any(SEVERITIES.index(f.severity) <= rank for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": REPORT_SCHEMA_VERSION,
            "tool": {"name": "sm120-doctor", "version": __version__},
            "facts": self.facts.to_dict(),
            "analysis": self.analysis.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
            "summary": self.counts(),
            "launch": self.launch,
        }
