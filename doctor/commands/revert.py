"""`revert`: restore byte-identical originals from the fix journal."""

from __future__ import annotations

import argparse
import os
import sys

from doctor.fix.journal import FixError, Journal, state_dir
from doctor.fix.writer import restore


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("entries", nargs="*", metavar="ENTRY", help="journal entry ids (default: every applied fix)")
    p.add_argument("--force", action="store_true", help="restore even if the file changed since the fix")
    p.add_argument("--list", action="store_true", help="list the journal instead of reverting")


def run(args: argparse.Namespace) -> int:
    journal = Journal(state_dir(os.environ))
    with journal.locked():
        entries = journal.entries()
        if args.list:
            for e in entries:
                print(f"{e.id}  {e.status:<8} {e.rule_id:<8} {e.path}")
            return 0
        applied = [e for e in entries if e.status == "applied"]
        if args.entries:
            known = {e.id: e for e in entries}
            missing = [i for i in args.entries if i not in known]
            if missing:
                raise FixError(f"no journal entry {missing[0]} (see `sm120-doctor revert --list`)")
            wanted = set(args.entries)
            applied = [e for e in entries if e.id in wanted and e.status == "applied"]
        if not applied:
            print("nothing to revert", file=sys.stderr)
            return 0
        for entry in reversed(applied):  # journal order, newest first: a later write to a file undone first
            restore(journal, entry, force=args.force)
            print(f"reverted {entry.path} (journal {entry.id})", file=sys.stderr)
    return 0
