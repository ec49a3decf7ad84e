"""Reports with a place: one `check`, or one launch command `lint` found in a file (path and lines).
Every finding gets a fingerprint that stays the same across runs (no line numbers, no byte counts), so code
scanning and `--baseline` recognise it when the file moves or the numbers change."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from doctor.findings import SEVERITIES, Finding
from doctor.output import utf8_bytes
from doctor.pipeline.report import Report

FINGERPRINT_KEY = "sm120DoctorFinding/v1"
ALL_RULES = "*"  # an inline `# sm120-doctor: ignore` without IDs suppresses every rule at that launch


@dataclass(frozen=True)
class Span:
    """Lines of a file a launch was found at."""

    path: str  # as the user named it (posix), relative where it was given relative
    line: int
    end_line: int


@dataclass(frozen=True)
class Problem:
    """A launch that could not be analysed (e.g. its model cannot be found): the gate cannot vouch for it."""

    span: Span
    message: str


@dataclass(frozen=True)
class Target:
    """A report with where its launch came from (for lint) and its findings' fingerprints."""

    report: Report  # its findings are what the gate kept
    span: Span | None = None
    launch: Mapping[str, Any] = field(default_factory=dict)  # lint: engine, version, model, argv, notes
    suppressed: frozenset[str] = frozenset()  # rule IDs suppressed inline at this launch ("*": all)
    fingerprints: tuple[str, ...] = ()  # one per report.findings entry

    def suppresses(self, rule_id: str) -> bool:
        return ALL_RULES in self.suppressed or rule_id in self.suppressed

    def findings(self) -> list[tuple[Finding, str]]:
        return list(zip(self.report.findings, self.fingerprints, strict=True))

    def keep(self, keep: Sequence[bool]) -> Target:
        kept = [pair for pair, wanted in zip(self.findings(), keep, strict=True) if wanted]
        return replace(self, report=replace(self.report, findings=tuple(f for f, _ in kept)),
                       fingerprints=tuple(p for _, p in kept))


def fingerprinted(targets: Sequence[Target]) -> list[Target]:
    """The targets with a stable fingerprint for every finding; equal findings are told apart by order."""
    seen: Counter[str] = Counter()
    out = []
    for target in targets:
        prints = []
        for finding in target.report.findings:
            key = identity(finding, target)
            seen[key] += 1
            prints.append(_sha256(utf8_bytes(f"{key}#{seen[key]}")).hexdigest()[:32])
        out.append(replace(target, fingerprints=tuple(prints)))
    return out


def identity(finding: Finding, target: Target) -> str:
    """What makes a finding the same finding next run: rule, file, model, engine, title, string evidence."""
    facts = target.report.facts
    engine = (target.report.launch or {}).get("engine", "")
    words = [str(value) for _, value in sorted(finding.evidence.items()) if isinstance(value, str)]
    parts = [finding.id, target.span.path if target.span else "", facts.model.id if facts.model else "", engine,
             finding.title, *words]
    return "\x1f".join(parts)


def worst_at_or_above(targets: Sequence[Target], threshold: str) -> bool:
    return any(t.report.worst_at_or_above(threshold) for t in targets)


def counts(targets: Sequence[Target]) -> dict[str, int]:
    total: Counter[str] = Counter({severity: 0 for severity in (*SEVERITIES, "total")})
    for target in targets:
        total.update(target.report.counts())
    return dict(total)


def _sha256(data: bytes) -> Any:
    # CPython's built-in SHA-256 (named _sha256 up to 3.11, _sha2 after): hashlib loads OpenSSL first, ~10 ms
    # of a cold start for a few short digests. Same algorithm, same digests.
    try:
        from _sha256 import sha256  # type: ignore[import-not-found]
    except ImportError:
        try:
            from _sha2 import sha256  # type: ignore[import-not-found,no-redef]
        except ImportError:
            from hashlib import sha256  # type: ignore[assignment]
    return sha256(data)
