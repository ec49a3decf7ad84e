"""Which `--tool-call-parser` and `--reasoning-parser` names an engine release registers, how the release checks
them at start-up, and which parsers read a model family's tool-call markup: doctor/data/derived/parsers.json,
written offline by tools/parser_tables.py from the wheels on PyPI. A release the table does not hold (newer than
the data, a source build) is "not derived": nothing is guessed from a neighbour. A toolkit library (spi.TOOLKIT):
it knows the table's packages by name, never an engine's code; each engine says how its own flags are spelled."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.launch import closest
from doctor.pipeline.facts import Model

TABLE = Path(__file__).resolve().parents[1] / "data" / "derived" / "parsers.json"
SOURCE = "doctor/data/derived/parsers.json"
TOOL, REASONING = "tool", "reasoning"
KIND_KEYS = {TOOL: "tool_parsers", REASONING: "reasoning_parsers"}
FLAGS = {TOOL: "--tool-call-parser", REASONING: "--reasoning-parser"}
PLUGIN_FLAGS = {TOOL: "--tool-parser-plugin", REASONING: "--reasoning-parser-plugin"}
AUTO_TOOL_CHOICE = "--enable-auto-tool-choice"
# the parser flags as users also write them with underscores (vLLM's FlexibleArgumentParser accepts that; a plain
# argparse parser does not)
UNDERSCORED = {*FLAGS.values(), *PLUGIN_FLAGS.values()}
NON_THINKING = re.compile(r"(?i)instruct|non-?thinking|no-?think")  # a checkpoint named as a variant without reasoning
# vLLM's start-up checks (the `if` whose body raises the message, recorded per release by the generator)
INVALID_CHECK = {TOOL: "invalid_tool_parser", REASONING: "invalid_reasoning_parser"}
NEEDS_PARSER_CHECK = "auto_tool_choice_needs_parser"


@cache
def _document() -> dict[str, Any]:
    return json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.is_file() else {}


def _table(package: str) -> dict[str, Any]:
    return _document().get("packages", {}).get(package, {})


def packages() -> list[str]:
    """The engines (PyPI names) the table holds."""
    return sorted(_document().get("packages", {}))


def releases(package: str) -> list[str]:
    return list(_table(package).get("releases", ()))


def table_release(package: str, version: str | None) -> str | None:
    """The tabulated release `version` is (either spelling), else None: newer than the data, a pre-release or a
    source build."""
    try:
        wanted = Version(version or "")
    except InvalidVersion:
        return None
    return next((r for r in releases(package) if Version(r) == wanted), None)


@cache
def _order(package: str) -> dict[str, int]:
    return {r: i for i, r in enumerate(releases(package))}


def _spans(text: str) -> list[tuple[str, str]]:
    return [tuple(run.split("..", 1)) for run in text.split(",") if run]  # type: ignore[misc]


def _in_spans(package: str, text: str, release: str) -> bool:
    order = _order(package)
    return any(order[first] <= order[release] <= order[last] for first, last in _spans(text))


def registered(package: str, kind: str, release: str) -> list[str]:
    """Every name of the kind the tabulated release registers."""
    names = _table(package).get(KIND_KEYS[kind], {})
    return sorted(n for n, text in names.items() if _in_spans(package, text, release))


def class_at(package: str, kind: str, name: str, release: str) -> str | None:
    """The parser class the name registers at the tabulated release (several names may share one)."""
    classes = _table(package).get(kind + "_classes", {}).get(name, {})
    return next((cls for cls, text in classes.items() if _in_spans(package, text, release)), None)


def span_text(package: str, kind: str, name: str) -> str:
    spans = _spans(_table(package).get(KIND_KEYS[kind], {}).get(name, ""))
    return ", ".join(first if first == last else f"{first}-{last}" for first, last in spans)


def first_after(package: str, kind: str, name: str, release: str) -> str | None:
    """The first tabulated release after `release` that registers the name."""
    later = [r for r in releases(package) if _order(package)[r] > _order(package)[release]]
    text = _table(package).get(KIND_KEYS[kind], {}).get(name, "")
    return next((r for r in later if _in_spans(package, text, r)), None)


def check_condition(package: str, key: str, release: str) -> str | None:
    """The condition under which the release runs a start-up check (vLLM: the `if` that raises), None when it
    has none."""
    runs = _table(package).get("checks", {}).get(key, {})
    return next((json.loads(text) for text, spans in runs.items() if _in_spans(package, spans, release)), None)


def flag_value(args: Sequence[str], flag: str) -> str | None:
    """The last value given for the flag, in either spelling (`--a-b x`, `--a-b=x`, `--a_b x`)."""
    spellings = {flag, flag.replace("-", "_").replace("__", "--", 1)}
    value = None
    for i, arg in enumerate(args):
        name, equals, rest = str(arg).partition("=")
        if name in spellings:
            value = rest if equals else (str(args[i + 1]) if i + 1 < len(args) else None)
    return value


def has_switch(args: Sequence[str], flag: str) -> bool:
    spellings = {flag, flag.replace("-", "_").replace("__", "--", 1)}
    return any(str(arg).partition("=")[0] in spellings for arg in args)


def family(model: Model | None) -> dict[str, Any] | None:
    """The tabulated family whose model types (and id pattern, where the family shares its type with others)
    the model has, else None."""
    if model is None:
        return None
    text_types = {model.model_type}
    for entry in _document().get("families", ()):
        if not text_types & set(entry["model_types"]):
            continue
        pattern = entry.get("id_pattern")
        if pattern and not re.search(pattern, model.id or ""):
            continue
        return entry
    return None


def _alias(package: str, kind: str, name: str, known: Sequence[str]) -> str | None:
    """The release's spelling of another engine's name for the same family parser (one engine's `gpt-oss` -> another's
    `openai`, `deepseek-r1` -> `deepseek_r1`), matched by its place in the family's lists."""
    for entry in _document().get("families", ()):
        mine = [n for n in entry.get(package, {}).get(kind, ())]
        for key, names in entry.items():
            theirs = list(names.get(kind, ())) if isinstance(names, dict) and key != package else []
            if name in theirs and mine:
                candidate = mine[min(theirs.index(name), len(mine) - 1)]
                if candidate in known:
                    return candidate
    return None


def _hint(package: str, kind: str, name: str, known: Sequence[str], found: dict[str, Any] | None) -> str | None:
    """The name to use instead: the same name spelled with `-` or `_`, else the model family's parser, else the
    release's spelling of another engine's name, else the closest spelling."""
    for spelling in (name.replace("-", "_"), name.replace("_", "-"), name.lower()):
        if spelling in known:
            return spelling
    own = [n for n in (found or {}).get(package, {}).get(kind, ()) if n in known]
    if own:
        return own[0]
    return _alias(package, kind, name, known) or closest(name, known)


def _name_view(package: str, kind: str, name: str, release: str, args: Sequence[str],
               extra_choices: Sequence[str], found: dict[str, Any] | None) -> dict[str, Any]:
    known = registered(package, kind, release)
    out: dict[str, Any] = {"name": name, "plugin": has_switch(args, PLUGIN_FLAGS[kind])}
    if name in known or name in extra_choices:
        return {**out, "status": "registered"}
    hint = _hint(package, kind, name, known, found)
    later = first_after(package, kind, name, release)
    spans = span_text(package, kind, name)
    newest = releases(package)[-1]
    out.update(status="unregistered", closest=hint or "none close", first_later=later,
               releases=spans or f"none of the releases up to {newest}")
    use = f"`{FLAGS[kind]} {hint}`" if hint else f"one of {', '.join(known)}"
    upgrade = f"; or upgrade to {later}, the first later release that registers `{name}`" if later else ""
    out["fix"] = f"use {use} (a name {release} registers){upgrade}"
    return out


def view(package: str, display: str, version: str | None, args: Sequence[str], model: Model | None
         ) -> dict[str, Any] | None:
    """`<engine>.parsers`: the parser names the launch gives, whether the release registers them, its start-up
    checks, and which parsers the release ships for the model's family. None without parser flags or family."""
    tool, reasoning = flag_value(args, FLAGS[TOOL]), flag_value(args, FLAGS[REASONING])
    auto = has_switch(args, AUTO_TOOL_CHOICE)
    found = family(model)
    if tool is None and reasoning is None and not auto and found is None:
        return None
    release = table_release(package, version)
    out: dict[str, Any] = {"release": version or "not stated", "newest_derived": (releases(package) or [None])[-1],
                           "auto_tool_choice": auto, "tool_parser": tool, "reasoning_parser": reasoning,
                           "source": SOURCE}
    if release is None:
        return {**out, "status": "not_derived"}
    out["status"] = "derived"
    for kind, name in ((TOOL, tool), (REASONING, reasoning)):
        if name:
            extra = _extra_choices(package, kind, release)
            out[kind] = _name_view(package, kind, name, release, args, extra, found)
            out[kind].update(_checks(package, kind, release))
    needs = check_condition(package, NEEDS_PARSER_CHECK, release)
    out["underscore_flags"] = ", ".join(sorted({str(a).partition("=")[0] for a in args if str(a).startswith("--")
                                               and "_" in str(a).partition("=")[0]
                                               and str(a).partition("=")[0].replace("_", "-") in UNDERSCORED}))
    out["auto_tool_choice_without_parser"] = bool(needs) and auto and not tool
    # a release that reads the tool parser only with --enable-auto-tool-choice (vLLM) leaves tool calls in the text
    # without it; harmony models (gpt-oss) are parsed by the harmony path instead
    only_with_auto = bool(tool) and out.get(TOOL, {}).get("rejected_only_with_auto_tool_choice", False)
    out["tool_parser_unused"] = only_with_auto and not auto and not (found or {}).get("harmony", False)
    if found is not None:
        out["family"] = _family_view(found, package, display, release, tool, reasoning, model.id if model else "")
    return out


def _extra_choices(package: str, kind: str, release: str) -> list[str]:
    """Literal argparse choices besides the parser map (an "auto" choice)."""
    condition = check_condition(package, FLAGS[kind], release)
    return list(condition.get("extra_choices", ())) if isinstance(condition, dict) else []


def _checks(package: str, kind: str, release: str) -> dict[str, Any]:
    """How the release rejects an unregistered name: argparse choices (exit 2 at parsing), a start-up KeyError
    (vLLM; for tool parsers only with --enable-auto-tool-choice), or nothing known."""
    argparse_choices = check_condition(package, FLAGS[kind], release)
    if isinstance(argparse_choices, dict) and argparse_choices.get("argparse_choices"):
        return {"rejected_by": "argparse", "rejected_only_with_auto_tool_choice": False}
    condition = check_condition(package, INVALID_CHECK[kind], release)
    if not condition:
        return {"rejected_by": "none known", "rejected_only_with_auto_tool_choice": False}
    return {"rejected_by": "start-up check",
            "rejected_only_with_auto_tool_choice": "enable_auto_tool_choice" in str(condition)}


def _family_view(entry: dict[str, Any], package: str, display: str, release: str, tool: str | None,
                 reasoning: str | None, model_id: str = "") -> dict[str, Any]:
    shipped = entry.get(package, {})
    tools = [n for n in shipped.get(TOOL, ()) if n in registered(package, TOOL, release)]
    thinkers = [n for n in shipped.get(REASONING, ()) if n in registered(package, REASONING, release)]
    known_tools, known_thinkers = registered(package, TOOL, release), registered(package, REASONING, release)
    family_classes = {class_at(package, TOOL, n, release) for n in tools}
    if tool and tool in known_tools and tool not in tools and class_at(package, TOOL, tool, release) in family_classes:
        tools.append(tool)  # another name for the same parser class at this release (vLLM 0.24+: qwen3_xml)
    out: dict[str, Any] = {
        "name": entry["family"], "markup": entry["markup"], "tool_parsers": ", ".join(tools) or "none",
        "reasoning_parsers": ", ".join(thinkers) or "none", "always_reasons": bool(entry.get("always_reasons")),
        "tool_mismatch": bool(tool and tools and tool in known_tools and tool not in tools),
        # only where no <think>-style parser can work: harmony channels (gpt-oss); elsewhere several reasoning
        # parsers split the same <think> markers
        "reasoning_mismatch": bool(entry.get("harmony") and reasoning and thinkers and reasoning in known_thinkers
                                   and reasoning not in thinkers),
        "reasoning_missing": bool(entry.get("always_reasons")) and not reasoning and bool(thinkers)
        and not NON_THINKING.search(model_id),
    }
    if shipped.get(TOOL) and not tools:  # the family has a parser, this release predates it
        first = next((r for r in releases(package) if _order(package)[r] > _order(package)[release]
                      and any(n in registered(package, TOOL, r) for n in shipped.get(TOOL, ()))), None)
        out["no_parser_yet"] = bool(tool)
        out["first_release_with_parser"] = first or "none in the table"
    out["fix"] = (f"{display} {release} parses the {entry['family']} markup ({entry['markup']}) with "
                  f"`--tool-call-parser {tools[0]}`" if tools else
                  f"{display} {release} ships no tool-call parser for the {entry['family']} markup")
    return out


def name_advice(package: str, kind: str, name: str) -> str:
    """What to do about a parser name a log shows refused, said from the whole table (the log need not state
    its release): the releases that register it, and the closest name the newest release has."""
    newest = releases(package)[-1]
    known = registered(package, kind, newest)
    hint = _hint(package, kind, name, known, None)
    use = f"`{FLAGS[kind]} {hint}`" if hint else f"a name from the list the error prints ({', '.join(known)})"
    spans = span_text(package, kind, name)
    if not spans:
        if hint and (hint.replace("-", "_") == name.replace("-", "_") or _alias(package, kind, name, known)):
            return f"`{name}` is a name no release up to {newest} registers: use {use}"
        closest_text = f" (closest spelling: `{hint}`)" if hint else ""
        return (f"`{name}` is a name no release up to {newest} registers{closest_text}: use the {FLAGS[kind]} name "
                "for the model's format from the list the error prints")
    if name in known:
        first = _spans(_table(package)[KIND_KEYS[kind]][name])[0][0]
        return f"`{name}` is registered in {spans}: a release that refuses it is older, so upgrade to {first} or later"
    return f"`{name}` is registered only in {spans}: use {use} (a name {newest} has)"
