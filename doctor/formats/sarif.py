"""SARIF 2.1.0 for code scanning: `tool.driver.rules` is the whole rule registry (help text and page,
default level), each result names its rule, sits at the launch file and line it came from (else at a
logical location: model, GPU, engine) and carries a fingerprint that is stable across runs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from doctor import __version__
from doctor.findings import Finding
from doctor.located import FINGERPRINT_KEY, Problem, Span, Target, counts
from doctor.pipeline.rules import Rule
from doctor.rule_docs import help_text, readable, rule_doc_url, rule_page, rule_url

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SOURCE_ROOT = "%SRCROOT%"


def render_sarif(targets: Sequence[Target], rules: Sequence[Rule], *, problems: Sequence[Problem] = (),
                 docs_url: str | None = None, baseline_used: bool = False) -> str:
    return json.dumps(sarif_log(targets, rules, problems=problems, docs_url=docs_url, baseline_used=baseline_used),
                      indent=2)


def sarif_log(targets: Sequence[Target], rules: Sequence[Rule], *, problems: Sequence[Problem] = (),
              docs_url: str | None = None, baseline_used: bool = False) -> dict[str, Any]:
    index = {rule.id: i for i, rule in enumerate(rules)}
    results = [_result(target, finding, fingerprint, index, baseline_used)
               for target in targets for finding, fingerprint in target.findings()]
    run = {
        "tool": {"driver": _driver(rules, docs_url)},
        "invocations": [_invocation(problems)],
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path.cwd().resolve().as_uri() + "/"}},
        "columnKind": "utf16CodeUnits",
        "results": results,
        "properties": {"summary": counts(targets), **_releases_evaluated(targets)},
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def _releases_evaluated(targets: Sequence[Target]) -> dict[str, Any]:
    """The releases evaluated for an engine named without one (absent when every release was stated)."""
    found = [entry for target in targets for entry in target.report.releases_evaluated]
    return {"releasesEvaluated": found} if found else {}


def _driver(rules: Sequence[Rule], docs_url: str | None) -> dict[str, Any]:
    return {"name": "sm120-doctor", "version": __version__, "informationUri": rule_doc_url("README", docs_url),
            "rules": [_descriptor(rule, docs_url) for rule in rules]}


def _descriptor(rule: Rule, docs_url: str | None) -> dict[str, Any]:
    return {
        "id": rule.id,
        "shortDescription": {"text": readable(rule.title)},
        "fullDescription": {"text": rule.summary},
        "help": {"text": help_text(rule), "markdown": rule_page(rule)},
        "helpUri": rule_url(rule, docs_url),
        "defaultConfiguration": {"level": LEVELS[rule.severity]},
        "properties": {"tags": ["sm120-doctor", rule.area]},
    }


def _result(target: Target, finding: Finding, fingerprint: str, index: dict[str, int],
            baseline_used: bool) -> dict[str, Any]:
    if finding.id not in index:
        raise ValueError(f"finding {finding.id} names no rule in the registry")
    result: dict[str, Any] = {
        "ruleId": finding.id,
        "ruleIndex": index[finding.id],
        "level": LEVELS[finding.severity],
        "message": {"text": message_text(finding)},
        "locations": [_location(target)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {"evidence": finding.evidence, "fixes": [fix.to_dict() for fix in finding.fixes],
                       "references": list(finding.references)},
    }
    if baseline_used:
        result["baselineState"] = "new"  # what a baseline accepted is not reported at all
    return result


def message_text(finding: Finding, with_title: bool = True) -> str:
    fixes = [f"Fix ({fix.kind}, {fix.safety}): {fix.summary}" for fix in finding.fixes]
    return "\n".join([*([f"{finding.title}."] if with_title else []), finding.message, *fixes])


def _location(target: Target) -> dict[str, Any]:
    location: dict[str, Any] = {"logicalLocations": _logical(target)}
    if target.span is not None:
        location["physicalLocation"] = _physical(target.span)
    return location


def _physical(span: Span) -> dict[str, Any]:
    artifact: dict[str, Any] = {"uri": quote(span.path)}
    if not span.path.startswith("/"):
        artifact["uriBaseId"] = SOURCE_ROOT
    else:
        artifact["uri"] = Path(span.path).as_uri()
    return {"artifactLocation": artifact, "region": {"startLine": span.line, "endLine": max(span.end_line, span.line)}}


def _logical(target: Target) -> list[dict[str, Any]]:
    """Model, GPU and engine the finding is about: where a check finding lives when no file holds it."""
    facts, analysis = target.report.facts, target.report.analysis
    places = []
    if facts.model is not None:
        places.append({"name": facts.model.id, "fullyQualifiedName": f"model:{facts.model.id}", "kind": "resource"})
    if facts.gpus:
        gpu = facts.gpus[0].name
        places.append({"name": gpu, "fullyQualifiedName": f"gpu:{len(facts.gpus)}x {gpu}", "kind": "resource"})
    if analysis.engine:
        library = f"{analysis.engine} {analysis.engine_version}"
        places.append({"name": library, "fullyQualifiedName": f"library:{library}", "kind": "module"})
    return places or [{"name": facts.source.name or facts.source.kind, "kind": "resource"}]


def _invocation(problems: Sequence[Problem]) -> dict[str, Any]:
    notes = [{"level": "error", "message": {"text": p.message}, "locations": [{"physicalLocation": _physical(p.span)}]}
             for p in problems]
    invocation: dict[str, Any] = {"executionSuccessful": not problems}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    return invocation
