"""The flags of llama.cpp's tools: llama-server's from the build's own `llama-server --help` when a binary is
found, else (and for llama-cli, llama-completion) llama.cpp's common/arg.cpp at the sampled release that covers the
build (doctor/data/llama_cpp/flag_tables.json, run-length over release tags, provenance inside; regenerate with
tools/llama_cpp_flag_tables.py), filtered for the tool as arg.cpp's add_opt filters; llama-bench's from its own
parser (doctor/data/llama_cpp/bench_flag_tables.json, tools/llama_bench_flag_tables.py). Where the samples around a
build disagree on a flag, or the build lies outside them, a problem with that flag is unsettled, not refused.

The tool is the first word of the argv when it names one (`llama-bench -p 512 ...`); otherwise llama-server."""

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
BENCH_DATA = DATA.with_name("bench_flag_tables.json")
SERVER, BENCH = "llama-server", "llama-bench"
# the arg.cpp example each tool parses with (tools/cli/cli.cpp: LLAMA_EXAMPLE_CLI; before the CLI rewrite between
# b7347 and b7698, llama-cli was examples/main with LLAMA_EXAMPLE_MAIN, which llama-completion continues)
ARG_CPP_TOOLS = {SERVER: ("SERVER",), "llama-cli": ("CLI", "MAIN"), "llama-completion": ("COMPLETION", "MAIN")}
TOOLS = (*ARG_CPP_TOOLS, BENCH)
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
    tool: str = SERVER

    def entry(self, flag: str) -> Entry | None:
        """llama-bench turns `_` into `-` in a `--long_name` before it compares (llama-bench.cpp's arg_prefix)."""
        if self.tool == BENCH and flag.startswith("--"):
            flag = flag.replace("_", "-")
        return self.flags.get(flag)

    def known(self, flag: str) -> bool:
        return self.entry(flag) is not None

    def takes_value(self, flag: str) -> bool:
        entry = self.entry(flag)
        return bool(entry and entry.get("takes_value"))

    def canonical(self, flag: str) -> str:
        entry = self.entry(flag)
        return str(entry["canonical"]) if entry else flag

    def choices(self, flag: str) -> list[str]:
        entry = self.entry(flag) or {}
        return list(entry.get("choices", []))  # type: ignore[call-overload]

    def integer(self, flag: str) -> bool:
        """The build parses this flag's value as an int (std::stoi): a word like "all" is refused."""
        entry = self.entry(flag) or {}
        return bool(entry.get("integer"))

    def why_unsettled(self, flag: str) -> str | None:
        return self.unsettled.get(flag) or self.all_unsettled


@cache
def _data(bench: bool = False) -> dict[str, Any]:
    return json.loads((BENCH_DATA if bench else DATA).read_text("utf-8"))


@cache
def _segment_options(bench: bool = False) -> tuple[tuple[int, int, dict[str, Any]], ...]:
    """(first sample, last sample, every option) per run of equal tables, replayed from the stored diffs."""
    options: dict[str, dict[str, Any]] = {}
    out = []
    for segment in _data(bench)["segments"]:
        dropped = set(segment["drop"])
        options = {key: value for key, value in options.items() if key not in dropped}
        options.update(segment["set"])
        out.append((segment["first"], segment["last"], options))
    return tuple(out)


@lru_cache(maxsize=8)
def _segment_flags(index: int, tool: str = SERVER) -> dict[str, Entry]:
    return tool_flags(_segment_options(tool == BENCH)[index][2].values(), tool)


def _segment_tables(tool: str = SERVER) -> list[tuple[int, int, dict[str, Entry]]]:
    """Every segment's flags of `tool` (for tests and tools; a check needs one or two: _segment_flags)."""
    return [(low, high, _segment_flags(i, tool)) for i, (low, high, _) in enumerate(_segment_options(tool == BENCH))]


def split_tool(argv: list[str]) -> tuple[str | None, list[str]]:
    """The llama.cpp tool argv names first (`llama-bench`, `./build/bin/llama-cli`, `llama-server.exe`), and the
    rest; None and argv unchanged when it names none (no tool of llama.cpp takes a positional argument)."""
    if argv:
        word = argv[0].replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".exe")
        if word in TOOLS:
            return word, argv[1:]
    return None, argv


def server_flags(options: Any) -> dict[str, Entry]:
    return tool_flags(options, SERVER)


def tool_flags(options: Any, tool: str) -> dict[str, Entry]:
    """`tool`'s view of an option table: for arg.cpp's tools, options tagged with the tool's example or COMMON
    (the default) and not excluded from it, as arg.cpp's add_opt filters (llama-cli: CLI where the table has that
    example, else MAIN); llama-bench's table is its own. Each spelling and negation maps to its entry."""
    options = list(options)
    wanted = _examples(options, tool)
    flags: dict[str, Entry] = {}
    for option in options:
        examples = option.get("examples", ["COMMON"])
        if tool != BENCH and (not ({wanted, "COMMON"} & set(examples)) or wanted in option.get("excludes", [])):
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


def _examples(options: list[Any], tool: str) -> str:
    candidates = ARG_CPP_TOOLS.get(tool, ("SERVER",))
    present = {example for option in options for example in option.get("examples", ())}
    return next((c for c in candidates if c in present), candidates[-1])


def sampled_builds() -> tuple[int, ...]:
    """The first build of every run of equal flag tables: one build per flag vocabulary the data holds."""
    return tuple(first for first, _, _ in _segment_options())


def data_range(tool: str = SERVER) -> tuple[int, int]:
    segments = _segment_options(tool == BENCH)
    return segments[0][0], segments[-1][1]


def table_for_build(build: int | None, tool: str = SERVER) -> FlagTable:
    """`tool`'s flags at build `build` (None: unknown, the known build's table with every problem unsettled)."""
    segments = _segment_options(tool == BENCH)
    first, newest = data_range(tool)
    file = "tools/llama-bench/llama-bench.cpp" if tool == BENCH else "common/arg.cpp"
    if build is None:
        table = table_for_build(KNOWN_BUILD, tool)
        why = f"the build number is unknown; checked against b{KNOWN_BUILD}"
        return FlagTable(table.source, table.flags, all_unsettled=why, note=why, tool=tool)
    if build < first or build > newest:
        edge = 0 if build < first else len(segments) - 1
        side = "older than the oldest" if build < first else "newer than the newest"
        sample = segments[edge][1]
        tables = "flag tables" if tool == SERVER else f"flag tables of {tool}"
        why = f"b{build} is {side} release in the doctor's {tables} (b{first}..b{newest}); checked against b{sample}"
        return FlagTable(f"llama.cpp b{sample} {file}", _segment_flags(edge, tool), all_unsettled=why, note=why,
                         tool=tool)
    for index, (low, high, _) in enumerate(segments):
        if low <= build <= high:
            span = f"b{low}" if low == high else f"b{low}..b{high}, equal at every sample between"
            return FlagTable(f"llama.cpp {file} at {span}", _segment_flags(index, tool), tool=tool)
        if build < low:
            return _between(build, segments[index - 1][1], _segment_flags(index - 1, tool), low,
                            _segment_flags(index, tool), tool, file)
    raise AssertionError("unreachable: the build is inside the data")


def _between(build: int, before: int, old: dict[str, Entry], after: int, new: dict[str, Entry], tool: str,
             file: str) -> FlagTable:
    """A build between two samples whose tables differ: flags equal in both are settled, the others are not."""
    around = f"between b{before} and b{after}, the samples around b{build}"
    unsettled = {flag: f"{flag} changed {around}" for flag in set(old) | set(new) if old.get(flag) != new.get(flag)}
    source = f"llama.cpp {file} at b{before} and b{after} (b{build} lies between)"
    earlier = FlagTable(f"llama.cpp {file} at b{before}", old, unsettled=unsettled, tool=tool)
    return FlagTable(source, new, unsettled=unsettled, other=earlier, tool=tool)


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
    argv = split_tool(argv)[1]
    return flag_pairs(argv, is_switch=lambda f: table.known(f) and not table.takes_value(f),
                      takes_value=table.takes_value)


def check_flags(argv: list[str], table: FlagTable) -> list[str]:
    """Unknown flags, missing values and values outside a closed set, as this tool (llama-server unless argv
    names another first) would refuse them; problems the table cannot settle for this build are left to
    unsettled_flags."""
    argv = split_tool(argv)[1]
    return [problem for flag, problem in _problems(argv, table) if not flag or table.why_unsettled(flag) is None]


def unknown_flags(argv: list[str], table: FlagTable) -> list[str]:
    """The flags this tool does not have at all (a value outside a known flag's choices is not counted)."""
    return [flag for flag, _ in pairs(argv, table) if flag.startswith("-") and not table.known(flag)]


def unsettled_flags(argv: list[str], table: FlagTable) -> list[str]:
    """Problems with flags whose entry at this build the data does not settle (against either neighbouring
    sample, when the build lies between two), each with why."""
    argv = split_tool(argv)[1]
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
            problems.append((blame, f"{flag!r} is not a flag ({table.tool} takes no positional arguments)"))
        elif not table.known(flag):
            problems.append((flag, f"{flag} is not a {table.tool} flag"))
        elif table.takes_value(flag) and value is None:
            problems.append((flag, f"{flag} needs a value"))
        elif value is not None and (choices := table.choices(flag)) and value not in choices:
            problems.append((flag, f"{flag} {value} is not one of {', '.join(choices)}"))
        elif value is not None and table.integer(flag) and not _INTEGER.match(value):
            problems.append((flag, f"{flag} {value} is not an integer (this build reads it with std::stoi)"))
        previous = flag
    return problems
