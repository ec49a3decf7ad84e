"""`check`: facts → one analysis per engine → rules → report. The one place the stages are wired together."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doctor.engines import registry
from doctor.engines.base import Engine
from doctor.errors import DoctorError, InputError
from doctor.findings import SEVERITIES, Finding
from doctor.hardware.stated import NOTHING_STATED, HostWhatIf
from doctor.launch import Launch, parse_launch
from doctor.pipeline.agree import agree
from doctor.pipeline.analysis import Analysis, analyze_all, analyze_run
from doctor.pipeline.context import build_context
from doctor.pipeline.facts import Facts
from doctor.pipeline.gather import gather_facts
from doctor.pipeline.report import Report
from doctor.pipeline.rules import Rule, evaluate, load_rules
from doctor.pipeline.upgrades import annotate_upgrades

if TYPE_CHECKING:
    from doctor.engines.infer import Inferred


@dataclass(frozen=True)
class CheckRequest:
    """What `check` was asked: the model, where the facts come from, what-if engines, flags."""

    model: str | None = None
    hardware: str | None = None
    facts_file: Path | None = None
    engines: Sequence[str] = ()
    engine_args: Sequence[str] = ()
    options: Mapping[str, int] = field(default_factory=dict)  # --tp/--pp/--ep/--context-length, spelled per engine
    deep: bool = False
    offline: bool = False
    environ: Mapping[str, str] = field(default_factory=dict)
    build_env: Mapping[str, str] = field(default_factory=dict)  # arch lists a launch file's build recipe sets
    launch_file: Mapping[str, Any] | None = None  # what lint read beside the launch: `image`, `recipe`
    stated: HostWhatIf = NOTHING_STATED  # --driver / --wsl: what the user states of the profile's host


def run_check(request: CheckRequest) -> Report:
    rules = load_rules()  # first, so a broken knowledge base fails before any probing
    versioned, named = registry.split_engine_specs(request.engines)
    argv = list(request.engine_args)
    pasted = _pasted_command(argv) if not request.engines and argv else None
    if pasted is not None:
        argv = list(pasted.flags)  # the pasted command's own words and model are not flags
    parse_launch(argv)  # a malformed value is a usage error before any probing
    facts = gather_facts(environ=request.environ, hardware=request.hardware, facts_file=request.facts_file,
                         engines=versioned, model=request.model, deep=request.deep, offline=request.offline,
                         stated=request.stated)
    given_model = pasted.model if pasted is not None else _model_flag(argv, request.engines)
    if request.model is None and given_model:
        facts = _with_pasted_model(facts, given_model, request)
    if request.build_env:
        facts = facts.replace(env={**facts.env, **request.build_env})
    unstated = {name: "named" for name in named}
    if not request.engines and (pasted or argv) and not registry.engines_to_analyze(facts):
        from doctor.engines.infer import infer_engine

        inferred = pasted or infer_engine(argv)  # an engine's flag vocabulary is read only here
        if inferred is not None:
            unstated[inferred.engine] = inferred.how
    facts, unstated = installed_instead(facts, unstated)
    return check_facts(facts, argv, rules, dict(request.environ), options=request.options,
                       launch_file=request.launch_file, unstated=unstated)


def _with_pasted_model(facts: Facts, model: str, request: CheckRequest) -> Facts:
    """The model the pasted command names, when MODEL was not given; one it cannot find is a note, not a
    failure (the command's other facts still answer)."""
    from doctor.probe.derived_name import hub_id_of_path
    from doctor.probe.model import load_model

    try:
        return facts.replace(model=load_model(model, request.environ, offline=request.offline))
    except DoctorError as exc:
        failure = exc
    for hub_id in hub_id_of_path(model):  # a directory not on this machine: a config derived from its name
        try:
            derived = load_model(hub_id, request.environ, offline=True)
        except DoctorError:
            continue
        if derived.source == "derived":
            return facts.replace(model=dataclasses.replace(derived, id=model))
    note = f"the pasted command's model {model} was not read ({failure}): checked without a model"
    return facts.replace(source=dataclasses.replace(facts.source, notes=(*facts.source.notes, note)))


def _model_flag(argv: list[str], specs: Sequence[str]) -> str | None:
    """The model a named engine's own model flag gives in the flags (llama.cpp's `-hf repo:QUANT` or `-m`), when
    MODEL was not given: the first engine named whose launchers take one."""
    if not argv or not specs:
        return None
    from doctor.engines.infer import split_model

    for spec in specs:
        engine = registry.engine_named(spec.split("==", 1)[0])
        for launcher in engine.launchers if engine else ():
            if launcher.model_flags and not launcher.positional_model:
                model = split_model(launcher, list(argv))[0]
                if model:
                    return model
    return None


def _pasted_command(argv: list[str]) -> Inferred | None:
    from doctor.engines.infer import from_command

    return from_command(argv)


def installed_instead(facts: Facts, unstated: Mapping[str, str]) -> tuple[Facts, dict[str, str]]:
    """An engine named without its release that is installed here is the installed release (as a what-if, so
    it is the one analysed)."""
    left: dict[str, str] = {}
    for name, how in unstated.items():
        engine = registry.get(name)
        library = engine.library(facts) if engine else None
        if library is not None and library.version:
            facts = facts.replace(libraries={**facts.libraries, library.name: dataclasses.replace(library,
                                                                                                  what_if=True)})
        else:
            left[name] = how
    return facts, left


PlanFor = Callable[[Analysis], "dict[str, Any] | None"]  # an analysis → the plan rules judge it by


def check_facts(facts: Facts, argv: list[str], rules: list[Rule] | None = None,
                environ: dict[str, str] | None = None, plan_for: PlanFor | None = None,
                options: Mapping[str, int] | None = None, launch_file: Mapping[str, Any] | None = None,
                unstated: Mapping[str, str] | None = None, pinned: bool = True) -> Report:
    """The pure part of `check`: facts already gathered → analyses, findings, launch commands. `plan_for`
    replaces each analysis' memory plan (a node of a cluster is judged by the multi-node plan); `options`:
    the doctor's layout options, written into each engine's launch in its own spelling; `launch_file`: the
    container image and build recipe `lint` read beside the launch (`image.*`, `recipe.*`); `unstated`:
    engines to analyse whose release is not stated (name → how it became known, doctor.pipeline.unversioned),
    evaluated at every release the doctor knows and merged, each with what its wheel pins unless `pinned` is
    false (diagnose judges by what the log states)."""
    rules = load_rules() if rules is None else rules
    if unstated:
        return _check_unstated(facts, argv, rules, environ, plan_for, options, launch_file, unstated, pinned)
    return _check_all(facts, argv, rules, environ, plan_for, options, launch_file)


def _check_all(facts: Facts, argv: list[str], rules: list[Rule], environ: dict[str, str] | None,
               plan_for: PlanFor | None, options: Mapping[str, int] | None, launch_file: Mapping[str, Any] | None,
               findings_only: bool = False) -> Report:
    """`findings_only`: the findings as rules give them, without the lowest clearing release of upgrade fixes
    or the launch command (a release an unstated engine is evaluated at but not shown)."""
    analyses = analyze_all(facts, argv, environ, options=options)
    if plan_for is not None:
        analyses = [dataclasses.replace(a, plan=plan_for(a)) for a in analyses]
    results = [_findings_of(rules, facts, analysis, launch_file) if findings_only else
               _check_one(rules, facts, analysis, plan_for, launch_file) for analysis in analyses]
    return Report(facts=facts, analyses=tuple(a for a, _, _ in results), findings=_merge(results),
                  launches=tuple(launch for _, _, launch in results if launch is not None))


def _check_unstated(facts: Facts, argv: list[str], rules: list[Rule], environ: dict[str, str] | None,
                    plan_for: PlanFor | None, options: Mapping[str, int] | None,
                    launch_file: Mapping[str, Any] | None, unstated: Mapping[str, str], pinned: bool = True
                    ) -> Report:
    """Each engine at every release it evaluates (doctor.pipeline.unversioned), merged; several such engines
    are merged as several engine runs are."""
    from doctor.pipeline.unversioned import at_release, evaluated_releases, merge_releases

    parts = []
    for name, how in unstated.items():
        engine = registry.get(name)
        if engine is None:
            raise InputError(f"no engine named {name!r}")

        def at(release: str, findings_only: bool, engine: Engine = engine) -> Report:
            return _check_all(at_release(facts, engine, release, pinned), argv, rules, environ, plan_for, options,
                              launch_file, findings_only=findings_only)

        reports, skipped = _at_each_release(engine, evaluated_releases(engine, rules), at)
        parts.append(merge_releases(engine, reports, how, skipped))
    if len(parts) == 1:
        return parts[0]
    findings = _merge([(part.analysis, part.findings, None) for part in parts])
    return dataclasses.replace(parts[0], analyses=tuple(a for p in parts for a in p.analyses), findings=findings,
                               launches=tuple(launch for p in parts for launch in p.launches),
                               releases_evaluated=tuple(e for p in parts for e in p.releases_evaluated))


def _at_each_release(engine: Engine, releases: list[str], at: Callable[[str, bool], Report]
                     ) -> tuple[list[tuple[str, Report]], list[str]]:
    """(release, report) for every release that evaluates, and why the others did not. Only the releases whose
    findings the merge shows are checked in full (upgrade fixes, launch command); the rest for findings."""
    from doctor.pipeline.unversioned import instance_releases, shown_release

    shown = shown_release(engine, releases) if releases else None
    reports: list[tuple[str, Report]] = []
    skipped: list[str] = []
    failure: DoctorError | None = None
    for release in releases:
        try:
            reports.append((release, at(release, release != shown)))
        except DoctorError as exc:  # a flag this release cannot parse: the others still answer
            failure = failure or exc
            skipped.append(f"{release}: {exc}")
    if not reports:
        raise failure or InputError(f"{engine.display_name}: no release to evaluate")
    again = instance_releases(reports, shown_release(engine, [r for r, _ in reports])) - {shown}
    return [(r, at(r, False) if r in again else report) for r, report in reports], skipped


def _findings_of(rules: list[Rule], facts: Facts, analysis: Analysis, launch_file: Mapping[str, Any] | None
                 ) -> tuple[Analysis, tuple[Finding, ...], None]:
    launch = analysis.run.launch if analysis.run else Launch()
    return analysis, tuple(evaluate(rules, build_context(facts, analysis, launch, launch_file))), None


def _check_one(rules: list[Rule], facts: Facts, analysis: Analysis, plan_for: PlanFor | None = None,
               launch_file: Mapping[str, Any] | None = None
               ) -> tuple[Analysis, tuple[Finding, ...], dict[str, Any] | None]:
    launch = analysis.run.launch if analysis.run else Launch()
    findings = tuple(evaluate(rules, build_context(facts, analysis, launch, launch_file)))
    # a what-if release keeps what the log showed: a rule that explains a log line still reads it there
    shown = {"log": launch_file["log"]} if launch_file and launch_file.get("log") is not None else None
    findings = agree(annotate_upgrades(facts, findings, lambda what_if: fired_ids(rules, what_if, launch, shown=shown),
                                       _errors(rules)))
    if analysis.run is None:
        return analysis, findings, None
    run = analysis.run
    engine = registry.get_for(run.library)
    command = engine.compose(run, findings,
                             recheck=lambda args, env: _fired_for_args(rules, analysis, args, plan_for, env))
    return analysis, findings, command.to_dict()


def _errors(rules: list[Rule]) -> set[str]:
    return {rule.id for rule in rules if rule.severity == "error"}


def _merge(results: list[tuple[Analysis, tuple[Finding, ...], Any]]) -> tuple[Finding, ...]:
    """Findings of every engine run; one that not every run gave says which engine(s) it came from."""
    if len(results) == 1:
        return results[0][1]
    seen: dict[tuple[str, str], list[str]] = {}
    first: dict[tuple[str, str], Finding] = {}
    for analysis, findings, _ in results:
        for finding in findings:
            key = (finding.id, finding.message)
            first.setdefault(key, finding)
            seen.setdefault(key, []).append(str(analysis.engine))
    everywhere = len(results)
    merged = [f if len(seen[k]) == everywhere else dataclasses.replace(f, engines=tuple(seen[k]))
              for k, f in first.items()]
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return tuple(sorted(merged, key=lambda f: (order[f.severity], f.id)))


def _fired_for_args(rules: list[Rule], analysis: Analysis, args: list[str], plan_for: PlanFor | None = None,
                    env: dict[str, str] | None = None) -> set[str]:
    """Error findings that remain when the same engine run is launched with `args` (and `env` set) instead."""
    assert analysis.run is not None
    engine = registry.get_for(analysis.run.library)
    facts = analysis.run.facts.replace(env={**analysis.run.facts.env, **env}) if env else analysis.run.facts
    run = dataclasses.replace(analysis.run, launch=engine.parse_launch(args), facts=facts)
    again = analyze_run(run)
    if plan_for is not None:
        again = dataclasses.replace(again, plan=plan_for(again))
    found = evaluate(rules, build_context(run.facts, again, run.launch))
    return {f.id for f in found if f.severity == "error"}


def fired_ids(rules: list[Rule], facts: Facts, launch: Launch, severity: str | None = None,
              shown: Mapping[str, Any] | None = None) -> set[str]:
    """The pure part of `check` (analysis and rules, no probing): which rule IDs fire for these facts. `shown`:
    what `diagnose` read in the log (`{"log": ...}`), kept for a what-if of the same log."""
    ids: set[str] = set()
    for analysis in analyze_all(facts, list(launch.args), numbers_only=True):
        found = evaluate(rules, build_context(facts, analysis, analysis.run.launch if analysis.run else launch, shown))
        ids |= {f.id for f in found if severity is None or f.severity == severity}
    return ids
