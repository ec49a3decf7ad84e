"""Console text and Markdown for `diagnose`: the error, the finding that explains it, its fix and the launch
command that avoids it; then what else the doctor recognised. JSON is Diagnosis.to_dict()."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from doctor.findings import Finding
from doctor.formats.markdown import (
    deployment_table,
    environment_details,
    finding_section,
    fix_lines,
    launch_section,
)
from doctor.formats.redact import redact_text

if TYPE_CHECKING:
    from doctor.diagnose.diagnosis import Diagnosis
    from doctor.diagnose.explain import Explanation

MAX_SHOWN = 300


def render_diagnosis_console(diagnosis: Diagnosis) -> str:
    reading, deployment = diagnosis.reading, diagnosis.deployment
    out = [f"Log {reading.name}: {reading.stats.lines} lines; read as "
           f"{', '.join(reading.facts.formats) or 'no known format'}"]
    out.append("Deployment: " + recognised(diagnosis))
    error = diagnosis.error
    if error is None:
        out.append("No error in the log: nothing to explain.")
    else:
        out.append(f"Error (line {error[0]}): {_short(error[1])}")
    for rank, explanation in enumerate(diagnosis.explanations):
        out += _explanation_console(diagnosis, explanation, first=rank == 0)
    if diagnosis.unexplained:
        out.append("No rule of the doctor explains this error. Recognised: " + recognised(diagnosis) + ".")
    for ruled in diagnosis.ruled_out:
        out.append(f"Not {ruled.rule} (line {ruled.line}): {ruled.reason}")
    out += _public_reports_console(diagnosis)
    out += _raise_sites_console(diagnosis)
    explained = {e.rule for e in diagnosis.explanations}
    others = [f for f in diagnosis.report.findings if f.id not in explained]
    if others:
        out.append("Other findings for this deployment (not claimed to explain the error):")
        out += [f"  {f.severity.upper()} {f.id}: {f.title}" for f in others]
    out += [f"note: {n}" for n in (*deployment.notes, *diagnosis.notes)]
    return "\n".join(out) + "\n"


def _raise_sites_console(diagnosis: Diagnosis) -> list[str]:
    """SRC001: the engine source behind lines no signature explained (derived from the released code)."""
    from doctor.diagnose.raise_sites import CONFIRM, RULE, release_words

    return _derived_console(diagnosis.raise_sites, f"SOURCE {RULE}", CONFIRM,
                            lambda match: release_words(match).split("\n"))


def _public_reports_console(diagnosis: Diagnosis) -> list[str]:
    """RPT001: the public reports that quote a line of this log (the triage ledger, read back)."""
    from doctor.diagnose.reports import CONFIRM, RULE

    return _derived_console(diagnosis.public_reports, f"REPORTED {RULE}", CONFIRM, _report_words)


def _derived_console(matches: list[Any], head: str, confirm: str, words: Callable[[Any], list[str]]) -> list[str]:
    """A derived finding per matched log line (a warning, never a rule of the knowledge base), then how to
    confirm it."""
    out = []
    for match in matches:
        out.append(f"{head} [warning] (line {match.line}): {_short(match.text)}")
        out += ["  " + line for line in words(match)]
    return [*out, f"  ({confirm})"] if matches else []


def _public_reports_markdown(diagnosis: Diagnosis) -> list[str]:
    from doctor.diagnose.reports import CONFIRM, RULE

    return _derived_markdown(diagnosis.public_reports, CONFIRM, _report_words,
                             lambda match: f"**{RULE}** (warning, a public report quotes log line {match.line}):")


def _raise_sites_markdown(diagnosis: Diagnosis) -> list[str]:
    from doctor.diagnose.raise_sites import CONFIRM, RULE, release_words

    return _derived_markdown(diagnosis.raise_sites, CONFIRM, lambda match: release_words(match).split("\n"),
                             lambda match: f"**{RULE}** (warning, derived from the engine's released source), "
                                           f"log line {match.line}:")


def _derived_markdown(matches: list[Any], confirm: str, words: Callable[[Any], list[str]],
                      head: Callable[[Any], str]) -> list[str]:
    lines = []
    for match in matches:
        lines += ["", head(match), "", *(f"- {_tick(redact_text(line.strip()))}" for line in words(match))]
    return [*lines, "", f"_{confirm}._", ""] if lines else []


def _report_words(match: Any) -> list[str]:
    record = match.report.record
    engine = ", ".join(match.report.engines)
    also = (f" (a report of another cause prints a line like it too: {match.shared})" if match.shared else "")
    return [f"{match.title}: {engine} {record['versions']} on {record['gpu']}",
            f"quoted there: {_short(match.quoted)}{also}",
            f"cause: {record.get('cause') or 'the report does not establish one'}",
            f"fix: {record['fix']}",
            f"the doctor: {match.report.encoded_words()}"]


def _explanation_console(diagnosis: Diagnosis, e: Explanation, first: bool) -> list[str]:
    head = "EXPLAINED BY" if first else "Also matches"
    lines = [f"{head} {e.rule} [{e.severity}]: {e.title}",
             f"  why: {e.status_text}",
             f"  signature (line {e.hit.line}): {e.hit.signature.shown}  [{e.hit.signature.url}]"]
    if first:
        lines.append(f"  {e.message}")
    for fix in e.fixes:
        lines.append(f"  fix ({fix.kind}, {fix.safety}): {fix.summary}")
    launch = diagnosis.launch_for(e)
    if first and launch and launch.get("command"):
        lines.append(f"  launch that avoids it: {launch['command']}")
    return lines


def recognised(diagnosis: Diagnosis) -> str:
    facts = diagnosis.deployment.facts
    sources = diagnosis.deployment.sources
    parts = []
    engine = diagnosis.deployment.engine
    if engine:
        lib = facts.library({"ollama": "ollama"}.get(engine, engine))
        if lib is not None and lib.details.get("release_stated") is False:
            lib = None  # only what the log shows of it (a model's architecture), not its release
        parts.append(f"{engine} {lib.version if lib else _unstated(diagnosis, engine)} ({sources.get('engine', '')})"
                     + _bundled_by(facts))
    elif diagnosis.report.releases_evaluated:
        parts.append("; ".join(f"{entry['engine']} (--engine, version not stated; evaluated at "
                               f"{len(entry['releases'])} releases, {entry['releases'][0]}-{entry['releases'][-1]})"
                               for entry in diagnosis.report.releases_evaluated))
    else:
        parts.append("engine not stated")
    if facts.gpus:
        gpu = facts.gpus[0]
        src = sources.get("gpu 0", sources.get("gpus", facts.source.name or facts.source.kind))
        parts.append(f"{len(facts.gpus)}x {gpu.name} CC {gpu.compute_capability} ({src})")
    else:
        parts.append("no GPU stated")
    if facts.model:
        parts.append(f"model {facts.model.id} ({sources.get('model', '')})")
    if diagnosis.deployment.argv:
        parts.append("flags " + " ".join(diagnosis.deployment.argv)[:200])
    return redact_text("; ".join(parts))


def render_diagnosis_markdown(diagnosis: Diagnosis) -> str:
    error = diagnosis.error
    lines: list[str] = []
    if diagnosis.explanations:
        top = diagnosis.explanations[0]
        lines += [f"## {top.rule}: {redact_text(top.title)}", ""]
    elif error:
        lines += ["## An error no sm120-doctor rule explains", ""]
    else:
        lines += ["## sm120-doctor diagnose: no error in the log", ""]
    if error:
        lines += [f"**Error** (log line {error[0]}):", "", "```", redact_text(_short(error[1], 1000)), "```", ""]
    if diagnosis.explanations:
        top = diagnosis.explanations[0]
        lines += [f"**Why this rule:** {top.status_text}. The log matches its signature "
                  f"`{_tick(top.hit.signature.shown)}`, as printed in {top.hit.signature.url}.", ""]
        lines += finding_section(_as_finding(top), heading="###")
        lines += launch_section(diagnosis.launch_for(top), "Launch command that avoids it")
        for other in diagnosis.explanations[1:]:
            lines += ["", f"Also matches **{other.rule}** ({other.status}): {redact_text(other.title)}"]
            lines += fix_lines(other.fixes)
    elif error:
        lines += [f"Recognised: {recognised(diagnosis)}.", ""]
    lines += _public_reports_markdown(diagnosis)
    lines += _raise_sites_markdown(diagnosis)
    lines += ["", "### Deployment (as the log states it)", ""]
    lines += deployment_table(diagnosis.deployment.facts, _engine(diagnosis), diagnosis.deployment.sources)
    if diagnosis.deployment.argv:
        lines += ["", "Launch flags: `" + _tick(redact_text(" ".join(diagnosis.deployment.argv))) + "`"]
    explained = {e.rule for e in diagnosis.explanations}
    others = [f for f in diagnosis.report.findings if f.id not in explained]
    if others:
        lines += ["", "Other findings for this deployment (not claimed to explain the error):", ""]
        lines += [f"- **{f.id}** ({f.severity}): {redact_text(f.title)}" for f in others]
    extra = [f"{k}: {v}" for k, v in sorted(diagnosis.deployment.sources.items())]
    lines += environment_details(diagnosis.deployment.facts, ["", "sources:", *extra])
    return "\n".join(lines).rstrip() + "\n"


def _bundled_by(facts: Any) -> str:
    """The LM Studio runtime that ran llama.cpp, where the log names one (its llama.cpp build is not derived)."""
    runtime = facts.library("lmstudio")
    return f" in LM Studio runtime {runtime.version}, whose llama.cpp build is not derived" if runtime else ""


def _unstated(diagnosis: Diagnosis, engine: str) -> str:
    """"(version not stated)", and the releases evaluated instead when there were some."""
    for entry in diagnosis.report.releases_evaluated:
        if entry["engine"] == engine:
            releases = entry["releases"]
            return (f"(version not stated; evaluated at {len(releases)} releases, {releases[0]}-{releases[-1]}: "
                    f"a finding of only some is at most a warning)")
    return "(version not stated)"


def _engine(diagnosis: Diagnosis) -> str:
    engine = diagnosis.deployment.engine
    if not engine:
        return "not stated"
    lib = diagnosis.deployment.facts.library(engine)
    return f"{engine} {lib.version}" if lib else f"{engine} (version not stated)"


def _as_finding(e: Explanation) -> Finding:
    return Finding(id=e.rule, severity=e.severity, title=e.title, message=e.message, fixes=e.fixes,
                   references=e.references)


def _short(text: str, limit: int = MAX_SHOWN) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _tick(text: str) -> str:
    return text.replace("`", "'")


def as_json(diagnosis: Diagnosis) -> dict[str, Any]:
    return diagnosis.to_dict()
