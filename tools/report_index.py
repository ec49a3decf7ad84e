"""Write doctor/data/reports.json from the triage ledger: `diagnose`'s RPT001 (doctor/diagnose/reports.py).

Each ledger entry with log lines to match by goes in: its `quoted` lines, else the backticked spans of its
`error` (the ledger's verbatim excerpts) that are long enough to name something. For each line it also records
how many other reports have a line it matches (a generic line, such as an illegal memory access, is matched by
many), so `diagnose` need not work that out on every run.

    python tools/report_index.py           # rewrite the index
    python tools/report_index.py --check   # exit 1 if the index is not what the ledger gives
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from doctor.diagnose.reports import INDEX, ReportIndex, word_weights, words  # noqa: E402
from tools.check_ledger import MAX_QUOTED, MIN_QUOTED, load_entries  # noqa: E402

# public logs of many failures (tests/diagnose/logs): the words every failure prints weigh little beside them
BACKGROUND = REPO / "tests" / "diagnose" / "logs"
BACKTICKED = re.compile(r"`([^`\n]+)`")
MIN_WORDS = 4  # a backticked flag, path or identifier is not a log line
CUT = re.compile(r"^(?:\.\.\.|…)|(?:\.\.\.|…)$")  # a span the ledger shortened is not what a log prints
KEPT = ("url", "date", "engine", "versions", "gpu", "class", "status", "rules", "case", "related", "fix", "cause",
        "reason")


def quoted_lines(entry: dict) -> list[str]:
    if entry.get("quoted"):
        return list(entry["quoted"])
    spans = [span.strip() for span in BACKTICKED.findall(entry["error"])]
    return [span for span in spans if MIN_QUOTED <= len(span) <= MAX_QUOTED and len(span.split()) >= MIN_WORDS
            and not CUT.search(span)]


def records(entries: list[tuple[str, dict]]) -> list[dict]:
    """The entries with quoted lines, each line kept only if it says enough to match a log by (a line of stock
    words, `Unsupported architecture`, never could)."""
    candidates = []
    for _, entry in entries:
        quoted = quoted_lines(entry)
        if quoted:
            candidates.append({**{key: entry[key] for key in KEPT if key in entry}, "quoted": quoted})
    candidates.sort(key=lambda record: record["url"])
    index = ReportIndex(candidates, weight=weights(candidates))
    out = []
    for position, record in enumerate(candidates):
        kept = [text for text in record["quoted"] if _matches_itself(index, position, text)]
        if kept:
            out.append({**record, "quoted": kept})
    return out


def _matches_itself(index: ReportIndex, position: int, text: str) -> bool:
    return any(quoted.report == position for quoted, _ in index.matches(text))


def weights(reports: list[dict]) -> dict[str, float]:
    """Each quoted word's weight over the quoted lines and the background logs, one document each."""
    documents = [words(text) for record in reports for text in record["quoted"]]
    quoted = frozenset().union(*documents) if documents else frozenset()
    documents += [words(path.read_text(encoding="utf-8", errors="replace")) for path in sorted(BACKGROUND.iterdir())]
    return {word: round(weight, 4) for word, weight in word_weights(documents).items() if word in quoted}


def shared_counts(reports: list[dict], weight: dict[str, float]) -> list[list[int]]:
    """For each quoted line, the other reports with a line of their own it matches."""
    index = ReportIndex(reports, weight=weight)
    return [[len({quoted.report for quoted, _ in index.matches(text, skip=position)})
             for text in record["quoted"]] for position, record in enumerate(reports)]


def build() -> dict:
    reports = records(load_entries())
    weight = weights(reports)
    return {"about": "public SM12x reports and the log lines they quote, from ledger/*.toml by tools/report_index.py",
            "reports": reports, "shared": shared_counts(reports, weight), "weight": weight}


def dumps(index: dict) -> str:
    return json.dumps(index, indent=0, ensure_ascii=False, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the index is stale")
    args = parser.parse_args(argv)
    text = dumps(build())
    if args.check:
        current = INDEX.read_text(encoding="utf-8") if INDEX.is_file() else ""
        if current != text:
            print(f"{INDEX.relative_to(REPO)} is stale: run python tools/report_index.py", file=sys.stderr)
            return 1
        return 0
    INDEX.write_text(text, encoding="utf-8")
    index = json.loads(text)
    lines = sum(len(r["quoted"]) for r in index["reports"])
    print(f"{len(index['reports'])} reports, {lines} quoted lines -> {INDEX.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
