"""Environment variables a vLLM wheel reads: the `environment_variables` table of `vllm/envs.py` (name,
line, choices where `env_with_choices` lists them, and whether any other module uses the value), plus the
variables other modules read straight from `os.environ` (NCCL_*, CUDA_*, VLLM_* outside the table)."""

from __future__ import annotations

import ast
import re
from typing import Any

from tools.vllm_facts.constants import resolve_constants
from tools.vllm_facts.source import WheelSource

ENVS = "vllm/envs.py"
CHOICE_HELPERS = ("env_with_choices", "env_list_with_choices", "env_set_with_choices")
DIRECT_READ = re.compile(r"""(?:os\.environ\.get|os\.getenv|os\.environ\.setdefault)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
                         r"""|os\.environ\[\s*["']([A-Z][A-Z0-9_]+)["']\s*\]"""
                         r"""|["']([A-Z][A-Z0-9_]+)["']\s+(?:not\s+)?in\s+os\.environ""")

MENTION = re.compile(r"""\benvs\.([A-Z][A-Z0-9_]+)\b|["']([A-Z][A-Z0-9_]+)["']""")


def env_facts(source: WheelSource) -> dict[str, Any]:
    table = _table(source)
    texts = {n: source.text(n) for n in source.names if n.endswith(".py") and n.startswith("vllm/") and n != ENVS}
    mentions = _mentions(texts)
    for name, entry in table.items():
        entry["used"] = mentions.get(name)
    return {"table": dict(sorted(table.items())), "direct_reads": _direct_reads(texts)}


def _table(source: WheelSource) -> dict[str, dict[str, Any]]:
    tree = source.tree(ENVS)
    if tree is None:
        return {}
    for node in tree.body:
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target if isinstance(node, ast.AnnAssign) \
            else None
        if isinstance(target, ast.Name) and target.id == "environment_variables" and isinstance(node.value, ast.Dict):
            return {key.value: _entry(source, key, value) for key, value in zip(node.value.keys, node.value.values,
                                                                                strict=True)
                    if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return {}


def _entry(source: WheelSource, key: ast.Constant, value: ast.expr) -> dict[str, Any]:
    entry: dict[str, Any] = {"line": key.lineno}
    default = _default(key.value, value)
    if default is not None:
        entry["default"] = default
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in CHOICE_HELPERS \
            and len(value.args) >= 3:
        choices = resolve_constants(source, "vllm.envs", value.args[2])
        if choices is not None:
            entry["choices"] = [str(c) for c in choices]
        entry["case_sensitive"] = not any(k.arg == "case_sensitive" and isinstance(k.value, ast.Constant)
                                          and k.value.value is False for k in value.keywords)
    return entry


def _default(name: str, value: ast.expr) -> str | None:
    """The string default of `os.getenv(NAME, "d")` / `os.environ.get(NAME, "d")` inside the table entry."""
    for node in ast.walk(value):
        if isinstance(node, ast.Call) and len(node.args) >= 2 and isinstance(node.args[0], ast.Constant) \
                and node.args[0].value == name and isinstance(node.args[1], ast.Constant) \
                and isinstance(node.args[1].value, str | int | float | bool):
            return str(node.args[1].value)
    return None


def _mentions(texts: dict[str, str]) -> dict[str, str]:
    """Name -> the first module (other than envs.py) that names it: `envs.NAME` or the string itself."""
    out: dict[str, str] = {}
    for path in sorted(texts):
        for match in MENTION.finditer(texts[path]):
            name = match.group(1) or match.group(2)
            out.setdefault(name, f"{path}:{texts[path].count(chr(10), 0, match.start()) + 1}")
    return out


def _direct_reads(texts: dict[str, str]) -> dict[str, str]:
    """Variables read from os.environ outside envs.py -> first file:line that reads it."""
    out: dict[str, str] = {}
    for path in sorted(texts):
        for match in DIRECT_READ.finditer(texts[path]):
            name = next(g for g in match.groups() if g)
            out.setdefault(name, f"{path}:{texts[path].count(chr(10), 0, match.start()) + 1}")
    return dict(sorted(out.items()))
