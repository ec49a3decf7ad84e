"""What the CI gate keeps: the project config's select/ignore and per-file ignores, inline suppressions at
a launch, then the baseline; and whether what is left fails the run."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from doctor.baseline import new_findings, read_baseline
from doctor.config import ProjectConfig
from doctor.located import Target, fingerprinted, worst_at_or_above


@dataclass(frozen=True)
class GateResult:
    """What the gate kept, and what config, suppressions and the baseline dropped."""

    targets: list[Target]
    suppressed: int  # dropped by config or inline comments
    accepted: int  # dropped because the baseline lists them
    baseline_used: bool

    def fails(self, fail_on: str) -> bool:
        return worst_at_or_above(self.targets, fail_on)


def gate(targets: Sequence[Target], config: ProjectConfig, baseline: Path | None = None) -> GateResult:
    selected, suppressed = [], 0
    for target in fingerprinted(targets):
        path = target.span.path if target.span else None
        keep = [config.keeps(f.id, path) and not target.suppresses(f.id) for f in target.report.findings]
        suppressed += keep.count(False)
        selected.append(target.keep(keep))
    if baseline is None:
        return GateResult(selected, suppressed, 0, baseline_used=False)
    kept, accepted = new_findings(selected, read_baseline(baseline))
    return GateResult(kept, suppressed, accepted, baseline_used=True)

