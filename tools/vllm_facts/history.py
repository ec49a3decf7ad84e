"""The index over every release's facts: which releases have each flag spelling and each environment
variable, as ranges of consecutive known releases, so a flag's "added in" / "removed in" is a lookup."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.vllm.knowledge import release_spans


def build_index(folder: Path) -> dict[str, Any]:
    files = sorted(folder.glob("vllm-*.json"), key=lambda p: Version(p.stem.removeprefix("vllm-")))
    releases = [p.stem.removeprefix("vllm-") for p in files]
    flags: dict[str, list[str]] = {}
    takes_value: dict[str, Any] = {}
    envs: dict[str, list[str]] = {}
    alias_of: dict[str, str] = {}
    for path, release in zip(files, releases, strict=True):
        facts = json.loads(path.read_text(encoding="utf-8"))
        for name, entry in facts["flags"].items():
            alias_of.update({alias: name for alias in entry.get("aliases", []) if alias.startswith("--")})
            for spelling in spellings(name, entry):
                flags.setdefault(spelling, []).append(release)
                takes_value[spelling] = False if spelling in negations(name, entry) else entry.get("takes_value", True)
        for name in facts["envs"]["table"]:
            envs.setdefault(name, []).append(release)
    return {"package": "vllm", "generator": "python -m tools.vllm_facts", "releases": releases,
            "flags": {k: {"releases": release_spans(v, releases), "takes_value": takes_value[k]}
                      for k, v in sorted(flags.items())},
            "alias_of": dict(sorted(alias_of.items())),
            "envs": {k: release_spans(v, releases) for k, v in sorted(envs.items())}}


def spellings(name: str, entry: dict[str, Any]) -> list[str]:
    return [name, *entry.get("aliases", []), *negations(name, entry)]


def negations(name: str, entry: dict[str, Any]) -> list[str]:
    """The spellings that turn a BooleanOptionalAction flag off (recorded per release; argparse's `--no-X`)."""
    if not entry.get("boolean_optional") or not name.startswith("--"):
        return []
    return entry.get("negations", ["--no-" + name[2:]])


