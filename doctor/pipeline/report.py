"""The report that every output format renders: the analyses, the findings (doctor.findings), the launches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from doctor import __version__
from doctor.findings import Finding, any_at_or_above, severity_counts
from doctor.pipeline.analysis import Analysis
from doctor.pipeline.facts import Facts

REPORT_SCHEMA_VERSION = "1"


@dataclass(frozen=True)
class Report:
    """What check found: one Analysis (and composed launch) per engine analysed, the findings of all of them.
    `analysis` and `launch` are the first engine's, the one a single-engine check has."""

    facts: Facts
    analyses: tuple[Analysis, ...]
    findings: tuple[Finding, ...]
    launches: tuple[dict[str, Any], ...] = ()  # doctor.engines.run.LaunchCommand.to_dict() per engine
    # per engine named without its release (`--engine NAME`, inferred, or a log's): the releases evaluated
    releases_evaluated: tuple[dict[str, Any], ...] = ()

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
        data = {
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
        if self.releases_evaluated:
            data["releases_evaluated"] = [dict(entry) for entry in self.releases_evaluated]
        return data
