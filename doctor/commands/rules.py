"""`sm120-doctor rules`: list or export the knowledge base."""

from __future__ import annotations

import argparse
from typing import Any

from doctor.commands.options import add_format_option, console
from doctor.findings import SEVERITIES
from doctor.pipeline.rules import Rule, load_rules
from doctor.rule_docs import readable


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--area", help="only rules of this area (see the area column) or ID prefix")
    p.add_argument("--severity", choices=SEVERITIES, help="only rules of this severity")
    p.add_argument("--grep", metavar="TEXT", help="only rules whose ID, title, summary or explanation contain TEXT")
    add_format_option(p)


def rule_to_dict(rule: Rule) -> dict[str, Any]:
    return {"id": rule.id, "area": rule.area, "severity": rule.severity, "title": rule.title,
            "summary": rule.summary, "why": rule.why, "message": rule.message, "when": list(rule.when),
            "for_each": rule.for_each, "evidence": list(rule.evidence), "fixes": list(rule.fixes),
            "references": list(rule.references),
            "engine_references": {engine: list(refs) for engine, refs in rule.engine_references},
            "source": rule.source}


def select(rules: list[Rule], area: str | None, severity: str | None, grep: str | None) -> list[Rule]:
    out = []
    for rule in rules:
        if area and area.lower() not in _areas(rule):
            continue
        if severity and rule.severity != severity:
            continue
        text = " ".join((rule.id, rule.title, rule.summary, rule.why)).lower()
        if grep and grep.lower() not in text:
            continue
        out.append(rule)
    return out


def _areas(rule: Rule) -> tuple[str, ...]:
    """What `--area` matches: the area, the ID's letters (`SGL`, `lmdeploy/LMD`), a plug-in's engine name."""
    prefix = rule.id.rstrip("0123456789").lower()
    return rule.area.lower(), prefix, prefix.split("/")[-1], prefix.partition("/")[0]


def run(args: argparse.Namespace) -> int:
    from rich.table import Table

    rules = select(load_rules(), args.area, args.severity, args.grep)
    if args.format == "json":
        from doctor.formats.document import document, dumps

        print(dumps(document(rules=[rule_to_dict(r) for r in rules], count=len(rules))))
        return 0
    table = Table(title=f"Knowledge base: {len(rules)} rule(s) (details: sm120-doctor explain ID)",
                  title_justify="left")
    for column in ("ID", "severity", "area", "title"):
        table.add_column(column)
    for rule in rules:
        table.add_row(rule.id, rule.severity, rule.area, readable(rule.title))
    console().print(table)
    return 0
