"""Evaluate a small, pure engine function from its source text, without importing or exec-ing it.

Engines pick kernel tiles in short functions of plain ifs and tuples (the extend-attention block-size
function, for one). Reading the installed file is the truth — it includes
local patches — but importing it needs torch and a GPU. So we walk the function's AST with the
module-level names bound to the target GPU, and refuse anything outside a tiny, side-effect-free subset.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from doctor.kernels.tiles import next_power_of_2
from doctor.output import read_regular_bytes

MAX_SOURCE = 8 << 20  # bytes of one engine source file


class SourceShapeError(Exception):
    """The function is missing or uses constructs this evaluator does not model."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv}


CALLS = {"triton.next_power_of_2": next_power_of_2, "next_power_of_2": next_power_of_2,
         "min": min, "max": max}


def find_function(source: str, name: str) -> ast.FunctionDef:
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        raise SourceShapeError(f"cannot parse: {exc.msg} (line {exc.lineno})") from exc
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise SourceShapeError(f"function {name} not found")


def evaluate_function(path: Path, name: str, args: Mapping[str, Any], env: Mapping[str, Any]) -> Any:
    try:
        source = read_regular_bytes(path, MAX_SOURCE).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceShapeError(f"cannot read {path}: {exc}") from exc
    function = find_function(source, name)
    params = [a.arg for a in function.args.args]
    if set(params) != set(args):
        raise SourceShapeError(f"{name} takes {params}, expected {sorted(args)}")
    scope = {**env, **args}
    try:
        _run_block(function.body, scope)
    except _Return as result:
        return result.value
    raise SourceShapeError(f"{name} did not return")


def _run_block(body: list[ast.stmt], scope: dict[str, Any]) -> None:
    for stmt in body:
        _run(stmt, scope)


def _run(stmt: ast.stmt, scope: dict[str, Any]) -> None:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
        return  # docstring
    if isinstance(stmt, ast.If):
        _run_block(stmt.body if _eval(stmt.test, scope) else stmt.orelse, scope)
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        _assign(stmt.targets[0], _eval(stmt.value, scope), scope)
    elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
        _assign(stmt.target, _eval(stmt.value, scope), scope)
    elif isinstance(stmt, ast.Return):
        raise _Return(_eval(stmt.value, scope) if stmt.value is not None else None)
    elif isinstance(stmt, ast.Pass):
        return
    else:
        raise SourceShapeError(f"unsupported statement {type(stmt).__name__} at line {stmt.lineno}")


def _assign(target: ast.expr, value: Any, scope: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        scope[target.id] = value
    elif isinstance(target, ast.Tuple) and isinstance(value, tuple) and len(target.elts) == len(value):
        for element, item in zip(target.elts, value, strict=True):
            _assign(element, item, scope)
    else:
        raise SourceShapeError(f"unsupported assignment at line {target.lineno}")


def _eval(node: ast.expr, scope: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in scope:
            raise SourceShapeError(f"unknown name {node.id} at line {node.lineno}")
        return scope[node.id]
    if isinstance(node, ast.Tuple):
        return tuple(_eval(e, scope) for e in node.elts)
    if isinstance(node, ast.Subscript):
        return _eval(node.value, scope)[_eval(node.slice, scope)]
    if isinstance(node, ast.Compare):
        left = _eval(node.left, scope)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, scope)
            if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.BoolOp):
        values = (_eval(v, scope) for v in node.values)
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, scope)
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, scope) else node.orelse, scope)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_eval(node.left, scope), _eval(node.right, scope))
    if isinstance(node, ast.Call) and not node.keywords:
        name = ast.unparse(node.func)
        if name in CALLS:
            return CALLS[name](*(_eval(a, scope) for a in node.args))
    raise SourceShapeError(f"unsupported expression {ast.unparse(node)!r} at line {node.lineno}")


def evaluate_assignment(path: Path, function: str, name: str, env: Mapping[str, Any]) -> Any:
    """Run only the capability-dependent `if` chain that assigns `name` inside `function` (the rest of
    the function may do anything: it is not evaluated) and return the value it assigns."""
    try:
        source = read_regular_bytes(path, MAX_SOURCE).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SourceShapeError(f"cannot read {path}: {exc}") from exc
    node = find_function(source, function)
    for stmt in ast.walk(node):
        if isinstance(stmt, ast.If) and "CUDA_CAPABILITY" in ast.unparse(stmt.test) and _assigns(stmt, name):
            scope = dict(env)
            _run(stmt, scope)
            if name in scope:
                return scope[name]
    raise SourceShapeError(f"no capability branch assigning {name} in {function}")


def _assigns(stmt: ast.If, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(stmt))
