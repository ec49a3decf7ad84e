"""Run a small vLLM function on its AST without importing vLLM: `_get_backend_priorities(use_mla,
device_capability)`, each backend's `supports_compute_capability`, and the fused-MoE `get_default_config` /
`get_config_file_name` (their source is kept in the data and run here for the GPU at hand). The caller binds
every outside name the function may touch (a `Stub` for modules such as `envs` or `current_platform`);
anything else raises `NotStatic`, so the caller records "unknown" rather than guess."""

from __future__ import annotations

import ast
import operator
from dataclasses import dataclass
from functools import total_ordering
from typing import Any

ENUM_CLASSES = ("AttentionBackendEnum", "_Backend", "AttentionBackend")
# A scope key: a callable given each expression the evaluator cannot answer; it answers it or raises NotStatic
# (tools/vllm_facts/explore.py uses it to walk every branch of a gate that asks the runtime).
UNKNOWN = "__unknown__"


class NotStatic(Exception):
    """The function does something this evaluator does not model."""


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


@total_ordering
@dataclass(frozen=True)
class Capability:
    """vLLM's DeviceCapability: a (major, minor) named tuple with `to_int()`."""

    major: int
    minor: int

    def _key(self, other: Any) -> tuple[int, int]:
        if isinstance(other, Capability):
            return other.major, other.minor
        if isinstance(other, tuple):
            return other
        raise NotStatic(f"compare capability with {other!r}")

    def __eq__(self, other: object) -> bool:
        return (self.major, self.minor) == self._key(other)

    def __lt__(self, other: Any) -> bool:
        return (self.major, self.minor) < self._key(other)

    def __hash__(self) -> int:
        return hash((self.major, self.minor))

    def to_int(self) -> int:
        return self.major * 10 + self.minor


class Stub:
    """A stand-in for a module or object: named attributes, each a value or a zero-argument answer."""

    def __init__(self, **attributes: Any) -> None:
        self.attributes = attributes

    def get(self, name: str) -> Any:
        if name not in self.attributes:
            raise NotStatic(f"attribute {name}")
        return self.attributes[name]


BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
          ast.Mod: operator.mod}
STR_METHODS = ("replace", "split", "lower", "upper", "startswith", "endswith", "strip")
COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
           ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
           ast.NotIn: lambda a, b: a not in b, ast.Is: operator.is_, ast.IsNot: operator.is_not}


def run_function(function: ast.FunctionDef, bindings: dict[str, Any]) -> Any:
    scope = dict(_defaults(function))
    scope.update(bindings)
    try:
        _block(function.body, scope)
    except _Return as result:
        return result.value
    return None


def _defaults(function: ast.FunctionDef) -> dict[str, Any]:
    args = function.args.args
    defaults = function.args.defaults
    out: dict[str, Any] = {}
    for arg, default in zip(args[len(args) - len(defaults):], defaults, strict=True):
        if isinstance(default, ast.Constant):
            out[arg.arg] = default.value
    return out


def _block(body: list[ast.stmt], scope: dict[str, Any]) -> None:
    for stmt in body:
        _statement(stmt, scope)


def _statement(stmt: ast.stmt, scope: dict[str, Any]) -> None:
    if isinstance(stmt, ast.Import | ast.ImportFrom | ast.Pass):
        return
    if isinstance(stmt, ast.Expr):
        if isinstance(stmt.value, ast.Constant):
            return  # docstring
        if isinstance(stmt.value, ast.Call) and _list_method(stmt.value, scope):
            return
        raise NotStatic(f"statement {ast.unparse(stmt)[:60]!r}")
    if isinstance(stmt, ast.If):
        _block(stmt.body if _eval(stmt.test, scope) else stmt.orelse, scope)
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        scope[stmt.targets[0].id] = _eval(stmt.value, scope)
    elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple) \
            and all(isinstance(t, ast.Name) for t in stmt.targets[0].elts):
        values = tuple(_eval(stmt.value, scope))
        if len(values) != len(stmt.targets[0].elts):
            raise NotStatic(f"unpacking at line {stmt.lineno}")
        scope.update({t.id: v for t, v in zip(stmt.targets[0].elts, values, strict=True)})  # type: ignore[attr-defined]
    elif isinstance(stmt, ast.Delete) and all(isinstance(t, ast.Name) for t in stmt.targets):
        for target in stmt.targets:
            scope.pop(target.id, None)  # type: ignore[attr-defined]
    elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        scope[stmt.target.id] = _eval(stmt.value, scope)
    elif isinstance(stmt, ast.Return):
        raise _Return(_eval(stmt.value, scope) if stmt.value is not None else None)
    else:
        raise NotStatic(f"statement {type(stmt).__name__} at line {stmt.lineno}")


def _list_method(call: ast.Call, scope: dict[str, Any]) -> bool:
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and isinstance(scope.get(func.value.id), list)):
        return False
    target: list[Any] = scope[func.value.id]
    args = [_eval(a, scope) for a in call.args]
    if func.attr == "append":
        target.append(*args)
    elif func.attr == "insert":
        target.insert(*args)
    elif func.attr == "extend":
        target.extend(*args)
    else:
        raise NotStatic(f"list.{func.attr}")
    return True


def _eval(node: ast.expr, scope: dict[str, Any]) -> Any:
    try:
        return _eval_node(node, scope)
    except NotStatic:
        if UNKNOWN not in scope:
            raise
        return scope[UNKNOWN](node)


def _eval_node(node: ast.expr, scope: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in scope:
            return scope[node.id]
        raise NotStatic(f"name {node.id}")
    if isinstance(node, ast.Attribute):
        return _attribute(node, scope)
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        items: list[Any] = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                items += list(_eval(element.value, scope))
            else:
                items.append(_eval(element, scope))
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Compare):
        return _compare(node, scope)
    if isinstance(node, ast.BoolOp):
        if isinstance(node.op, ast.And):
            return all(_eval(v, scope) for v in node.values)
        return any(_eval(v, scope) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return not _eval(node.operand, scope)
    if isinstance(node, ast.IfExp):
        return _eval(node.body if _eval(node.test, scope) else node.orelse, scope)
    if isinstance(node, ast.Call):
        return _call(node, scope)
    if isinstance(node, ast.Dict):
        return {_eval(k, scope): _eval(v, scope) for k, v in zip(node.keys, node.values, strict=True)
                if k is not None}
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        return BINARY[type(node.op)](_eval(node.left, scope), _eval(node.right, scope))
    if isinstance(node, ast.JoinedStr):
        return "".join(str(_eval(v.value, scope)) if isinstance(v, ast.FormattedValue) else str(v.value)
                       for v in node.values)
    if isinstance(node, ast.Subscript):
        return _eval(node.value, scope)[_eval(node.slice, scope)]
    raise NotStatic(f"expression {ast.unparse(node)[:60]!r}")


def _attribute(node: ast.Attribute, scope: dict[str, Any]) -> Any:
    if isinstance(node.value, ast.Name) and node.value.id in ENUM_CLASSES:
        return node.attr  # an enum member stands for itself, by name
    base = _eval(node.value, scope)
    if isinstance(base, Capability) and node.attr in ("major", "minor"):
        return getattr(base, node.attr)
    if isinstance(base, Stub):
        return base.get(node.attr)
    raise NotStatic(f"attribute {ast.unparse(node)[:60]!r}")


def _compare(node: ast.Compare, scope: dict[str, Any]) -> bool:
    left = _eval(node.left, scope)
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = _eval(comparator, scope)
        if not COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def _call(node: ast.Call, scope: dict[str, Any]) -> Any:
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name == "DeviceCapability" and len(node.args) == 2:
        return Capability(_eval(node.args[0], scope), _eval(node.args[1], scope))
    args = [_eval(a, scope) for a in node.args]
    if isinstance(func, ast.Attribute):
        base = _eval(func.value, scope)
        if isinstance(base, Capability) and func.attr == "to_int" and not args:
            return base.to_int()
        if isinstance(base, str) and func.attr in STR_METHODS:
            return getattr(base, func.attr)(*args)
        if isinstance(base, Stub):
            answer = base.get(func.attr)
            return answer(*args) if callable(answer) else answer
        raise NotStatic(f"call {ast.unparse(node)[:60]!r}")
    target = scope.get(name)
    if callable(target) and not node.keywords:
        return target(*args)
    raise NotStatic(f"call {ast.unparse(node)[:60]!r}")
