"""Attention backends as a wheel defines them: the enum's members, the priority order
`_get_backend_priorities` gives capability 12.0 and 12.1 (from 0.12), and each backend's own
`supports_compute_capability` answer on those GPUs, evaluated on the source (never imported)."""

from __future__ import annotations

import ast
from typing import Any

from doctor.engines.vllm.evaluate import Capability, NotStatic, run_function
from tools.vllm_facts.source import WheelSource, module_of, top_level

ENUM_PLACES = (("vllm/v1/attention/backends/registry.py", "AttentionBackendEnum"),
               ("vllm/attention/backends/registry.py", "AttentionBackendEnum"),
               ("vllm/attention/backends/registry.py", "_Backend"),
               ("vllm/platforms/interface.py", "_Backend"))
PLATFORM = "vllm/platforms/cuda.py"
CAPABILITIES = {"12.0": Capability(12, 0), "12.1": Capability(12, 1)}


def attention_facts(source: WheelSource) -> dict[str, Any]:
    members, where = _enum(source)
    out: dict[str, Any] = {"enum": where, "members": sorted(members)}
    priorities = _priorities(source)
    if priorities:
        out["priorities"] = priorities
    selector = source.function(PLATFORM, "get_attn_backend_cls", "CudaPlatformBase") or \
        source.function(PLATFORM, "get_attn_backend_cls", "CudaPlatform")
    if selector is not None:
        out["selector"] = {"file": PLATFORM, "line": selector.lineno}
    out["supports_capability"] = {name: _supports(source, path) for name, path in sorted(members.items()) if path}
    return out


def _enum(source: WheelSource) -> tuple[dict[str, str | None], dict[str, Any] | None]:
    for path, name in ENUM_PLACES:
        tree = source.tree(path)
        cls = next((n for n in top_level(tree) if isinstance(n, ast.ClassDef) and n.name == name), None) \
            if tree else None
        if cls is None:
            continue
        members: dict[str, str | None] = {}
        for stmt in cls.body:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name) \
                    and stmt.targets[0].id[:1].isupper():
                value = stmt.value
                members[stmt.targets[0].id] = value.value if isinstance(value, ast.Constant) and \
                    isinstance(value.value, str) and value.value.count(".") > 2 else None
        return members, {"class": name, "file": path, "line": cls.lineno}
    return {}, None


def _priorities(source: WheelSource) -> dict[str, Any] | None:
    function = source.function(PLATFORM, "_get_backend_priorities")
    if function is None:
        return None
    out: dict[str, Any] = {"file": PLATFORM, "line": function.lineno}
    for label, cap in CAPABILITIES.items():
        for kind, use_mla in (("mla", True), ("default", False)):
            try:
                out[f"{kind}@{label}"] = run_function(function, {"use_mla": use_mla, "device_capability": cap})
            except NotStatic as exc:
                out[f"{kind}@{label}"] = f"unknown: {exc}"
    return out


def _supports(source: WheelSource, dotted: str) -> dict[str, Any]:
    module, _, cls = dotted.rpartition(".")
    found = _method(source, module, cls, "supports_compute_capability")
    if found is None:
        return {"class": dotted, "answer": "no check (inherits the default: any capability)"}
    path, function = found
    out: dict[str, Any] = {"class": dotted, "file": path, "line": function.lineno}
    for label, cap in CAPABILITIES.items():
        try:
            out[label] = bool(run_function(function, {"capability": cap, "cls": None}))
        except NotStatic as exc:
            out[label] = f"unknown: {exc}"
    return out


def _method(source: WheelSource, module: str, cls: str, name: str, depth: int = 0
            ) -> tuple[str, ast.FunctionDef] | None:
    found = source.lookup(module, cls)
    if found is None or not isinstance(found.node, ast.ClassDef) or depth > 6:
        return None
    own = next((m for m in found.node.body if isinstance(m, ast.FunctionDef) and m.name == name), None)
    if own is not None:
        return found.path, own
    for base in found.node.bases:
        base_name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
        if base_name:
            inherited = _method(source, module_of(found.path), base_name, name, depth + 1)
            if inherited is not None:
                return inherited
    return None
