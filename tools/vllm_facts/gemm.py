"""Which kernel runs a dense (non-MoE) linear layer per quantization scheme on capability 12.0 and 12.1, read
from a wheel's source. Where vLLM keeps an ordered kernel list (`_POSSIBLE_FP8_KERNELS`, ... in
`kernels/linear/__init__.py`, before 0.17 in `quantization/kernels/{scaled_mm,mixed_precision}`), each kernel's
`is_supported` / `get_min_capability` and `can_implement` are answered on the source (explore.py); before a
scheme had a list, its selection code is located and its gates answered the same way (`cutlass_fp8_supported()`
in front of `torch._scaled_mm`, DeepGEMM / CUTLASS blockwise / Triton for 128x128 blocks, the NVFP4 if-chain).
Each candidate keeps its file and line; `chosen` is doctor.engines.vllm.gemm.choose on vLLM's defaults."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from doctor.engines.vllm.evaluate import NotStatic, Stub
from doctor.engines.vllm.gemm import CAPABILITIES, choose
from tools.vllm_facts.backends import _method
from tools.vllm_facts.explore import Explorer
from tools.vllm_facts.source import WheelSource, module_of

Q = "vllm/model_executor/layers/quantization/"
LINEAR = "vllm/model_executor/kernels/linear/__init__.py"
SCALED = Q + "kernels/scaled_mm/__init__.py"
MIXED = Q + "kernels/mixed_precision/__init__.py"
W8A8 = Q + "utils/w8a8_utils.py"
FP8_UTILS = Q + "utils/fp8_utils.py"
NVFP4_UTILS = Q + "utils/nvfp4_utils.py"
MODELOPT = Q + "modelopt.py"
CT = Q + "compressed_tensors/compressed_tensors.py"
CT_NVFP4 = Q + "compressed_tensors/schemes/compressed_tensors_w4a4_nvfp4.py"
AWQ_MARLIN = Q + "awq_marlin.py"
MXFP4 = Q + "mxfp4.py"
COMPOSITE_PARTS = ("base_type", "fallback_type")  # BlockScaledMMLinearKernel.py: supported when both are
KERNEL_PACKAGES = ("flashinfer", "deep-gemm", "deep_gemm", "humming", "b12x", "fbgemm")
# scheme -> the kernel lists that serve it, newest layout first
SCHEME_LISTS = {
    "fp8": ((LINEAR, "_POSSIBLE_FP8_KERNELS"), (SCALED, "_POSSIBLE_FP8_KERNELS")),
    "fp8-block": ((LINEAR, "_POSSIBLE_FP8_BLOCK_KERNELS"),),
    "int8-w8a8": ((LINEAR, "_POSSIBLE_INT8_KERNELS"), (SCALED, "_POSSIBLE_INT8_KERNELS"),
                  (SCALED, "_POSSIBLE_KERNELS")),
    "wna16": ((LINEAR, "_POSSIBLE_KERNELS"), (MIXED, "_POSSIBLE_KERNELS")),
    "nvfp4": ((LINEAR, "_POSSIBLE_NVFP4_KERNELS"),),
    "mxfp4": ((LINEAR, "_POSSIBLE_MXFP4_KERNELS"),),
}


def gemm_facts(source: WheelSource, env_table: dict[str, Any]) -> dict[str, Any]:
    defaults = {name: entry.get("default") for name, entry in env_table.items()}
    schemes: dict[str, Any] = {}
    for scheme, finder in SCHEMES.items():
        entry = finder(source, defaults)
        if entry is None:
            continue
        entry["chosen"] = {label: choose(entry["candidates"], label, defaults) for label in CAPABILITIES}
        schemes[scheme] = entry
    return {"requires": kernel_packages(source), "schemes": schemes}


def kernel_packages(source: WheelSource) -> list[str]:
    """The wheel's dependencies that carry GEMM kernels (FlashInfer, DeepGEMM, ...): installed with vLLM unless
    marked as an extra, so a `has_flashinfer()` gate usually holds."""
    meta = next((n for n in source.names if n.endswith(".dist-info/METADATA")), None)
    lines = source.text(meta).splitlines() if meta else []
    return [line.split(":", 1)[1].strip() for line in lines if line.startswith("Requires-Dist:")
            and any(word in line.lower() for word in KERNEL_PACKAGES)]


def explorer(source: WheelSource, label: str, defaults: dict[str, Any]) -> Explorer:
    return Explorer(source, CAPABILITIES[label], env_defaults=defaults)


# --- kernel lists ------------------------------------------------------------------------------------------

def kernel_list(source: WheelSource, places: tuple[tuple[str, str], ...], defaults: dict[str, Any]
                ) -> dict[str, Any] | None:
    for path, name in places:
        found = _assignment(source, path, name)
        if found is None:
            continue
        names = _cuda_entries(found.value)
        return {"how": "kernel list", "list": name, "file": path, "line": found.lineno,
                "candidates": [kernel_candidate(source, path, kernel, defaults) for kernel in names]}
    return None


def _assignment(source: WheelSource, path: str, name: str) -> ast.Assign | ast.AnnAssign | None:
    tree = source.tree(path)
    for node in tree.body if tree else []:
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target \
            if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == name and node.value is not None:  # type: ignore[union-attr]
            return node  # type: ignore[return-value]
    return None


def _cuda_entries(value: ast.expr | None) -> list[str]:
    """The CUDA list of a `{PlatformEnum.CUDA: [...], ...}` dict, or the plain list (before 0.16)."""
    if isinstance(value, ast.Dict):
        value = next((v for k, v in zip(value.keys, value.values, strict=True)
                      if k is not None and ast.unparse(k).endswith(".CUDA")), None)
    if not isinstance(value, ast.List):
        return []
    return [ast.unparse(e) for e in value.elts]


def kernel_candidate(source: WheelSource, path: str, kernel: str, defaults: dict[str, Any]) -> dict[str, Any]:
    found = source.lookup(module_of(path), kernel)
    out: dict[str, Any] = {"backend": kernel}
    if found is None or not isinstance(found.node, ast.ClassDef):
        out["answer"] = "unknown: class not found"
        return out
    out.update(file=found.path, line=found.node.lineno)
    module = module_of(found.path)
    fits = _method(source, module, kernel, "can_implement")
    for label in CAPABILITIES:
        tool = explorer(source, label, defaults)
        out[label] = _supported(source, tool, module, kernel, label)
        out[f"fits@{label}"], why = _fits(tool, fits) if fits else (True, None)
        if why:
            out[f"fits_why@{label}"] = why
    return out


def _supported(source: WheelSource, tool: Explorer, module: str, kernel: str, label: str) -> Any:
    cap = CAPABILITIES[label].to_int()
    minimum = _method(source, module, kernel, "get_min_capability")
    least = _value(tool, minimum, {}) if minimum else None
    if isinstance(least, int) and cap < least:
        return {"value": False, "why": f"needs capability {least}"}
    check = _method(source, module, kernel, "is_supported")
    if check is None:
        return {"value": True} if isinstance(least, int) else {"value": "unknown: no capability check"}
    if all(part in ast.unparse(check[1]) for part in COMPOSITE_PARTS):
        return both(_parts(source, tool, module, kernel, label))
    stub = Stub(get_min_capability=least) if isinstance(least, int) else Stub()
    try:
        return tool.function(check[0], check[1], {"compute_capability": cap, "cls": stub})
    except NotStatic as exc:
        return {"value": f"unknown: {exc}"}


def _parts(source: WheelSource, tool: Explorer, module: str, kernel: str, label: str) -> list[dict[str, Any]]:
    """The answers of the kernels a composite is built from (`base_type`, `fallback_type` of the dynamic
    block-FP8 kernels, whose `is_supported` needs both)."""
    found = source.lookup(module, kernel)
    out = []
    for stmt in found.node.body if found and isinstance(found.node, ast.ClassDef) else []:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and \
                stmt.target.id in COMPOSITE_PARTS and isinstance(stmt.value, ast.Name):
            out.append(_supported(source, tool, module_of(found.path), stmt.value.id, label))  # type: ignore[union-attr]
    return out


def both(answers: list[dict[str, Any]]) -> dict[str, Any]:
    """`a and b` over walked answers: False if either is, else every combination of their cases."""
    for answer in answers:
        if answer.get("value") is False:
            return answer
    cases: list[dict[str, Any]] = [{"when": {}, "value": True}]
    asks: dict[str, str] = {}
    for answer in answers:
        asks.update(answer.get("asks", {}))
        theirs = answer.get("cases") or [{"when": {}, "value": answer.get("value")}]
        cases = [{"when": {**a["when"], **b["when"]}, "value": a["value"] is True and b["value"] is True}
                 for a in cases for b in theirs]
    return {"asks": asks, "cases": cases} if asks else {"value": all(c["value"] for c in cases)}


def _fits(tool: Explorer, found: tuple[str, ast.FunctionDef]) -> tuple[Any, str | None]:
    """can_implement: False (and why) when it refuses this GPU whatever the layer; "layer" when the layer
    decides."""
    try:
        answer = tool.function(found[0], found[1], {"cls": Stub()})
    except NotStatic:
        return "layer", None
    if "value" in answer:
        return (answer["value"], answer.get("why")) if isinstance(answer["value"], bool) else ("layer", None)
    if all(c["value"] is False for c in answer["cases"]):
        return False, "; ".join(sorted({c["why"] for c in answer["cases"] if c.get("why")})) or None
    return "layer", None


def _value(tool: Explorer, found: tuple[str, ast.FunctionDef] | None, bindings: dict[str, Any]) -> Any:
    if found is None:
        return None
    try:
        return tool.function(found[0], found[1], {"cls": Stub(), **bindings}).get("value")
    except NotStatic:
        return None


# --- selection code before a scheme had a kernel list ------------------------------------------------------

def gate(source: WheelSource, backend: str, path: str, expression: str, defaults: dict[str, Any],
         where: bool | None = None) -> dict[str, Any] | None:
    """A candidate chosen when `expression` (evaluated in `path`'s module) holds. Its place is the first
    function the expression calls (None when this release has no such function) unless `where` is given."""
    node = ast.parse(expression, mode="eval").body
    called = next((n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)),
                  None)
    found = source.lookup(module_of(path), called) if called and where is None else None
    if called and where is None and found is None:
        return None  # this release has no such gate
    out: dict[str, Any] = {"backend": backend, "gate": expression, "file": found.path if found else path,
                           "line": getattr(found.node, "lineno", 0) if found else 0}
    for label in CAPABILITIES:
        tool = explorer(source, label, defaults)
        try:
            out[label] = tool.expression(path, node)
        except NotStatic as exc:
            out[label] = {"value": f"unknown: {exc}"}
    return out


def fp8_legacy(source: WheelSource, defaults: dict[str, Any]) -> dict[str, Any] | None:
    op = source.lookup(module_of(W8A8), "Fp8LinearOp")
    if op is None:
        return None
    candidates = [gate(source, "cutlass_scaled_mm", W8A8, "cutlass_fp8_supported()", defaults),
                  _always("torch._scaled_mm", op.path, op.node.lineno)]
    return {"how": "Fp8LinearOp", "file": op.path, "line": op.node.lineno, "candidates": [c for c in candidates if c]}


def fp8_block_legacy(source: WheelSource, defaults: dict[str, Any]) -> dict[str, Any] | None:
    op = source.lookup(module_of(FP8_UTILS), "W8A8BlockFp8LinearOp") or \
        source.lookup(module_of(FP8_UTILS), "apply_w8a8_block_fp8_linear")
    if op is None:
        return None
    deep_gemm = gate(source, "deep_gemm", FP8_UTILS, "is_deep_gemm_supported()", defaults) or \
        gate(source, "deep_gemm", FP8_UTILS, "should_use_deepgemm(output_dtype, weight)", defaults)
    triton = source.lookup(module_of(FP8_UTILS), "w8a8_triton_block_scaled_mm") or \
        source.lookup(module_of(FP8_UTILS), "w8a8_block_fp8_matmul")
    candidates = [
        gate(source, "flashinfer_fp8_blockscale_gemm", FP8_UTILS,
             "is_flashinfer_fp8_blockscale_gemm_supported() and is_deep_gemm_supported()", defaults),
        deep_gemm,
        gate(source, "cutlass_blockwise", W8A8, "cutlass_block_fp8_supported()", defaults),
        _always("triton_w8a8_block_fp8_matmul", triton.path if triton else FP8_UTILS,
                triton.node.lineno if triton else 0)]
    return {"how": op.node.name, "file": op.path, "line": op.node.lineno,
            "candidates": [c for c in candidates if c]}


def nvfp4_legacy(source: WheelSource, defaults: dict[str, Any]) -> dict[str, Any] | None:
    select = source.function(NVFP4_UTILS, "select_nvfp4_linear_backend")
    if select is not None:
        return decision_paths(source, NVFP4_UTILS, select, "backend", defaults)
    init = source.function(MODELOPT, "__init__", "ModelOptNvFp4LinearMethod")
    if init is None:
        return None
    if any(isinstance(n, ast.Attribute) and n.attr == "backend" for n in ast.walk(init)):
        return decision_paths(source, MODELOPT, init, "self.backend", defaults)
    candidates = [gate(source, "cutlass_fp4", MODELOPT, "cutlass_fp4_supported()", defaults),
                  gate(source, "marlin_fp4", MODELOPT, "is_fp4_marlin_supported()", defaults)]
    return {"how": "ModelOptNvFp4LinearMethod.__init__", "file": MODELOPT, "line": init.lineno,
            "candidates": [c for c in candidates if c]}


def nvfp4_compressed_tensors(source: WheelSource, defaults: dict[str, Any]) -> dict[str, Any] | None:
    """Compressed-tensors NVFP4 before it shares ModelOpt's selection (0.16: `select_nvfp4_linear_backend`):
    its own if-chain (0.11-0.15), or before that the scheme choice in `compressed_tensors.py`."""
    if _assignment(source, LINEAR, "_POSSIBLE_NVFP4_KERNELS") or source.function(NVFP4_UTILS,
                                                                                  "select_nvfp4_linear_backend"):
        return None  # the same selection as ModelOpt's: scheme "nvfp4"
    init = source.function(CT_NVFP4, "__init__", "CompressedTensorsW4A4Fp4")
    if init is not None and any(isinstance(n, ast.Attribute) and n.attr == "backend" for n in ast.walk(init)):
        return decision_paths(source, CT_NVFP4, init, "self.backend", defaults)
    chooser = source.function(CT, "_get_scheme_from_parts", "CompressedTensorsConfig")
    if chooser is None or "CompressedTensorsW4A4Fp4" not in ast.unparse(chooser):
        return None
    candidates = [gate(source, "cutlass_scaled_fp4_mm (CompressedTensorsW4A4Fp4)", CT,
                       "cutlass_fp4_supported() or envs.VLLM_USE_NVFP4_CT_EMULATIONS", defaults),
                  _always("marlin (CompressedTensorsW4A16Fp4)", CT, chooser.lineno)]
    return {"how": "CompressedTensorsConfig._get_scheme_from_parts", "file": CT, "line": chooser.lineno,
            "candidates": [c for c in candidates if c]}


def awq(source: WheelSource, defaults: dict[str, Any]) -> dict[str, Any] | None:
    """AWQ checkpoints run as awq_marlin; before 0.19 its linear method calls the Marlin op directly."""
    method = source.lookup(module_of(AWQ_MARLIN), "AWQMarlinLinearMethod")
    if method is None or "apply_awq_marlin_linear" not in ast.unparse(method.node):
        return None
    least = source.function(AWQ_MARLIN, "get_min_capability", "AWQMarlinConfig")
    candidate = {"backend": "marlin (apply_awq_marlin_linear)", "file": AWQ_MARLIN, "line": method.node.lineno}
    for label in CAPABILITIES:
        minimum = _value(explorer(source, label, defaults), (AWQ_MARLIN, least) if least else None, {})
        candidate[label] = {"value": isinstance(minimum, int) and CAPABILITIES[label].to_int() >= minimum}
    return {"how": "AWQMarlinLinearMethod", "file": AWQ_MARLIN, "line": method.node.lineno,
            "candidates": [candidate, _always("awq (AWQLinearMethod, Triton/CUDA dequant)", Q + "awq.py", 0)]}


def mxfp4_dense(source: WheelSource, defaults: dict[str, Any]) -> dict[str, Any] | None:
    """The `mxfp4` checkpoint format (gpt-oss) quantizes experts only: linear layers stay unquantized."""
    method = source.function(MXFP4, "get_quant_method", "Mxfp4Config")
    if method is None or "UnquantizedLinearMethod" not in ast.unparse(method):
        return None
    return {"how": "Mxfp4Config.get_quant_method", "file": MXFP4, "line": method.lineno,
            "candidates": [_always("unquantized (UnquantizedLinearMethod)", MXFP4, method.lineno)]}


def _always(backend: str, path: str, line: int) -> dict[str, Any]:
    return {"backend": backend, "file": path, "line": line, **{label: {"value": True} for label in CAPABILITIES}}


def decision_paths(source: WheelSource, path: str, function: ast.FunctionDef, target: str,
                   defaults: dict[str, Any]) -> dict[str, Any]:
    """An if-chain that assigns `target` a backend: each assignment, in source order, with the conjunction of
    the tests on its path answered on this GPU."""
    candidates = []
    for tests, label, line in _assignments(function.body, target, ()):
        expression = " and ".join(f"({t})" for t in tests) or "True"
        found = gate(source, label, path, expression, defaults, where=True) or {}
        found.update(line=line, file=path)
        candidates.append(found)
    return {"how": function.name, "file": path, "line": function.lineno, "candidates": candidates}


def _assignments(body: list[ast.stmt], target: str, tests: tuple[str, ...]) -> list[tuple[tuple[str, ...], str, int]]:
    out: list[tuple[tuple[str, ...], str, int]] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            test = ast.unparse(stmt.test)
            out += _assignments(stmt.body, target, (*tests, test))
            out += _assignments(stmt.orelse, target, (*tests, f"not ({test})"))
        elif isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == target and \
                isinstance(stmt.value, ast.Constant | ast.Attribute) and ast.unparse(stmt.value) != "None":
            value = str(stmt.value.value if isinstance(stmt.value, ast.Constant) else stmt.value.attr)
            if value.lower() != "none":  # the placeholder before the chain
                out.append((tests, value, stmt.lineno))
    return out


SCHEMES: dict[str, Callable[[WheelSource, dict[str, Any]], dict[str, Any] | None]] = {
    "fp8": lambda s, d: kernel_list(s, SCHEME_LISTS["fp8"], d) or fp8_legacy(s, d),
    "fp8-block": lambda s, d: kernel_list(s, SCHEME_LISTS["fp8-block"], d) or fp8_block_legacy(s, d),
    "int8-w8a8": lambda s, d: kernel_list(s, SCHEME_LISTS["int8-w8a8"], d),
    "wna16": lambda s, d: kernel_list(s, SCHEME_LISTS["wna16"], d),
    "awq": lambda s, d: awq(s, d) or kernel_list(s, SCHEME_LISTS["wna16"], d),
    "nvfp4": lambda s, d: kernel_list(s, SCHEME_LISTS["nvfp4"], d) or nvfp4_legacy(s, d),
    "nvfp4-ct": nvfp4_compressed_tensors,
    "mxfp4": lambda s, d: kernel_list(s, SCHEME_LISTS["mxfp4"], d),
    "mxfp4-gpt-oss": mxfp4_dense,
}
