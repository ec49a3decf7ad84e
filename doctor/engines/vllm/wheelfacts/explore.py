"""Answer a vLLM gate (`is_supported`, `cutlass_fp8_supported()`, an `if` test) for capability 12.0 / 12.1 on
its source, walking both branches of every question only the running system can answer: a compiled op
(`ops.cutlass_scaled_mm_supports_fp8(cc)`), an environment variable (`envs.VLLM_USE_DEEP_GEMM`), an
installed package (`has_flashinfer()`), a shape or dtype. The answer is either one value, or the cases: each
assignment of the questions asked and the value it gives. Helper functions without parameters
(`cutlass_fp8_supported()`, `is_deep_gemm_supported()`) and module constants set from them
(`CUTLASS_BLOCK_FP8_SUPPORTED`) are followed into their own source first, so a gate that is False on SM12x
whatever the environment says comes out as plain False."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from doctor.engines.vllm.evaluate import UNKNOWN, Capability, NotStatic, Stub, run_function
from doctor.engines.vllm.wheelfacts.source import WheelSource, module_of

MAX_QUESTIONS = 8  # a gate asking more is recorded as unknown rather than walked (2**8 runs at most)
MAX_DEPTH = 3  # helper functions followed into helper functions


class _Ask(Exception):  # noqa: N818 - control flow, not an error: the walk needs an answer to this question
    def __init__(self, key: str) -> None:
        self.key = key


def platform(capability: Capability) -> Stub:
    """vLLM's `current_platform` on a CUDA GPU of this capability."""

    def has(wanted: Any) -> bool:
        return capability >= (wanted if isinstance(wanted, tuple) else divmod(int(wanted), 10))

    def exactly(wanted: Any) -> bool:
        return capability == (wanted if isinstance(wanted, tuple) else divmod(int(wanted), 10))

    def family(wanted: Any) -> bool:
        return capability.major == int(wanted) // 10

    return Stub(is_cuda=True, is_cuda_alike=True, is_rocm=False, is_cpu=False, is_xpu=False, is_tpu=False,
                is_fp8_fnuz=False, is_out_of_tree=False, supports_fp8=True, has_device_capability=has,
                is_device_capability=exactly, is_device_capability_family=family,
                get_device_capability=lambda: capability)


def kind_of(key: str, nested: tuple[str, ...] = ()) -> str:
    """What decides a question: the compiled extension, an env var, an installed package, or the runtime."""
    if key.startswith("envs."):
        return "env"
    if "ops." in key or (nested and all(k == "compiled" for k in nested)):
        return "compiled"
    if key.startswith(("has_", "is_flashinfer", "flashinfer")) or "has_" in key.split("(")[0]:
        return "installed"
    return "runtime"


@dataclass
class Explorer:
    source: WheelSource
    capability: Capability
    kinds: dict[str, str] = field(default_factory=dict)

    def function(self, path: str, function: ast.FunctionDef, bindings: dict[str, Any], depth: int = 0) -> Any:
        """The answer of `function` on this GPU: {"value": v} or {"cases": [{"when": {...}, "value": v}]}."""
        leaves: list[tuple[dict[str, bool], Any]] = []
        bases = _bases(function)
        self._walk(path, function, bindings, bases, {}, leaves, depth)
        return self._answer(leaves)

    def expression(self, path: str, expr: ast.expr, bindings: dict[str, Any] | None = None, depth: int = 0) -> Any:
        wrapper = ast.FunctionDef(name="gate", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                  kw_defaults=[], defaults=[]), body=[ast.Return(expr)], decorator_list=[],
                                  lineno=getattr(expr, "lineno", 0))
        return self.function(path, wrapper, bindings or {}, depth)

    def _walk(self, path: str, function: ast.FunctionDef, bindings: dict[str, Any], bases: set[int],
              assign: dict[str, bool], leaves: list[tuple[dict[str, bool], Any]], depth: int) -> None:
        if len(leaves) > 1 << MAX_QUESTIONS:
            raise NotStatic("too many questions")
        scope = {"current_platform": platform(self.capability), **bindings,
                 UNKNOWN: lambda node: self._question(path, node, bases, assign, depth)}
        try:
            value = run_function(function, scope)
        except _Ask as ask:
            for answer in (True, False):
                self._walk(path, function, bindings, bases, {**assign, ask.key: answer}, leaves, depth)
            return
        except NotStatic as exc:
            value = f"unknown: {exc}"
        leaves.append((dict(assign), _plain(value)))

    def _question(self, path: str, node: ast.expr, bases: set[int], assign: dict[str, bool], depth: int) -> Any:
        if id(node) in bases or not isinstance(node, ast.Name | ast.Attribute | ast.Call):
            raise NotStatic(f"expression {ast.unparse(node)[:60]!r}")
        key = ast.unparse(node)
        if key in assign:
            return assign[key]
        followed = self._follow(path, node, depth)
        if followed is not None and "value" in followed:
            return followed["value"]
        nested = tuple(self.kinds.get(k, kind_of(k)) for case in (followed or {}).get("cases", ())
                       for k in case["when"])
        self.kinds[key] = kind_of(key, nested)
        raise _Ask(key)

    def _follow(self, path: str, node: ast.expr, depth: int) -> Any:
        """A helper's own answer when `node` calls a parameterless function or names a module constant."""
        if depth >= MAX_DEPTH:
            return None
        name = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.args \
            else node.id if isinstance(node, ast.Name) else None
        found = self.source.lookup(module_of(path), name) if name else None
        if found is None:
            return None
        try:
            if isinstance(node, ast.Call) and isinstance(found.node, ast.FunctionDef) and not _required(found.node):
                return self.function(found.path, found.node, {}, depth + 1)
            if isinstance(found.node, ast.Assign) and isinstance(found.node.value, ast.Call):
                return self.expression(found.path, found.node.value, None, depth + 1)
        except NotStatic:
            return None
        return None

    def _answer(self, leaves: list[tuple[dict[str, bool], Any]]) -> dict[str, Any]:
        values = {repr(v) for _, v in leaves}
        if len(values) == 1:
            return {"value": leaves[0][1]}
        asked = list(dict.fromkeys(k for when, _ in leaves for k in when))
        return {"asks": {k: self.kinds.get(k, kind_of(k)) for k in asked},
                "cases": [{"when": when, "value": value} for when, value in leaves]}


def _required(function: ast.FunctionDef) -> int:
    args = [a for a in function.args.args if a.arg not in ("self", "cls")]
    return len(args) - len(function.args.defaults)


def _bases(function: ast.FunctionDef) -> set[int]:
    """Nodes that are the object of an attribute or the callee of a call: the question is the larger node."""
    out: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute):
            out.add(id(node.value))
        elif isinstance(node, ast.Call):
            out.add(id(node.func))
    return out


def _plain(value: Any) -> Any:
    """`is_supported` answers (ok, reason): the verdict is the first item."""
    if isinstance(value, tuple) and value and isinstance(value[0], bool):
        return value[0]
    if isinstance(value, Capability):
        return value.to_int()
    return value if isinstance(value, bool | int | str | float) or value is None else repr(value)
