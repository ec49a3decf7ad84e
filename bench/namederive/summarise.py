"""Tables for bench/RESULTS-namederive.md from two outputs of bench/heldout_replay.sh: the held-out rows whose hub
id exited 2 before names were derived (runs.txt), and the hand-picked stand-in rows of the same reports
(standins.txt). Usage: python bench/namederive/summarise.py replay.txt standins-replay.txt"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

ROW = re.compile(r"^== (?P<id>\S+) rc=(?P<rc>\d+) :: check (?P<model>\S+)")
FINDING = re.compile(r"^  (?P<severity>error|warning|info)\s+(?P<rule>\S+)")


def read(path: str) -> dict[str, dict]:
    rows: dict[str, dict] = {}
    current = None
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if match := ROW.match(line):
            current = {"rc": int(match["rc"]), "model": match["model"], "findings": [], "error": ""}
            rows[match["id"]] = current
        elif current is not None and (match := FINDING.match(line)):
            current["findings"].append((match["rule"], match["severity"]))
        elif current is not None and line.startswith("  no json:"):
            current["error"] = line.split("error:", 1)[-1].strip()
    return rows


def stand_in(rows: dict[str, dict], row: str) -> dict | None:
    """The row's stand-in: the same id with an `n` (another model) or `m` (no model) suffix."""
    return next((rows[row + s] for s in ("n", "m") if row + s in rows), None)


def main(replay: str, standins: str) -> None:
    rows, others = read(replay), read(standins)
    resolved = {k: v for k, v in rows.items() if v["rc"] != 2}
    print(f"rows: {len(rows)}; resolved now: {len(resolved)}; still exit 2: {len(rows) - len(resolved)}\n")
    counts = Counter(f for row in resolved.values() for f in set(row["findings"]))
    by_severity = Counter(sev for row in resolved.values() for _, sev in row["findings"])
    print("| row | model | findings (error/warning/info) | rule IDs the stand-in row lacks | stand-in's IDs missing |")
    print("|---|---|---|---|---|")
    for key, row in resolved.items():
        sev = Counter(s for _, s in row["findings"])
        ids = {r for r, _ in row["findings"]}
        other = stand_in(others, key)
        if other is None:
            gained, lost = "no stand-in row", ""
        else:
            theirs = {r for r, _ in other["findings"]}
            gained, lost = ", ".join(sorted(ids - theirs)) or "-", ", ".join(sorted(theirs - ids)) or "-"
        print(f"| {key} | {row['model']} | {sev['error']}/{sev['warning']}/{sev['info']} | {gained} | {lost} |")
    print(f"\nfindings by severity over the resolved rows: {dict(by_severity)}\n")
    print("| rule | severity | rows |")
    print("|---|---|---|")
    for (rule, severity), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        print(f"| {rule} | {severity} | {n} |")
    print("\nstill exit 2:")
    for key, row in rows.items():
        if row["rc"] == 2:
            print(f"- {key} {row['model']}: {row['error'][:200]}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
