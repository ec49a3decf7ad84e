"""llama-server's flags: the build's own `llama-server --help` when a binary is found, else llama.cpp's
common/arg.cpp at the sampled release that covers the build (doctor/data/llama_cpp/flag_tables.json, run-length over
release tags, provenance inside; regenerate with tools/llama_cpp_flag_tables.py). Where the samples around a
build disagree on a flag, or the build lies outside them, a problem with that flag is unsettled, not refused."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from doctor.engines.spi import flag_pairs

HELP_TIMEOUT_S = 10
DATA = Path(__file__).resolve().parents[2] / "data" / "llama_cpp" / "flag_tables.json"
KNOWN_BUILD = 11312  # the build analysed when none is found: ggml-org/llama.cpp@0c1e57098
# `-ngl,  --gpu-layers, --n-gpu-layers N   help...`: names separated by commas, then an optional value hint
_HELP_LINE = re.compile(r"^\s*((?:-{1,2}\w[\w.+-]*)(?:,\s*-{1,2}\w[\w.+-]*)*)(?:\s([^\s-].*?))?(?:\s{2,}|\s*$)")
_INTEGER = re.compile(r"^\s*[+-]?\d")  # what std::stoi accepts the start of
Entry = dict[str, object]


@dataclass(frozen=True)
class FlagTable:
    """`unsettled`: flags whose entry the data cannot pin down for this build (flag → why); `all_unsettled`:
    the build is outside the data, so no problem found against it is certain."""

    source: str
    flags: dict[str, Entry] = field(default_factory=dict)
    unsettled: dict[str, str] = field(default_factory=dict)
    all_unsettled: str | None = None
    note: str | None = None
    other: FlagTable | None = None  # between two samples: the earlier one's table (`flags` is the later one's)

    def known(self, flag: str) -> bool:
        return flag in self.flags

    def takes_value(self, flag: str) -> bool:
        entry = self.flags.get(flag)
        return bool(entry and entry.get("takes_value"))

    def canonical(self, flag: str) -> str:
        entry = self.flags.get(flag)
        return str(entry["canonical"]) if entry else flag

    def choices(self, flag: str) -> list[str]:
        entry = self.flags.get(flag) or {}
        return list(entry.get("choices", []))  # type: ignore[call-overload]

    def integer(self, flag: str) -> bool:
        """The build parses this flag's value as an int (std::stoi): a word like "all" is refused."""
        entry = self.flags.get(flag) or {}
        return bool(entry.get("integer"))

    def why_unsettled(self, flag: str) -> str | None:
        return self.unsettled.get(flag) or self.all_unsettled


@cache
def _data() -> dict[str, Any]:
    return json.loads(DATA.read_text("utf-8"))


@cache
def _segment_options() -> tuple[tuple[int, int, dict[str, Any]], ...]:
    """(first sample, last sample, every option) per run of equal tables, replayed from the stored diffs."""
    options: dict[str, dict[str, Any]] = {}
    out = []
    for segment in _data()["segments"]:
        dropped = set(segment["drop"])
        options = {key: value for key, value in options.items() if key not in dropped}
        options.update(segment["set"])
        out.append((segment["first"], segment["last"], options))
    return tuple(out)


@lru_cache(maxsize=8)
def _segment_flags(index: int) -> dict[str, Entry]:
    return server_flags(_segment_options()[index][2].values())


def _segment_tables() -> list[tuple[int, int, dict[str, Entry]]]:
    """Every segment's llama-server flags (for tests and tools; a check needs one or two: _segment_flags)."""
    return [(low, high, _segment_flags(i)) for i, (low, high, _) in enumerate(_segment_options())]


def server_flags(options: Any) -> dict[str, Entry]:
    """llama-server's view of an option table: options tagged SERVER or COMMON (the default) and not excluded
    from the server, as arg.cpp's add_opt filters; each spelling and negation maps to its entry."""
    flags: dict[str, Entry] = {}
    for option in options:
        examples = option.get("examples", ["COMMON"])
        if not ({"SERVER", "COMMON"} & set(examples)) or "SERVER" in option.get("excludes", []):
            continue
        entry: Entry = {"canonical": option["names"][-1], "takes_value": option["value"]}
        if option.get("choices"):
            entry["choices"] = option["choices"]
        if option.get("int"):
            entry["integer"] = True
        for name in option["names"]:
            flags[name] = entry
        for name in option.get("negated", []):
            flags[name] = {"canonical": name, "takes_value": False}
    return flags


def sampled_builds() -> tuple[int, ...]:
    """The first build of every run of equal flag tables: one build per flag vocabulary the data holds."""
    return tuple(first for first, _, _ in _segment_options())


def data_range() -> tuple[int, int]:
    segments = _segment_options()
    return segments[0][0], segments[-1][1]


def table_for_build(build: int | None) -> FlagTable:
    """llama-server's flags at build `build` (None: unknown, the known build's table with every problem
    unsettled)."""
    segments = _segment_options()
    first, newest = data_range()
    if build is None:
        table = table_for_build(KNOWN_BUILD)
        why = f"the build number is unknown; checked against b{KNOWN_BUILD}"
        return FlagTable(table.source, table.flags, all_unsettled=why, note=why)
    if build < first or build > newest:
        edge = 0 if build < first else len(segments) - 1
        side = "older than the oldest" if build < first else "newer than the newest"
        sample = segments[edge][1]
        why = (f"b{build} is {side} release in the doctor's flag tables (b{first}..b{newest}); checked against "
               f"b{sample}")
        return FlagTable(f"llama.cpp b{sample} common/arg.cpp", _segment_flags(edge), all_unsettled=why, note=why)
    for index, (low, high, _) in enumerate(segments):
        if low <= build <= high:
            span = f"b{low}" if low == high else f"b{low}..b{high}, equal at every sample between"
            return FlagTable(f"llama.cpp common/arg.cpp at {span}", _segment_flags(index))
        if build < low:
            return _between(build, segments[index - 1][1], _segment_flags(index - 1), low, _segment_flags(index))
    raise AssertionError("unreachable: the build is inside the data")


def _between(build: int, before: int, old: dict[str, Entry], after: int, new: dict[str, Entry]) -> FlagTable:
    """A build between two samples whose tables differ: flags equal in both are settled, the others are not."""
    around = f"between b{before} and b{after}, the samples around b{build}"
    unsettled = {flag: f"{flag} changed {around}" for flag in set(old) | set(new) if old.get(flag) != new.get(flag)}
    source = f"llama.cpp common/arg.cpp at b{before} and b{after} (b{build} lies between)"
    earlier = FlagTable(f"llama.cpp common/arg.cpp at b{before}", old, unsettled=unsettled)
    return FlagTable(source, new, unsettled=unsettled, other=earlier)


@cache
def known_release_table() -> FlagTable:
    return table_for_build(KNOWN_BUILD)


def table_from_help(text: str, source: str) -> FlagTable | None:
    """Flags as a build prints them in `--help`; None when the text holds no option lines."""
    flags: dict[str, dict[str, object]] = {}
    for line in text.splitlines():
        match = _HELP_LINE.match(line)
        if not match:
            continue
        names = [n.strip() for n in match.group(1).split(",")]
        hint = match.group(2) or ""
        entry: dict[str, object] = {"canonical": names[-1], "takes_value": bool(hint)}
        if hint.startswith("[") and hint.endswith("]") and "|" in hint:
            entry["choices"] = hint[1:-1].split("|")
        for name in names:
            flags.setdefault(name, entry)
    return FlagTable(source=source, flags=flags) if len(flags) >= 10 else None


@lru_cache(maxsize=4)
def table_for_binary(server: str) -> FlagTable | None:
    """Run the found `llama-server --help` (no model is loaded); None when it does not answer."""
    try:
        done = subprocess.run([server, "--help"], capture_output=True, text=True, timeout=HELP_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    return table_from_help(done.stdout + "\n" + done.stderr, f"`{server} --help`")


def pairs(argv: list[str], table: FlagTable) -> list[tuple[str, str | None]]:
    return flag_pairs(argv, is_switch=lambda f: table.known(f) and not table.takes_value(f),
                      takes_value=table.takes_value)


def check_flags(argv: list[str], table: FlagTable) -> list[str]:
    """Unknown flags, missing values and values outside a closed set, as this llama-server would refuse them;
    problems the table cannot settle for this build are left to unsettled_flags."""
    return [problem for flag, problem in _problems(argv, table) if not flag or table.why_unsettled(flag) is None]


def unsettled_flags(argv: list[str], table: FlagTable) -> list[str]:
    """Problems with flags whose entry at this build the data does not settle (against either neighbouring
    sample, when the build lies between two), each with why."""
    found = _problems(argv, table) + (_problems(argv, table.other) if table.other else [])
    out = [f"{problem} ({why})" for flag, problem in found if flag and (why := table.why_unsettled(flag)) is not None]
    return list(dict.fromkeys(out))


def _problems(argv: list[str], table: FlagTable) -> list[tuple[str, str]]:
    """(the flag that decides whether it is a problem, the problem): a stray word is charged to the flag
    before it (a switch at one build takes a value at another), or to none."""
    problems = []
    previous = ""
    for flag, value in pairs(argv, table):
        if not flag.startswith("-"):
            blame = previous if previous and table.why_unsettled(previous) else ""
            problems.append((blame, f"{flag!r} is not a flag (llama-server takes no positional arguments)"))
        elif not table.known(flag):
            problems.append((flag, f"{flag} is not a llama-server flag"))
        elif table.takes_value(flag) and value is None:
            problems.append((flag, f"{flag} needs a value"))
        elif value is not None and (choices := table.choices(flag)) and value not in choices:
            problems.append((flag, f"{flag} {value} is not one of {', '.join(choices)}"))
        elif value is not None and table.integer(flag) and not _INTEGER.match(value):
            problems.append((flag, f"{flag} {value} is not an integer (this build reads it with std::stoi)"))
        previous = flag
    return problems
