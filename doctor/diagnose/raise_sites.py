"""SRC001: where the engine's own source raises a logged error no hand-written signature explains (issue 26).

The tables (doctor/raise_site_table.py, written by tools/raise_sites.py from each release's distribution) list
every raise site of each engine read (vLLM, FlashInfer, ...): file, function, exception type, message template
and the guard it is raised under, with the releases that exact site exists in. A log line (an exception line, an
ERROR/WARNING line) that matches a template names that site; for the log's release, the first later release
where the guard changes or the message is gone is where to look for the fix. Derived, so a warning, never an
error.

Matching stays cheap on any log: only the few error and warning lines the scan kept are read, each word of such a
line looks up the templates whose longest literal word it is, reading only that word's shard of each table, and
only templates whose literal pieces are all in the line are tried with RE2. No table is opened unless such a
line exists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import re2

from doctor.raise_site_table import (
    MIN_LITERAL,
    WILD,
    TableReader,
    best_line,
    engines,
    literal_chars,
    open_table,
    parse_ranges,
    shard_of,
)

RULE = "SRC001"
MAX_SHOWN = 3  # sites reported per log
MAX_LINES = 48  # log lines tried
MIN_COVERAGE = 0.4  # the template's literal text is at least this share of the line's message: not a phrase in it
MAX_OTHERS = 3  # a line that more other files raise too is too generic to name one site
WORD = re2.compile(r"\w{4,}")
FRAME = re2.compile(r"File \"|Traceback \(|[\^~]{3}|The above exception|During handling of|return |raise ")
QUIET = re2.compile(r"(?:^|[\s(\]|:])(?:INFO|DEBUG)\b")
LEVEL = re2.compile(r"(?:^|[\s(\]|:])(ERROR|WARNING)\b")
FILE_HINT = re2.compile(r"\[([\w.-]+\.py)(?::\d+)?\]")  # vLLM's log prefix names the file that logged the line
EXC_TYPE = re2.compile(r"(?:^|[\s:'\"(\[])(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:Error|Exception|Exit))\s*:\s*")
LEADING = re2.compile(r"^(?:(?:ERROR|WARNING|INFO)\b:?\s*)?(?:\[[\w.-]+\.py:\d+\]\s*)?")
# the Python exception each C++ check or throw reaches Python as (torch's c10 errors, TVM-FFI's checks)
NATIVE_TYPES = {"TORCH_CHECK": "RuntimeError", "STD_TORCH_CHECK": "RuntimeError",
                "TORCH_INTERNAL_ASSERT": "RuntimeError", "TORCH_CHECK_NOT_IMPLEMENTED": "NotImplementedError",
                "TORCH_CHECK_VALUE": "ValueError", "TORCH_CHECK_TYPE": "TypeError", "TORCH_CHECK_INDEX": "IndexError",
                "runtime_error": "RuntimeError", "invalid_argument": "ValueError", "TVM_FFI_ICHECK": "InternalError"}
CONFIRM = ("the guard names the cause; the release where it changes is where to look for the fix; confirm by "
           "reading the guard at the log's release (the file and function above) against the deployment, and the "
           "engine's changelog at that release")


@dataclass(frozen=True)
class Site:
    engine: str
    record: dict[str, Any]
    releases: tuple[str, ...]  # the engine's releases this exact site exists in, oldest first
    order: tuple[str, ...]  # every release its table read, oldest first

    @property
    def template(self) -> str:
        return self.record["template"]


@dataclass(frozen=True)
class SiteMatch:
    site: Site
    line: int
    text: str
    release: str | None  # the log's release of the site's engine, where it states one
    literal: int  # literal characters of the template the line matched
    transition: str  # what later releases do with the site
    ambiguous: tuple[str, ...] = ()  # other sites that match the line as well
    carried: SiteMatch | None = None  # the site of a message the line carries in a placeholder (`... failed: {e}`)

    @property
    def title(self) -> str:
        record = self.site.record
        where = f"{record['file']}:{record.get('line', '?')}"
        return (f"{self.site.engine} {_verb(record)} this in {where}" +
                (f" ({record['function']})" if record.get("function") else ""))

    def to_dict(self) -> dict[str, Any]:
        record = self.site.record
        return {"rule": RULE, "severity": "warning", "title": self.title, "line": self.line, "text": self.text,
                "engine": self.site.engine, "file": record["file"], "source_line": record.get("line"),
                "function": record.get("function"), "kind": record["kind"], "template": record["template"],
                "guard": record.get("guard"), "releases": _span(self.site),
                "log_release": self.release, "transition": self.transition, "ambiguous": list(self.ambiguous),
                "carries": self.carried.to_dict() if self.carried else None, "confirm": CONFIRM}


class Index:
    """One engine's sites by their index word, each site's RE2 compiled on first use. From a table file only the
    shards of the words asked for are read; `table` holds every site (the tests', a generator's)."""

    def __init__(self, engine: str, table: Mapping[str, Any], reader: TableReader | None = None) -> None:
        self.engine = engine
        self.order: list[str] = list(table.get("releases", []))
        self.reader = reader
        self.by_word: dict[str, list[dict[str, Any]]] = {}
        for record in table.get("sites", []):
            self.by_word.setdefault(record["word"], []).append(record)
        self._loaded: set[int] = set()
        self._patterns: dict[str, Any] = {}
        self._pieces: dict[str, list[str]] = {}

    def records(self, word: str) -> list[dict[str, Any]]:
        if self.reader is not None and shard_of(word) not in self._loaded:
            self._loaded.add(shard_of(word))
            self.by_word.update(self.reader.shard(shard_of(word)))
        return self.by_word.get(word, [])

    def same_template(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        return [r for r in self.records(record["word"]) if r["template"] == record["template"]]

    def same_function(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """The other sites of the record's file, function and kind (its `sib` words name where they are)."""
        key = (record["file"], record.get("function"), record["kind"])
        pool = [r for word in (record["word"], *record.get("sib", ())) for r in self.records(word)]
        return [r for r in pool if r is not record and (r["file"], r.get("function"), r["kind"]) == key]

    def site(self, record: dict[str, Any]) -> Site:
        return Site(self.engine, record, tuple(self.order[i] for i in parse_ranges(record["releases"])
                                               if i < len(self.order)), tuple(self.order))

    def candidates(self, text: str) -> Iterable[dict[str, Any]]:
        seen: set[int] = set()
        for word in set(WORD.findall(text)):
            for record in self.records(word):
                # every literal piece is in the line (a substring test) before RE2 checks their order
                if id(record) not in seen and all(p in text for p in self.pieces(record["template"])) \
                        and self.pattern(record["template"]).search(text):
                    seen.add(id(record))
                    yield record

    def pieces(self, template: str) -> list[str]:
        if template not in self._pieces:
            self._pieces[template] = [p for p in (p.strip() for p in best_line(template).split(WILD)) if p]
        return self._pieces[template]

    def pattern(self, template: str) -> Any:
        if template not in self._patterns:
            self._patterns[template] = re2.compile("(.*?)".join(re2.escape(p) for p in self.pieces(template)))
        return self._patterns[template]


@dataclass(frozen=True)
class LogLine:
    """One log line as a raise site would have printed it."""

    level: str | None  # ERROR | WARNING, where a logging prefix says so
    file: str | None  # the file the logging prefix names
    exc_type: str | None  # the exception type the message follows
    message: str

    @classmethod
    def parse(cls, text: str) -> LogLine:
        from doctor.diagnose.formats.traceback import strip_prefix

        level, hint = LEVEL.search(text), FILE_HINT.search(text)
        stripped = strip_prefix(text)
        typed = EXC_TYPE.search(stripped)
        message = stripped[typed.end():] if typed else stripped[LEADING.match(stripped).end():]
        return cls(level.group(1) if level else None, hint.group(1) if hint else None,
                   typed.group(1) if typed else None, message.strip())


def _native(kind: str) -> str | None:
    return NATIVE_TYPES.get(kind) or (NATIVE_TYPES["TVM_FFI_ICHECK"] if kind.startswith("TVM_FFI_ICHECK") else None)


def compatible(line: LogLine, record: dict[str, Any]) -> bool:
    """Could this site have printed the line? A logger call prints a line of its own file with no exception type;
    a raise prints its exception type (a C++ check the type it reaches Python as), never as a bare WARNING."""
    kind = record["kind"]
    if literal_chars(record["template"]) < MIN_COVERAGE * len(line.message):
        return False
    if kind.startswith("logger."):
        return line.exc_type is None and (line.file is None or record["file"].rsplit("/", 1)[-1] == line.file)
    expected = _native(kind) if kind.isupper() or kind in NATIVE_TYPES else kind
    if line.exc_type is not None:
        return expected is None or expected == line.exc_type
    return line.level != "WARNING"


@lru_cache(maxsize=4)
def indexes() -> tuple[Index, ...]:
    return tuple(Index(engine, reader.meta, reader) for engine in engines() if (reader := open_table(engine)))


def match_lines(lines: Iterable[tuple[int, str]], releases: Mapping[str, str], engine: str | None,
                tables: Iterable[Index] | None = None) -> list[SiteMatch]:
    """The sites the lines match, the best per line (at most MAX_SHOWN lines). `releases`: engine -> the log's
    release of it; `engine`: the engine that wrote the log."""
    found: list[SiteMatch] = []
    shown: set[tuple[str, str]] = set()
    pool = tuple(indexes() if tables is None else tables)
    for number, text in list(lines)[:MAX_LINES]:
        match = match_line(number, text, LogLine.parse(text), releases, engine, pool)
        if match is None or (match.site.engine, match.site.template) in shown:
            continue
        shown.add((match.site.engine, match.site.template))
        found.append(match)
        if len(found) >= MAX_SHOWN:
            break
    return found


def match_line(number: int, text: str, line: LogLine, releases: Mapping[str, str], engine: str | None,
               pool: tuple[Index, ...], nested: bool = False) -> SiteMatch | None:
    hits = [(index, record) for index in pool for record in index.candidates(line.message or text)
            if _possible(index, record, releases.get(index.engine)) and compatible(line, record)]
    if not hits:
        return None
    best = _best(hits, releases, engine)
    others = tuple(sorted({f"{i.engine} {r['file']}" for i, r in hits if r is not best.site.record}
                          - {f"{best.site.engine} {best.site.record['file']}"}))
    if len(others) > MAX_OTHERS:
        return None
    carried = None if nested else _carried(number, line.message or text, best.site, releases, engine, pool)
    return SiteMatch(best.site, number, text, best.release, best.literal, best.transition, others, carried)


def _carried(number: int, text: str, site: Site, releases: Mapping[str, str], engine: str | None,
             pool: tuple[Index, ...]) -> SiteMatch | None:
    """A message a placeholder of the site's template holds (a caught exception logged or re-raised with its text):
    the site that raises that one, tried on the text from each placeholder to the end of the line."""
    pattern = next(i for i in pool if i.engine == site.engine).pattern(site.template)
    match = pattern.search(text)
    for group in range(1, (pattern.groups if match else 0) + 1):
        inner = text[match.start(group):].strip()
        if len(inner) >= MIN_LITERAL:
            found = match_line(number, inner, LogLine(None, None, None, inner), releases, engine, pool, nested=True)
            if found is not None and found.site.template != site.template:
                return found
    return None


def _possible(index: Index, record: dict[str, Any], release: str | None) -> bool:
    """A site could have raised the line unless the log states a release the table read that lacks the site."""
    if release is None or release not in index.order:
        return True
    return index.order.index(release) in parse_ranges(record["releases"])


@dataclass(frozen=True)
class _Scored:
    site: Site
    release: str | None
    literal: int
    transition: str


def _best(hits: list[tuple[Index, dict[str, Any]]], releases: Mapping[str, str], engine: str | None) -> _Scored:
    """The log's engine first, then a site that exists at the log's release, then the longest literal match,
    then the newest site."""
    scored = []
    for index, record in hits:
        site = index.site(record)
        release = releases.get(index.engine)
        at_release = release is not None and release in site.releases
        newest = index.order.index(site.releases[-1]) if site.releases else -1
        rank = (index.engine == engine, at_release, literal_chars(record["template"]), newest)
        scored.append((rank, _Scored(site, release, literal_chars(record["template"]),
                                     transition(index, site, release))))
    return max(scored, key=lambda item: item[0])[1]


def transition(index: Index, site: Site, release: str | None) -> str:
    """From the log's release (or, unstated, from the site's last release): the first later release where the
    site's guard changes (quoted) or its message is gone, else that it is unchanged through the newest release."""
    order = index.order
    if not site.releases:
        return "no release holds it"
    if release is not None and release not in order:
        return (f"the log's {index.engine} {release} is not among the releases read "
                f"({order[0]}-{order[-1]}); the site exists in {_span(site)}")
    start = order.index(release) if release is not None else order.index(site.releases[-1])
    later = [v for v in order[start + 1:] if v not in site.releases]
    if not later:
        return f"unchanged through {index.engine} {order[-1]}, the newest release read"
    changed = later[0]
    same = [r for r in index.same_template(site.record)
            if r is not site.record and order.index(changed) in parse_ranges(r["releases"])]
    here = [r for r in same if r["file"] == site.record["file"]]
    if here:
        guard = here[0].get("guard")
        return (f"from {index.engine} {changed} the guard changes to `{guard}`" if guard != site.record.get("guard")
                else f"from {index.engine} {changed} it is raised from {here[0].get('function') or 'another place'}")
    if same:
        return f"from {index.engine} {changed} the message is raised from {same[0]['file']} instead"
    position = order.index(changed)
    reworded = _reworded(index, site, position, new=True)
    kept = [] if reworded else _reworded(index, site, position, new=False)
    said = " or ".join(f"`{r['template']}`" + (f" under `{r['guard']}`" if r.get("guard") else "")
                       for r in reworded or kept)
    if reworded:
        return f"from {index.engine} {changed} its function {_verb(site.record)} {said} instead (reworded)"
    if kept:
        return (f"from {index.engine} {changed} the message is gone; its function still {_verb(site.record)} "
                f"{said}")
    return f"from {index.engine} {changed} the message is gone"


def _verb(record: dict[str, Any]) -> str:
    return "logs" if record["kind"].startswith("logger.") else "raises"


def _reworded(index: Index, site: Site, position: int, new: bool) -> list[dict[str, Any]]:
    """The sites (two at most) of the same file, function and kind at that release, where the message itself
    goes, whose messages are most like this one (half its words or more); `new`: only those that appear there
    (a rewording), else those that were there before too (a sibling check that stays)."""
    record = site.record
    words = set(WORD.findall(record["template"]))
    if not record.get("function") or not words:
        return []
    scored = [(len(words & set(WORD.findall(other["template"]))) / len(words), other)
              for other in index.same_function(record)
              if position in (held := parse_ranges(other["releases"])) and (position - 1 not in held) == new]
    top = max((score for score, _ in scored), default=0.0)
    return [other for score, other in scored if score == top and score >= 0.5][:2]


def _span(site: Site) -> str:
    """`0.10.0-0.11.2, 0.13.0`: the site's releases as runs over every release its table read."""
    if not site.releases:
        return "none"
    positions = [site.order.index(v) for v in site.releases if v in site.order]
    runs: list[list[int]] = []
    for p in positions:
        if runs and p == runs[-1][-1] + 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return ", ".join(site.order[r[0]] if len(r) == 1 else f"{site.order[r[0]]}-{site.order[r[-1]]}" for r in runs)


def log_releases(versions: Mapping[str, Any], stated: Mapping[str, str]) -> dict[str, str]:
    """engine -> the release the log (or --engine) states: the log's own line first."""
    out: dict[str, str] = {}
    for engine, row in engines().items():
        for key in (engine, row["project"]):
            value = versions.get(key)
            value = getattr(value, "value", value) or stated.get(key)
            if value:
                out[engine] = str(value).split("+")[0]
                break
    return out


def candidate_lines(errors: Iterable[tuple[int, str]], logged: Iterable[tuple[int, str]],
                    explained: set[int], last: tuple[int, str] | None = None) -> list[tuple[int, str]]:
    """The error and warning lines no signature explained, and the log's last line unless it is an INFO or DEBUG
    line (a pasted message, a traceback's end), in log order, each once; a traceback's frame, caret or header
    line (vLLM prints its tracebacks at ERROR) and a message too short to match any template are not."""
    seen: dict[int, str] = {}
    messages: set[str] = set()  # a repeated message (a restarted worker, each rank) is tried once
    tail = [last] if last is not None and not QUIET.search(last[1]) else []
    for number, text in sorted((*errors, *logged, *tail), key=lambda item: item[0]):  # stable: errors first
        message = LogLine.parse(text).message
        if number not in explained and number not in seen and message not in messages and _message_like(message):
            seen[number] = text
            messages.add(message)
    return sorted(seen.items())


def _message_like(message: str) -> bool:
    return len(message) >= MIN_LITERAL and not FRAME.match(message)


def release_words(match: SiteMatch) -> str:
    record = match.site.record
    guard = record.get("guard")
    lines = [f"{match.title}: {record['kind']}" + (f" under `{guard}`" if guard else " (no guard: always)"),
             f"  that exact site exists in {match.site.engine} {_span(match.site)}; "
             f"{match.transition}"]
    if match.ambiguous:
        lines.append(f"  ambiguous: the line also matches {', '.join(match.ambiguous[:4])}")
    if match.carried is not None:
        inner = release_words(match.carried).split("\n")
        lines += [f"  the message it carries: {inner[0].replace(' this in ', ' it in ', 1)}",
                  *(f"  {line}" for line in inner[1:])]
    return "\n".join(lines)


