"""An engine named without its release (`--engine vllm`, an engine inferred from the launch, a log that names
the engine but not the release): which releases to evaluate, and how the reports of every release merge into
one. A finding that fires at every release keeps its severity; one that fires only at some is at most a
warning that says where it holds, what would confirm it and which releases do not show it. Never promoted."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from doctor.engines.base import Engine
from doctor.findings import SEVERITIES, Finding, Fix, Safety
from doctor.pipeline.facts import Facts, Library
from doctor.pipeline.report import Report
from doctor.pipeline.rules import Rule

# how the engine became known: --engine NAME, inferred from the flags or a pasted command, a log's
FROM = {"named": "", "flags": "engine inferred from the flags: ", "command": "engine inferred from the pasted "
        "launch command: ", "log": "engine from the log: "}
RANK = {severity: i for i, severity in enumerate(SEVERITIES)}  # error 0 (most severe) ... info 2


def evaluated_releases(engine: Engine, rules: Sequence[Rule]) -> list[str]:
    """The engine's releases (`unstated_releases`), the releases between them its wheel-derived tables hold
    (patch releases with their own pins and binaries) and the version boundaries its rules name, each once,
    oldest first: a rule's window between two listed releases is evaluated too."""
    known = [v for v in (_version(r) for r in engine.unstated_releases()) if v is not None]
    if not known:
        return []
    oldest, newest = min(known), max(known)
    found = {v: str(v) for v in known}
    for table_release in _table_releases(engine.package):  # patch releases the wheel-derived tables hold
        if oldest <= table_release <= newest:
            found.setdefault(table_release, str(table_release))
    for boundary in _rule_boundaries(engine, rules):
        if boundary.is_prerelease and boundary <= newest:
            continue  # a pre-release of a line that has a final release: users run the final
        if boundary >= oldest and (boundary <= newest or not engine.releases_complete):
            found.setdefault(boundary, str(boundary))
    return [found[v] for v in sorted(found)]


def _table_releases(package: str) -> set[Version]:
    """The final releases of `package` that a wheel-derived table under doctor/data holds (doctor.data_tables:
    its facts, the packages its wheels pin, its wheels' archs)."""
    from doctor import data_tables

    return {v for table in data_tables.tables() if table.package == package
            for v in (data_tables.stable(r) for r in data_tables.versions_in(table)) if v is not None}


def _rule_boundaries(engine: Engine, rules: Sequence[Rule]) -> set[Version]:
    root = engine.name.replace(".", "_").replace("-", "_")
    paths = {f"lib.{engine.package}.version", f"{root}.version"}
    out: set[Version] = set()
    for rule in rules:
        own = paths | ({"engine.version"} if rule.area == root else set())
        for condition in _conditions(rule.when):
            if condition.get("fact") in own and "version" in condition:
                out |= _boundaries(str(condition["version"]))
    return out


def _conditions(conditions: Iterable[Any]) -> Iterable[dict[str, Any]]:
    for condition in conditions:
        if not isinstance(condition, dict):
            continue
        for group in ("any", "all"):
            if group in condition:
                yield from _conditions(condition[group])
        yield condition


def _boundaries(text: str) -> set[Version]:
    """Each clause's version, and for `<=V`, `>V`, `==V` the next one up (V's last number plus one; for a
    release candidate the next candidate): a release on each side of the edge. Development builds are no release
    a user runs: left out; release candidates are kept for a line with no final release yet (TensorRT-LLM 1.3's,
    which NGC containers ship), and dropped by `evaluated_releases` otherwise."""
    try:
        clauses = SpecifierSet(text)
    except InvalidSpecifier:
        return set()
    out: set[Version] = set()
    for clause in clauses:
        version = _version(clause.version)
        if version is None or version.is_devrelease:
            continue
        out.add(version)
        if clause.operator in ("<=", ">", "=="):
            out.add(_next_up(version))
    return out


def _next_up(version: Version) -> Version:
    if version.pre is not None:
        kind, number = version.pre
        return Version(f"{version.base_version}{kind}{number + 1}")
    return Version(".".join(str(n) for n in (*version.release[:-1], version.release[-1] + 1)))


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def at_release(facts: Facts, engine: Engine, release: str, pinned: bool = True) -> Facts:
    """The facts with the engine at `release`, as a what-if whose release the user did not state; `pinned`:
    with what that release's wheel pins where the facts lack it, as `--engine NAME==release` would have."""
    from doctor.engines.registry import bundled_libraries, release_details

    known = facts.libraries.get(engine.package)
    logged = {k: v for k, v in (known.details if known else {}).items() if k.startswith("logged_")}  # the log's own
    details = {"release_stated": False, **logged, **release_details(engine.package, release)}
    library = Library(name=engine.package, version=release, what_if=True, details=details)
    libraries = {**facts.libraries, engine.package: library}
    libraries |= {lib.name: lib for lib in bundled_libraries(library) if lib.name not in facts.libraries}
    if pinned:
        from doctor.engines.pins import implied_libraries

        libraries |= implied_libraries(libraries, facts.gpus[0].capability if facts.gpus else None)
    return facts.replace(libraries=libraries)


def at_shown_releases(facts: Facts, engines: Iterable[Engine], rules: Sequence[Rule]) -> tuple[Facts, list[str]]:
    """The facts with each engine named without a release at the release a merged check shows (what one plan
    or one multi-node layout is made for), and a note per engine saying so."""
    notes = []
    for engine in engines:
        release = shown_release(engine, evaluated_releases(engine, rules))
        facts = at_release(facts, engine, release)
        notes.append(f"{engine.display_name}, release not stated: planned as {release} (`--engine "
                     f"{engine.package}==VERSION` plans another)")
    return facts, notes


def shown_release(engine: Engine, evaluated: Sequence[str]) -> str:
    """The release whose analysis, plan and launch command the merged report shows: the newest the engine's
    knowledge covers."""
    covered = [r for r in evaluated if r in set(engine.releases)]
    return (covered or list(evaluated))[-1]


def merge_releases(engine: Engine, reports: Sequence[tuple[str, Report]], how: str,
                   skipped: Sequence[str] = ()) -> Report:
    """One report for the engine at an unstated release, from its report at each release (oldest first)."""
    releases = [release for release, _ in reports]
    shown = shown_release(engine, releases)
    base = dict(reports)[shown]
    findings = merge_findings(engine, reports, shown)
    summary = (f"{FROM[how]}{engine.display_name}, release not stated: rules evaluated at {len(releases)} releases "
               f"({span(releases)}); the kernels, memory plan and launch command shown are {shown}'s")
    own = any(a.engine == engine.name for a in base.analyses)  # else a bundling program: its engine's runs
    analyses = tuple(dataclasses.replace(a, notes=(summary, *a.notes)) if a.engine == engine.name or not own
                     else a for a in base.analyses)
    entry = {"engine": engine.name, "display_name": engine.display_name, "how": how, "releases": releases,
             "shown": shown, "not_evaluated": list(skipped)}
    return dataclasses.replace(base, analyses=analyses, findings=findings,
                               releases_evaluated=(*base.releases_evaluated, entry))


def instance_releases(reports: Sequence[tuple[str, Report]], shown: str) -> set[str]:
    """The releases whose findings the merged report shows: the shown one, and for each finding the shown
    release lacks, the newest release where it fires (their fixes should be as complete as the shown one's)."""
    newest: dict[tuple[str, tuple[str, ...]], str] = {}
    for release, report in reports:
        for finding in report.findings:
            newest[(finding.id, finding.engines)] = release
    at_shown = {(f.id, f.engines) for release, report in reports if release == shown for f in report.findings}
    return {shown} | {release for key, release in newest.items() if key not in at_shown}


def merge_findings(engine: Engine, reports: Sequence[tuple[str, Report]], shown: str) -> tuple[Finding, ...]:
    releases = [release for release, _ in reports]
    fired: dict[tuple[str, tuple[str, ...]], dict[str, list[Finding]]] = {}
    for release, report in reports:
        for finding in report.findings:
            fired.setdefault((finding.id, finding.engines), {}).setdefault(release, []).append(finding)
    merged: list[Finding] = []
    for by_release in fired.values():
        where = [r for r in releases if r in by_release]
        instances = by_release[shown] if shown in by_release else by_release[where[-1]]
        if len(where) == len(releases):
            cap = max(RANK[_worst(by_release[r])] for r in where)  # the least severe release decides
            merged += [_capped(f, cap) for f in instances]
        else:
            cap = max(RANK["warning"], min(RANK[_worst(by_release[r])] for r in where))
            merged += [_partial(engine, f, cap, releases, where) for f in instances]
    return tuple(sorted(merged, key=lambda f: (RANK[f.severity], f.id)))


def _worst(findings: Sequence[Finding]) -> str:
    return min((f.severity for f in findings), key=RANK.__getitem__)


def _capped(finding: Finding, cap: int) -> Finding:
    """Never more severe than `cap` (a rank): lowering only, never promoting."""
    if RANK[finding.severity] >= cap:
        return finding
    return dataclasses.replace(finding, severity=SEVERITIES[cap])


def _partial(engine: Engine, finding: Finding, cap: int, releases: list[str], where: list[str]) -> Finding:
    capped = _capped(finding, cap)
    was_error = finding.severity == "error" and capped.severity != "error"
    holds = (f"Release not stated: this holds for {engine.display_name} {ranges(releases, where)} of "
             f"{span(releases)} ({len(where)} of the {len(releases)} releases evaluated"
             f"{', an error there' if was_error else ''}); `--engine {engine.name}==VERSION` confirms it.")
    evidence = {**finding.evidence, "releases_firing": list(where)}
    fix = release_fix(engine, releases, where)
    if fix is not None and fix.kind == "upgrade" and any(_upgrades(engine, f) for f in finding.fixes):
        fix = None  # the rule's own upgrade fix already names the lowest release that clears it
    return dataclasses.replace(capped, message=f"{finding.message} {holds}", evidence=evidence,
                               fixes=(*finding.fixes, fix) if fix else finding.fixes)


def _upgrades(engine: Engine, fix: Fix) -> bool:
    package = str(fix.details.get("package", ""))
    return fix.kind == "upgrade" and package.lower().startswith((engine.name, engine.package))


def release_fix(engine: Engine, releases: list[str], where: list[str]) -> Fix | None:
    """The releases where the finding does not fire: an upgrade when they all follow the last that fires, a
    downgrade when they all precede the first, else the list."""
    clear = [r for r in releases if r not in set(where)]
    if not clear:
        return None
    first, last = releases.index(where[0]), releases.index(where[-1])
    name = engine.name
    if all(releases.index(r) > last for r in clear):
        return Fix(kind="upgrade", safety=Safety.MANUAL,
                   summary=f"{engine.display_name} {ranges(releases, clear)} do not show this: {name}>={clear[0]}",
                   details={"package": f"{name}>={clear[0]}"})
    if all(releases.index(r) < first for r in clear):
        what = f"{name}<={clear[-1]} (a downgrade)"
    else:
        what = "run one of those releases"
    return Fix(kind="manual", safety=Safety.MANUAL,
               summary=f"{engine.display_name} {ranges(releases, clear)} do not show this: {what}")


def span(releases: Sequence[str]) -> str:
    return releases[0] if len(releases) == 1 else f"{releases[0]}-{releases[-1]}"


def ranges(releases: Sequence[str], subset: Sequence[str]) -> str:
    """`subset` as runs of consecutive evaluated releases: "0.10.0-0.13.0, 0.15.0"."""
    chosen = set(subset)
    runs: list[list[str]] = []
    previous_in = False
    for release in releases:
        if release in chosen:
            if previous_in:
                runs[-1].append(release)
            else:
                runs.append([release])
        previous_in = release in chosen
    return ", ".join(span(run) for run in runs)
