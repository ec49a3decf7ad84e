"""`vllm serve` flags as one release accepts them (from the wheel data): spellings, aliases, `--no-X`
negations, JSON dot-notation (`--compilation-config.mode 3`), argparse prefix abbreviations, value choices;
and the problems in a user's argv: unknown flag (with the closest valid spelling), value outside the choices,
a flag removed, renamed or not yet added in that release."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from packaging.version import Version

from doctor.engines.spi import closest, suggest
from doctor.engines.vllm import knowledge


@dataclass(frozen=True)
class Resolved:
    name: str  # the canonical (first long) spelling in this release
    entry: dict[str, Any]
    negated: bool = False
    json_key: str | None = None  # --x.key dot notation


class FlagTable:
    def __init__(self, release: str, flags: dict[str, dict[str, Any]]) -> None:
        self.release = release
        self.flags = flags
        self.spelling: dict[str, tuple[str, bool]] = {}
        for name, entry in flags.items():
            self.spelling[name] = (name, False)
            for alias in entry.get("aliases", []):
                self.spelling.setdefault(alias, (name, False))
            if entry.get("boolean_optional"):  # older data has no `negations`: argparse's `--no-X`
                for negation in entry.get("negations", ["--no-" + name[2:]]):
                    self.spelling.setdefault(negation, (name, True))

    def resolve(self, flag: str) -> Resolved | None:
        flag = normalise(flag)
        base, dot, key = flag.partition(".")
        if dot and base in self.spelling and self.flags[self.spelling[base][0]].get("value") == "json":
            return Resolved(self.spelling[base][0], self.flags[self.spelling[base][0]], json_key=key.rstrip("+"))
        if flag in self.spelling:
            name, negated = self.spelling[flag]
            return Resolved(name, self.flags[name], negated)
        return None

    def prefix_matches(self, flag: str) -> list[str]:
        """argparse accepts a unique prefix of a long option (vLLM keeps allow_abbrev on)."""
        flag = normalise(flag)
        if not flag.startswith("--") or len(flag) < 4:
            return []
        return sorted({self.spelling[s][0] for s in self.spelling if s.startswith(flag)})

    def takes_value(self, flag: str) -> bool:
        resolved = self.resolve(flag)
        return resolved is not None and not resolved.negated and resolved.entry.get("takes_value") is True

    def is_switch(self, flag: str) -> bool:
        resolved = self.resolve(flag)
        return resolved is not None and (resolved.negated or resolved.entry.get("takes_value") is False)

    def closest(self, flag: str) -> str | None:
        return closest(normalise(flag), self.spelling)


def normalise(flag: str) -> str:
    """vLLM's parser turns `_` into `-` in the name part (before any `.`) of a `--` flag."""
    if not flag.startswith("--"):
        return flag
    base, dot, rest = flag.partition(".")
    return base.replace("_", "-") + dot + rest


@cache
def table(release: str) -> FlagTable:
    return FlagTable(release, knowledge.facts(release)["flags"])


def table_for(version: Version) -> FlagTable:
    return table(knowledge.known_release(version))


def valid_values(entry: dict[str, Any]) -> list[str] | None:
    """What a value must be one of, when the release checks it: argparse choices or enum member names."""
    if entry.get("choices"):
        return [str(c) for c in entry["choices"]]
    if entry.get("enum_values"):  # an IntEnum (OptimizationLevel): pydantic takes the value; names kept as before
        return [str(v) for v in entry["enum_values"]] + list(entry.get("enum_members") or [])
    if entry.get("enum_members"):
        return list(entry["enum_members"])
    return None


def accepted_values(release: str, flag: str) -> list[str] | None:
    """The values `flag` takes in `release`: its checked choices, else the values its help suggests (0.33's
    `--kv-cache-dtype` is a typed config field whose Literal the wheel data lists as `suggested`); None when any."""
    resolved = table(release).resolve(flag)
    if resolved is None:
        return None
    return valid_values(resolved.entry) or resolved.entry.get("suggested")


def value_ok(entry: dict[str, Any], value: str) -> bool:
    allowed = valid_values(entry)
    if allowed is None:
        return True
    if entry.get("enum_values") and value in {str(v) for v in entry["enum_values"]}:
        return True
    if entry.get("enum_members") or entry.get("case_insensitive"):
        wanted = value.upper().replace("-", "_")
        return wanted in {a.upper().replace("-", "_") for a in allowed} or value == "None"
    return value in allowed


def expand_dash_o(argv: list[str], rule: dict[str, Any] | None) -> list[str]:
    """`-O3`, `-O=3`, `-O 3` (and in 0.12 `-O.key`) as the release's parse_args rewrites them before argparse
    (flag_semantics.dash_o, read from the wheel): `--optimization-level 3` from 0.12, `-O.level=3` before."""
    if not rule:
        return argv
    attached, out = rule["attached"], []
    for i, arg in enumerate(argv):
        if arg.startswith("-O") and arg != "-O" and not (rule["attached_skips_dot"] and arg[2] == "."):
            level = arg[3:] if arg[2] == "=" else arg[2:]
            out += [attached, level] if attached.startswith("--") else [f"{attached}={level}"]
        elif arg == "-O" and i + 1 < len(argv) and argv[i + 1] in rule["separate_levels"]:
            out.append(attached)
        elif rule.get("dotted_to") and arg.startswith("-O."):
            out.append(rule["dotted_to"] + arg[2:])
        else:
            out.append(arg)
    return out


def option_like(token: str) -> bool:
    """What argparse reads as an option, never as the value of the flag before it: `-x`, `--x`, not a negative
    number, not a word with a space in it (argparse's own test in `_parse_optional`)."""
    return token.startswith("-") and token != "-" and " " not in token \
        and not token.lstrip("-").replace(".", "").isdigit()


def argparse_pairs(argv: list[str], is_switch: Callable[[str], bool]) -> list[tuple[str, str | None]]:
    """(flag, value) as argparse pairs them: `--a=1`; a switch alone; any other flag takes the next word
    unless that word is option-like (then argparse says the flag "expected one argument")."""
    pairs: list[tuple[str, str | None]] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        flag, eq, inline = token.partition("=")
        if eq and option_like(flag):
            pairs.append((flag, inline))
        elif not option_like(token) or is_switch(token) or i + 1 == len(argv) or option_like(argv[i + 1]):
            pairs.append((token, None))
        else:
            pairs.append((token, argv[i + 1]))
            i += 1
        i += 1
    return pairs


def check_flags(argv: list[str], version: Version) -> list[str]:
    """One sentence per problem in `argv` (the flags after `vllm serve MODEL`) for this vLLM version."""
    flags = table_for(version)
    problems = []
    semantics = knowledge.facts(flags.release).get("flag_semantics", {})
    argv = expand_dash_o(argv, semantics.get("dash_o"))
    pairs = argparse_pairs(argv, flags.is_switch)
    for flag, value in pairs:
        if not flag.startswith("-"):
            continue
        problem = flag_problem(flags, flag, value, version)
        if problem:
            problems.append(problem)
    return problems


def flag_problem(flags: FlagTable, flag: str, value: str | None, version: Version) -> str | None:
    resolved = flags.resolve(flag)
    label = f"vLLM {version}"
    if resolved is None:
        prefixed = flags.prefix_matches(flag)
        if len(prefixed) == 1:
            return None  # argparse expands it; rewrite_flags spells it out
        if len(prefixed) > 1:
            return f"{flag} is ambiguous in {label} (matches {', '.join(prefixed[:4])})"
        return unknown_flag(flags, flag, label)
    if resolved.negated or resolved.json_key is not None or value is None:
        if value is None and resolved.entry.get("takes_value") is True and not resolved.negated:
            return f"{flag} needs a value in {label}"
        return None
    if not value_ok(resolved.entry, value):
        allowed = valid_values(resolved.entry) or []
        same = suggest(flag, value, allowed)
        hint = f"; did you mean {same}?" if same else ""
        return f"{flag} {value} is not a choice in {label} (choices: {', '.join(allowed)}){hint}"
    return None


def unknown_flag(flags: FlagTable, flag: str, label: str) -> str:
    history = knowledge.flag_history(normalise(flag))
    where = ""
    if history:
        spans = history["releases"]
        first, last = spans[0][0], spans[-1][1]
        if Version(flags.release) < Version(first):
            where = f" (added in {first})"
        elif Version(flags.release) > Version(last):
            later = next_release(last)
            where = f" (removed in {later}; last in {last})" if later else f" (last in {last})"
        else:
            where = f" (present in {knowledge.describe_spans(spans)})"
    renamed = renamed_to(flags, normalise(flag))
    hint = f"; use {renamed}" if renamed else ""
    if not hint:
        close = flags.closest(flag)
        hint = f"; did you mean {close}?" if close else ""
    return f"{flag} does not exist in {label}{where}{hint}"


def next_release(release: str) -> str | None:
    known = knowledge.releases()
    i = known.index(release)
    return known[i + 1] if i + 1 < len(known) else None


def renamed_to(flags: FlagTable, flag: str) -> str | None:
    """A spelling some release lists as an alias of a flag this release has (a rename)."""
    target = knowledge.index()["alias_of"].get(flag)
    return target if target in flags.flags else None
