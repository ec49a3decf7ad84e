"""`revert`: restore byte-identical originals from the fix journal."""

from __future__ import annotations

import argparse
import os

from doctor.fix.revert import run_revert


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("revert", help="undo changes made by --fix (all, or the given journal entries)")
    p.add_argument("entries", nargs="*", metavar="ENTRY", help="journal entry ids (default: every applied fix)")
    p.add_argument("--force", action="store_true", help="restore even if the file changed since the fix")
    p.add_argument("--list", action="store_true", help="list the journal instead of reverting")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return run_revert(os.environ, args.entries, force=args.force, list_only=args.list)
