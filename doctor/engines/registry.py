"""Engines by name: the built-in ones, plus any a third party registers under the entry-point group
`sm120_doctor.engines` (the entry point names a subclass of doctor.engines.spi.Engine). This is the one
place that knows every engine."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from packaging.version import InvalidVersion, Version

from doctor.engines.llama_cpp.bundles import Ollama
from doctor.engines.llama_cpp.engine import LlamaCpp
from doctor.engines.llama_cpp.lmstudio import LMStudio
from doctor.engines.sglang.engine import SGLang
from doctor.engines.spi import ENTRY_POINT_GROUP, Engine
from doctor.engines.tensorrt_llm.engine import TensorRTLLM
from doctor.engines.vllm.engine import VLLM
from doctor.errors import InputError, UsageError
from doctor.pipeline.facts import Facts, Library
from doctor.versions import KNOWN_PACKAGES

_SPEC = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([A-Za-z0-9_.+-]+)\s*$")
_NAME = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*$")
# setuptools-scm's version for a checkout with no release tag in reach (a fork or a shallow clone of vLLM built
# from source): it names no release, so the engine is evaluated as one whose release is not stated
_TAGLESS = re.compile(r"0\.1\.dev\d+(\+[A-Za-z0-9.]+)?")

BUILTIN: tuple[type[Engine], ...] = (SGLang, VLLM, TensorRTLLM, LlamaCpp)  # in check's order of preference
# Programs that run a built-in engine's build (Ollama: llama.cpp's llama-server; LM Studio: llama.cpp in its
# runtimes): they may be named without a release and are then evaluated at each of theirs, but are never analysed
# themselves. One whose releases map to no build (`runs_unstated`) has that engine evaluated at each of its own.
BUNDLES: tuple[type[Engine], ...] = (Ollama, LMStudio)


@cache
def bundles() -> dict[str, Engine]:
    return {cls.name: cls() for cls in BUNDLES}


@cache
def engines() -> dict[str, Engine]:
    """Every engine, built-ins first in their order of preference, then plug-ins by name."""
    found = {cls.name: cls() for cls in BUILTIN}
    for name, engine in sorted(_plugins().items()):
        found.setdefault(name, engine)
    return found


def _plugins() -> dict[str, Engine]:
    from doctor.probe.distributions import entry_points

    out: dict[str, Engine] = {}
    for _, name, target in entry_points(ENTRY_POINT_GROUP):
        try:
            cls = _load(target)
        except Exception as exc:  # a broken plug-in is one clear error, not a traceback
            raise InputError(f"engine plug-in {name!r} ({target}) failed to load: {exc}") from exc
        if not (isinstance(cls, type) and issubclass(cls, Engine)):
            raise InputError(f"engine plug-in {name!r} ({target}) is not a doctor Engine class")
        out[cls.name] = cls()
    return out


def _load(target: str) -> object:
    import importlib

    module, _, attr = target.strip().partition(":")
    loaded: object = importlib.import_module(module.strip())
    for part in attr.strip().split(".") if attr.strip() else ():
        loaded = getattr(loaded, part)
    return loaded


def rule_files() -> list[tuple[str | None, Path]]:
    """(engine name, rule file) for every engine that ships its own rules (Engine.rules_folder)."""
    return [(name, path) for name, engine in engines().items() for path in engine.rule_files()]


def get(name: str) -> Engine | None:
    return engines().get(name) or bundles().get(name)


def by_package(package: str) -> Engine | None:
    return next((e for e in engines().values() if e.package == package), None)


def get_for(library: Library) -> Engine:
    engine = by_package(library.name)
    if engine is None:
        raise InputError(f"no engine knows the package {library.name!r}")
    return engine


def engines_to_analyze(facts: Facts) -> list[tuple[Engine, Library]]:
    """What-if engines (`--engine NAME==VER`) when any is given, else every installed engine that serves the
    model; with none, an engine's assumed version for it (llama.cpp for a GGUF file), else every one installed."""
    present = [(e, lib) for e in engines().values() if (lib := e.library(facts)) is not None]
    what_if = [(e, lib) for e, lib in present if lib.what_if]
    if what_if:
        return what_if
    serving = [(e, lib) for e, lib in present if e.serves(facts.model)]
    assumed = [(e, lib) for e in engines().values() if (lib := e.assumed_library(facts.model)) is not None]
    return serving or assumed or present


def split_engine_specs(specs: Sequence[str]) -> tuple[list[str], list[str]]:
    """`--engine` values → (`NAME==VERSION` specs, engine names given without a release). Only a serving
    engine (plug-ins included) may be named without a release; a package needs its version. A serving engine's
    tagless source-build version (0.1.dev20051+g487ecf187) counts as no release."""
    versioned: list[str] = []
    unstated: list[str] = []
    for spec in specs:
        match = _NAME.match(spec) or _tagless_engine_spec(spec)
        if match is None:
            versioned.append(spec)
            continue
        engine = engine_named(match.group(1))
        if engine is None:
            raise UsageError(f"--engine {spec!r}: a package needs its version (NAME==VERSION); only a serving "
                             f"engine may be named without one ({', '.join(engines())})")
        name = unstated_engine_of(engine)
        if name not in unstated:
            unstated.append(name)
    for spec in list(versioned):  # a bundling program's release whose build is not derived: its engine unstated
        engine = engine_named(spec.split("==", 1)[0].strip())
        runs = getattr(engine, "runs_unstated", None) if engine is not None else None
        if runs and runs not in unstated:
            unstated.append(runs)
    return versioned, unstated


def unstated_engine_of(engine: Engine) -> str:
    """The engine evaluated when `engine` is named without a release: itself, or for a bundling program whose
    releases map to no build (LM Studio's runtimes), the engine it runs."""
    return getattr(engine, "runs_unstated", None) or engine.name


def _tagless_engine_spec(spec: str) -> re.Match[str] | None:
    match = _SPEC.match(spec)
    return match if match and tagless_build(match.group(2)) and engine_named(match.group(1)) else None


def tagless_build(version: str) -> bool:
    """A version setuptools-scm gives a source checkout with no release tag in reach: it names no release."""
    return _TAGLESS.fullmatch(version) is not None


def engine_named(name: str) -> Engine | None:
    """The engine a user's word names (its name, package or a distribution), None for any other word."""
    package = _engine_names().get(name.lower()) or _engine_names().get(name.lower().replace("_", "-"))
    if package:
        return by_package(package)
    return bundles().get(name.lower()) or bundles().get(KNOWN_PACKAGES.get(name.lower(), ""))


def parse_engine_spec(spec: str) -> Library:
    """`sglang==0.5.8` → a what-if Library fact for that exact version."""
    match = _SPEC.match(spec)
    if not match:
        raise UsageError(f"--engine {spec!r}: expected NAME==VERSION, e.g. sglang==0.5.8")
    name, version = match.group(1).lower(), match.group(2)
    key = package_named(name)
    details: dict[str, object] = {}
    if key == "llama.cpp":
        version, details = _llama_cpp_release(version)
    if key == "lmstudio":
        version, details = _lmstudio_runtime(version)
    details = {**details, **release_details(key, version)}
    if key is None:
        known = ", ".join(sorted(set({**KNOWN_PACKAGES, **_engine_names()}.values())))
        raise UsageError(f"--engine {spec!r}: unknown package {name!r} (known: {known})")
    try:
        Version(version)
    except InvalidVersion as exc:
        raise UsageError(f"--engine {spec!r}: {version!r} is not a version") from exc
    return Library(name=key, version=version, location=None, what_if=True, details=details)


def _lmstudio_runtime(version: str) -> tuple[str, dict[str, object]]:
    """An LM Studio runtime as its settings show it (`v2.27.1`) or as its folder is named
    (`llama.cpp-win-x86_64-nvidia-cuda12-avx2-2.7.1`: the version plus what the name states)."""
    from doctor.engines.llama_cpp.lmstudio import parse_runtime

    runtime = parse_runtime(version)
    return (runtime.version, runtime.details()) if runtime else (version.removeprefix("v"), {})


def _llama_cpp_release(version: str) -> tuple[str, dict[str, object]]:
    """llama.cpp's release tag (b7551) names build 7551; an official release asset's name
    (`llama-b9835-bin-win-cuda-12.4-x64.zip`) its build and what the asset carries."""
    if "cuda-" in version:
        from doctor.engines.llama_cpp.archlists import asset_details, parse_asset

        if (asset := parse_asset(version)) is not None:
            return asset.build, asset_details(asset)
    return (version[1:] if re.fullmatch(r"b\d+", version) else version), {}


def bundled_libraries(library: Library) -> list[Library]:
    """What a what-if runs that is not a pip pin (doctor/engines/pins.py has those): an Ollama release runs the
    llama.cpp build it bundles as llama-server."""
    if library.name != "ollama":
        return []
    from doctor.engines.llama_cpp.bundles import ollama_build, ollama_details

    if (build := ollama_build(library.version)) is None:
        return []
    details = {**ollama_details(library.version), "implied_by": f"ollama=={library.version}"}
    return [Library(name="llama.cpp", version=build, what_if=True, details=details)]


def release_details(package: str | None, version: str) -> dict[str, object]:
    """What the doctor's tables say of a bundling program's release (Ollama: its runner, vendored llama.cpp and
    CUDA builds, read by rules as `lib.ollama.*`); empty for any other package."""
    if package == "lmstudio":
        from doctor.engines.llama_cpp.lmstudio import runtime_details

        return runtime_details(version)
    if package != "ollama":
        return {}
    from doctor.engines.llama_cpp.bundles import release_details as ollama_release_details

    return ollama_release_details(version)


def bundle_note(library: Library) -> str | None:
    """Where the doctor's table of a bundling program's releases ends (an Ollama release it does not hold)."""
    if library.name == "lmstudio" and library.what_if:
        from doctor.engines.llama_cpp.lmstudio import runtime_note

        return runtime_note(library.version)
    if library.name != "ollama" or not library.what_if:
        return None
    from doctor.engines.llama_cpp.bundles import ollama_release, ollama_releases

    if ollama_release(library.version) is not None:
        return None
    known = ollama_releases()
    return (f"Ollama {library.version} is not in the doctor's release table ({known[0]}-{known[-1]}): the llama.cpp "
            f"build it runs is unknown; state it with --engine llama.cpp==bNNNN (its log's build_info line)")


def bundled_flags(library: Library, facts: Facts) -> list[str]:
    """The flags the program that bundles this build passes it, from the program's own settings and what it reads
    of the machine (Ollama: its OLLAMA_* environment, and the context it picks from the GPUs' memory and the
    model's trained context → llama-server's flags); none for a build nothing bundles."""
    implied_by = str(library.details.get("implied_by", ""))
    if library.name != "llama.cpp" or not implied_by.startswith("ollama=="):
        return []
    from doctor.engines.llama_cpp.bundles import ollama_server_flags

    totals = [g.memory_total_bytes for g in facts.gpus if g.memory_total_bytes]
    train = facts.model.max_position_embeddings if facts.model is not None else None
    return ollama_server_flags(facts.env, implied_by.removeprefix("ollama=="), totals, train)


def package_named(name: str) -> str | None:
    """The key a package is filed under in Facts.libraries, for a name as users and rules write it (an engine's
    name or distribution, plug-ins included); None for a package the doctor does not track."""
    name = name.lower()
    return KNOWN_PACKAGES.get(name) or _engine_names().get(name) or _engine_names().get(name.replace("_", "-"))


def _engine_names() -> dict[str, str]:
    """Names of every registered engine (plug-ins included) → the package whose version it is."""
    return {key.lower(): engine.package for engine in engines().values()
            for key in (engine.name, engine.package, *engine.distributions)}


def engine_distributions() -> dict[str, tuple[str, ...]]:
    """package → distribution names, for every registered engine that installs as a Python distribution."""
    return {e.package: e.distributions for e in engines().values() if e.distributions}


def scanned_engine_packages() -> tuple[str, ...]:
    """The packages of the engines whose compiled CUDA extensions the probe reads."""
    return tuple(e.package for e in engines().values() if e.scan_binaries)
