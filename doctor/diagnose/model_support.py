"""What a pasted line about an unknown architecture or model type means, read from the derived model-support
table (doctor/engines/model_support.py): the signatures of rules/arch.toml (and DSP057) capture the name
(`log_architecture`, `log_model_type`), and `log.model_support` says which engine and transformers releases
know it, and, where the log states its engine release, whether that release registers it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doctor.engines import model_support as table
from doctor.pipeline.facts import Facts

ENGINES = {"vllm": "vLLM", "sglang": "SGLang"}
GROUPS = {"log_architecture": "architecture", "log_model_type": "model_type"}


def captured(hits: Sequence[Any]) -> dict[str, str]:
    """The first value each capture group took over the log's signature hits."""
    found: dict[str, str] = {}
    for hit in hits:
        for group, key in GROUPS.items():
            if group in hit.groups:
                found.setdefault(key, hit.groups[group])
    return found


def log_view(hits: Sequence[Any], engine: str | None, facts: Facts) -> dict[str, Any]:
    """`log.architecture`, `log.model_type` and `log.model_support` for the rules that explain such a line."""
    names = captured(hits)
    if not names:
        return {}
    view: dict[str, Any] = {}
    if "architecture" in names:
        view.update(_architecture(names["architecture"], engine, facts))
    if "model_type" in names:
        view.update(_model_type(names["model_type"], engine))
    return {**names, "model_support": view}


def _engines(engine: str | None) -> list[str]:
    return [engine] if engine in ENGINES else list(ENGINES)


def _stated(engine: str | None, facts: Facts) -> str | None:
    library = facts.library(engine) if engine in ENGINES else None
    return library.version if library is not None else None


def _architecture(arch: str, engine: str | None, facts: Facts) -> dict[str, Any]:
    stated = _stated(engine, facts)
    release = table.table_release(str(engine), stated) if stated else None
    if stated is None:
        status = "unknown"
    elif release is None:
        status = "not_derived"
    else:
        status = "registered" if table.knows(str(engine), table.ARCHITECTURES, arch, release) else "unregistered"
    registered = "; ".join(_registered_text(name, arch) for name in _engines(engine))
    first_class = table.first_release(table.TRANSFORMERS, table.CLASSES, arch)
    classes = (f"transformers has the class {arch} from {first_class} (what a Transformers-backend fallback needs)"
               if first_class else f"no transformers release up to {table.newest(table.TRANSFORMERS)} has a class "
               f"{arch}, so only the checkpoint's own code (auto_map, with --trust-remote-code) is a fallback")
    return {"status": status, "release": stated or "not stated", "registered_text": registered,
            "class_text": classes, "fix": _fix(arch, engine, release, status, first_class)}


def _registered_text(engine: str, arch: str) -> str:
    name = ENGINES[engine]
    spans = table.span_text(engine, table.ARCHITECTURES, arch)
    if spans == "none":
        return f"no {name} release up to {table.newest(engine)} registers {arch}"
    return f"{name} registers {arch} in {spans}"


def _fix(arch: str, engine: str | None, release: str | None, status: str, first_class: str | None) -> str:
    if status == "registered" and release is not None:
        spec = table.requirement(str(engine), release) or ""
        pin = f"pip install 'transformers>={first_class}'" if first_class else "a transformers that has its class"
        return (f"{ENGINES[str(engine)]} {release} registers {arch}, so its model module failed to load: read the "
                f"import error above the line; when it names transformers, {pin} (inside its requirement "
                f"transformers{spec}) or take a newer {ENGINES[str(engine)]}")
    fixes = []
    for name in _engines(engine):
        first = table.first_release(name, table.ARCHITECTURES, arch, after=release if status == "unregistered"
                                    else None)
        if first:
            fixes.append(f"pip install '{name}>={first}' (the first {ENGINES[name]} release that registers {arch})")
    if not fixes:
        return (f"no release up to the data registers {arch}: a newer release or source build, or the checkpoint's "
                "own code with --trust-remote-code (and --model-impl transformers)")
    return "; or ".join(fixes)


def _model_type(model_type: str, engine: str | None) -> dict[str, Any]:
    first = table.first_release(table.TRANSFORMERS, table.MODEL_TYPES, model_type)
    own = [f"{ENGINES[name]} loads it with a configuration of its own from {found}" for name in _engines(engine)
           if (found := table.first_release(name, table.CONFIG_TYPES, model_type))]
    if first:
        text = f"transformers knows model type `{model_type}` from {first} (derived from PyPI's wheels)"
        fix = f"pip install 'transformers>={first}' inside the engine's own requirement"
    else:
        text = (f"no transformers release up to {table.newest(table.TRANSFORMERS)} knows model type `{model_type}`: "
                "the checkpoint needs its own configuration code (auto_map in config.json, --trust-remote-code) or "
                "a transformers built from source")
        fix = "add --trust-remote-code if config.json has an auto_map, else a transformers built from source"
    if own:
        text += "; " + "; ".join(own)
    return {"type_text": text, "type_first": first or "none", "type_fix": fix}
