"""What a pasted line about an unknown architecture or model type means, read from the derived model-support
table (doctor/engines/model_support.py): the signatures of rules/arch.toml (and DSP057) capture the name
(`log_architecture`, `log_model_type`), and `log.model_support` says which engine and transformers releases
know it, and, where the log states its engine release, whether that release registers it. The engines are the
table's own (each named as the registry displays it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doctor.diagnose.read import first_captures
from doctor.engines import model_support as table
from doctor.pipeline.facts import Facts

GROUPS = {"log_architecture": "architecture", "log_model_type": "model_type"}


def log_view(hits: Sequence[Any], engine: str | None, facts: Facts) -> dict[str, Any]:
    """`log.architecture`, `log.model_type` and `log.model_support` for the rules that explain such a line."""
    names = first_captures(hits, GROUPS)
    if not names:
        return {}
    view: dict[str, Any] = {}
    if "architecture" in names:
        view.update(_architecture(names["architecture"], engine, facts))
    if "model_type" in names:
        view.update(_model_type(names["model_type"], engine))
    return {**names, "model_support": view}


def _engines(engine: str | None) -> list[str]:
    return [engine] if engine in table.engines() else table.engines()


def _display(engine: str) -> str:
    from doctor.engines import registry

    known = registry.get(engine)
    return known.display_name if known is not None else engine


def _stated(engine: str | None, facts: Facts) -> str | None:
    library = facts.library(engine) if engine in table.engines() else None
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
    return {"status": status, "release": stated or "not stated", "registered_text": registered,
            "class_text": _class_text(arch, first_class), "fix": _fix(arch, engine, release, status, first_class)}


def _class_text(arch: str, first_class: str | None) -> str:
    if first_class:
        return (f"transformers has the class {arch} from {_since(table.TRANSFORMERS, first_class)} (what a "
                "Transformers-backend fallback needs)")
    return (f"no transformers release up to {table.newest(table.TRANSFORMERS)} has a class {arch}, so only the "
            "checkpoint's own code (auto_map, with --trust-remote-code) is a fallback")


def _registered_text(engine: str, arch: str) -> str:
    name = _display(engine)
    spans = table.span_text(engine, table.ARCHITECTURES, arch)
    if spans == "none":
        return f"no {name} release up to {table.newest(engine)} registers {arch}"
    known = table.releases(engine)
    if spans.startswith(known[0]):
        spans += f" (the table starts at {known[0]}, its first release with SM12x builds)"
    return f"{name} registers {arch} in {spans}"


def _since(package: str, first: str) -> str:
    """A first release, said as such only where the table does not start there."""
    known = table.releases(package)
    return f"{first} (or earlier: the table starts there)" if known and first == known[0] else first


def _fix(arch: str, engine: str | None, release: str | None, status: str, first_class: str | None) -> str:
    if status == "registered" and release is not None:
        spec = table.requirement(str(engine), release) or ""
        pin = f"pip install 'transformers>={first_class}'" if first_class else "a transformers that has its class"
        return (f"{_display(str(engine))} {release} registers {arch}, so its model module failed to load: read the "
                f"import error above the line; when it names transformers, {pin} (inside its requirement "
                f"transformers{spec}) or take a newer {_display(str(engine))}")
    fixes = []
    for name in _engines(engine):
        first = table.first_release(name, table.ARCHITECTURES, arch, after=release if status == "unregistered"
                                    else None)
        if first:
            fixes.append(f"pip install '{name}>={first}' (the first {_display(name)} release that registers {arch})")
    if not fixes:
        return (f"no release up to the data registers {arch}: a newer release or source build, or the checkpoint's "
                "own code with --trust-remote-code (and --model-impl transformers)")
    return "; or ".join(fixes)


def _model_type(model_type: str, engine: str | None) -> dict[str, Any]:
    first = table.first_release(table.TRANSFORMERS, table.MODEL_TYPES, model_type)
    own = {name: found for name in _engines(engine)
           if (found := table.first_release(name, table.CONFIG_TYPES, model_type))}
    if first:
        text = (f"transformers knows model type `{model_type}` from {_since(table.TRANSFORMERS, first)} (derived "
                "from PyPI's wheels)")
        fix = f"pip install 'transformers>={first}' inside the engine's own requirement"
    else:
        text = (f"no transformers release up to {table.newest(table.TRANSFORMERS)} knows model type `{model_type}`: "
                "the checkpoint needs its own configuration code (auto_map in config.json, --trust-remote-code) or "
                "a transformers built from source")
        fix = "add --trust-remote-code if config.json has an auto_map, else a transformers built from source"
    if own:
        text += "; " + "; ".join(f"{_display(name)} loads it with a configuration of its own from {found}"
                                 for name, found in own.items())
        # an engine release that predates its own configuration may cap transformers below the first that knows
        # the type (vLLM 0.16 requires transformers<5; qwen3_5 is in 5.2.0): the engine upgrade is the fix there
        fix = "; or ".join([*(f"pip install '{name}>={found}' (it loads `{model_type}` with its own configuration)"
                              for name, found in own.items()), fix])
    return {"type_text": text, "type_first": first or "none", "type_fix": fix, **_pinned_fixes(model_type)}


def _pinned_fixes(model_type: str) -> dict[str, Any]:
    """`<engine>_type_fix`: the first release of each engine that loads the type (its own configuration, or an
    exact transformers pin that knows it: upgrading transformers alone would break the pin), and `<engine>_loads`
    whether there is one."""
    fixes: dict[str, Any] = {}
    for name in table.engines():
        found = table.first_loading_release(name, model_type)
        fixes[f"{name}_loads"] = found is not None
        if found is None:
            continue
        release, transformers = found
        how = (f"it loads `{model_type}` with a configuration of its own" if transformers is None else
               f"it pins transformers=={transformers}, which knows `{model_type}`")
        fixes[f"{name}_type_fix"] = f"pip install '{name}>={release}' ({_display(name)} {release}: {how})"
    return fixes
