"""`sm120-doctor explain ID`: what a rule detects, why it happens, how to fix it and how safe the fix is,
where the facts come from."""

from __future__ import annotations

import argparse

from rich.text import Text

from doctor.commands.options import add_format_option, console
from doctor.commands.rules import rule_to_dict
from doctor.diagnose import raise_sites, reports
from doctor.errors import UsageError
from doctor.pipeline.rules import Rule, load_rules
from doctor.rule_docs import DETAIL_KEYS, describe, fix_detail, readable, rule_file, rule_url

# diagnose's derived findings: no rule of rules/*.toml, each explained from its module's docstring
DERIVED = {
    raise_sites.RULE: (raise_sites, "where the engine's own source raises a logged error",
                       "derived by `diagnose` from tables of every release's raise sites (tools/raise_sites.py)",
                       "docs/diagnose.md (Where the engine raises it)"),
    reports.RULE: (reports, "a public report quotes the logged error",
                   "`diagnose` matches the log against the triage ledger's quoted lines (tools/report_index.py)",
                   "docs/diagnose.md (A public report quotes it)"),
}


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("rule_id", metavar="ID", help="rule ID, e.g. SGL101")
    add_format_option(p)


def run(args: argparse.Namespace) -> int:
    rules = {r.id.upper(): r for r in load_rules()}  # a plug-in's IDs carry their engine: lmdeploy/LMD001
    rule = rules.get(args.rule_id.upper())
    if rule is None and args.rule_id.upper() in DERIVED:
        return _explain_derived(args.rule_id.upper(), args.format)
    if rule is None:
        close = sorted(r.id for i, r in rules.items() if i.startswith(args.rule_id.upper().rstrip("0123456789")))[:8]
        hint = f" (rules in that area: {', '.join(close)})" if close else " (list them: sm120-doctor rules)"
        raise UsageError(f"no rule {args.rule_id!r}{hint}")
    if args.format == "json":
        from doctor.formats.document import document, dumps

        print(dumps(document(rule={**rule_to_dict(rule), "docs": rule_url(rule)})))
        return 0
    console().print(explanation(rule))
    return 0


def _explain_derived(rule_id: str, fmt: str) -> int:
    module, title, origin, docs = DERIVED[rule_id]
    summary = " ".join((module.__doc__ or "").split("\n\n")[1].split())
    if fmt == "json":
        from doctor.formats.document import document, dumps

        print(dumps(document(rule={"id": rule_id, "severity": "warning", "area": "diagnose", "summary": summary,
                                   "docs": docs})))
        return 0
    text = Text(f"{rule_id}  [warning, diagnose]  {title}\n\n", style="bold")
    text.append(summary + f"\n\nNot a rule of rules/*.toml: {origin}. More: {docs}\n")
    console().print(text)
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
        for key in DETAIL_KEYS:
            if key in fix:
                text.append(f"    {key}: {readable(fix_detail(fix[key]))}\n", style="dim")
    text.append("  safety: safe = same behaviour, no risk; unsafe = changes behaviour or accuracy; "
                "manual = needs your judgement or an install\n", style="dim")
    text.append("\nReferences\n", style="bold underline")
    for ref in rule.references:
        text.append(f"- {ref}\n")
    for engine, refs in rule.engine_references:
        text.append(f"- in a {engine} run:\n")
        for ref in refs:
            text.append(f"    {ref}\n")
    text.append(f"\n(rule file: {rule_file(rule)}; page: {rule_url(rule)})", style="dim")
    return text
