"""Maintainers' script: llama-bench's option table at every sampled release, from its own parser
(`tools/llama-bench/llama-bench.cpp`, `examples/llama-bench/` before ~b5400), not common/arg.cpp: llama-bench reads
argv in a chain of `if (arg == "-p" || arg == "--n-prompt")` branches, and a branch takes a value where it steps
`++i`. Stored run-length the way tools/llama_cpp_flag_tables.py stores arg.cpp's tables (one segment per stretch
of equal samples, each the change from the one before): doctor/data/llama_cpp/bench_flag_tables.json, read by
doctor/engines/llama_cpp/flags.py for `check -- llama-bench ...`.

Sources: llama-bench.cpp files whose name holds the build (`b9842.llama-bench.cpp`); --sources names where each
came from (build, tab, provenance). The 2026-11 data came from node-llama-cpp tarballs on npm (`npm pack
node-llama-cpp@3.x`: `llama/gitRelease.bundle` is llama.cpp at the tag in `llama/llama.cpp.info.json`) and
llama-cpp-python 0.3.36's sdist on PyPI (vendor/llama.cpp at b11312).

Usage: python tools/llama_bench_flag_tables.py FILE ... --sources TSV [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tools.llama_cpp_flag_tables import BUILD_IN_NAME, run_length  # noqa: E402

OUT = REPO / "doctor" / "data" / "llama_cpp" / "bench_flag_tables.json"
LOOP_START = re.compile(r"for \(int i = 1; i < argc; i\+\+\)")
LOOP_END = re.compile(r"^[ \t]*if \(invalid_param\) \{\s*$", re.M)  # the first one at the loop's own indent
BRANCH = re.compile(r"^([ \t]*)(?:\}\s*else\s+)?if\s*\((?P<cond>[^\n]*\barg == \"[^\n]*)\)\s*\{\s*$", re.M)
NAME = re.compile(r'arg == "([^"]+)"')
TAKES_VALUE = "++i >= argc"
NEEDS_RPC = "llama_supports_rpc()"


def parse_loop(source: str) -> str:
    """The text of the argv loop: from `for (int i = 1; i < argc; i++)` to the `if (invalid_param)` after it at
    the loop's own indent (nested ones are indented deeper)."""
    start = LOOP_START.search(source)
    if start is None:
        raise ValueError("no argv loop")
    indent = len(source[:start.start()].rsplit("\n", 1)[-1])
    for end in LOOP_END.finditer(source, start.end()):
        if len(end.group(0)) - len(end.group(0).lstrip()) == indent:
            return source[start.end():end.start()]
    raise ValueError("no end of the argv loop")


def options(source: str) -> dict[str, dict[str, object]]:
    """Every option of one llama-bench.cpp, keyed by its spellings: names, whether it takes a value, and
    whether the build must have RPC for it."""
    loop = parse_loop(source)
    branches = list(BRANCH.finditer(loop))
    indent = min(len(b.group(1)) for b in branches)
    branches = [b for b in branches if len(b.group(1)) == indent]  # the chain, not nested tests
    out: dict[str, dict[str, object]] = {}
    for index, branch in enumerate(branches):
        body = loop[branch.end():branches[index + 1].start() if index + 1 < len(branches) else len(loop)]
        names = NAME.findall(branch.group("cond"))
        entry: dict[str, object] = {"names": names, "value": TAKES_VALUE in body}
        if NEEDS_RPC in branch.group("cond"):
            entry["rpc"] = True
        out[",".join(names)] = entry
    return out


def samples(files: list[Path], sources: dict[int, str]) -> list[tuple[int, str, dict[str, dict[str, object]]]]:
    by_build: dict[int, Path] = {}
    for path in files:
        match = BUILD_IN_NAME.search(path.name)
        if match is None:
            raise SystemExit(f"{path}: no bNNNN in the file name")
        by_build.setdefault(int(match.group(1)), path)
    return [(build, sources.get(build, path.name), options(path.read_text(encoding="utf-8")))
            for build, path in sorted(by_build.items())]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--sources", type=Path, help="TSV: build number, tab, where that file came from")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    sources: dict[int, str] = {}
    if args.sources:
        for line in args.sources.read_text(encoding="utf-8").splitlines():
            build, _, where = line.partition("\t")
            sources[int(build)] = where
    found = samples(args.files, sources)
    data = {"repository": "ggml-org/llama.cpp", "file": "tools/llama-bench/llama-bench.cpp",
            "generator": "tools/llama_bench_flag_tables.py", "samples": [[b, s] for b, s, _ in found],
            "segments": run_length(found)}
    args.out.write_text(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(found)} samples, b{found[0][0]}..b{found[-1][0]}, {len(data['segments'])} segments -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
