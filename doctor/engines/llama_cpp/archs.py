"""Which GGUF architectures (`general.architecture`) a llama.cpp build loads: the names of src/llama-arch.cpp's
LLM_ARCH_NAMES at sampled builds (doctor/data/llama_cpp/archs.json, run-length, provenance inside; regenerate with
tools/llama_cpp_archs.py). llama.cpp refuses any other name outright: `llama_model_create` throws "unknown model
architecture: '<name>'" when llm_arch_from_string finds none (src/llama-model.cpp). A build between two samples
that differ on a name is not settled, nor is a name no sample knows on a build newer than the samples."""

from __future__ import annotations

import json
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "data" / "llama_cpp" / "archs.json"
KNOWN, UNKNOWN, UNSETTLED, NEVER = "known", "unknown", "unsettled", "never"


@dataclass(frozen=True)
class ArchVerdict:
    """`status`: known / unknown (the build refuses the name) / unsettled (the samples around the build differ,
    or the build is newer than every sample and none knows it) / never (no sampled build knows the name: a fork's
    architecture, a mis-converted GGUF, or one newer than the data). `first_build`: the first sample that knows
    it (for good: after its last drop), `before_first`: the sample just before that one (the bracket)."""

    arch: str
    build: int | None
    status: str
    first_build: int | None
    before_first: int | None
    newest_sample: int
    between: tuple[int, int] | None = None


@cache
def _table() -> dict[str, Any]:
    return json.loads(DATA.read_text(encoding="utf-8"))


@cache
def _samples() -> tuple[tuple[int, frozenset[str]], ...]:
    """(build, names) per sample, the segments expanded to every sampled build."""
    builds = [int(b) for b, _ in _table()["samples"]]
    names: frozenset[str] = frozenset()
    out: list[tuple[int, frozenset[str]]] = []
    for segment in _table()["segments"]:
        names = (names | frozenset(segment["add"])) - frozenset(segment["drop"])
        out += [(b, names) for b in builds if segment["first"] <= b <= segment["last"]]
    return tuple(out)


def sampled_builds() -> tuple[int, ...]:
    return tuple(build for build, _ in _samples())


def first_known(arch: str) -> tuple[int | None, int | None]:
    """(the sample before, the first sample from which every later sample knows `arch`); (None, None) when the
    newest sample does not know it; (None, first sample) when every sample does."""
    samples = _samples()
    if arch not in samples[-1][1]:
        return None, None
    index = len(samples) - 1
    while index > 0 and arch in samples[index - 1][1]:
        index -= 1
    return (samples[index - 1][0] if index else None), samples[index][0]


def verdict(arch: str, build: int | None) -> ArchVerdict:
    samples = _samples()
    builds = [b for b, _ in samples]
    before, first = first_known(arch)
    base = dict(arch=arch, build=build, first_build=first, before_first=before, newest_sample=builds[-1])
    if build is None:  # unsettled where some sampled build refuses it; a name every sample knows is known
        return ArchVerdict(status=NEVER if first is None else UNSETTLED if before is not None else KNOWN, **base)
    if first is None:
        known_once = any(arch in names for _, names in samples)
        return ArchVerdict(status=UNKNOWN if known_once and build <= builds[-1] else NEVER, **base)
    at_or_after = bisect_left(builds, build)
    if at_or_after < len(builds) and builds[at_or_after] == build:
        return ArchVerdict(status=KNOWN if arch in samples[at_or_after][1] else UNKNOWN, **base)
    if build > builds[-1]:
        return ArchVerdict(status=KNOWN, **base)  # the newest sample knows it and no name was dropped after
    if at_or_after == 0:  # older than every sample: refused when the name came later and no sample before had it
        if before is None:
            return ArchVerdict(status=KNOWN, **base)  # every sample knows it: names are added, the data drops none
        never_dropped = all(arch not in names for _, names in samples[:bisect_right(builds, before)])
        return ArchVerdict(status=UNKNOWN if never_dropped else UNSETTLED, **base)
    low, high = samples[at_or_after - 1], samples[at_or_after]
    if (arch in low[1]) == (arch in high[1]):
        return ArchVerdict(status=KNOWN if arch in low[1] else UNKNOWN, **base)
    return ArchVerdict(status=UNSETTLED, between=(low[0], high[0]), **base)


def _release_segments(section: str, key: str) -> tuple[tuple[str, str, frozenset[str]], ...]:
    """(first release, last release, names) per run-length segment of `section.key`: each segment adds and drops
    names from the one before."""
    names: frozenset[str] = frozenset()
    out = []
    for segment in _table().get(section, {}).get(key, ()):
        names = (names | frozenset(segment["add"])) - frozenset(segment["drop"])
        out.append((segment["first"], segment["last"], names))
    return tuple(out)


# --- Ollama --------------------------------------------------------------------------------------------------


@cache
def _ollama_segments() -> tuple[tuple[str, str, frozenset[str]], ...]:
    return _release_segments("ollama", "vendored_segments")


def _release_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) if p.isdigit() else 0 for p in version.removeprefix("v").split("."))


def ollama_first_release(arch: str) -> str | None:
    """The first Ollama release that loads `arch`: before 0.30.0 through the llama.cpp it vendors or its own Go
    engine; from 0.30.0 through the llama-server build it runs (the first whose build a sample at or below it
    knows the name from). None when no release in the data does."""
    for first, _, names in _ollama_segments():
        if arch in names:
            return first
    _, first_build = first_known(arch)
    if first_build is None:
        return None
    servers = _table().get("ollama", {}).get("llama_server_builds", {})
    for version in sorted(servers, key=_release_key):
        build = servers[version]
        if build is not None and build >= first_build:
            return version
    return None


def _no_ollama_release() -> str:
    servers = _table().get("ollama", {}).get("llama_server_builds", {})
    newest = max(servers, key=_release_key, default=None)
    return f"no release up to {newest} (llama.cpp b{servers[newest]}) knows it" if newest else "not derived"


def ollama_knows(version: str, arch: str) -> bool | None:
    """Whether Ollama `version` (before 0.30.0) loads `arch`; None for a release outside the pre-0.30 data."""
    key = _release_key(version)
    for first, last, names in _ollama_segments():
        if _release_key(first) <= key <= _release_key(last):
            return arch in names
    return None


@cache
def _engine_segments() -> tuple[tuple[str, str, frozenset[str]], ...]:
    return _release_segments("ollama", "engine_required_segments")


def ollama_status(version: str, arch: str) -> str | None:
    """Before 0.30.0: "known" when the vendored llama.cpp lists `arch`; "engine" when only Ollama's Go engine
    takes it first (OllamaEngineRequired: a GGUF the engine cannot load falls back to the vendored llama.cpp,
    which refuses it); "unknown" otherwise. None for a release outside the pre-0.30 data."""
    vendored = ollama_knows(version, arch)
    if vendored is None:
        return None
    if vendored:
        return KNOWN
    key = _release_key(version)
    engine = any(_release_key(first) <= key <= _release_key(last) and arch in names
                 for first, last, names in _engine_segments())
    return "engine" if engine else UNKNOWN


# --- llama-cpp-python ----------------------------------------------------------------------------------------


@cache
def _python_segments() -> tuple[tuple[str, str, frozenset[str]], ...]:
    return _release_segments("llama_cpp_python", "segments")


def python_status(version: str, arch: str) -> str | None:
    """Whether the llama.cpp llama-cpp-python `version` vendors lists `arch`; None for a release outside the data."""
    key = _release_key(version)
    segments = _python_segments()
    for first, last, names in segments:
        if _release_key(first) <= key <= _release_key(last):
            return KNOWN if arch in names else UNKNOWN
    if segments and key < _release_key(segments[0][0]) and arch not in segments[0][2]:
        return UNKNOWN  # older than every release read, and the first one read lacks it too
    return None


def python_first_release(arch: str) -> str:
    for first, _, names in _python_segments():
        if arch in names:
            return f"{first} or newer"
    newest = _python_segments()[-1][1] if _python_segments() else None
    return f"no release up to {newest} vendors a llama.cpp that knows it" if newest else "not derived"


def rule_view(arch: str | None, build: int | None, ollama: str | None = None,
              python: str | None = None) -> dict[str, Any]:
    """What the rules read of the model's architecture on this build, or, when no build number is known, on
    Ollama `ollama`'s own runners before 0.30.0 or the llama.cpp llama-cpp-python `python` vendors
    (`llama_cpp.arch_*`)."""
    if not arch:
        return {"model_arch": None, "arch_status": None}
    view = _build_view(arch, build)
    view["arch_python_first"] = python_first_release(arch)
    status = ollama_status(ollama, arch) if ollama else None
    if status is not None:
        view.update(arch_status=status, arch_runtime=f"Ollama {ollama} (its vendored llama.cpp)")
    elif python and build is None and (status := python_status(python, arch)) is not None:
        view.update(arch_status=status, arch_runtime=f"llama-cpp-python {python} (its vendored llama.cpp)")
    return view


def _build_view(arch: str, build: int | None) -> dict[str, Any]:
    found = verdict(arch, build)
    before, first = found.before_first, found.first_build
    bracket = (f"b{first}" if before is None or first is None else
               f"b{first} (the first sampled build that knows it; b{before}, the sample before, does not)")
    ollama = ollama_first_release(arch)
    return {"model_arch": arch, "arch_status": found.status, "arch_first_build": first,
            "arch_runtime": f"llama.cpp b{build}" if build is not None else "llama.cpp (build not known)",
            "arch_first_known": bracket if first is not None else "no sampled build",
            "arch_between": f"b{found.between[0]} and b{found.between[1]}" if found.between else "no two samples",
            "arch_newest_sample": f"b{found.newest_sample}",
            "arch_ollama_first": f"Ollama {ollama} or newer" if ollama else _no_ollama_release()}
