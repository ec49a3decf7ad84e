"""Run the `check` pipeline on every launch `lint` finds: the launch's model, flags and environment, the
engine version the file pins (else `--engine`), against a built-in hardware profile or a facts snapshot."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from doctor.engines import registry
from doctor.engines.images import ImageFacts, image_facts
from doctor.errors import DoctorError
from doctor.hardware.stated import NOTHING_STATED, HostWhatIf
from doctor.lint.find import expand_paths, launches_in_file
from doctor.lint.site import LaunchSite
from doctor.located import Problem, Span, Target
from doctor.pipeline.check import CheckRequest, run_check
from doctor.pipeline.facts import Facts


@dataclass(frozen=True)
class LintRequest:
    paths: Sequence[Path]
    hardware: str | None = None
    facts_file: Path | None = None
    engines: Sequence[str] = ()  # what-ifs; a serving engine's version applies only where the file pins none
    offline: bool = False
    environ: Mapping[str, str] = field(default_factory=dict)
    stated: HostWhatIf = NOTHING_STATED  # --driver / --wsl: the profile's driver release and WSL2


@dataclass(frozen=True)
class LintResult:
    targets: list[Target]
    problems: list[Problem]
    files: int


def lint(request: LintRequest) -> LintResult:
    files = expand_paths(request.paths)
    targets: list[Target] = []
    problems: list[Problem] = []
    installed = _Installed(request)
    for path in files:
        for site in launches_in_file(path, shown_path(path)):
            try:
                targets.append(analyse(site, request, installed))
            except DoctorError as exc:
                problems.append(Problem(Span(site.path, site.line, site.end_line), str(exc)))
    return LintResult(targets=targets, problems=problems, files=len(files))


def analyse(site: LaunchSite, request: LintRequest, installed: _Installed | None = None) -> Target:
    engines, version, source = engine_specs(site, request.engines, installed or _Installed(request))
    image = image_facts(site.image)
    recipe = dict(site.recipe or {})
    report = run_check(CheckRequest(model=site.model, hardware=request.hardware, facts_file=request.facts_file,
                                    engines=[*engines, *image_what_ifs(image, engines)],
                                    engine_args=site.engine_args, offline=request.offline,
                                    environ={**request.environ, **site.env},
                                    build_env=recipe.get("variables", {}),
                                    launch_file={"image": image, "recipe": recipe or None}, stated=request.stated))
    launch = {"engine": site.engine, "version": version, "version_source": source, "model": site.model,
              "argv": list(site.argv), "engine_args": list(site.engine_args), "notes": list(site.notes),
              "image": image.view(None) if image else None, "recipe": recipe or None}
    return Target(report=report, span=Span(site.path, site.line, site.end_line), launch=launch,
                  suppressed=site.suppressed)


def engine_specs(site: LaunchSite, requested: Sequence[str], installed: _Installed
                 ) -> tuple[list[str], str | None, str]:
    """The what-ifs for this launch, its engine version and where that came from: the file's pin, else
    `--engine`, else the version installed here (or in the --facts snapshot). Other serving engines are left
    out: `check` analyses every what-if engine, and this launch runs one."""
    package = _package(site.engine)
    serving = {engine.package for engine in registry.engines().values()}
    others = [s for s in requested if registry.parse_engine_spec(s).name not in serving]
    mine = [s for s in requested if registry.parse_engine_spec(s).name == package]
    if site.pin is not None:
        version, source = site.pin.version, site.pin.describe()
    elif mine:
        version, source = mine[-1].partition("==")[2].strip(), "--engine"
    else:
        version, source = installed.version(package)
    return ([f"{site.engine}=={version}"] if version else []) + others, version, source


def image_what_ifs(image: ImageFacts | None, engines: Sequence[str]) -> list[str]:
    """The libraries the image pins (torch, FlashInfer, its nvcc), where the user named none of them."""
    if image is None:
        return []
    named = {registry.parse_engine_spec(spec).name for spec in engines}
    return [spec for spec in image.what_ifs() if registry.parse_engine_spec(spec).name not in named]


def _package(engine: str) -> str:
    found = registry.get(engine)
    return found.package if found is not None else engine


class _Installed:
    """Engine versions of the target when the launch file pins none: the --facts snapshot's libraries, or
    this environment's (read once, as `check` reads them)."""

    def __init__(self, request: LintRequest) -> None:
        self.request = request
        self.facts: Facts | None = None

    def version(self, package: str) -> tuple[str | None, str]:
        if self.facts is None:
            from doctor.pipeline.gather import gather_facts

            self.facts = gather_facts(environ=self.request.environ, hardware=self.request.hardware,
                                      facts_file=self.request.facts_file)
        library = self.facts.library(package)
        where = "the facts snapshot" if self.request.facts_file else "this environment"
        if library is None:
            return None, f"not pinned, not given with --engine and not installed in {where}: no engine analysis"
        return library.version, f"installed in {where}"


def shown_path(path: Path) -> str:
    """The path as reported: relative to the working directory when it lies under it (what code scanning
    expects), else as given."""
    if not path.is_absolute():
        return path.as_posix()
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return path.as_posix()
