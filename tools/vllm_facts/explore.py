"""Answer a vLLM gate (`is_supported`, `cutlass_fp8_supported()`, an `if` test) for capability 12.0 / 12.1 on
its source, walking both branches of every question only the running system can answer: a compiled op
(`ops.cutlass_scaled_mm_supports_fp8(cc)`), an environment variable (`envs.VLLM_USE_DEEP_GEMM`), an
installed package (`has_flashinfer()`), a shape or dtype. The answer is either one value, or the cases: each
assignment of the questions asked and the value it gives. Helper functions (`cutlass_fp8_supported()`,
`is_deep_gemm_supported()`, `current_platform.support_deep_gemm()`) and module constants set from them
(`CUTLASS_BLOCK_FP8_SUPPORTED`) are followed into their own source and their questions asked in the caller,
so a gate that is False on SM12x whatever the environment says comes out as plain False, and one that holds
names what really decides it (`ops.cutlass_scaled_mm_supports_fp8(capability)`, `has_deep_gemm()`).
Only yes/no positions are asked (an `if` test, `and`/`or`, `not`, a comparison as a whole); a name used as a
shape, an operand or an argument is not, so a walked True never stands for a tensor."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from doctor.engines.vllm.evaluate import UNKNOWN, Capability, NotStatic, Stub, run_function
from tools.vllm_facts.source import WheelSource, absolute_module, module_of

MAX_QUESTIONS = 8  # a gate asking more is recorded as unknown rather than walked (2**8 runs at most)
MAX_DEPTH = 3  # helper functions followed into helper functions
PLATFORM_FILE = "vllm/platforms/cuda.py"
CUSTOM_OPS = "vllm/_custom_ops.py"  # its gates hand the question to torch.ops._C
PLATFORM_CLASSES = ("NvmlCudaPlatform", "CudaPlatformBase", "CudaPlatform")


class _Ask(Exception):
    """Control flow: the walk needs an answer to this question before it can go on."""

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


def kind_of(key: str) -> str:
    """What decides a question: the compiled extension, an env var, an installed package, or the runtime (the
    layer, a device property)."""
    callee = key.split("(")[0]
    if key.startswith("envs."):
        return "env"
    if "ops." in callee:
        return "compiled"
    if callee.rpartition(".")[2].startswith("has_"):
        return "installed"
    return "runtime"


@dataclass
class Explorer:
    source: WheelSource
    capability: Capability
    env_defaults: dict[str, Any] = field(default_factory=dict)  # name -> the release's default (a string)
    kinds: dict[str, str] = field(default_factory=dict)
    local_imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # `from X import f` inside a body

    def function(self, path: str, function: ast.FunctionDef, bindings: dict[str, Any], depth: int = 0) -> Any:
        """The answer of `function` on this GPU: {"value": v} or {"cases": [{"when": {...}, "value": v}]}."""
        leaves: list[tuple[dict[str, bool], Any]] = []
        bases = _bases(function)
        self.local_imports.update(_local_imports(path, function))
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
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError) as exc:
            value = f"unknown: {type(exc).__name__}"  # a walked answer the code cannot use (a bool as a shape)
        leaves.append((dict(assign), value))

    def _question(self, path: str, node: ast.expr, bases: set[int], assign: dict[str, bool], depth: int) -> Any:
        key = ast.unparse(node)
        if isinstance(node, ast.Attribute) and key.startswith("envs.") and \
                not is_switch(self.env_defaults.get(key[5:], "0")):
            return self.env_defaults.get(key[5:])  # a string-valued variable: its default (None: unset)
        if id(node) in bases or not isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Compare):
            raise NotStatic(f"expression {ast.unparse(node)[:60]!r}")
        if key in assign:
            return assign[key]
        followed = None if kind_of(key) == "installed" else self._follow(path, node, depth)
        if followed is not None:
            return _inline(followed, assign)
        self.kinds[key] = "compiled" if path == CUSTOM_OPS else kind_of(key)
        raise _Ask(key)

    def _follow(self, path: str, node: ast.expr, depth: int) -> Any:
        """A helper's own answer when `node` calls a function of the wheel (its parameters left as questions)
        or names a module constant set by such a call."""
        if depth >= MAX_DEPTH:
            return None
        method = self._platform_method(node)
        if method is not None:
            try:
                return self.function(PLATFORM_FILE, method, {"cls": platform(self.capability)}, depth + 1)
            except NotStatic:
                return None
        name = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            else node.id if isinstance(node, ast.Name) else None
        found = self.source.lookup(module_of(path), name) if name else None
        if found is None and name in self.local_imports:
            found = self.source.lookup(*self.local_imports[name])
        if found is None:
            return None
        try:
            if isinstance(node, ast.Call) and isinstance(found.node, ast.FunctionDef):
                # its parameters stay questions: a helper that says no on this GPU whatever it is given
                # (`should_use_deepgemm` asks for capability 9.0 first) answers for its caller
                return self.function(found.path, found.node, {}, depth + 1)
            if isinstance(found.node, ast.Assign) and isinstance(found.node.value, ast.Call):
                return self.expression(found.path, found.node.value, None, depth + 1)
        except NotStatic:
            return None
        return None

    def _platform_method(self, node: ast.expr) -> ast.FunctionDef | None:
        """`current_platform.support_deep_gemm()`: the CUDA platform's own classmethod."""
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "current_platform"):
            return None
        for cls in PLATFORM_CLASSES:
            found = self.source.function(PLATFORM_FILE, node.func.attr, cls)
            if found is not None:
                return found
        return None

    def _answer(self, leaves: list[tuple[dict[str, bool], Any]]) -> dict[str, Any]:
        plain = [(when, _plain(value), _reason(value)) for when, value in leaves]
        if len({repr(v) for _, v, _ in plain}) == 1:
            reasons = sorted({r for _, _, r in plain if r})
            return {"value": plain[0][1], **({"why": "; ".join(reasons)} if reasons else {})}
        asked = list(dict.fromkeys(k for when, _, _ in plain for k in when))
        return {"asks": {k: self.kinds.get(k, kind_of(k)) for k in asked},
                "cases": [{"when": when, "value": value, **({"why": why} if why and value is False else {})}
                          for when, value, why in plain]}


def _inline(answer: dict[str, Any], assign: dict[str, bool]) -> Any:
    """A helper's answer as its own questions, asked here: `is_deep_gemm_supported()` becomes
    `envs.VLLM_USE_DEEP_GEMM` and `has_deep_gemm()`, so the caller's cases name what really decides."""
    if "value" in answer:
        return answer["value"]
    for case in answer["cases"]:
        if all(assign.get(k, v) == v for k, v in case["when"].items()):
            missing = [k for k in case["when"] if k not in assign]
            if missing:
                raise _Ask(missing[0])
            return case["value"]
    raise NotStatic("no case of the helper matches")


def is_switch(default: Any) -> bool:
    """An on/off environment variable: both answers are walked (a valued one is read at its default)."""
    return str(default).lower() in ("0", "1", "true", "false")


def _local_imports(path: str, function: ast.FunctionDef) -> dict[str, tuple[str, str]]:
    """Names a function imports in its own body (vLLM defers imports of optional kernels this way)."""
    module = module_of(path)
    return {alias.asname or alias.name: (absolute_module(module, path, node), alias.name)
            for node in ast.walk(function) if isinstance(node, ast.ImportFrom) for alias in node.names}


def _bases(function: ast.FunctionDef) -> set[int]:
    """Nodes never asked as a yes/no question: the object of an attribute, the callee or an argument of a
    call, an operand of a comparison, arithmetic or subscript. The question is the larger node (a comparison
    is asked whole: `find_spec("flashinfer") is None`), so a walked True never stands for a shape or a dtype."""
    out: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute):
            out.add(id(node.value))
        elif isinstance(node, ast.Call):
            out.update(id(n) for n in (node.func, *node.args, *(k.value for k in node.keywords)))
        elif isinstance(node, ast.Compare):
            out.update(id(n) for n in (node.left, *node.comparators))
        elif isinstance(node, ast.BinOp):
            out.update((id(node.left), id(node.right)))
        elif isinstance(node, ast.Subscript):
            out.update((id(node.value), id(node.slice)))
        elif isinstance(node, ast.FormattedValue):
            out.add(id(node.value))
    return out


def _reason(value: Any) -> str | None:
    return value[1] if isinstance(value, tuple) and len(value) > 1 and isinstance(value[1], str) else None


def _plain(value: Any) -> Any:
    """`is_supported` answers (ok, reason): the verdict is the first item."""
    if isinstance(value, tuple) and value and isinstance(value[0], bool):
        return value[0]
    if isinstance(value, Capability):
        return value.to_int()
    return value if isinstance(value, bool | int | str | float) or value is None else repr(value)
