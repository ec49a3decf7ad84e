"""Noise audit: run `check` (the known-good harness, tests/knowngood) over every known-good entry and count the
findings by rule and severity. Known-good deployments served requests, so every warning here is one a working user
saw; bench/RESULTS-noise.md reads each of the top ones.

    PYTHONPATH=. python bench/noise_audit.py [--json out.json] [--rule ID ...]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from tests.knowngood.corpus import load_entries, run_entry


def audit(rules: set[str]) -> tuple[Counter, list[dict]]:
    counts: Counter = Counter()
    firings = []
    for entry in load_entries():
        for finding in run_entry(entry).findings:
            counts[(finding.id, finding.severity)] += 1
            if not rules or finding.id in rules:
                firings.append({"entry": entry.id, "url": entry.url, "rule": finding.id,
                                "severity": finding.severity, "message": finding.message})
    return counts, firings


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="write the counts and firings here")
    parser.add_argument("--rule", action="append", default=[], help="list the firings of this rule")
    args = parser.parse_args(argv)
    counts, firings = audit(set(args.rule))
    for (rule, severity), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"{n:4d}  {severity:8s} {rule}")
    if args.json:
        rows = [{"rule": r, "severity": s, "count": n} for (r, s), n in sorted(counts.items())]
        args.json.write_text(json.dumps({"counts": rows, "firings": firings}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
