"""`sm120-doctor rules` (list or export the knowledge base) and `sm120-doctor explain ID` (what a rule
detects, why it happens, how to fix it and how safe the fix is, where the facts come from)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from doctor.errors import UsageError
from doctor.report import SEVERITIES
from doctor.rules import PLACEHOLDER, Rule, load_rules


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rules", help="list the knowledge base (rule IDs and titles)")
    p.add_argument("--area", help="only rules of this area (e.g. sglang, vllm, flashinfer) or ID prefix (SGL)")
    p.add_argument("--severity", choices=SEVERITIES, help="only rules of this severity")
    p.add_argument("--grep", metavar="TEXT", help="only rules whose ID, title, summary or explanation contain TEXT")
    p.add_argument("--format", choices=("console", "json"), default="console")
    p.set_defaults(handler=list_rules)
    p = sub.add_parser("explain", help="explain one rule: what it detects, why, the fix and its safety")
    p.add_argument("rule_id", metavar="ID", help="rule ID, e.g. SGL101")
    p.add_argument("--format", choices=("console", "json"), default="console")
    p.set_defaults(handler=explain)


def rule_to_dict(rule: Rule) -> dict[str, Any]:
    return {"id": rule.id, "area": rule.area, "severity": rule.severity, "title": rule.title,
            "summary": rule.summary, "why": rule.why, "message": rule.message, "when": list(rule.when),
            "for_each": rule.for_each, "evidence": list(rule.evidence), "fixes": list(rule.fixes),
            "references": list(rule.references), "source": rule.source}


def select(rules: list[Rule], area: str | None, severity: str | None, grep: str | None) -> list[Rule]:
    out = []
    for rule in rules:
        if area and area.lower() not in (rule.area.lower(), rule.id.rstrip("0123456789").lower()):
            continue
        if severity and rule.severity != severity:
            continue
        text = " ".join((rule.id, rule.title, rule.summary, rule.why)).lower()
        if grep and grep.lower() not in text:
            continue
        out.append(rule)
    return out


def list_rules(args: argparse.Namespace) -> int:
    rules = select(load_rules(), args.area, args.severity, args.grep)
    if args.format == "json":
        print(json.dumps({"rules": [rule_to_dict(r) for r in rules], "count": len(rules)}, indent=2))
        return 0
    table = Table(title=f"Knowledge base: {len(rules)} rule(s) (details: sm120-doctor explain ID)",
                  title_justify="left")
    for column in ("ID", "severity", "area", "title"):
        table.add_column(column)
    for rule in rules:
        table.add_row(rule.id, rule.severity, rule.area, readable(rule.title))
    _console().print(table)
    return 0


def explain(args: argparse.Namespace) -> int:
    rules = {r.id: r for r in load_rules()}
    rule = rules.get(args.rule_id.upper())
    if rule is None:
        close = [i for i in rules if i.startswith(args.rule_id.upper().rstrip("0123456789"))][:8]
        hint = f" (rules in that area: {', '.join(close)})" if close else " (list them: sm120-doctor rules)"
        raise UsageError(f"no rule {args.rule_id!r}{hint}")
    if args.format == "json":
        print(json.dumps(rule_to_dict(rule), indent=2))
        return 0
    _console().print(explanation(rule))
    return 0


def explanation(rule: Rule) -> Text:
    text = Text()
    text.append(f"{rule.id}  [{rule.severity}, {rule.area}]  {readable(rule.title)}\n\n", style="bold")
    text.append("What it detects\n", style="bold underline")
    text.append(rule.summary + "\n")
    text.append("It fires when: " + "; and ".join(describe(c) for c in rule.when), style="dim")
    if rule.for_each:
        text.append(f" (checked for each entry of {rule.for_each})", style="dim")
    text.append("\n\nWhy it happens\n", style="bold underline")
    text.append(rule.why.strip() + "\n")
    text.append("\nFixes\n", style="bold underline")
    if not rule.fixes:
        text.append("none: this finding is informational\n")
    for fix in rule.fixes:
        text.append(f"- [{fix['kind']}, {fix['safety']}] {readable(fix['summary'])}\n")
        for key in ("flags", "remove", "env", "package", "config", "patch", "command", "engine", "versions"):
            if key in fix:
                value = fix[key]
                shown = " ".join(value) if isinstance(value, list) else (
                    " ".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else value)
                text.append(f"    {key}: {readable(str(shown))}\n", style="dim")
    text.append("  safety: safe = same behaviour, no risk; unsafe = changes behaviour or accuracy; "
                "manual = needs your judgement or an install\n", style="dim")
    text.append("\nReferences\n", style="bold underline")
    for ref in rule.references:
        text.append(f"- {ref}\n")
    text.append(f"\n(rule file: rules/{rule.source})", style="dim")
    return text


def describe(condition: dict[str, Any]) -> str:
    if "any" in condition:
        return "(" + " or ".join(describe(c) for c in condition["any"]) + ")"
    op = next(k for k in condition if k != "fact")
    words = {"eq": "is", "ne": "is not", "in": "is one of", "not_in": "is none of", "lt": "<", "le": "<=",
             "gt": ">", "ge": ">=", "version": "version", "contains": "contains", "not_contains": "lacks",
             "matches": "matches"}
    if op == "exists":
        return f"{condition['fact']} {'is known' if condition['exists'] else 'is absent'}"
    return f"{condition['fact']} {words[op]} {condition[op]}"


def readable(template: str) -> str:
    """`{gpu.name}` → `<gpu.name>`: a template shown without facts."""
    return PLACEHOLDER.sub(lambda m: f"<{m.group(1)}>", template)


def _console() -> Console:
    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=120)
