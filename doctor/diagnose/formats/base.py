"""What every format parser is made of: a LineRule is a pattern (RE2: it finds the lines in the scan and reads their
groups on one bounded line) and a handler that records what the line states."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import re2

from doctor.diagnose.logfacts import LogFacts

Handler = Callable[[Any, int, LogFacts], None]  # (an RE2 match on the line, line number, what the log states)


@dataclass(frozen=True)
class LineRule:
    format: str
    pattern: str
    handler: Handler
    once: bool = True  # the first match says all (a version, a hint): later lines need not stop the scan

    @property
    def regex(self) -> Any:
        return _compiled(self.pattern)


_CACHE: dict[str, Any] = {}


def _compiled(pattern: str) -> Any:
    """RE2 here too: a hostile line of 64k characters costs linear time whatever the pattern."""
    if pattern not in _CACHE:
        _CACHE[pattern] = re2.compile(pattern)
    return _CACHE[pattern]


VERSION = r"(?P<version>\d+\.\d+(?:\.\d+)?(?:[\w.+-]*\w)?)"


def hint(fmt: str, engine: str | None = None) -> Handler:
    """A handler that only records that the format (and its engine) showed up."""

    def handle(_m: Any, line: int, facts: LogFacts) -> None:
        facts.saw(fmt, line)
        if engine:
            facts.hint_engine(engine, line)

    return handle


def version_of(package: str, fmt: str, engine: str | None = None) -> Handler:
    def handle(m: Any, line: int, facts: LogFacts) -> None:
        facts.saw(fmt, line)
        if engine:
            facts.hint_engine(engine, line)
        facts.version(package, m.group("version"), line)

    return handle
