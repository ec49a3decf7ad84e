"""A declarative launch-flag table per release: what an engine's CLI accepts at each version, which flags take
no value, which values a flag allows, and which canonical `Launch.values` key a flag sets (the planner and
the rules read those keys; docs/PLUGINS.md lists them).

An engine declares one `FlagTable`; `Engine` then parses, checks and tokenizes launch flags from it, so a
plug-in never needs the doctor's private argv helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from packaging.version import InvalidVersion, Version

from doctor.errors import UsageError
from doctor.launch import Launch, closest, flag_pairs, normal_flag


@dataclass(frozen=True)
class Flag:
    """One flag of one release. `key` names the canonical `Launch.values` entry it sets (None: kept only in
    `Launch.args`); `kind` converts the text (int, float or str); `values` maps a given text to the canonical
    value (LMDeploy's `--quant-policy 8` → kv_cache_dtype `int8`; a text it lacks leaves the key unset);
    `choices` are the texts the CLI accepts; `many`: it takes one or more values (argparse nargs="+")."""

    name: str
    key: str | None = None
    switch: bool = False
    kind: Callable[[str], object] = str
    choices: tuple[str, ...] = ()
    values: Mapping[str, object] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    many: bool = False


@dataclass(frozen=True)
class FlagSet:
    """The flags one release accepts, by every spelling."""

    release: str
    flags: tuple[Flag, ...]
    abbreviations: bool = True

    @cached_property
    def by_spelling(self) -> dict[str, Flag]:
        return {normal_flag(s): f for f in self.flags for s in (f.name, *f.aliases)}

    def get(self, flag: str) -> Flag | None:
        """The flag by any spelling, or by a unique prefix of a long one where the CLI takes those (argparse's
        allow_abbrev, on by default)."""
        flag = normal_flag(flag)
        found = self.by_spelling.get(flag)
        if found is None and self.abbreviations and flag.startswith("--") and len(flag) > 2:
            matches = {f.name: f for s, f in self.by_spelling.items() if s.startswith(flag)}
            found = next(iter(matches.values())) if len(matches) == 1 else None
        return found

    def is_switch(self, flag: str) -> bool:
        found = self.get(flag)
        return found is not None and found.switch

    def takes_value(self, flag: str) -> bool:
        found = self.get(flag)
        return found is not None and not found.switch

    def pairs(self, argv: Sequence[str]) -> list[tuple[str, str | None]]:
        return flag_pairs(list(argv), is_switch=self.is_switch, takes_value=self.takes_value)


@dataclass(frozen=True)
class FlagTable:
    """`releases`: release → the flags that release accepts (each release a full list; `FlagTable.build`
    derives later releases from earlier ones). A version uses the newest release at or below it, else the
    oldest. `positional`: how many bare words the CLI takes besides flag values (0: the model is not among the
    flags checked)."""

    releases: Mapping[str, tuple[Flag, ...]]
    positional: int = 0
    abbreviations: bool = True  # argparse's allow_abbrev: a unique prefix of a long flag is that flag

    @staticmethod
    def build(base: str, flags: Iterable[Flag],
              changes: Mapping[str, tuple[Iterable[Flag], Iterable[str]]] | None = None,
              positional: int = 0) -> FlagTable:
        """One release's flags, then per later release (added flags, removed flag names), oldest first."""
        current = {f.name: f for f in flags}
        releases = {base: tuple(current.values())}
        for release, (added, removed) in sorted((changes or {}).items(), key=lambda kv: Version(kv[0])):
            current = {n: f for n, f in current.items() if n not in set(removed)} | {f.name: f for f in added}
            releases[release] = tuple(current.values())
        return FlagTable(releases=releases, positional=positional)

    @cached_property
    def _ordered(self) -> list[tuple[Version, FlagSet]]:
        return sorted(((Version(r), FlagSet(r, flags, self.abbreviations)) for r, flags in self.releases.items()),
                      key=lambda pair: pair[0])

    def at(self, version: Version | str | None) -> FlagSet:
        """The flag set a version behaves as (the newest release at or below it; the oldest for older ones)."""
        try:
            wanted = Version(str(version)) if version is not None else None
        except InvalidVersion:
            wanted = None
        if wanted is None:
            return self._ordered[-1][1]
        at_or_below = [fs for v, fs in self._ordered if v <= Version(wanted.base_version)]
        return at_or_below[-1] if at_or_below else self._ordered[0][1]

    def any_release(self, flag: str) -> Flag | None:
        return next((found for _, fs in reversed(self._ordered) if (found := fs.get(flag)) is not None), None)

    def parse(self, argv: Sequence[str], version: Version | str | None = None) -> Launch:
        """The user's flags as canonical values (unknown flags kept verbatim). Raises UsageError (exit 2)
        when a known flag lacks its value or the value does not convert."""
        flags = self.at(version)
        values: dict[str, object] = {}
        unknown: list[str] = []
        for raw, value in flags.pairs(argv):
            flag = flags.get(raw) or self.any_release(raw)
            if flag is None:
                unknown.extend([raw] if value is None else [raw, value])
                continue
            converted = True if flag.switch else _converted(flag, raw, value)
            if flag.key is not None and converted is not None:
                values[flag.key] = converted
        return Launch(values=values, args=tuple(argv), unknown=tuple(unknown))

    def check(self, argv: Sequence[str], version: Version | str | None) -> list[str]:
        """Problems with the user's flags at this version: unknown flags ("did you mean"), flags of other
        releases, values outside a flag's choices, and bare words past the CLI's positionals."""
        flags = self.at(version)
        problems: list[str] = []
        positional = 0
        flag: Flag | None = None
        for raw, value in flags.pairs(argv):
            if not raw.startswith("-"):
                positional += 1
                if positional > self.positional and not (flag is not None and flag.many):
                    problems.append(f"{raw!r}: a bare word where the CLI takes a flag")
                continue
            flag = flags.get(raw)
            if flag is None:
                problems.append(self._unknown(raw, flags))
            elif flag.choices and value is not None and value not in flag.choices:
                problems.append(f"{raw} {value}: not one of {', '.join(flag.choices)} (release {flags.release})")
        return problems

    def _unknown(self, raw: str, flags: FlagSet) -> str:
        elsewhere = [r for _, fs in self._ordered if fs.get(raw) is not None for r in (fs.release,)]
        if elsewhere:
            return f"{raw}: not accepted by release {flags.release} (accepted by {', '.join(elsewhere)})"
        near = closest(normal_flag(raw), flags.by_spelling, cutoff=0.8)
        return f"{raw}: unknown flag" + (f" (did you mean {near}?)" if near else "")


def _converted(flag: Flag, raw: str, value: str | None) -> object:
    if value is None:
        raise UsageError(f"engine flag {raw} needs a value")
    if flag.values:
        return flag.values.get(value.lower())
    try:
        return flag.kind(value)
    except ValueError as exc:
        raise UsageError(f"engine flag {raw}: {value!r} is not a valid value") from exc
