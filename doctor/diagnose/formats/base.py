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
        return compiled(self.pattern)


_CACHE: dict[str, Any] = {}


def compiled(pattern: str) -> Any:
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


def scalar(text: str) -> object:
    if text in ("True", "False"):
        return text == "True"
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def args_to_argv(values: dict[str, object], skip: tuple[str, ...] = ()) -> list[str]:
    argv: list[str] = []
    for key, value in values.items():
        if key in skip or value is None:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif value is False:
            continue
        elif isinstance(value, list | tuple):
            argv += [flag, *[str(v) for v in value]] if value else []
        elif isinstance(value, dict):
            argv += [flag, repr(value).replace("'", '"')]
        else:
            argv += [flag, str(value)]
    return argv
