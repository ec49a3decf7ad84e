"""RPT001: the public reports that quote the lines a user's log holds (issue 25's triage ledger, read back).

The ledger (ledger/*.toml) keeps, for each public SM12x report, the log lines it quotes verbatim, the cause the
thread established and its fix. tools/report_index.py writes them to doctor/data/reports.json. A log line that
holds one of those quoted lines (the same words, numbers, addresses and paths aside) names the report: its
date, engine, release and GPU, its cause, its fix, and whether a rule of the doctor encodes it. A match says the
same error was reported, not that it has the same cause here: a warning, confirmed by comparing the report's
release, GPU and model with the log's.

A quoted line that failures of several causes print (an illegal memory access, an out-of-memory) says little on
its own: it names a report only beside a more specific line of that report; and a report of one serving engine
is not named on another engine's log by a line another cause prints too. Reports of one failure agree: a line
they all print is specific to it."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import re2

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

RULE = "RPT001"
INDEX = Path(__file__).resolve().parent.parent / "data" / "reports.json"
MAX_SHOWN = 3  # reports named per log
MAX_LINES = 64  # log lines tried
MIN_COVERAGE = 0.85  # share of a quoted line's weighted words the log line holds
MIN_WEIGHT = 10.0  # the words matched must say this much (summed inverse document frequency): two or three rare
# words, not a stock phrase
MAX_SHARED = 1  # a quoted line that failures of more other causes print is generic
RAREST = 2  # a matching line holds at least the quoted line's rarest words (a file, a kernel, an arch)
# the ledger's engines that are libraries in any engine's serving path (and `other`, which may be anything): their
# reports may explain any engine's log; every other ledger engine serves models itself
LIBRARIES = frozenset({"flashinfer", "triton", "pytorch", "nccl", "cutlass", "deepgemm", "flashmla", "lmcache",
                       "xformers", "flash-attention", "bitsandbytes", "other"})
CONFIRM = ("the same error was reported; compare the report's engine release, GPU and model with yours: where "
           "they match, its cause and fix apply")
ANSI = re2.compile(r"\x1b\[[0-9;]*[A-Za-z]")
HEX = re2.compile(r"\b0x[0-9a-fA-F]+\b")
PATH = re2.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+(?P<base>[\w.-]+)")
# numbers that name an architecture stay, as one word: `major versions [9, 10]`, `capability 12.0`, `SM 120`
ARCH_NUMBERS = re2.compile(r"(?i)\b(major versions?|capability|sm|arch)[ :=]*\[?\(?(\d+(?:[.,] ?\d+)*)[\])]?")
NUMBER = re2.compile(r"\b\d+(?:\.\d+)*\b")  # a count, size, line or version; `sm_121a`, `compute_120` stay
WORD = re2.compile(r"[a-z_][a-z0-9_.]*[a-z0-9_]|[a-z]")
ANCHOR = re2.compile(r"^[a-z_]{6,}$")  # a word the scan can find in the raw line: no digits, dots or paths
ANCHOR_WEIGHT = 4.5  # a word this rare (in about 1 % of the documents) finds few lines; a commoner one, most
MAX_LINE = 2000  # characters of a candidate line kept


@dataclass(frozen=True)
class PublicReport:
    record: dict[str, Any]

    @property
    def url(self) -> str:
        return self.record["url"]

    @property
    def rules(self) -> tuple[str, ...]:
        return tuple(self.record.get("rules", ()))

    @property
    def named(self) -> set[str]:
        """The rules that encode it or explain it."""
        return {*self.rules, *self.record.get("related", ())}

    @property
    def engines(self) -> tuple[str, ...]:
        """The ledger's engine field, one name or several, as a tuple (the first is the report's own)."""
        engine = self.record["engine"]
        return (engine,) if isinstance(engine, str) else tuple(engine)

    def encoded_words(self) -> str:
        if self.record["status"] == "encoded":
            return f"encoded as {', '.join(self.rules)} (`sm120-doctor explain {self.rules[0]}`)"
        related = self.record.get("related")
        also = f"; related rules {', '.join(related)}" if related else ""
        return f"not encoded as a rule ({self.record.get('reason', self.record['status'])}){also}"


@dataclass(frozen=True)
class Quoted:
    position: int  # index into ReportIndex.lines
    report: int  # index into ReportIndex.reports
    text: str
    words: frozenset[str]
    shared: int  # other causes that print a line this one matches (tools/report_index.py)


@dataclass(frozen=True)
class ReportMatch:
    report: PublicReport
    line: int
    text: str
    quoted: str
    coverage: float
    shared: int

    @property
    def title(self) -> str:
        record = self.report.record
        return f"the public report {self.report.url} ({record['date']}) quotes this line"

    def to_dict(self) -> dict[str, Any]:
        record = self.report.record
        return {"rule": RULE, "severity": "warning", "title": self.title, "line": self.line, "text": self.text,
                "quoted": self.quoted, "coverage": round(self.coverage, 2), "shared": self.shared,
                "url": self.report.url, "date": record["date"], "engine": record["engine"],
                "versions": record["versions"], "gpu": record["gpu"], "class": record["class"],
                "cause": record.get("cause"), "fix": record["fix"], "status": record["status"],
                "rules": list(self.report.rules), "encoded": self.report.encoded_words(), "confirm": CONFIRM}


def normalize(text: str) -> str:
    """A line as words: colour codes, directories, addresses and numbers dropped (an arch's digits are part of
    its word), lower case."""
    text = ANSI.sub("", text)
    text = ARCH_NUMBERS.sub(_arch_word, text)
    text = PATH.sub(r"\g<base>", text)
    text = HEX.sub(" ", text)
    return " ".join(NUMBER.sub(" ", text).lower().split())


def _arch_word(match: Any) -> str:
    digits = "_".join(NUMBER.findall(match.group(2).replace(",", " ").replace(".", " ")))
    return f"{match.group(1).replace(' ', '_')}_{digits}"


def words(text: str) -> frozenset[str]:
    return frozenset(w for w in WORD.findall(normalize(text)) if len(w) > 1)


class ReportIndex:
    """Every quoted line of the ledger, looked up by its words."""

    def __init__(self, records: Sequence[dict[str, Any]], shared: Sequence[Sequence[int]] | None = None,
                 weight: dict[str, float] | None = None) -> None:
        self.reports = [PublicReport(record) for record in records]
        self.lines: list[Quoted] = []
        for index, record in enumerate(records):
            counts = shared[index] if shared is not None else [0] * len(record["quoted"])
            self.lines += [Quoted(len(self.lines) + offset, index, text, words(text), count)
                           for offset, (text, count) in enumerate(zip(record["quoted"], counts, strict=True))]
        self._by_word: dict[str, list[int]] = {}
        for position, quoted in enumerate(self.lines):
            for word in quoted.words:
                self._by_word.setdefault(word, []).append(position)
        self.weight = weight if weight is not None else word_weights([q.words for q in self.lines])
        self._rarest = [sorted(q.words, key=lambda w: (-self.weight.get(w, 0.0), w))[:RAREST] for q in self.lines]

    def matches(self, text: str, skip: int | None = None, least: float = MIN_COVERAGE, rarest: bool = True
                ) -> list[tuple[Quoted, float]]:
        """The quoted lines this line holds, with the share of each one's weight it holds (skip: a report's own;
        `least` and `rarest` lowered, the lines it resembles)."""
        held = words(text)
        tried: set[int] = set()
        out = []
        for word in held:
            for position in self._by_word.get(word, ()):
                if position in tried:
                    continue
                tried.add(position)
                quoted = self.lines[position]
                if quoted.report == skip:
                    continue
                coverage, weight = self._coverage(quoted.words, held)
                if coverage >= least and weight >= MIN_WEIGHT * least / MIN_COVERAGE and \
                        (not rarest or held.issuperset(self._rarest[position])):
                    out.append((quoted, coverage))
        return out

    def _coverage(self, quoted: frozenset[str], held: frozenset[str]) -> tuple[float, float]:
        total = sum(self.weight.get(w, 0.0) for w in quoted)
        found = sum(self.weight.get(w, 0.0) for w in quoted & held)
        return (min(found / total, 1.0) if total else 0.0), found


def report_rules(index: ReportIndex | None = None) -> tuple[LineRule, ...]:
    """One scan rule: lines holding one of the two rarest words of some quoted line, kept as RPT001's candidates
    beside the error and warning lines (a quoted line need not look like an error)."""
    index = index or load_index()
    anchors = sorted({anchor for quoted in index.lines for anchor in _anchors(index, quoted.words)})
    if not anchors:
        return ()
    return (LineRule("reports", r"(?i)\b(?:" + "|".join(anchors) + r")\b", _keep, once=False),)


def _anchors(index: ReportIndex, found: frozenset[str]) -> list[str]:
    """Its two rarest findable words, if rare: a line that matches it holds most of its words, so one of them. A
    line of common words only is an error line the scan keeps anyway."""
    findable = [word for word in found if ANCHOR.match(word) and index.weight.get(word, 0.0) >= ANCHOR_WEIGHT]
    return sorted(findable, key=lambda word: (index.weight.get(word, 0.0), word), reverse=True)[:2]


def _keep(match: Any, line: int, facts: LogFacts) -> None:
    facts.quoted_line(line, match.string[:MAX_LINE])


def word_weights(documents: Sequence[frozenset[str]]) -> dict[str, float]:
    """Each word's inverse document frequency: a word most lines hold says little."""
    frequency: dict[str, int] = {}
    for document in documents:
        for word in document:
            frequency[word] = frequency.get(word, 0) + 1
    total = len(documents) + 1
    return {word: math.log(total / count) for word, count in frequency.items()}


@lru_cache(maxsize=1)
def load_index(path: Path = INDEX) -> ReportIndex:
    if not path.is_file():
        return ReportIndex([])
    data = json.loads(path.read_text(encoding="utf-8"))
    return ReportIndex(data["reports"], data.get("shared"), data.get("weight"))


def match_log(lines: Iterable[tuple[int, str]], engine: str | None, explained: set[str],
              index: ReportIndex | None = None, skip: int | None = None) -> list[ReportMatch]:
    """RPT001 for a log: its best match per report, best first. A report whose rule already explained this log
    is left out (the rule said more); `skip` leaves one report out (the benchmark's leave-one-out)."""
    index = index or load_index()
    best: dict[int, ReportMatch] = {}
    specific: set[int] = set()
    for number, text in list(lines)[:MAX_LINES]:
        for quoted, coverage in index.matches(text, skip):
            report = index.reports[quoted.report]
            if explained and report.named & explained:
                continue
            if not _same_engine(report, engine) and quoted.shared:
                continue
            if quoted.shared <= MAX_SHARED:
                specific.add(quoted.report)
            match = ReportMatch(report, number, text, quoted.text, coverage, quoted.shared)
            if quoted.report not in best or _rank(match, engine) > _rank(best[quoted.report], engine):
                best[quoted.report] = match
    kept = [m for i, m in best.items() if i in specific]
    return sorted(kept, key=lambda m: _rank(m, engine), reverse=True)[:MAX_SHOWN]


def _same_engine(report: PublicReport, engine: str | None, strict: bool = False) -> bool:
    """A report of another serving engine than the log's does not explain it; a library's report may."""
    theirs = set(report.engines)
    if engine is None:
        return not strict
    return engine in theirs or (not strict and theirs <= LIBRARIES)


def _rank(match: ReportMatch, engine: str | None) -> tuple[float, ...]:
    record = match.report.record
    return (match.coverage / (1 + match.shared), float(_same_engine(match.report, engine, strict=True)),
            float(record.get("cause") is not None), float(not record["fix"].startswith("unknown")))
