"""The per-release vLLM facts read from the wheels (doctor/data/vllm, written by
`python -m tools.vllm_facts`): loaded one release at a time, and the index of which releases
have each flag and environment variable."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.spi import release as release_of

DATA = Path(__file__).resolve().parents[2] / "data" / "vllm"  # written by tools/vllm_facts


def _read(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@cache
def index() -> dict[str, Any]:
    return _read("index.json")


@cache
def _flashinfer_pins() -> dict[str, Any]:
    return _read("flashinfer-pins.json")  # written by tools/vllm_flashinfer_pins.py from each wheel's METADATA


def flashinfer_pin(version: Version) -> tuple[bool, dict[str, Any] | None]:
    """(whether the doctor read this exact release's METADATA, its `flashinfer-python==X` requirement or None)."""
    entry = _flashinfer_pins().get(str(version))
    return (entry is not None, entry["flashinfer-python"] if entry else None)


def releases() -> tuple[str, ...]:
    return tuple(index()["releases"])


def known_release(version: Version) -> str:
    """The release whose facts stand for `version`: the newest known one at or below it (patch releases
    between two known ones behave as the older), the oldest known one below the range."""
    target = release_of(version)
    chosen = releases()[0]
    for candidate in releases():
        if Version(candidate) <= target:
            chosen = candidate
    return chosen


@cache
def facts(release: str) -> dict[str, Any]:
    return _read(f"vllm-{release}.json")


def facts_for(version: Version) -> dict[str, Any]:
    return facts(known_release(version))


def in_ranges(release: str, spans: list[list[str]]) -> bool:
    v = Version(release)
    return any(Version(first) <= v <= Version(last) for first, last in spans)


def flag_history(flag: str) -> dict[str, Any] | None:
    return index()["flags"].get(flag)


def env_history(name: str) -> list[list[str]] | None:
    return index()["envs"].get(name)


def release_spans(present: Sequence[str], releases: Sequence[str]) -> list[list[str]]:
    """Consecutive runs of known releases: ["0.9.2", "0.10.0", "0.12.0"] -> [["0.9.2", "0.10.0"], ["0.12.0", ...]]."""
    out: list[list[str]] = []
    index = {r: i for i, r in enumerate(releases)}
    for release in present:
        if out and index[release] == index[out[-1][1]] + 1:
            out[-1][1] = release
        else:
            out.append([release, release])
    return out


def describe_spans(spans: list[list[str]]) -> str:
    return ", ".join(first if first == last else f"{first}-{last}" for first, last in spans)


@cache
def torch_pins() -> dict[str, Any]:
    """torch version -> the NCCL and cuDNN its Linux x86_64 PyPI wheel pins (torch-nccl.json, tools/vllm_facts)."""
    return _read("torch-nccl.json")
