"""Rule documentation generated from the registry: one page per rule (`docs/rules/<ID>.md`: what, why, fix,
safety, example, sources), the help SARIF carries, and the link `explain` and SARIF's helpUri give."""

from __future__ import annotations

import re
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from doctor.findings import Safety
from doctor.pipeline.conditions import PLACEHOLDER
from doctor.pipeline.rules import Rule, rule_namespace

GENERATED = "<!-- generated from rules/{source} by tools/gen_rule_docs.py: edit the rule, then regenerate -->"
SAFETY_TEXT = {
    Safety.SAFE: "safe: same behaviour, no risk; `check --fix` applies it (new files you own, flags, env).",
    Safety.UNSAFE: "unsafe: edits installed packages or changes behaviour or accuracy; applied only with "
                   "`--fix --unsafe-fixes`, journaled, undone by `sm120-doctor revert`.",
    Safety.MANUAL: "manual: needs your judgement or an install (an upgrade, a tuning run); printed, never run.",
}
DETAIL_KEYS = ("flags", "remove", "env", "package", "config", "patch", "command", "engine", "versions")
OPERATORS = {"eq": "is", "ne": "is not", "in": "is one of", "not_in": "is none of", "lt": "<", "le": "<=",
             "gt": ">", "ge": ">=", "version": "version", "contains": "contains", "not_contains": "lacks",
             "matches": "matches"}


def readable(template: str) -> str:
    """`{gpu.name}` → `<gpu.name>`: a template shown without facts."""
    return PLACEHOLDER.sub(lambda m: f"<{m.group(1)}>", template)


def describe(condition: dict[str, Any]) -> str:
    """One rule condition in words: `lib.vllm.version version <0.15.1`."""
    if "any" in condition:
        return "(" + " or ".join(describe(c) for c in condition["any"]) + ")"
    if "all" in condition:
        return "(" + " and ".join(describe(c) for c in condition["all"]) + ")"
    op = next(k for k in condition if k != "fact")
    if op == "exists":
        return f"{condition['fact']} {'is known' if condition['exists'] else 'is absent'}"
    return f"{condition['fact']} {OPERATORS[op]} {condition[op]}"


# namespaces of facts about the machine, model, launch or analysis; every other namespace is an engine's, whose
# facts it derives per release from the data read out of its wheels (see each engine's analysis view)
GENERAL_FACTS = frozenset({"analysis", "cluster", "driver", "env", "gpu", "host", "item", "launch", "lib", "model",
                           "plan", "source", "topology"})


def versions(rule: Rule) -> str:
    """The releases a rule is about: its version conditions (none: any release), the per-release facts it reads,
    and its fixes' `versions`."""
    ranges: list[str] = []
    derived: list[str] = []

    def walk(conditions: Sequence[dict[str, Any]]) -> None:
        for c in conditions:
            if "any" in c or "all" in c:
                walk(c.get("any") or c.get("all"))
            elif "version" in c:
                ranges.append(f"`{c['fact']} {c['version']}`")
            elif "." in str(c.get("fact", "")) and str(c["fact"]).split(".")[0] not in GENERAL_FACTS:
                derived.append(f"`{c['fact']}`")

    walk(rule.when)
    text = ", ".join(dict.fromkeys(ranges)) if ranges else "any release (no condition names a version)"
    if derived:
        text += "; decided per release from the data read out of the wheels: " + ", ".join(dict.fromkeys(derived))
    fixes = [f"{f['engine']} `{f['versions']}`" for f in rule.fixes if f.get("versions")]
    if fixes:
        text += "; the fix differs per release: " + ", ".join(dict.fromkeys(fixes))
    return text


def fix_detail(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items())
    return str(value)


def docs_dir() -> Path:
    """The generated pages: shipped in the wheel as doctor/_docs/rules, or the checkout's docs/rules."""
    packaged = resources.files("doctor") / "_docs" / "rules"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "docs" / "rules"


def rule_doc_url(rule_id: str, base: str | None = None) -> str:
    """Where a rule's page is: under `base` (e.g. the repository's docs/rules on GitHub) when given, else
    the page shipped with this installation, as a file URI."""
    if base:
        return f"{base.rstrip('/')}/{rule_id}.md"
    return (docs_dir() / f"{rule_id}.md").resolve().as_uri()


def rule_url(rule: Rule, base: str | None = None) -> str:
    """A rule's page: the doctor's generated page for a built-in rule; for a plug-in's rule (no page in the
    doctor's docs) its first reference."""
    if rule_namespace(rule.id) is not None:
        return rule.references[0]
    return rule_doc_url(rule.id, base)


def rule_file(rule: Rule) -> str:
    """Where the rule is defined, as a reader finds it: `rules/NAME.toml`, or a plug-in's file path."""
    return rule.source if rule_namespace(rule.id) is not None else f"rules/{rule.source}"


def rule_page(rule: Rule) -> str:
    lines = [f"# {rule.id}: {_md(rule.title)}", "",
             f"Severity **{rule.severity}**, area `{rule.area}`, defined in `{rule_file(rule)}`.", "",
             GENERATED.format(source=rule.source), "", "## What it detects", "", rule.summary, "",
             "It fires when " + "; and ".join(f"`{describe(c)}`" for c in rule.when)
             + (f", for each entry of `{rule.for_each}`" if rule.for_each else "") + ".", "",
             f"Versions: {versions(rule)}.", "",
             "## Why", "", rule.why.strip(), "", "## Fix", ""]
    lines += [*_fixes(rule), "", "## Safety", "", *_safety(rule), "", "## Example", "", *_example(rule)]
    lines += _signatures(rule)
    lines += ["", "## Sources", "", *(f"- {_link(ref)}" for ref in rule.references), *_engine_sources(rule)]
    return "\n".join(lines) + "\n"


def _engine_sources(rule: Rule) -> list[str]:
    """The engine-specific sources, each cited only in that engine's run."""
    lines = []
    for engine, refs in rule.engine_references:
        lines.append(f"- In a {engine} run:")
        lines += [f"  - {_link(ref)}" for ref in refs]
    return lines


def _signatures(rule: Rule) -> list[str]:
    """What logs print when the rule's cause strikes (`sm120-doctor diagnose` matches them)."""
    from doctor.diagnose.signatures import rule_signatures

    signatures = rule_signatures().get(rule.id, ())
    if not signatures:
        return []
    lines = ["", "## In a log", "", "`sm120-doctor diagnose LOG` names this rule when the log shows:", ""]
    for signature in signatures:
        kind = "text" if "text" in signature else "pattern (RE2)"
        shown = signature.get("text") or signature["pattern"]
        context = f", on a log that also matches `{signature['context']}`" if signature.get("context") else ""
        lines.append(f"- {kind} `{shown}`{context} ({_link(signature['url'])})")
    return lines


def index_page(rules: Sequence[Rule]) -> str:
    lines = ["# Rules", "", "One page per rule of the knowledge base, generated from `rules/*.toml` by "
             "`tools/gen_rule_docs.py`. `sm120-doctor explain ID` prints the same on the console. "
             "[AUDIT.md](AUDIT.md) audits every error rule: condition, source at a tag, boundary cases.", "",
             "| ID | severity | area | title |", "|---|---|---|---|"]
    lines += [f"| [{r.id}]({r.id}.md) | {r.severity} | {r.area} | {_cell(r.title)} |" for r in rules]
    return "\n".join(lines) + "\n"


def write_rule_docs(folder: Path, rules: Sequence[Rule], extra: dict[str, str] | None = None) -> list[Path]:
    """Write every page, the index and `extra` pages (name -> text, e.g. AUDIT.md); pages of rules that no
    longer exist are removed."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = {f"{r.id}.md": rule_page(r) for r in rules}
    pages["README.md"] = index_page(rules)
    pages.update(extra or {})
    for stale in folder.glob("*.md"):
        if stale.name not in pages:
            stale.unlink()
    written = []
    for name, text in pages.items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    return written


def help_text(rule: Rule) -> str:
    """The plain-text help SARIF carries next to the markdown page."""
    fixes = "; ".join(f"[{f['kind']}, {f['safety']}] {readable(f['summary'])}" for f in rule.fixes)
    return f"{rule.summary}\n\n{rule.why.strip()}\n\nFix: {fixes or 'none (informational)'}"


def _fixes(rule: Rule) -> list[str]:
    if not rule.fixes:
        return ["None: this finding is informational."]
    out = []
    for fix in rule.fixes:
        out.append(f"- **{fix['kind']}** ({fix['safety']}): {_md(fix['summary'])}")
        out += [f"  - {key}: `{readable(fix_detail(fix[key]))}`" for key in DETAIL_KEYS if key in fix]
    return out


def _safety(rule: Rule) -> list[str]:
    levels = sorted({Safety(f["safety"]) for f in rule.fixes})
    if not levels:
        return ["Nothing to apply."]
    return [f"- {SAFETY_TEXT[level]}" for level in levels]


def _example(rule: Rule) -> list[str]:
    """The finding as `check` prints it, with `<placeholders>` where your run shows its own values."""
    block = [f"{rule.severity.upper()} {rule.id}: {readable(rule.title)}", f"  {readable(rule.message)}"]
    block += [f"  fix ({f['kind']}, {f['safety']}): {readable(f['summary'])}" for f in rule.fixes]
    return ["```text", *block, "```", "", "(`<name>` stands for a value from your machine, model or launch.)"]


def _md(template: str) -> str:
    """A template for markdown: `{gpu.name}` → a code span `<gpu.name>` (bare, it would read as an HTML tag);
    inside an existing code span just `<gpu.name>`."""
    def placeholder(match: re.Match[str]) -> str:
        inside_code = template.count("`", 0, match.start()) % 2 == 1
        return f"<{match.group(1)}>" if inside_code else f"`<{match.group(1)}>`"

    return PLACEHOLDER.sub(placeholder, template)


def _cell(template: str) -> str:
    return _md(template).replace("|", "\\|")


def _link(reference: str) -> str:
    return f"<{reference}>" if reference.startswith(("http://", "https://")) else reference
