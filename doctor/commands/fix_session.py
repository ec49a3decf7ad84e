"""`check --fix`: plan, show (or apply), then check again and say which findings the fixes cleared."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from rich.console import Console

from doctor.findings import Action
from doctor.fix.actions import SKIP_UNSAFE, launch_env, plan_fixes
from doctor.fix.apply import apply_actions
from doctor.pipeline.check import CheckRequest, run_check
from doctor.pipeline.report import Report


def fix_and_recheck(report: Report, request: CheckRequest, args: argparse.Namespace) -> Report:
    err = Console(stderr=True, highlight=False, markup=False)
    fix_dir = args.fix_dir.resolve()
    actions = plan_fixes(report, unsafe=args.unsafe_fixes, fix_dir=fix_dir)
    if not actions:
        err.print("--fix: nothing to fix")
        return report
    if args.dry_run:
        for action in actions:
            _describe(err, action, dry_run=True)
            if action.skipped in (None, SKIP_UNSAFE):
                sys.stderr.write(action.diff())
        return report
    outcome = apply_actions(actions, request.environ)
    for action in actions:
        _describe(err, action, dry_run=False)
    for entry in outcome.written:
        err.print(f"wrote {entry.path} (journal {entry.id}; undo with `sm120-doctor revert {entry.id}`)")
    if not outcome.written:
        return report
    written = {str(e.path) for e in outcome.written} | {str(a.path) for a in outcome.unchanged}
    env = launch_env([a for a in actions if str(a.path) in written])
    if env:
        # the launch will run with these set (env.sh): check as that launch would see it
        request = dataclasses.replace(request, environ={**request.environ, **env})
        shown = " ".join(f"{k}={v}" for k, v in env.items())
        err.print(f"re-checking with {shown} (source {fix_dir / 'env.sh'} before launching)")
    after = run_check(request)
    cleared = sorted({f.id for f in report.findings} - {f.id for f in after.findings})
    err.print(f"re-checked: cleared {', '.join(cleared) if cleared else 'nothing'}")
    return after


def _describe(err: Console, action: Action, dry_run: bool) -> None:
    verb = "would apply" if dry_run and action.skipped is None else "apply" if action.skipped is None else "skip"
    reason = f" ({action.skipped})" if action.skipped else ""
    where = f" → {action.path}" if action.path else ""
    err.print(f"[{action.safety}] {verb} {action.rule_id}: {action.summary}{where}{reason}")
