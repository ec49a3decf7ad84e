"""`sm120-doctor snapshot`: record this machine's facts to a JSON file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from doctor.commands.options import environment


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    p.add_argument("--deep", action="store_true", help="also ask torch (imports torch)")


def run(args: argparse.Namespace) -> int:
    from doctor.output import write_text_atomic
    from doctor.probe import live_facts

    facts = live_facts(environment(), deep=args.deep)
    text = facts.to_json() + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.output, text)
        print(f"wrote {args.output} ({len(facts.gpus)} GPU(s), driver present: {facts.driver.present})",
              file=sys.stderr)
    return 0
