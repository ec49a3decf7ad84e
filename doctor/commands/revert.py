"""`revert`: restore byte-identical originals from the fix journal."""

from __future__ import annotations

import argparse
import os

from doctor.fix.revert import run_revert


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("entries", nargs="*", metavar="ENTRY", help="journal entry ids (default: every applied fix)")
    p.add_argument("--force", action="store_true", help="restore even if the file changed since the fix")
    p.add_argument("--list", action="store_true", help="list the journal instead of reverting")


def run(args: argparse.Namespace) -> int:
    return run_revert(os.environ, args.entries, force=args.force, list_only=args.list)
