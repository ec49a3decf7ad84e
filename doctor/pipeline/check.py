"""`check`: facts → one analysis per engine → rules → report. The one place the stages are wired together."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doctor.engines import registry
from doctor.findings import SEVERITIES, Finding
from doctor.launch import Launch, parse_launch
from doctor.pipeline.analysis import Analysis, analyze_all, analyze_run
from doctor.pipeline.context import build_context
from doctor.pipeline.facts import Facts
from doctor.pipeline.gather import gather_facts
from doctor.pipeline.report import Report
from doctor.pipeline.rules import Rule, evaluate, load_rules
from doctor.pipeline.upgrades import annotate_upgrades


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


def run_check(request: CheckRequest) -> Report:
    rules = load_rules()  # first, so a broken knowledge base fails before any probing
    parse_launch(list(request.engine_args))  # a malformed value is a usage error before any probing
    facts = gather_facts(environ=request.environ, hardware=request.hardware, facts_file=request.facts_file,
                         engines=request.engines, model=request.model, deep=request.deep,
                         offline=request.offline)
    if request.build_env:
        facts = facts.replace(env={**facts.env, **request.build_env})
    return check_facts(facts, list(request.engine_args), rules, dict(request.environ), options=request.options,
                       launch_file=request.launch_file)


PlanFor = Callable[[Analysis], "dict[str, Any] | None"]  # an analysis → the plan rules judge it by


def check_facts(facts: Facts, argv: list[str], rules: list[Rule] | None = None,
                environ: dict[str, str] | None = None, plan_for: PlanFor | None = None,
                options: Mapping[str, int] | None = None, launch_file: Mapping[str, Any] | None = None) -> Report:
    """The pure part of `check`: facts already gathered → analyses, findings, launch commands. `plan_for`
    replaces each analysis' memory plan (a node of a cluster is judged by the multi-node plan); `options`:
    the doctor's layout options, written into each engine's launch in its own spelling; `launch_file`: the
    container image and build recipe `lint` read beside the launch (`image.*`, `recipe.*`)."""
    rules = load_rules() if rules is None else rules
    analyses = analyze_all(facts, argv, environ, options=options)
    if plan_for is not None:
        analyses = [dataclasses.replace(a, plan=plan_for(a)) for a in analyses]
    results = [_check_one(rules, facts, analysis, plan_for, launch_file) for analysis in analyses]
    return Report(facts=facts, analyses=tuple(a for a, _, _ in results), findings=_merge(results),
                  launches=tuple(launch for _, _, launch in results if launch is not None))


def _check_one(rules: list[Rule], facts: Facts, analysis: Analysis, plan_for: PlanFor | None = None,
               launch_file: Mapping[str, Any] | None = None
               ) -> tuple[Analysis, tuple[Finding, ...], dict[str, Any] | None]:
    launch = analysis.run.launch if analysis.run else Launch()
    findings = tuple(evaluate(rules, build_context(facts, analysis, launch, launch_file)))
    findings = annotate_upgrades(facts, findings, lambda what_if: fired_ids(rules, what_if, launch), _errors(rules))
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


def fired_ids(rules: list[Rule], facts: Facts, launch: Launch, severity: str | None = None) -> set[str]:
    """The pure part of `check` (analysis and rules, no probing): which rule IDs fire for these facts."""
    ids: set[str] = set()
    for analysis in analyze_all(facts, list(launch.args), numbers_only=True):
        found = evaluate(rules, build_context(facts, analysis, analysis.run.launch if analysis.run else launch))
        ids |= {f.id for f in found if severity is None or f.severity == severity}
    return ids
