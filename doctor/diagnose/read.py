"""One pass over a log: every parser's patterns and every rule's signatures in one RE2 scan per block, then, on
the few lines that matched, an RE2 set says which parsers and signatures each line concerns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import re2

from doctor.diagnose.formats import LineRule, all_rules
from doctor.diagnose.logfacts import LogFacts
from doctor.diagnose.signatures import Signature, options
from doctor.diagnose.stream import ScanStats, open_log, scan

HITS_PER_SIGNATURE = 3


@dataclass(frozen=True)
class SignatureHit:
    signature: Signature
    line: int
    text: str
    groups: dict[str, str]


@dataclass
class LogReading:
    """What one pass over the log found."""

    name: str
    facts: LogFacts
    hits: list[SignatureHit] = field(default_factory=list)
    contexts: set[int] = field(default_factory=set)  # signatures (by position) whose context line was seen
    stats: ScanStats = field(default_factory=ScanStats)


class Reader:
    """Compiled once per knowledge base: the line rules of every format, the signatures, their contexts."""

    def __init__(self, signatures: Sequence[Signature], rules: Sequence[LineRule] | None = None) -> None:
        self.rules = tuple(rules if rules is not None else all_rules())
        self.signatures = tuple(signatures)
        patterns = [r.pattern for r in self.rules] + [s.regex.pattern for s in self.signatures]
        self._contexts = [(i, s.context) for i, s in enumerate(self.signatures) if s.context is not None]
        patterns += [c.pattern for _, c in self._contexts]
        self._set = re2.Set.SearchSet(options())
        for pattern in patterns:
            self._set.Add(pattern)
        self._set.Compile()
        combined = "(?m)" + "|".join(f"(?:{p})" for p in patterns)
        self._trigger = re2.compile(combined.encode("utf-8"), options())

    def read(self, stream: BinaryIO, name: str) -> LogReading:
        reading = LogReading(name=name, facts=LogFacts())
        counts: dict[int, int] = {}
        n_rules, n_sigs = len(self.rules), len(self.signatures)

        def on_line(number: int, text: str) -> None:
            for index in self._set.Match(text) or ():
                if index < n_rules:
                    rule = self.rules[index]
                    match = rule.regex.search(text)
                    if match is not None:
                        rule.handler(match, number, reading.facts)
                elif index < n_rules + n_sigs:
                    self._signature(index - n_rules, number, text, reading, counts)
                else:
                    reading.contexts.add(self._contexts[index - n_rules - n_sigs][0])

        reading.stats = scan(open_log(stream, name), self._trigger, on_line)
        return reading

    def _signature(self, index: int, number: int, text: str, reading: LogReading, counts: dict[int, int]) -> None:
        seen = counts.get(index, 0)
        counts[index] = seen + 1
        if seen < HITS_PER_SIGNATURE:
            signature = self.signatures[index]
            reading.hits.append(SignatureHit(signature, number, text, signature.groups(text)))


def reader_for(rules: list[Any]) -> Reader:
    from doctor.diagnose.signatures import compile_signatures

    return Reader(compile_signatures(rules))
