"""Engines by name: the built-in ones, plus any a third party registers under the entry-point group
`sm120_doctor.engines` (the entry point names a subclass of doctor.engines.base.Engine)."""

from __future__ import annotations

import importlib
from functools import cache

from doctor.engines.base import Engine
from doctor.errors import InputError
from doctor.facts import Facts, Library

ENTRY_POINT_GROUP = "sm120_doctor.engines"
BUILTIN = {
    "sglang": "doctor.engines.sglang.engine:SGLang",
    "vllm": "doctor.engines.vllm.engine:VLLM",
    "tensorrt-llm": "doctor.engines.tensorrt_llm.engine:TensorRTLLM",
    "llama.cpp": "doctor.engines.llama_cpp.engine:LlamaCpp",
}


def _load(target: str) -> type[Engine]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


@cache
def engines() -> dict[str, Engine]:
    """Every engine, built-ins first in their order of preference, then plug-ins by name."""
    found = {name: _load(target)() for name, target in BUILTIN.items()}
    for name, engine in sorted(_plugins().items()):
        found.setdefault(name, engine)
    return found


def _plugins() -> dict[str, Engine]:
    from importlib.metadata import entry_points

    out: dict[str, Engine] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = point.load()
        except Exception as exc:  # a broken plug-in is one clear error, not a traceback
            raise InputError(f"engine plug-in {point.name!r} ({point.value}) failed to load: {exc}") from exc
        if not (isinstance(cls, type) and issubclass(cls, Engine)):
            raise InputError(f"engine plug-in {point.name!r} ({point.value}) is not a doctor Engine class")
        out[cls.name] = cls()
    return out


def get(name: str) -> Engine | None:
    return engines().get(name)


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
