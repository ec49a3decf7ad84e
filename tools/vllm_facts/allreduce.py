"""vLLM's all-reduce paths read from a wheel's source: the custom all-reduce (`CustomAllreduce` in
`vllm/distributed/device_communicators/custom_all_reduce.py`: its supported world sizes, the early returns of
`__init__` that disable it, with vLLM's own log message, the P2P check, the NVLink test, the default buffer
size and the per-capability caps), the `ParallelConfig` conditions that turn it off before it is built, the
symmetric-memory all-reduce (torch `SymmMemCommunicator`, NCCL symmetric memory) with the capabilities it
knows, and the FlashInfer all-reduce paths (standalone/fusion, PCIe IPC). Every fact keeps its file and line;
each gate keeps its test as source text, which doctor.engines.vllm.allreduce evaluates for a run's topology."""

from __future__ import annotations

import ast
from typing import Any

from doctor.engines.vllm.evaluate import NotStatic, run_function
from tools.vllm_facts.source import WheelSource, top_level

DC = "vllm/distributed/device_communicators/"
CUSTOM = DC + "custom_all_reduce.py"
UTILS = (DC + "all_reduce_utils.py", DC + "custom_all_reduce_utils.py")
SYMM = DC + "symm_mem.py"
COMMUNICATOR = DC + "cuda_communicator.py"
PYNCCL_ALLOCATOR = DC + "pynccl_allocator.py"
FLASHINFER = ((DC + "flashinfer_all_reduce.py", "FlashInferAllReduce"),
              (DC + "flashinfer_pcie_ipc_all_reduce.py", "FlashInferPcieIpcAllReduce"))
PARALLEL = ("vllm/config/parallel.py", "vllm/config.py")
PLATFORM = "vllm/platforms/cuda.py"
FUSION_TABLE = "FI_ALLREDUCE_FUSION_MAX_SIZE_MB"
LOG_LEVELS = ("warning", "warning_once", "info", "info_once", "debug", "debug_once", "error")


def allreduce_facts(source: WheelSource) -> dict[str, Any]:
    return {"custom": custom_facts(source), "config_disables": config_disables(source),
            "symm_mem": symm_mem_facts(source), "flashinfer": flashinfer_facts(source),
            "communicator": communicator_facts(source)}


# --- helpers ------------------------------------------------------------------------------------------------

def _class(source: WheelSource, path: str, name: str) -> ast.ClassDef | None:
    tree = source.tree(path)
    return next((n for n in top_level(tree) if isinstance(n, ast.ClassDef) and n.name == name), None) \
        if tree else None


def _method(cls: ast.ClassDef | None, name: str) -> ast.FunctionDef | None:
    return next((n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == name), None) if cls else None


def _assignment(body: list[ast.stmt], name: str) -> ast.Assign | ast.AnnAssign | None:
    for node in body:
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target \
            if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:  # type: ignore[union-attr]
            return node  # type: ignore[return-value]
    return None


def constant(node: ast.expr | None) -> Any:
    """A literal or constant arithmetic (`8192 * 1024`, `MiB // 2` with MiB bound) evaluated; None otherwise."""
    if node is None:
        return None
    try:
        return ast.literal_eval(node)
    except ValueError:
        pass
    wrapper = ast.FunctionDef(name="value", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                              kw_defaults=[], defaults=[]), body=[ast.Return(node)], decorator_list=[], lineno=0)
    try:
        return run_function(wrapper, {"MiB": 1 << 20, "KiB": 1 << 10, "GiB": 1 << 30})
    except (NotStatic, TypeError, KeyError, ZeroDivisionError):
        return None


def _message(call: ast.Call) -> str | None:
    """The text of a logger call's first argument (implicitly concatenated string literals)."""
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    if isinstance(first, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in first.values)  # type: ignore[misc]
    return None


def _logged(body: list[ast.stmt]) -> tuple[str | None, str | None]:
    for stmt in body:
        call = stmt.value if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) else None
        if call is not None and isinstance(call.func, ast.Attribute) and call.func.attr in LOG_LEVELS:
            return call.func.attr.removesuffix("_once"), _message(call)
    return None, None


def early_returns(function: ast.FunctionDef | None) -> list[dict[str, Any]]:
    """The `if TEST: [log]; return` statements at the top level of `function`, in order: each one a gate that
    leaves the object disabled, with vLLM's log message."""
    out: list[dict[str, Any]] = []
    for stmt in function.body if function else []:
        if isinstance(stmt, ast.If) and stmt.body and isinstance(stmt.body[-1], ast.Return) and not stmt.orelse:
            level, says = _logged(stmt.body)
            out.append({"line": stmt.lineno, "test": ast.unparse(stmt.test), "level": level, "says": says})
    return out


def _table_keys(source: WheelSource, paths: tuple[str, ...], name: str) -> dict[str, Any] | None:
    """A module-level dict keyed by capability (`{"9.0": {...}, "10.0": {...}}`): its keys, the world sizes
    per key, and where it is."""
    for path in paths:
        tree = source.tree(path)
        found = _assignment(top_level(tree), name) if tree else None
        if found is None or not isinstance(found.value, ast.Dict):
            continue
        table: dict[str, Any] = {}
        for key, value in zip(found.value.keys, found.value.values, strict=True):
            label = constant(key)
            inner = [constant(k) for k in value.keys] if isinstance(value, ast.Dict) else constant(value)
            table[str(label)] = inner
        return {"file": path, "line": found.lineno, "keys": list(table), "world_sizes": table}
    return None


def _reads(function: ast.AST | None, attr: str) -> bool:
    return function is not None and any(isinstance(n, ast.Attribute) and n.attr == attr for n in ast.walk(function))


# --- custom all-reduce ---------------------------------------------------------------------------------------

def custom_facts(source: WheelSource) -> dict[str, Any] | None:
    cls = _class(source, CUSTOM, "CustomAllreduce")
    init = _method(cls, "__init__")
    if cls is None or init is None:
        return None
    sizes = _assignment(cls.body, "_SUPPORTED_WORLD_SIZES")
    return {
        "file": CUSTOM, "line": cls.lineno,
        "world_sizes": {"value": constant(sizes.value) if sizes else None, "line": sizes.lineno if sizes else None},
        "max_size": _default(init, "max_size"),
        "gates": early_returns(init),
        "per_call": _per_call(cls),
        "p2p_check": _p2p_check(source),
        "fully_connected": _fully_connected(source),
        "platform_allows": _platform_allows(source),
        "max_sizes_with_symm_mem": _table_keys(source, UTILS, "CUSTOM_ALL_REDUCE_MAX_SIZES"),
    }


def _default(function: ast.FunctionDef, name: str) -> dict[str, Any] | None:
    args = function.args.args
    for arg, default in zip(args[len(args) - len(function.args.defaults):], function.args.defaults, strict=True):
        if arg.arg == name:
            return {"value": constant(default), "line": default.lineno}
    return None


def _per_call(cls: ast.ClassDef) -> dict[str, Any] | None:
    """`should_custom_ar`: the tests each all-reduce call passes before the custom kernel takes it."""
    method = _method(cls, "should_custom_ar")
    if method is None:
        return None
    tests = [ast.unparse(n.test) for n in ast.walk(method) if isinstance(n, ast.If)]
    returns = [ast.unparse(n.value) for n in ast.walk(method) if isinstance(n, ast.Return) and n.value is not None
               and not (isinstance(n.value, ast.Constant) and n.value.value is False)]
    return {"line": method.lineno, "tests": tests, "returns": returns}


def _p2p_check(source: WheelSource) -> dict[str, Any] | None:
    """`_can_p2p`: does it consult VLLM_SKIP_P2P_CHECK (then it trusts the driver's
    `torch.cuda.can_device_access_peer`) before vLLM's own write-and-verify test `gpu_p2p_access_check`?"""
    tree = source.tree(CUSTOM)
    function = next((n for n in top_level(tree) if isinstance(n, ast.FunctionDef) and n.name == "_can_p2p"), None) \
        if tree else None
    if function is None:
        return None
    return {"file": CUSTOM, "line": function.lineno, "skip_env": "VLLM_SKIP_P2P_CHECK"
            if _reads(function, "VLLM_SKIP_P2P_CHECK") else None,
            "driver_query": "torch.cuda.can_device_access_peer" if "can_device_access_peer" in ast.unparse(function)
            else None, "functional_test": _function_where(source, UTILS, "gpu_p2p_access_check")}


def _function_where(source: WheelSource, paths: tuple[str, ...], name: str) -> dict[str, Any] | None:
    for path in paths:
        tree = source.tree(path)
        found = next((n for n in top_level(tree) if isinstance(n, ast.FunctionDef) and n.name == name), None) \
            if tree else None
        if found is not None:
            return {"file": path, "line": found.lineno}
    return None


def _fully_connected(source: WheelSource) -> dict[str, Any] | None:
    for cls in ("NvmlCudaPlatform", "CudaPlatform", "NonNvmlCudaPlatform"):
        method = _method(_class(source, PLATFORM, cls), "is_fully_connected")
        if method is not None and "NVML_P2P_CAPS_INDEX_NVLINK" in ast.unparse(method):
            return {"file": PLATFORM, "class": cls, "line": method.lineno, "asks": "nvmlDeviceGetP2PStatus(NVLINK)"}
    return None


def _platform_allows(source: WheelSource) -> dict[str, Any] | None:
    """`CudaPlatform.use_custom_allreduce()` (ParallelConfig turns the kernel off when it says no)."""
    for cls in ("CudaPlatformBase", "CudaPlatform", "NvmlCudaPlatform"):
        method = _method(_class(source, PLATFORM, cls), "use_custom_allreduce")
        if method is not None:
            try:
                value = run_function(method, {"cls": None})
            except NotStatic:
                value = None
            return {"file": PLATFORM, "class": cls, "line": method.lineno, "value": value}
    return None


def config_disables(source: WheelSource) -> list[dict[str, Any]]:
    """`ParallelConfig` conditions that set `disable_custom_all_reduce = True` whatever the flag says."""
    for path in PARALLEL:
        cls = _class(source, path, "ParallelConfig")
        if cls is None:
            continue
        out = []
        for node in ast.walk(cls):
            if isinstance(node, ast.If) and any(isinstance(s, ast.Assign) and ast.unparse(s.targets[0]) ==
                                                "self.disable_custom_all_reduce" for s in node.body):
                out.append({"file": path, "line": node.lineno, "test": ast.unparse(node.test)})
        return sorted(out, key=lambda gate: gate["line"])
    return []


def communicator_facts(source: WheelSource) -> dict[str, Any] | None:
    """Which process groups get the custom all-reduce (`CudaCommunicator.__init__`: the TP group only)."""
    init = _method(_class(source, COMMUNICATOR, "CudaCommunicator"), "__init__")
    if init is None:
        return None
    test = next((n for n in ast.walk(init) if isinstance(n, ast.If) and "unique_name" in ast.unparse(n.test)
                 and _reads(n, "use_custom_allreduce") is False and "tp" in ast.unparse(n.test)), None)
    return {"file": COMMUNICATOR, "line": init.lineno,
            "group_test": {"line": test.lineno, "test": ast.unparse(test.test)} if test else None}


# --- symmetric memory and FlashInfer -------------------------------------------------------------------------

def symm_mem_facts(source: WheelSource) -> dict[str, Any] | None:
    init = _method(_class(source, SYMM, "SymmMemCommunicator"), "__init__")
    if init is None:
        return None
    return {"file": SYMM, "line": init.lineno, "env": "VLLM_ALLREDUCE_USE_SYMM_MEM",
            "gates": early_returns(init),
            "max_sizes": _table_keys(source, UTILS, "SYMM_MEM_ALL_REDUCE_MAX_SIZES"),
            "nccl_symm_mem": _module_assignment(source, UTILS, "NCCL_SYMM_MEM_ALL_REDUCE_CONFIG")}


def _module_assignment(source: WheelSource, paths: tuple[str, ...], name: str) -> dict[str, Any] | None:
    for path in paths:
        tree = source.tree(path)
        found = _assignment(top_level(tree), name) if tree else None
        if found is not None:
            return {"file": path, "line": found.lineno, "name": name}
    return None


def flashinfer_facts(source: WheelSource) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for path, name in FLASHINFER:
        cls = _class(source, path, name)
        init = _method(cls, "__init__")
        if cls is not None and init is not None:
            out[name] = {"file": path, "line": cls.lineno, "gates": early_returns(init)}
    fusion = next((t for t in (_table_keys(source, (p,), FUSION_TABLE) for p in sorted(source.names)
                               if p.startswith("vllm/compilation/") and p.endswith(".py")) if t), None)
    if fusion is not None:
        out["fusion_max_sizes"] = fusion
    return out
