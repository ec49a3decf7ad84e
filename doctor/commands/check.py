"""`sm120-doctor check MODEL`: the main job; `--fix` applies the fixes and checks again."""

from __future__ import annotations

import argparse
from pathlib import Path

from doctor.commands.options import add_target_options, check_request, console
from doctor.errors import UsageError


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("Check MODEL (hub id or local directory). Engine launch flags may follow `--`, e.g. "
                     "`check MODEL -- --tp-size 8 --attention-backend triton`. With no --engine, every serving "
                     "engine installed is analysed (or none, said in a note).")
    add_target_options(p, model_required=False)
    p.add_argument("--format", choices=("console", "json"), default="console")
    p.add_argument("--output", type=Path, metavar="FILE", help="also write the JSON report to FILE")
    p.add_argument("--fail-on", choices=("error", "warning", "info", "never"), default="error",
                   help="exit 1 when a finding at or above this severity exists (default: error)")
    p.add_argument("--deep", action="store_true", help="also ask torch (imports torch; slower)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes (new files you own), then check again")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix: also patch installed packages")
    p.add_argument("--dry-run", action="store_true", help="with --fix: show diffs and files, change nothing")
    p.add_argument("--fix-dir", type=Path, default=Path("sm120-doctor-fix"), metavar="DIR",
                   help="with --fix: where new files (MoE configs, env.sh) go (default: ./sm120-doctor-fix)")


def run(args: argparse.Namespace) -> int:
    from doctor.check import run_check
    from doctor.formats.json import render_json

    if (args.unsafe_fixes or args.dry_run) and not args.fix:
        raise UsageError("--unsafe-fixes and --dry-run go with --fix")
    request = check_request(args)
    report = run_check(request)
    if args.fix:
        from doctor.commands.fix_session import fix_and_recheck

        report = fix_and_recheck(report, request, args)
    if args.output is not None:
        from doctor.output import write_text_atomic

        write_text_atomic(args.output, render_json(report) + "\n")
    if args.format == "json":
        print(render_json(report))
    else:
        from doctor.formats.console import render_console

        render_console(report, console())
    return 1 if report.worst_at_or_above(args.fail_on) else 0
