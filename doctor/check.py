"""`check`: facts → analysis → rules → report. The one place the stages are wired together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from doctor.analysis import analyze
from doctor.compose import compose_launch
from doctor.context import build_context
from doctor.facts import Facts
from doctor.launch import Launch, parse_launch
from doctor.probe import gather_facts
from doctor.report import Report
from doctor.rules import Rule, evaluate, load_rules
from doctor.upgrades import annotate_upgrades


@dataclass(frozen=True)
class CheckRequest:
    model: str | None = None
    hardware: str | None = None
    facts_file: Path | None = None
    engines: Sequence[str] = ()
    engine_args: Sequence[str] = ()
    deep: bool = False
    offline: bool = False
    environ: Mapping[str, str] = field(default_factory=dict)


def run_check(request: CheckRequest) -> Report:
    rules = load_rules()  # first, so a broken knowledge base fails before any probing
    launch = parse_launch(list(request.engine_args))
    facts = gather_facts(environ=request.environ, hardware=request.hardware, facts_file=request.facts_file,
                         engines=request.engines, model=request.model, deep=request.deep,
                         offline=request.offline)
    analysis = analyze(facts, launch)
    findings = tuple(evaluate(rules, build_context(facts, analysis, launch)))
    findings = annotate_upgrades(facts, findings, lambda what_if: fired_ids(rules, what_if, launch))
    plan = compose_launch(facts, launch, analysis.tp, findings,
                          recheck=lambda args: fired_ids(rules, facts, parse_launch(args), severity="error"))
    return Report(facts=facts, analysis=analysis, findings=findings, launch=plan.to_dict() if plan else None)


def fired_ids(rules: list[Rule], facts: Facts, launch: Launch, severity: str | None = None) -> set[str]:
    """The pure part of `check` (analysis and rules, no probing): which rule IDs fire for these facts."""
    found = evaluate(rules, build_context(facts, analyze(facts, launch), launch))
    return {f.id for f in found if severity is None or f.severity == severity}
