"""Offline generator: the llama.cpp build each Ollama release bundles as its llama-server runner (ollama/ollama's
LLAMA_CPP_VERSION file at every release tag from v0.30.0, when the runner became llama-server), written to
doctor/data/llama_cpp/ollama-builds.json. Reads a local git directory of ollama/ollama (the search tool's `fetch`
snapshot): `python tools/ollama_llama_cpp_builds.py --git-dir /work/.mirror/ollama+ollama/repo`."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "doctor" / "data" / "llama_cpp" / "ollama-builds.json"
RELEASE_TAG = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")
BUILD = re.compile(r"^b(\d{3,6})$")


def _git(git_dir: str, *args: str) -> str | None:
    done = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def builds(git_dir: str) -> dict[str, str]:
    """Ollama release → llama.cpp build number, for every release tag whose tree has LLAMA_CPP_VERSION."""
    tags = [t for t in (_git(git_dir, "tag") or "").split() if RELEASE_TAG.match(t)]
    tags.sort(key=lambda t: tuple(int(p) for p in RELEASE_TAG.match(t).groups()))
    out = {}
    for tag in tags:
        text = (_git(git_dir, "show", f"{tag}:LLAMA_CPP_VERSION") or "").strip()
        if (match := BUILD.match(text)) is not None:
            out[tag.removeprefix("v")] = match.group(1)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--git-dir", required=True, help="a git directory of ollama/ollama with its tags")
    args = parser.parse_args()
    table = builds(args.git_dir)
    if not table:
        parser.error(f"no release tag with LLAMA_CPP_VERSION under {args.git_dir}")
    head = (_git(args.git_dir, "rev-parse", "HEAD") or "").strip()
    document = {"source": f"ollama/ollama LLAMA_CPP_VERSION at each release tag (snapshot {head[:12]})",
                "releases": table}
    OUT.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    print(f"{len(table)} releases ({next(iter(table))}..{list(table)[-1]}) -> {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
