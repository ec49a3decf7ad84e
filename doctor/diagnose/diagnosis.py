"""Read a log, rebuild its deployment, check it, explain the logged error: the pure core of `diagnose`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, BinaryIO

from doctor import __version__
from doctor.diagnose.arch_gate import arch_gate_view
from doctor.diagnose.deployment import Deployment, reconstruct
from doctor.diagnose.explain import Explanation, RuledOut, explain, shown_rules
from doctor.diagnose.flags import log_view as flag_log_view
from doctor.diagnose.model_support import log_view
from doctor.diagnose.oom import oom_view
from doctor.diagnose.parsers import log_view as parser_log_view
from doctor.diagnose.quant_support import quant_log_view
from doctor.diagnose.read import LogReading, reader_for
from doctor.errors import DoctorError
from doctor.findings import any_at_or_above
from doctor.pipeline.facts import Facts
from doctor.pipeline.report import Report

DIAGNOSIS_SCHEMA_VERSION = "1"
NO_DRIVER = "HW001"
SM12X_MAJOR = 12


@dataclass
class Diagnosis:
    reading: LogReading
    deployment: Deployment
    report: Report
    explanations: list[Explanation]
    ruled_out: list[RuledOut]
    notes: list[str] = field(default_factory=list)
    raise_sites: list[Any] = field(default_factory=list)  # SRC001: doctor/diagnose/raise_sites.SiteMatch
    public_reports: list[Any] = field(default_factory=list)  # RPT001: doctor/diagnose/reports.ReportMatch

    @property
    def error(self) -> tuple[int, str] | None:
        """The logged error: the first line a signature explains, else the first error line the log has."""
        if self.explanations:
            from doctor.diagnose.formats.traceback import strip_prefix

            hit = self.explanations[0].hit
            return hit.line, strip_prefix(hit.text)
        errors = self.reading.facts.errors
        return errors[0] if errors else None

    @property
    def unexplained(self) -> bool:
        return self.error is not None and not self.explanations

    def fails(self, threshold: str) -> bool:
        return any_at_or_above([e.severity for e in self.explanations], threshold)

    def launch_for(self, explanation: Explanation) -> dict[str, Any] | None:
        """The composed launch command that applies this finding's fixes (only a finding that fired has one)."""
        if explanation.status == "signature":
            return None
        return next((launch for launch in self.report.launches
                     if launch and launch.get("engine") in (self.deployment.engine, None)), self.report.launch)

    def to_dict(self) -> dict[str, Any]:
        facts = self.reading.facts
        error = self.error
        return {
            "schema_version": DIAGNOSIS_SCHEMA_VERSION,
            "tool": {"name": "sm120-doctor", "version": __version__},
            "log": {"name": self.reading.name, "bytes": self.reading.stats.bytes, "lines": self.reading.stats.lines,
                    "cut_lines": self.reading.stats.cut_lines, "formats": facts.formats,
                    "error_lines": facts.error_count},
            "error": {"line": error[0], "text": error[1]} if error else None,
            "explained": bool(self.explanations),
            "explanations": [dict(e.to_dict(), launch=self.launch_for(e)) for e in self.explanations],
            "ruled_out": [r.to_dict() for r in self.ruled_out],
            "raise_sites": [m.to_dict() for m in self.raise_sites],
            "public_reports": [m.to_dict() for m in self.public_reports],
            "deployment": {"engine": self.deployment.engine, "argv": self.deployment.argv,
                           "sources": self.deployment.sources},
            "notes": [*self.deployment.notes, *self.notes],
            "report": self.report.to_dict(),
        }


def diagnose(stream: BinaryIO, name: str, base: Facts, base_name: str, environ: Mapping[str, str],
             rules: list[Any] | None = None, judge_on_log_only: bool = False, engines: Sequence[str] = ()
             ) -> Diagnosis:
    """`judge_on_log_only`: the base is this machine, not the one the log comes from (no --hardware, --facts
    or --engine): its facts fill the report, but only what the log states may rule a rule out. `engines`:
    engines the user named without a release (`--engine vllm`); with the log's own engine when the log states
    no release, each is evaluated at every release the doctor knows (doctor.pipeline.unversioned)."""
    from doctor.pipeline.rules import load_rules

    rules = load_rules() if rules is None else rules
    reader = reader_for()
    reading = reader.read(stream, name)
    deployment = reconstruct(reading.facts, base, base_name, environ)
    notes: list[str] = []
    stated = _stated(base, engines, gpus=not judge_on_log_only)
    log = {"signatures": shown_rules(reading.hits, reading.contexts, reader.signatures, reading.vetoes, stated),
           **log_view(reading.hits, deployment.engine, deployment.facts), **parser_log_view(reading.hits),
           **oom_view(reading.hits, reading.facts, deployment.facts), **quant_log_view(reading.hits),
           **arch_gate_view(reading.hits), **flag_log_view(reading.hits, deployment.facts)}
    report, context = _check(deployment, rules, environ, notes, engines, log)
    if reading.facts.gpu_mentioned is not None or reading.facts.gpus:
        report = _without_no_driver(report)
    judge = None
    if judge_on_log_only and (base.gpus or base.libraries or base.driver.present):
        _, judge = _check(reconstruct(reading.facts, Facts(source=base.source), base_name, environ), rules,
                          environ, [], log=log)
    explanations, ruled_out = explain(reading.hits, reading.contexts, reader.signatures, rules, report.findings,
                                      context, deployment.engine, judge, reading.vetoes, stated)
    return Diagnosis(reading, deployment, report, explanations, ruled_out, notes,
                     _raise_sites(reading, deployment, explanations, base),
                     _public_reports(reading, deployment, explanations))


def _raise_sites(reading: LogReading, deployment: Deployment, explanations: list[Explanation], base: Facts
                 ) -> list[Any]:
    """SRC001 on the error and warning lines no signature explained (the tables load only when there is one)."""
    from doctor.diagnose.raise_sites import candidate_lines, log_releases, match_lines

    lines = candidate_lines(reading.facts.errors, reading.facts.logged, {e.hit.line for e in explanations},
                            reading.stats.last)
    if not lines:
        return []
    stated = {name: lib.version for name, lib in base.libraries.items() if lib.what_if and lib.version}
    return match_lines(lines, log_releases(reading.facts.versions, stated), deployment.engine)


def _public_reports(reading: LogReading, deployment: Deployment, explanations: list[Explanation]) -> list[Any]:
    """RPT001 on the log's error, warning and signature lines (the index loads only when there is one). The
    ledger's reports are of SM12x GPUs: a log whose GPUs are all of another capability is not theirs."""
    from doctor.diagnose.reports import match_log

    gpus = deployment.facts.gpus
    if gpus and all(gpu.capability[0] != SM12X_MAJOR for gpu in gpus):
        return []
    facts = reading.facts
    tail = [reading.stats.last] if reading.stats.last is not None else []
    hits = ((hit.line, hit.text) for hit in reading.hits)
    lines = dict(sorted((*facts.errors, *facts.logged, *facts.quoted, *hits, *tail)))
    if not lines:
        return []
    return match_log(sorted(lines.items()), deployment.engine, {e.rule for e in explanations})


def _without_no_driver(report: Report) -> Report:
    """HW001 (no driver on the machine the doctor runs on) says nothing about a log that names its GPU."""
    return replace(report, findings=tuple(f for f in report.findings if f.id != NO_DRIVER))


def _stated(base: Facts, engines: Sequence[str], gpus: bool) -> str:
    """What the user says of the log's machine, as text a signature's context may match: the packages that ran
    (`--engine NAME==VERSION`, and an engine named without its release: `--engine vllm` says vLLM ran as much)
    and, with `--hardware` or `--facts`, its GPUs (never this machine's own)."""
    names = sorted({name for name, library in base.libraries.items() if library.what_if} | set(engines))
    if gpus:
        names += sorted({gpu.name for gpu in base.gpus})
    return " ".join(names)


def _check(deployment: Deployment, rules: list[Any], environ: Mapping[str, str], notes: list[str],
           engines: Sequence[str] = (), log: dict[str, Any] | None = None) -> tuple[Report, dict[str, Any]]:
    """The check pipeline on the deployment, and the rule context of the log's engine run. `log`: what the
    rules that explain a log line read (`log.signatures`)."""
    from doctor.launch import Launch
    from doctor.pipeline.check import check_facts
    from doctor.pipeline.context import build_context

    launch_file = {"image": deployment.image, "recipe": None, "log": log} if deployment.image or log else None
    unstated = _unstated(deployment, engines)
    try:
        report = check_facts(deployment.facts, deployment.argv, rules, dict(environ), launch_file=launch_file,
                             unstated=unstated, pinned=False)
    except DoctorError as exc:  # flags the log shows that this engine release would not parse
        notes.append(f"the logged launch flags were not usable ({exc}); checked without them")
        deployment.argv = []
        report = check_facts(deployment.facts, [], rules, dict(environ), launch_file=launch_file,
                             unstated=unstated, pinned=False)
    # With the release unstated, a rule is judged as before: its conditions on the release cannot be checked
    # (a rule about releases older than any the doctor evaluates stays possible); the findings are the merge's.
    judged = check_facts(deployment.facts, deployment.argv, rules, dict(environ), launch_file=launch_file) \
        if unstated else report
    analysis = next((a for a in judged.analyses if a.engine == deployment.engine), judged.analysis)
    run_facts = analysis.run.facts if analysis.run else deployment.facts
    context = build_context(run_facts, analysis, analysis.run.launch if analysis.run else Launch(), launch_file)
    if not run_facts.gpus:
        context["gpu"] = {}  # a log that names no GPU says nothing of their count: unknown, not 0
    if not deployment.argv:
        context["launch"] = {}  # a log that shows no launch command says nothing of its flags: unknown, not none
    return report, context


def _unstated(deployment: Deployment, engines: Sequence[str]) -> dict[str, str]:
    """The engines to evaluate at every known release: those the user named without one, and the log's own
    engine when neither the log nor the base states its release."""
    from doctor.engines import registry

    wanted = {name: "named" for name in engines}
    if deployment.engine is not None:
        wanted.setdefault(deployment.engine, "log")
    out: dict[str, str] = {}
    for name, how in wanted.items():
        engine = registry.get(name) or registry.engine_named(name)
        library = engine.library(deployment.facts) if engine is not None else None
        if engine is not None and (library is None or library.details.get("release_stated") is False):
            out.setdefault(engine.name, how)
    return out
