"""One pass over a log: every parser's patterns and every rule's signatures in one RE2 scan per block, then, on
the few lines that matched, an RE2 set says which parsers and signatures each line concerns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import re2

from doctor.diagnose.formats import LineRule, all_rules
from doctor.diagnose.logfacts import LogFacts
from doctor.diagnose.signatures import Signature, options
from doctor.diagnose.stream import ScanStats, open_log, scan

HITS_PER_SIGNATURE = 3
LINES_PER_RULE = 5000  # a rule that reads many lines (GPUs, errors) stops after this many: a bound for hostile logs
MAX_VETO_SHOWN = 160  # characters of the line that shows another library printed the error
REBUILD_AFTER = 64  # idle hit lines before the scan pattern is rebuilt without the rules already done


@dataclass(frozen=True)
class SignatureHit:
    signature: Signature
    line: int
    text: str
    groups: dict[str, str]


def first_captures(hits: Sequence[SignatureHit], groups: Mapping[str, str]) -> dict[str, str]:
    """The first value each named capture group (`groups`: group → the key it is reported under) took over the
    log's signature hits."""
    found: dict[str, str] = {}
    for hit in hits:
        for group, key in groups.items():
            if group in hit.groups:
                found.setdefault(key, hit.groups[group])
    return found


@dataclass
class LogReading:
    """What one pass over the log found."""

    name: str
    facts: LogFacts
    hits: list[SignatureHit] = field(default_factory=list)
    contexts: set[int] = field(default_factory=set)  # signatures (by position) whose context line was seen
    vetoes: dict[int, tuple[int, str]] = field(default_factory=dict)  # signature position → its `unless` line
    stats: ScanStats = field(default_factory=ScanStats)


class Reader:
    """Compiled once per knowledge base: the line rules of every format, the signatures, their contexts."""

    def __init__(self, signatures: Sequence[Signature], rules: Sequence[LineRule] | None = None) -> None:
        self.rules = tuple(rules if rules is not None else all_rules())
        self.signatures = tuple(signatures)
        patterns = [r.pattern for r in self.rules] + [s.regex.pattern for s in self.signatures]
        self._contexts = [(i, s.context) for i, s in enumerate(self.signatures) if s.context is not None]
        self._unless = [(i, s.unless) for i, s in enumerate(self.signatures) if s.unless is not None]
        patterns += [c.pattern for _, c in self._contexts] + [u.pattern for _, u in self._unless]
        self._set = re2.Set.SearchSet(options())
        for pattern in patterns:
            self._set.Add(pattern)
        self._set.Compile()
        self._patterns = patterns
        # lines each pattern is read on: a version once, GPUs and errors up to a bound, a signature a few times
        self._limits = ([1 if r.once else LINES_PER_RULE for r in self.rules] +
                        [HITS_PER_SIGNATURE] * len(self.signatures) +
                        [1] * (len(self._contexts) + len(self._unless)))
        self._first_trigger = _trigger(patterns)

    def read(self, stream: BinaryIO, name: str) -> LogReading:
        reading = LogReading(name=name, facts=LogFacts())
        counts: dict[int, int] = {}
        n_rules, n_sigs, n_contexts = len(self.rules), len(self.signatures), len(self._contexts)
        done: set[int] = set()  # once-rules that have fired: their lines no longer stop the scan
        trigger = [self._first_trigger]
        idle = [0, 0]  # lines that matched only rules already done; done rules when the trigger was built

        def on_line(number: int, text: str) -> None:
            useful = False
            for index in self._set.Match(text) or ():
                if index in done:
                    continue
                useful = True
                counts[index] = counts.get(index, 0) + 1
                if index < n_rules:
                    rule = self.rules[index]
                    match = rule.regex.search(text)
                    if match is not None:
                        rule.handler(match, number, reading.facts)
                elif index < n_rules + n_sigs:
                    signature = self.signatures[index - n_rules]
                    reading.hits.append(SignatureHit(signature, number, text, signature.groups(text)))
                elif index < n_rules + n_sigs + n_contexts:
                    reading.contexts.add(self._contexts[index - n_rules - n_sigs][0])
                else:
                    position = self._unless[index - n_rules - n_sigs - n_contexts][0]
                    reading.vetoes.setdefault(position, (number, text[:MAX_VETO_SHOWN]))
                if counts[index] >= self._limits[index]:
                    done.add(index)
            idle[0] += not useful
            if idle[0] >= REBUILD_AFTER and len(done) > idle[1]:  # a few ms a rebuild: only when lines repeat
                trigger[0] = _trigger([p for i, p in enumerate(self._patterns) if i not in done])
                idle[:] = [0, len(done)]

        reading.stats = scan(open_log(stream, name), lambda: trigger[0], on_line)
        return reading


def _trigger(patterns: list[str]) -> Any:
    """One RE2 over bytes that finds any line any pattern matches."""
    return re2.compile(("(?m)" + "|".join(f"(?:{p})" for p in patterns)).encode("utf-8"), options())


def reader_for() -> Reader:
    from doctor.diagnose.reports import report_rules
    from doctor.diagnose.signatures import compile_signatures, rule_signatures

    return Reader(compile_signatures(rule_signatures()), (*all_rules(), *report_rules()))
