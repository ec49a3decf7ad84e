"""GitHub Actions workflow commands: one `::error`/`::warning`/`::notice` per finding, at the launch file and
line where the finding came from one (an annotation on that line of the pull request)."""

from __future__ import annotations

from collections.abc import Sequence

from doctor.formats.sarif import message_text
from doctor.located import Problem, Span, Target

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def render_github(targets: Sequence[Target], problems: Sequence[Problem] = ()) -> str:
    lines = []
    for target in targets:
        for finding, _ in target.findings():
            message = message_text(finding, with_title=False)
            lines.append(workflow_command(COMMANDS[finding.severity], message, target.span,
                                          f"{finding.id}: {finding.title}"))
    for problem in problems:
        lines.append(workflow_command("error", problem.message, problem.span, "sm120-doctor could not analyse this"))
    return "\n".join(lines)


def workflow_command(command: str, message: str, span: Span | None, title: str) -> str:
    properties = {"title": title}
    if span is not None:
        properties = {"file": span.path, "line": str(span.line), "endLine": str(max(span.end_line, span.line)),
                      **properties}
    listed = ",".join(f"{key}={_escape_property(value)}" for key, value in properties.items())
    return f"::{command} {listed}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    """GitHub's escaping of a message (actions/toolkit packages/core/src/command.ts, escapeData)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """GitHub's escaping of a property (actions/toolkit packages/core/src/command.ts, escapeProperty)."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
