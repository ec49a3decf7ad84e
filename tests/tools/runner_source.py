"""The oracle's inside runners import torch and the engine, so tests take the functions they need from the
runner's source and run them against stand-in engine modules."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

INSIDE = Path(__file__).resolve().parents[2] / "tools" / "engine_oracle" / "inside"


def runner_functions(runner: str, wanted: tuple[str, ...]) -> dict:
    """The module-level functions `wanted` of inside/`runner`, compiled alone (with `sys` and `Any` at hand)."""
    path = INSIDE / runner
    tree = ast.parse(path.read_text(encoding="utf-8"))
    body = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in wanted]
    namespace: dict = {"sys": sys, "Any": object}
    exec(compile(ast.Module(body=body, type_ignores=[]), str(path), "exec"), namespace)
    return namespace
