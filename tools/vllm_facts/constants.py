"""Static values of expressions in a wheel's source: a `choices=` list, a Literal alias, a module constant."""

from __future__ import annotations

import ast
from typing import Any

from tools.vllm_facts.parser_rules import func_name
from tools.vllm_facts.source import WheelSource


def resolve_constants(source: WheelSource, module: str, node: ast.expr, depth: int = 0) -> list[Any] | None:
    """A choices expression as constants: literals, names of module constants, get_args(Literal alias),
    list()/sorted()/tuple() of those, `[*A, "b"]`, `D.keys()` of a dict literal. None when not static."""
    if depth > 8:
        return None
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        out: list[Any] = []
        for element in node.elts:
            inner = element.value if isinstance(element, ast.Starred) else element
            values = resolve_constants(source, module, inner, depth + 1)
            if values is None:
                return None
            out += values
        return out
    if isinstance(node, ast.Name):
        found = source.lookup(module, node.id)
        if found and isinstance(found.node, ast.Assign | ast.AnnAssign) and found.node.value is not None:
            return resolve_constants(source, found.module, found.node.value, depth + 1)
        return None
    if isinstance(node, ast.Subscript) and func_name(node.value) == "Literal":
        return resolve_constants(source, module, node.slice, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left = resolve_constants(source, module, node.left, depth + 1)
        right = resolve_constants(source, module, node.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Dict):
        return resolve_constants(source, module, ast.List(elts=[k for k in node.keys if k is not None]), depth + 1)
    if isinstance(node, ast.Call):
        name = func_name(node.func)
        if name in ("get_args", "list", "sorted", "tuple", "set") and len(node.args) == 1:
            return resolve_constants(source, module, node.args[0], depth + 1)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "keys" and not node.args:
            return resolve_constants(source, module, node.func.value, depth + 1)
    return None
