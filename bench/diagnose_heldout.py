"""Replay every `diagnose` row (`ID|diagnose LOG ...`) of the held-out samples' runs.txt offline and print, per row,
the rules `diagnose` explains the log with (rule, severity, status) or `not explained`.

`python bench/diagnose_heldout.py [--samples heldout,heldout2,...] [--out FILE]`: one line per row,
`SAMPLE ROW explained=BOOL RULE:severity:status ...`, then a count. The verdicts against each sample's expected.md
are a reader's judgement (bench/RESULTS-diagnose-heldout.md); this script only records what `diagnose` says."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

SAMPLES = ("heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8")


def diagnose_rows(sample: str) -> list[tuple[str, list[str]]]:
    rows = []
    for line in (ROOT / "bench" / sample / "runs.txt").read_text(encoding="utf-8").splitlines():
        row, _, args = line.partition("|")
        if args.startswith("diagnose "):
            rows.append((row, shlex.split(args)))
    return rows


def run_row(argv: list[str]) -> dict:
    from doctor.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.suppress(SystemExit):
        main([*argv, "--offline", "--format", "json"])
    try:
        return json.loads(out.getvalue())
    except ValueError:
        return {}


def summary(report: dict, sites: bool = False) -> str:
    rules = [f"{e['rule']}:{e['severity']}:{e['status']}" for e in report.get("explanations") or []]
    if sites:  # SRC001 (doctor/diagnose/raise_sites.py): the engine source behind a line no signature explained
        rules += [f"SRC001:{s['engine']}:{s['file']}:{s.get('function') or '-'}:line{s['line']}"
                  for s in report.get("raise_sites") or []]
    return f"explained={bool(report.get('explained'))} " + " ".join(rules)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default=",".join(SAMPLES))
    parser.add_argument("--out", type=Path)
    parser.add_argument("--sites", action="store_true", help="also list the SRC001 raise sites of each row")
    args = parser.parse_args(argv)
    lines, explained, total = [], 0, 0
    for sample in args.samples.split(","):
        for row, row_argv in diagnose_rows(sample):
            report = run_row(row_argv)
            total += 1
            explained += bool(report.get("explained"))
            lines.append(f"{sample} {row} {summary(report, args.sites)}".rstrip())
    lines.append(f"explained {explained} of {total} diagnose rows")
    text = "\n".join(lines) + "\n"
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
