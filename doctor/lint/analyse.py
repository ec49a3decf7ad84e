"""Run the `check` pipeline on every launch `lint` finds: the launch's model, flags and environment, the
engine version the file pins (else `--engine`), against a built-in hardware profile or a facts snapshot."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from doctor.check import CheckRequest, run_check
from doctor.engines import SERVING_ENGINES, parse_engine_spec
from doctor.errors import DoctorError
from doctor.lint.find import expand_paths, launches_in_file
from doctor.lint.site import LaunchSite
from doctor.located import Span, Target


@dataclass(frozen=True)
class LintRequest:
    paths: Sequence[Path]
    hardware: str | None = None
    facts_file: Path | None = None
    engines: Sequence[str] = ()  # what-ifs; a serving engine's version applies only where the file pins none
    offline: bool = False
    environ: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class LintProblem:
    """A launch that could not be analysed (e.g. its model cannot be found): the gate cannot vouch for it."""

    span: Span
    message: str


@dataclass(frozen=True)
class LintResult:
    targets: list[Target]
    problems: list[LintProblem]
    files: int


def lint(request: LintRequest) -> LintResult:
    files = expand_paths(request.paths)
    targets: list[Target] = []
    problems: list[LintProblem] = []
    for path in files:
        for site in launches_in_file(path, shown_path(path)):
            span = Span(site.path, site.line, site.end_line)
            try:
                targets.append(analyse(site, request))
            except DoctorError as exc:
                problems.append(LintProblem(span, str(exc)))
    return LintResult(targets=targets, problems=problems, files=len(files))


def analyse(site: LaunchSite, request: LintRequest) -> Target:
    engines, version_source = engine_specs(site, request.engines)
    report = run_check(CheckRequest(model=site.model, hardware=request.hardware, facts_file=request.facts_file,
                                    engines=engines, engine_args=site.engine_args, offline=request.offline,
                                    environ={**request.environ, **site.env}))
    version = next((s.partition("==")[2] for s in engines if parse_engine_spec(s).name == site.engine), None)
    launch = {"engine": site.engine, "version": version, "version_source": version_source, "model": site.model,
              "argv": list(site.argv), "engine_args": list(site.engine_args), "notes": list(site.notes)}
    return Target(report=report, span=Span(site.path, site.line, site.end_line), launch=launch,
                  suppressed=site.suppressed)


def engine_specs(site: LaunchSite, requested: Sequence[str]) -> tuple[list[str], str]:
    """The what-ifs for this launch and where its engine version came from. Other serving engines' what-ifs
    are dropped: `check` analyses the first serving engine it has a version for, and this launch is one."""
    others = [s for s in requested if parse_engine_spec(s).name not in SERVING_ENGINES]
    mine = [s for s in requested if parse_engine_spec(s).name == site.engine]
    if site.pin is not None:
        return [f"{site.engine}=={site.pin.version}", *others], site.pin.describe()
    if mine:
        return [mine[-1], *others], "--engine"
    return others, "not pinned: the installed package, if any"


def shown_path(path: Path) -> str:
    """The path as reported: relative to the working directory when under it (what code scanning expects)."""
    try:
        return Path(os.path.relpath(path.resolve(), Path.cwd())).as_posix() if path.is_absolute() else path.as_posix()
    except ValueError:
        return path.as_posix()
