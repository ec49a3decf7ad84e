"""For each finding with an upgrade fix: the lowest known release of that package that clears it, found by
re-running the pure analysis and rules with the package replaced by each newer release (a what-if)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Collection

from packaging.version import Version

from doctor.engines import registry
from doctor.engines.releases import LIBRARY_RELEASES
from doctor.findings import Finding, Fix
from doctor.pipeline.facts import Facts, Library

# The distribution name at the head of a requirement (`vllm>=0.15.1`, `vllm[tensorizer]==0.15.1`), PEP 508.
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[|[<>=!~;@ ]|$)")
Evaluate = Callable[[Facts], set[str]]  # facts → IDs of the findings they produce


def annotate_upgrades(facts: Facts, findings: tuple[Finding, ...], evaluate: Evaluate,
                      errors: Collection[str]) -> tuple[Finding, ...]:
    """`evaluate` gives the IDs that fire for a what-if; `errors`: the IDs of the error rules. A release that
    clears one error by raising another (an engine default that changed to a second broken one) is no answer:
    the lowest clearing release is the first that adds no new error."""
    cache: dict[tuple[str, str], set[str]] = {}

    def fired(package: str, version: str) -> set[str]:
        if (package, version) not in cache:
            what_if = Library(name=package, version=version, what_if=True)
            cache[(package, version)] = evaluate(facts.replace(libraries={**facts.libraries, package: what_if}))
        return cache[(package, version)]

    return tuple(_annotate(f, facts, fired, findings, set(errors)) for f in findings)


def _annotate(finding: Finding, facts: Facts, fired: Callable[[str, str], set[str]],
              findings: tuple[Finding, ...], errors: set[str]) -> Finding:
    fixes = []
    for fix in finding.fixes:
        package = _package(fix)
        current = facts.library(package) if package else None
        if package is None or current is None:
            fixes.append(fix)
            continue
        lowest, skipped = _lowest_clearing(finding.id, package, current.version, fired,
                                           {f.id for f in findings}, errors)
        fixes.append(_with_lowest(fix, package, lowest, skipped) if lowest else fix)
    return dataclasses.replace(finding, fixes=tuple(fixes))


def _lowest_clearing(rule_id: str, package: str, current: str, fired: Callable[[str, str], set[str]],
                     now: set[str], errors: set[str]) -> tuple[str | None, dict[str, list[str]]]:
    """The first newer release that clears the finding and adds no error, and the earlier ones that clear it
    but add errors (with their IDs). Stops at the answer: each release asked is a what-if run of the rules."""
    skipped: dict[str, list[str]] = {}
    for release in newer_releases(package, current):
        found = fired(package, release)
        if rule_id in found:
            continue
        new_errors = sorted((found - now) & errors)
        if not new_errors:
            return release, skipped
        skipped[release] = new_errors
    return None, {}


def _package(fix: Fix) -> str | None:
    if fix.kind != "upgrade" or not isinstance(fix.details.get("package"), str):
        return None
    try:
        name = _REQUIREMENT_NAME.match(fix.details["package"]).group(1).lower()  # type: ignore[union-attr]
    except AttributeError:
        return None
    return registry.package_named(name)


def _with_lowest(fix: Fix, package: str, lowest: str, skipped: dict[str, list[str]]) -> Fix:
    """`skipped`: the earlier releases that clear the finding but raise new errors, with those errors' IDs."""
    exact = "lowest release" if known_releases(package)[1] else "lowest known release"
    why = "; ".join(f"{v} clears it but raises {', '.join(ids)}" for v, ids in list(skipped.items())[:2])
    more = f" (and {len(skipped) - 2} more)" if len(skipped) > 2 else ""
    note = f"{exact} that clears this" + (f" without a new error; {why}{more}" if skipped else "")
    # agree.py rewrites the summary from these two when another finding pins an exact release: one sentence
    details = {**fix.details, "package": f"{package}>={lowest}", "lowest_clearing": lowest,
               "lowest_note": note, "summary_base": fix.summary}
    return dataclasses.replace(fix, summary=f"{fix.summary} ({package}>={lowest}: {note})", details=details)


def known_releases(package: str) -> tuple[tuple[str, ...], bool]:
    """(releases oldest first, whether the list holds every release) for an engine or library."""
    engine = registry.by_package(package)
    if engine is not None and engine.releases:
        return engine.releases, engine.releases_complete
    return LIBRARY_RELEASES.get(package, ()), False


def newer_releases(package: str, current: str) -> list[str]:
    try:
        now = Version(current)
    except ValueError:
        return []
    return [v for v in known_releases(package)[0] if Version(v) > now]
