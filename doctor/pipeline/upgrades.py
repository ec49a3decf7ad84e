"""For each finding with an upgrade fix: the lowest known release of that package that clears it, found by
re-running the pure analysis and rules with the package replaced by each newer release (a what-if)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from doctor.engines.releases import known_releases, newer_releases
from doctor.engines.versions import package_named
from doctor.pipeline.facts import Facts, Library
from doctor.pipeline.report import Finding, Fix

# The distribution name at the head of a requirement (`vllm>=0.15.1`, `vllm[tensorizer]==0.15.1`), PEP 508.
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[|[<>=!~;@ ]|$)")
Evaluate = Callable[[Facts], set[str]]  # facts → IDs of the findings they produce


def annotate_upgrades(facts: Facts, findings: tuple[Finding, ...], evaluate: Evaluate) -> tuple[Finding, ...]:
    cache: dict[tuple[str, str], set[str]] = {}

    def fired(package: str, version: str) -> set[str]:
        if (package, version) not in cache:
            what_if = Library(name=package, version=version, what_if=True)
            cache[(package, version)] = evaluate(facts.replace(libraries={**facts.libraries, package: what_if}))
        return cache[(package, version)]

    return tuple(_annotate(f, facts, fired, findings) for f in findings)


def _new_errors(ids: set[str]) -> bool:
    """A release that clears one error by raising another (an engine default that changed to a second broken
    one) is no answer: the lowest clearing release is the first that adds no new error."""
    from doctor.pipeline.rules import load_rules

    errors = {rule.id for rule in load_rules() if rule.severity == "error"}
    return bool(ids & errors)


def _annotate(finding: Finding, facts: Facts, fired: Callable[[str, str], set[str]],
              findings: tuple[Finding, ...]) -> Finding:
    fixes = []
    for fix in finding.fixes:
        package = _package(fix)
        current = facts.library(package) if package else None
        if package is None or current is None:
            fixes.append(fix)
            continue
        now = {f.id for f in findings}
        lowest = next((v for v in newer_releases(package, current.version)
                       if finding.id not in fired(package, v) and not _new_errors(fired(package, v) - now)), None)
        fixes.append(_with_lowest(fix, package, lowest) if lowest else fix)
    return dataclasses.replace(finding, fixes=tuple(fixes))


def _package(fix: Fix) -> str | None:
    if fix.kind != "upgrade" or not isinstance(fix.details.get("package"), str):
        return None
    try:
        name = _REQUIREMENT_NAME.match(fix.details["package"]).group(1).lower()  # type: ignore[union-attr]
    except AttributeError:
        return None
    return package_named(name)


def _with_lowest(fix: Fix, package: str, lowest: str) -> Fix:
    exact = "lowest release" if known_releases(package)[1] else "lowest known release"
    details = {**fix.details, "package": f"{package}>={lowest}", "lowest_clearing": lowest}
    return dataclasses.replace(fix, summary=f"{fix.summary} ({package}>={lowest}: {exact} that clears this)",
                               details=details)
