"""Offline generator: what each Ollama release from 0.6.0 runs, read from ollama/ollama's source at its release tag,
written to doctor/data/llama_cpp/ollama-builds.json. Per release: the tag's date; the llama.cpp it vendors
(LLAMA_CPP_VERSION from 0.30.0; before, Makefile.sync's FETCH_HEAD commit, with the build number where the
commit that set it names one: "ggml update to b7108"); the runner that serves GGML models (from 0.30.0
llama.cpp's llama-server; before, Ollama's own Go engine for the architectures `OllamaEngineRequired` lists
and its cgo llama.cpp runner for the rest); the CUDA architectures of its CUDA presets (CMakePresets.json, or
llama/server/CMakePresets.json from 0.30.0). Reads a local git directory of ollama/ollama (the search tool's
`fetch` snapshot): `python tools/ollama_llama_cpp_builds.py --git-dir /work/.mirror/ollama+ollama/repo`."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent.parent / "doctor" / "data" / "llama_cpp" / "ollama-builds.json"
RELEASE_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
FIRST = (0, 6, 0)
BUILD = re.compile(r"^b(\d{3,6})$")
BUILD_IN_SUBJECT = re.compile(r"\b(?:to|bump) b(\d{4,6})\b", re.IGNORECASE)
FETCH_HEAD = re.compile(r"^FETCH_HEAD=([0-9a-f]{7,40})\s*$", re.MULTILINE)
ENGINE_REQUIRED = re.compile(r"func \(kv KV\) OllamaEngineRequired\(\) bool \{(?P<body>.*?)\n\}", re.DOTALL)
PRESET_FILES = ("llama/server/CMakePresets.json", "CMakePresets.json")


def _git(git_dir: str, *args: str) -> str | None:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def release_tags(git_dir: str) -> list[str]:
    tags = [t for t in (_git(git_dir, "tag") or "").split() if RELEASE_TAG.match(t)]
    tags = [t for t in tags if tuple(int(p) for p in RELEASE_TAG.match(t).groups()) >= FIRST]
    return sorted(tags, key=lambda t: tuple(int(p) for p in RELEASE_TAG.match(t).groups()))


def vendored_llama_cpp(git_dir: str, tag: str) -> dict[str, Any]:
    """The llama.cpp a tag vendors: its build number where a source states one, the commit, and where both came from."""
    version = (_git(git_dir, "show", f"{tag}:LLAMA_CPP_VERSION") or "").strip()
    if (match := BUILD.match(version)) is not None:
        return {"build": match.group(1), "commit": None, "source": f"LLAMA_CPP_VERSION @ {tag}"}
    sync = _git(git_dir, "show", f"{tag}:Makefile.sync") or ""
    if (head := FETCH_HEAD.search(sync)) is None:
        return {"build": None, "commit": None, "source": f"no LLAMA_CPP_VERSION or Makefile.sync @ {tag}"}
    commit = head.group(1)
    return {"build": _build_named_by_sync(git_dir, commit, tag), "commit": commit,
            "source": f"Makefile.sync FETCH_HEAD @ {tag}" + _sync_subject_note(git_dir, commit, tag)}


@cache
def _first_sync(git_dir: str, commit: str, tag: str) -> str:
    """`<hash> <subject>` of the first commit in the tag's history that set FETCH_HEAD to `commit`."""
    log = _git(git_dir, "log", "--reverse", "--format=%h %s", f"-SFETCH_HEAD={commit}", tag, "--",
               "Makefile.sync") or ""
    return log.splitlines()[0] if log.strip() else ""


def _build_named_by_sync(git_dir: str, commit: str, tag: str) -> str | None:
    subject = _first_sync(git_dir, commit, tag).partition(" ")[2]
    if subject.lower().startswith("revert") or (match := BUILD_IN_SUBJECT.search(subject)) is None:
        return None
    return match.group(1)


def _sync_subject_note(git_dir: str, commit: str, tag: str) -> str:
    first = _first_sync(git_dir, commit, tag)
    return f" (set by ollama/ollama {first})" if first else ""


def ollama_engine_architectures(git_dir: str, tag: str) -> list[str]:
    """The GGUF architectures a pre-0.30 release serves with its own Go engine (fs/ggml/ggml.go)."""
    text = _git(git_dir, "show", f"{tag}:fs/ggml/ggml.go") or ""
    if (match := ENGINE_REQUIRED.search(text)) is None:
        return []
    return sorted(set(re.findall(r'"([\w.-]+)"', match.group("body"))))


def cuda_presets(git_dir: str, tag: str) -> dict[str, list[str]]:
    """CUDA preset name → its CMAKE_CUDA_ARCHITECTURES entries, from the first preset file the tag has."""
    for path in PRESET_FILES:
        if (text := _git(git_dir, "show", f"{tag}:{path}")) is None:
            continue
        presets = json.loads(text).get("configurePresets", [])
        found = {p["name"]: p["cacheVariables"]["CMAKE_CUDA_ARCHITECTURES"].split(";") for p in presets
                 if "cuda" in p["name"].lower() and (p.get("cacheVariables") or {}).get("CMAKE_CUDA_ARCHITECTURES")}
        if found:
            return found
    return {}


def release_row(git_dir: str, tag: str) -> dict[str, Any]:
    llama_cpp = vendored_llama_cpp(git_dir, tag)
    server = (_git(git_dir, "show", f"{tag}:LLAMA_CPP_VERSION") or "").strip() != ""
    return {
        "date": (_git(git_dir, "log", "-1", "--format=%cs", tag) or "").strip(),
        "runner": "llama-server" if server else "ollama-engine+llama-runner",
        "llama_cpp": llama_cpp,
        "ollama_engine_architectures": [] if server else ollama_engine_architectures(git_dir, tag),
        "cuda_presets": cuda_presets(git_dir, tag),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", required=True, help="a git directory of ollama/ollama with its tags")
    args = parser.parse_args()
    table = {tag.removeprefix("v"): release_row(args.git_dir, tag) for tag in release_tags(args.git_dir)}
    if not table:
        parser.error(f"no release tag from v{'.'.join(map(str, FIRST))} under {args.git_dir}")
    head = (_git(args.git_dir, "rev-parse", "HEAD") or "").strip()
    document = {"source": f"ollama/ollama at each release tag (snapshot {head[:12]}): LLAMA_CPP_VERSION or "
                          f"Makefile.sync, fs/ggml/ggml.go, CMakePresets.json",
                "releases": table}
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"{len(table)} releases ({next(iter(table))}..{list(table)[-1]}) -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
