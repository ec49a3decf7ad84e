"""Write doctor/data/reports.json from the triage ledger: `diagnose`'s RPT001 (doctor/diagnose/reports.py).

Each ledger entry with log lines to match by goes in: its `quoted` lines; else the error lines of the report's
log in the diagnose corpus (tests/diagnose/logs/, each file the lines a public report printed); else the
backticked spans of its `error` (the ledger's verbatim excerpts) that read as a log line (four words or more,
not cut short). Words weigh by their rarity over the quoted lines and the corpus logs. Each line records how
many other causes print a line it matches (other reports' quoted lines, other reports' corpus logs, each by the
rules that explain it): reports of one failure agree, a line that failures of many causes print is generic, and
a report none of whose lines is specific is left out (it could only ever be named beside a line of its own).

    python tools/report_index.py           # rewrite the index
    python tools/report_index.py --check   # exit 1 if the index is not what the ledger gives
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from doctor.diagnose.reports import INDEX, MAX_SHARED, PublicReport, ReportIndex, word_weights, words  # noqa: E402
from tools.check_ledger import MAX_QUOTED, MIN_QUOTED, load_entries, normal_url  # noqa: E402

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

# public logs of many failures (tests/diagnose/logs): the words every failure prints weigh little beside them
BACKGROUND = REPO / "tests" / "diagnose" / "logs"
BACKTICKED = re.compile(r"`([^`\n]+)`")
MIN_WORDS = 4  # a backticked flag, path or identifier is not a log line
CUT = re.compile(r"^(?:\.\.\.|…)|(?:\.\.\.|…)$")  # a span the ledger shortened is not what a log prints
KEPT = ("url", "date", "engine", "versions", "gpu", "class", "status", "rules", "case", "related", "fix", "cause",
        "reason")
MAX_FROM_LOG = 4  # error lines taken from a corpus log
ROUTINE = re.compile(r"\b(?:INFO|DEBUG) \d\d-\d\d \d\d:|\b(?:INFO|DEBUG):|\[(?:INFO|DEBUG)\]")
RESEMBLES = 0.6  # a line holding this share of a quoted line's weight counts against its being specific


def corpus_logs() -> dict[str, Path]:
    """The diagnose corpus: each public report's log, by its normalised address."""
    return {normal_url(entry["url"]): BACKGROUND / entry["file"] for entry in _corpus()}


def corpus_causes() -> dict[str, frozenset[str]]:
    """The cause each corpus log is labelled with: the rule that must explain it, else a cause of its own."""
    return {normal_url(entry["url"]): frozenset([entry.get("expect") or f"log:{entry['file']}"])
            for entry in _corpus()}


def _corpus() -> list[dict]:
    return tomllib.loads((BACKGROUND.parent / "index.toml").read_text(encoding="utf-8"))["log"]


def log_errors(path: Path, reader: Any) -> list[str]:
    """The error lines `diagnose` reads in a log (its prefixes dropped), the first few, each once."""
    with path.open("rb") as stream:
        errors = reader.read(stream, path.name).facts.errors
    lines = dict.fromkeys(text.strip() for _, text in errors if MIN_QUOTED <= len(text.strip()) <= MAX_QUOTED)
    return list(lines)[:MAX_FROM_LOG]


def quoted_lines(entry: dict, logs: dict[str, Path], reader: Any) -> list[str]:
    if entry.get("quoted"):
        return list(entry["quoted"])
    log = logs.get(normal_url(entry["url"]))
    if log is not None and (errors := log_errors(log, reader)):
        return errors
    spans = [span.strip() for span in BACKTICKED.findall(entry["error"])]
    return [span for span in spans if MIN_QUOTED <= len(span) <= MAX_QUOTED and len(span.split()) >= MIN_WORDS
            and not CUT.search(span)]


def _error_like(line: str) -> bool:
    """Not a line an engine logs at INFO or DEBUG (`INFO 08-12 20:26:09 [pynccl.py:113] vLLM is using nccl==...`):
    a report may quote one as the last line before a hang, but every run prints it."""
    return not ROUTINE.search(line)


def candidates(entries: list[tuple[str, dict]], logs: dict[str, Path]) -> list[dict]:
    from doctor.diagnose.formats import all_rules
    from doctor.diagnose.read import Reader
    from doctor.diagnose.signatures import compile_signatures, rule_signatures

    reader = Reader(compile_signatures(rule_signatures()), all_rules())  # not the index being rewritten
    out = []
    for _, entry in entries:
        quoted = [line for line in quoted_lines(entry, logs, reader) if _error_like(line)]
        if quoted:
            out.append({**{key: entry[key] for key in KEPT if key in entry}, "quoted": quoted})
    return sorted(out, key=lambda record: record["url"])


def weights(reports: list[dict], logs: dict[str, Path]) -> dict[str, float]:
    """Each quoted word's weight over the quoted lines and the background logs, one document each."""
    documents = [words(text) for record in reports for text in record["quoted"]]
    quoted = frozenset().union(*documents) if documents else frozenset()
    documents += [words(_text(path)) for path in sorted(set(logs.values()))]
    return {word: round(weight, 4) for word, weight in word_weights(documents).items() if word in quoted}


def causes(report: PublicReport) -> frozenset[str]:
    """A report's cause as a label: the rules that encode or explain it, else its engine and class."""
    return frozenset(report.named or [f"{report.engines[0]}/{report.record['class']}"])


def shared_counts(index: ReportIndex, logs: dict[str, Path]) -> list[int]:
    """For each quoted line (by position), how many other causes print a line it matches: other reports'
    quoted lines and the corpus logs of other reports, each by its cause. Reports of the same failure agree;
    a line that failures of many causes print is generic."""
    seen: list[set[frozenset[str]]] = [set() for _ in index.lines]
    mine = [causes(index.reports[q.report]) for q in index.lines]
    for quoted in index.lines:
        seen[quoted.position] |= {causes(index.reports[q.report]) for q, _ in
                                  index.matches(quoted.text, quoted.report, RESEMBLES, rarest=False)}
    labels = corpus_causes()
    for url, path in logs.items():
        for line in _text(path).splitlines():
            for quoted, _ in index.matches(line[:MAX_QUOTED * 4], least=RESEMBLES, rarest=False):
                if normal_url(index.reports[quoted.report].url) != url:
                    seen[quoted.position].add(labels[url])
    return [len({cause for cause in others if not cause & mine[p]}) for p, others in enumerate(seen)]


def build() -> dict:
    """The reports with a line specific enough to name them, each line with its shared count."""
    logs = corpus_logs()
    found = candidates(load_entries(), logs)
    weight = weights(found, logs)
    index = ReportIndex(found, weight=weight)
    shared = shared_counts(index, logs)
    reports, counts = [], []
    for position, record in enumerate(found):
        lines = [(q.text, shared[p]) for p, q in enumerate(index.lines)
                 if q.report == position and _matches_itself(index, position, q.text)]
        if any(count <= MAX_SHARED for _, count in lines):
            reports.append({**record, "quoted": [text for text, _ in lines]})
            counts.append([count for _, count in lines])
    return {"about": "public SM12x reports and the log lines they quote, from ledger/*.toml by tools/report_index.py",
            "reports": reports, "shared": counts, "weight": weight}


def _matches_itself(index: ReportIndex, position: int, text: str) -> bool:
    return any(quoted.report == position for quoted, _ in index.matches(text))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="replace")


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
