"""RPT001's reach and precision (doctor/diagnose/reports.py), measured on the report index itself and on the
diagnose corpus.

1. Self: each indexed report's quoted lines as a log: is the report itself among the reports named?
2. Leave one out: the same log with the report left out of the index: is another report named, and does it
   agree (a rule both name; else the same class and engine)? This is what a new report that repeats a known
   failure would get.
3. The diagnose corpus (tests/diagnose/logs/, 341 public logs with the rule each must rank first): RPT001 runs on
   each log's lines, its own report left out: how often it names a report, and whether that report names the
   log's expected rule.

    python bench/report_match.py            # print the tables
    python bench/report_match.py --record   # also write bench/results/report-match.md
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from doctor.diagnose.reports import MAX_LINES, PublicReport, ReportIndex, load_index, match_log  # noqa: E402
from tools.check_ledger import normal_url  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "report-match.md"
LOGS = ROOT / "tests" / "diagnose" / "logs"


def _agrees(ours: PublicReport, theirs: PublicReport) -> bool:
    if ours.named and theirs.named:
        return bool(ours.named & theirs.named)
    return ours.record["class"] == theirs.record["class"] and ours.engines[0] == theirs.engines[0]


def index_rows(index: ReportIndex) -> dict[str, int]:
    counts = {"reports": len(index.reports), "self": 0, "others": 0, "agree": 0}
    for position, report in enumerate(index.reports):
        lines = list(enumerate(report.record["quoted"], start=1))
        engine = report.engines[0]
        if any(m.report is report for m in match_log(lines, engine, set(), index)):
            counts["self"] += 1
        others = match_log(lines, engine, set(), index, skip=position)
        if others:
            counts["others"] += 1
            counts["agree"] += _agrees(report, others[0].report)
    return counts


def corpus_rows(index: ReportIndex) -> dict[str, int]:
    entries = tomllib.loads((ROOT / "tests" / "diagnose" / "index.toml").read_text())["log"]
    position = {normal_url(r.url): i for i, r in enumerate(index.reports)}
    counts = {"logs": len(entries), "named": 0, "expected_rule": 0}
    for entry in entries:
        text = (LOGS / entry["file"]).read_text(errors="replace").splitlines()
        lines = [(n, line) for n, line in enumerate(text, start=1) if line.strip()][-MAX_LINES:]
        found = match_log(lines, None, set(), index, skip=position.get(normal_url(entry["url"]), -1))
        if not found:
            continue
        counts["named"] += 1
        counts["expected_rule"] += bool(entry.get("expect")) and entry["expect"] in found[0].report.named
    return counts


def render(index_counts: dict[str, int], corpus_counts: dict[str, int], seconds: float) -> str:
    i, c = index_counts, corpus_counts
    return "\n".join([
        "# RPT001: public reports named from a log's quoted lines (bench/report_match.py)", "",
        f"Index: {i['reports']} reports with quoted lines (doctor/data/reports.json). Run time {seconds:.1f} s.", "",
        "| measure | count |", "|---|---|",
        f"| a report's own quoted lines name it (self) | {i['self']} / {i['reports']} |",
        f"| with the report left out, another report is named | {i['others']} / {i['reports']} |",
        f"| ... and the top one agrees (a shared rule, else class and engine) | {i['agree']} / {i['others']} |",
        f"| diagnose corpus logs where RPT001 names a report (its own left out) | {c['named']} / {c['logs']} |",
        f"| ... whose top report names the log's expected rule | {c['expected_rule']} / {c['named']} |", ""])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    index = load_index()
    text = render(index_rows(index), corpus_rows(index), time.perf_counter() - start)
    print(text)
    if args.record:
        RESULTS.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
