"""The engines' GitHub issue forms (tests/diagnose/templates/, each repository's .github/ISSUE_TEMPLATE file) rendered
as GitHub renders a submitted form: `### Label`, a blank line, the answer (a `render:` field fenced in that language,
an empty optional field `_No response_`, a checkbox list ticked). A log goes into the field users paste errors
into, fenced as the form asks; the other fields hold what a user writes there, never the placeholder."""

from __future__ import annotations

from pathlib import Path

import yaml

TEMPLATES = Path(__file__).resolve().parent / "templates"
# the field each form's users paste their log into, and prose for the other required fields
LOG_FIELD = {"vllm-400-bug-report.yml": "🐛 Describe the bug", "sglang-1-bug-report.yml": "Describe the bug",
             "llama-cpp-019-bug-misc.yml": "Relevant log output"}
PROSE = "The server fails at startup with the log below; it worked on the previous release. Tried `--tp 2` too."


def forms() -> list[str]:
    return sorted(LOG_FIELD)


def render(form: str, log: str, quoted: bool = False, crlf: bool = False) -> str:
    """The issue body a user submits with `log` pasted into the form's log field (in a fence, or quoted with
    `> ` as a reply quotes it)."""
    spec = yaml.safe_load((TEMPLATES / form).read_text(encoding="utf-8"))
    parts: list[str] = []
    for field in spec["body"]:
        kind, attributes = field["type"], field.get("attributes", {})
        if kind == "markdown":
            continue
        label = attributes["label"]
        if kind == "checkboxes":
            answer = "\n".join(f"- [X] {option['label']}" for option in attributes["options"])
        elif label == LOG_FIELD[form]:
            answer = _pasted(log, attributes.get("render"), quoted)
            if not attributes.get("render"):
                answer = PROSE + "\n\n" + answer
        elif kind == "dropdown":
            answer = attributes["options"][0]
        elif attributes.get("value"):
            answer = attributes["value"].rstrip("\n")
        elif field.get("validations", {}).get("required"):
            answer = PROSE
        else:
            answer = "_No response_"
        parts.append(f"### {label}\n\n{answer}")
    body = "\n\n".join(parts) + "\n"
    return body.replace("\n", "\r\n") if crlf else body


def _pasted(log: str, render_as: str | None, quoted: bool) -> str:
    lines = log.rstrip("\n")
    if quoted:
        return "\n".join(f"> {line}" if line else ">" for line in lines.split("\n"))
    if render_as:  # GitHub fences the answer itself
        return f"```{render_as}\n{lines}\n```"
    return f"```\n{lines}\n```"
