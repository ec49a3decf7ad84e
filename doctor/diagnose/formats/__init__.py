"""The log formats: the generic ones here (environment dumps, launch commands, container images, Ollama,
LM Studio, tracebacks), each
engine's own from its plug-in (`Engine.log_module`, e.g. doctor/engines/vllm/logs.py)."""

from __future__ import annotations

import importlib

from doctor.diagnose.formats import (
    collect_env,
    command,
    host,
    images,
    lmstudio,
    memory,
    ollama,
    toolkit,
    traceback,
)
from doctor.diagnose.formats.base import LineRule


def engine_log_modules() -> list:
    from doctor.engines import registry

    return [importlib.import_module(engine.log_module) for engine in registry.engines().values()
            if engine.log_module]


def _engine_names() -> set[str]:
    from doctor.engines import registry

    return {engine.name for engine in registry.engines().values()} | {
        engine.package for engine in registry.engines().values()}


def all_rules() -> tuple[LineRule, ...]:
    engines = engine_log_modules()
    packages = {name: lib for module in engines for name, lib in getattr(module, "PACKAGES", {}).items()}
    own = tuple(rule for module in engines for rule in module.RULES)
    serving = frozenset(lib for lib in packages.values() if lib in _engine_names())
    return (*own, *ollama.RULES, *lmstudio.RULES, *collect_env.rules(packages, serving), *command.rules(),
            *images.RULES,
            *host.RULES, *toolkit.RULES, *traceback.RULES, *memory.RULES)
