"""Subcommand bodies for the core commands: check, snapshot, hardware, models."""

from __future__ import annotations

import argparse
import json
import sys

from rich.console import Console
from rich.table import Table

from doctor.check import run_check
from doctor.cli import check_request, environment
from doctor.errors import UsageError
from doctor.fix.session import fix_and_recheck
from doctor.formats.console import render_console
from doctor.formats.json import render_json
from doctor.hardware import load_profile, profile_names
from doctor.output import write_text_atomic
from doctor.probe import live_facts
from doctor.probe.model import bundled_models


def check(args: argparse.Namespace) -> int:
    if (args.unsafe_fixes or args.dry_run) and not args.fix:
        raise UsageError("--unsafe-fixes and --dry-run go with --fix")
    request = check_request(args)
    report = run_check(request)
    if args.fix:
        report = fix_and_recheck(report, request, args)
    if args.output is not None:
        write_text_atomic(args.output, render_json(report) + "\n")
    if args.format == "json":
        print(render_json(report))
    else:
        render_console(report, _console())
    return 1 if report.worst_at_or_above(args.fail_on) else 0


def snapshot(args: argparse.Namespace) -> int:
    facts = live_facts(environment(), deep=args.deep)
    text = facts.to_json() + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.output, text)
        print(f"wrote {args.output} ({len(facts.gpus)} GPU(s), driver present: {facts.driver.present})",
              file=sys.stderr)
    return 0


def hardware(args: argparse.Namespace) -> int:
    rows = []
    for name in profile_names():
        facts = load_profile(name)
        gpu = facts.gpus[0]
        rows.append({"name": name, "gpus": len(facts.gpus), "gpu": gpu.name, "capability": gpu.compute_capability,
                     "memory_bytes": gpu.memory_total_bytes, "smem_per_block_optin": gpu.smem_per_block_optin,
                     "links": sorted({link.kind for link in facts.topology}), "notes": list(facts.source.notes)})
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    table = Table(title="Built-in hardware profiles (use with --hardware NAME)", title_justify="left")
    for column in ("name", "GPUs", "GPU", "CC", "memory", "smem/block", "links"):
        table.add_column(column)
    for r in rows:
        memory = f"{r['memory_bytes'] / (1 << 30):.0f} GiB" if r["memory_bytes"] else "n/a"
        table.add_row(r["name"], str(r["gpus"]), r["gpu"], r["capability"], memory,
                      str(r["smem_per_block_optin"]), " ".join(r["links"]) or "-")
    _console().print(table)
    return 0


def models(args: argparse.Namespace) -> int:
    index = bundled_models()
    if args.format == "json":
        print(json.dumps(index, indent=2))
        return 0
    table = Table(title="Model configs bundled with the doctor (used when the hub is unreachable)",
                  title_justify="left")
    table.add_column("model id")
    table.add_column("provenance")
    for model_id, entry in sorted(index.items()):
        table.add_row(model_id, entry["provenance"])
    _console().print(table)
    return 0


def _console() -> Console:
    """A terminal gets its own width; a pipe or file gets 120 columns instead of rich's 80."""
    console = Console(highlight=False)
    return console if console.is_terminal else Console(highlight=False, width=120)
