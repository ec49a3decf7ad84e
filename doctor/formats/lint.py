"""`lint` output for people (one line per finding, `path:line: ID severity title`, editors jump to it) and
for programs (JSON: every launch with what was found in the file and the full check report)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from doctor import __version__
from doctor.formats.document import schema
from doctor.located import Problem, Target, counts

LINT_SCHEMA_VERSION = "1"


def render_lint_text(targets: Sequence[Target], problems: Sequence[Problem], summary: Mapping[str, int]) -> str:
    lines: list[str] = []
    for target in targets:
        where = f"{target.span.path}:{target.span.line}" if target.span else "check"
        launch = target.launch
        version = f" {launch['version']}" if launch.get("version") else ""
        engine = launch.get("engine") or "engine not known"
        lines.append(f"{where}: {engine}{version} [{launch.get('version_source', '')}], "
                     f"model {launch.get('model') or '-'}")
        lines += [f"  note: {note}" for note in launch.get("notes", [])]
        for finding, _ in target.findings():
            lines.append(f"{where}: {finding.id} {finding.severity} {finding.title}")
            lines.append(f"    {finding.message}")
            lines += [f"    fix ({fix.kind}, {fix.safety}): {fix.summary}" for fix in finding.fixes]
    lines += [f"{p.span.path}:{p.span.line}: could not analyse this launch: {p.message}" for p in problems]
    lines.append(summary_line(targets, problems, summary))
    return "\n".join(lines)


def summary_line(targets: Sequence[Target], problems: Sequence[Problem], summary: Mapping[str, int]) -> str:
    total = counts(targets)
    text = (f"{len(targets) + len(problems)} launch(es) in {summary.get('files', 0)} file(s): "
            f"{total.get('error', 0)} error(s), {total.get('warning', 0)} warning(s), {total.get('info', 0)} info")
    extra = [f"{summary[k]} {label}" for k, label in (("suppressed", "suppressed by config or comment"),
                                                     ("accepted", "accepted by the baseline")) if summary.get(k)]
    if problems:
        extra.append(f"{len(problems)} not analysed")
    return text + (f" ({'; '.join(extra)})" if extra else "")


def render_lint_json(targets: Sequence[Target], problems: Sequence[Problem], summary: Mapping[str, int]) -> str:
    document: dict[str, Any] = {
        "schema_version": LINT_SCHEMA_VERSION,
        "tool": {"name": "sm120-doctor", "version": __version__},
        "launches": [_launch(target) for target in targets],
        "problems": [{"file": p.span.path, "line": p.span.line, "message": p.message} for p in problems],
        "summary": {**counts(targets), **summary, "launches": len(targets), "problems": len(problems)},
    }
    return json.dumps(document, indent=2)


def _launch(target: Target) -> dict[str, Any]:
    span = target.span
    return {"file": span.path if span else None, "line": span.line if span else None,
            "end_line": span.end_line if span else None, **dict(target.launch),
            "fingerprints": list(target.fingerprints),
            "report": target.report.to_dict()}  # validates against schema/report.schema.json


def lint_schema() -> dict[str, Any]:
    """The JSON Schema of `lint --format json`; its launches' reports refer to report.schema.json."""
    return schema("lint")
