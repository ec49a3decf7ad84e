"""Derive llama.cpp's options from its own argument table (`common/arg.cpp`), statically.

Each `add_opt(common_arg({...names...}, ...))` is one option; the handler's signature says whether it takes
a value (`(common_params & params)` and `(common_params &, bool)` are switches); `.set_examples({...})` and
`.set_excludes({...})` say which tools have it (llama-server has an option when it is tagged
LLAMA_EXAMPLE_SERVER or LLAMA_EXAMPLE_COMMON and not excluded from the server, as `add_opt` filters).
Closed value sets are the `value == "..."` literals of a handler that throws on anything else, or the words of
the `is_truthy`/`is_falsey`/`is_autoy` helpers it calls.

tools/llama_cpp_flag_tables.py runs this over arg.cpp at every sampled release; `python
tools/llama_cpp_flags.py ARG_CPP --release bNNNN --source WHERE` prints one release's llama-server table.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

OPEN, CLOSE = "([{", ")]}"
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
HANDLER = re.compile(r"\[\]\s*\(\s*common_params\s*&\s*\w*\s*(\)|,\s*(bool|int|const\s+std::string))")
COMPARED = re.compile(r'value\s*==\s*"([^"]+)"')
EXAMPLE = re.compile(r"LLAMA_EXAMPLE_(\w+)")
PREDICATES = ("is_truthy", "is_falsey", "is_autoy")  # common_arg_utils: the words each one accepts


@dataclass
class Option:
    names: list[str]
    negated: list[str] = field(default_factory=list)
    takes_value: bool = True
    integer: bool = False  # the handler takes `int value`: arg.cpp parses it with std::stoi
    examples: list[str] = field(default_factory=lambda: ["COMMON"])
    excludes: list[str] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    env: str | None = None
    line: int = 0

    def in_server(self) -> bool:
        return ("SERVER" in self.examples or "COMMON" in self.examples) and "SERVER" not in self.excludes


def matching(text: str, start: int) -> int:
    """Index of the bracket closing the one at `start`, skipping strings, chars and comments."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i = _skip_quoted(text, i)
            continue
        if text.startswith("//", i):
            i = text.find("\n", i)
            continue
        if c in OPEN:
            depth += 1
        elif c in CLOSE:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unbalanced bracket at offset {start}")


def _skip_quoted(text: str, i: int) -> int:
    quote, i = text[i], i + 1
    while text[i] != quote:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def options(source: str) -> list[Option]:
    words = _predicate_words(source)
    cache_types = _kv_cache_types(source)
    out = []
    for match in re.finditer(r"add_opt\(common_arg\(", source):
        if "//" in source[source.rfind("\n", 0, match.start()) + 1:match.start()]:
            continue  # commented out
        open_paren = match.start() + len("add_opt")
        end = matching(source, open_paren)
        option = _option(source[open_paren:end + 1], source.count("\n", 0, match.start()) + 1)
        call = source[open_paren:end + 1]
        if option.takes_value and any(p in call for p in PREDICATES):
            option.choices = [w for p in PREDICATES if p in call for w in words.get(p, [])]
        if option.takes_value and "kv_cache_type_from_str" in call:
            option.choices = cache_types
        out.append(option)
    return out


def _predicate_words(source: str) -> dict[str, list[str]]:
    out = {}
    for name in PREDICATES:
        body = re.search(rf"bool (?:common_arg_utils::)?{name}\(.*?\{{(.*?)\}}", source, re.S)
        out[name] = STRING.findall(body.group(1)) if body else []
    return out


def _kv_cache_types(source: str) -> list[str]:
    body = re.search(r"kv_cache_types\s*=\s*\{(.*?)\};", source, re.S)
    return [t.lower() for t in re.findall(r"GGML_TYPE_(\w+)", body.group(1))] if body else []


def _option(call: str, line: int) -> Option:
    first = call.index("{")
    names = STRING.findall(call[first:matching(call, first) + 1])
    rest = call[matching(call, first) + 1:].lstrip(" \n,")
    negated: list[str] = []
    if rest.startswith("{"):
        negated = STRING.findall(rest[:matching(rest, 0) + 1])
    handler = HANDLER.search(call)
    takes_value = bool(handler and handler.group(2) in ("int", "const std::string")) or (
        handler is not None and handler.group(1).startswith(",") and "std::string" in handler.group(1))
    option = Option(names=names, negated=negated, takes_value=takes_value, line=line,
                    integer=bool(handler and handler.group(2) == "int"))
    for method, target in (("set_examples", "examples"), ("set_excludes", "excludes")):
        found = re.search(rf"\.{method}\(\{{([^}}]*)\}}\)", call)
        if found:
            setattr(option, target, EXAMPLE.findall(found.group(1)))
    env = re.search(r'\.set_env\("([^"]+)"\)', call)
    option.env = env.group(1) if env else None
    if takes_value and "throw" in call:
        option.choices = list(dict.fromkeys(COMPARED.findall(call)))
    return option


def server_table(source: str, provenance: str, release: str) -> dict[str, object]:
    flags: dict[str, dict[str, object]] = {}
    for option in options(source):
        if not option.in_server():
            continue
        entry: dict[str, object] = {"canonical": option.names[-1], "takes_value": option.takes_value,
                                    "line": option.line}
        if option.choices:
            entry["choices"] = option.choices
        for name in option.names:
            flags[name] = entry
        for name in option.negated:
            flags[name] = {"canonical": name, "takes_value": False, "line": option.line}
    return {"release": release, "source": provenance, "file": "common/arg.cpp", "flags": dict(sorted(flags.items()))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("arg_cpp", type=Path)
    parser.add_argument("--source", required=True, help="where arg.cpp came from (commit, archive)")
    parser.add_argument("--release", required=True, help="the llama.cpp build it is, e.g. b11312")
    args = parser.parse_args(argv)
    table = server_table(args.arg_cpp.read_text(encoding="utf-8"), args.source, args.release)
    json.dump(table, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
