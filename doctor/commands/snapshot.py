"""`sm120-doctor snapshot`: record this machine's facts (or a built-in profile's, to edit for what-ifs) to a
JSON file; `--node` names the node for a multi-node check (default: this host's name on a live probe)."""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path

from doctor.commands.options import environment


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    p.add_argument("--deep", action="store_true", help="also ask torch (imports torch)")
    p.add_argument("--hardware", metavar="PROFILE",
                   help="write a built-in hardware profile (with this environment's libraries) instead of probing")
    p.add_argument("--node", metavar="NAME", help="the node's name in a multi-node deployment "
                                                  "(default: the host name; none with --hardware)")


def run(args: argparse.Namespace) -> int:
    from doctor.output import write_text_atomic
    from doctor.pipeline.gather import gather_facts, live_facts

    environ = environment()
    if args.hardware is not None:
        facts = gather_facts(environ=environ, hardware=args.hardware)
        node = args.node
    else:
        facts = live_facts(environ, deep=args.deep)
        node = args.node or socket.gethostname()
    facts = facts.replace(node=node)
    text = facts.to_json() + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text_atomic(args.output, text)
        print(f"wrote {args.output} ({len(facts.gpus)} GPU(s), driver present: {facts.driver.present}"
              f"{f', node {node}' if node else ''})", file=sys.stderr)
    return 0
