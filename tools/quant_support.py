"""Static readers for what an engine release's loader accepts from a quantized checkpoint, used by
tools/model_support.py (its `quant_methods`, `quant_methods_via_vllm` and `modelopt_algos` rows):

- vLLM: the `quant_method` names `QuantizationMethods` (a `Literal[...]`) registers in
  `vllm/model_executor/layers/quantization/__init__.py` (what `ModelConfig._verify_quantization` checks before it
  raises "Unknown quantization method"), and the ModelOpt `quant_algo` values `QUANT_ALGOS` in `modelopt.py`
  admits (a list literal up to 0.28, `[*LINEAR_ALGOS, "MIXED_PRECISION"]` from 0.31): every other value makes
  `ModelOpt*Config.from_config` raise "ModelOpt currently only supports: [...]";
- SGLang: the keys of `BASE_QUANTIZATION_METHODS` in `sglang/srt/layers/quantization/__init__.py` with the
  `BASE_QUANTIZATION_METHODS.update({...})` blocks a CUDA machine runs (an `if` whose test calls `is_cuda()`),
  and, apart, `VLLM_QUANTIZATION_METHODS` (registered only with vLLM installed, up to 0.5.x).

Everything is read with `ast`: nothing is imported."""

from __future__ import annotations

import ast
import re
from typing import Any

VLLM_QUANT_INIT = "vllm/model_executor/layers/quantization/__init__.py"
VLLM_MODELOPT = "vllm/model_executor/layers/quantization/modelopt.py"
SGLANG_QUANT_INIT = "sglang/srt/layers/quantization/__init__.py"


TF_TOKENIZERS = "transformers/models/auto/tokenization_auto.py"
TOKENIZER_CLASS = re.compile(r"^[A-Z]\w*(?:Tokenizer|TokenizerFast|Backend)$")


def tokenizer_classes(source: str) -> set[str]:
    """The tokenizer class names transformers' `tokenization_auto.py` knows: every string constant of the module
    that is a tokenizer class name (TOKENIZER_MAPPING_NAMES' values, and names `tokenizer_class_from_name`
    special-cases, such as `TokenizersBackend` from 5.0.0)."""
    return {node.value for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Constant)
            and isinstance(node.value, str) and TOKENIZER_CLASS.match(node.value)}


TF_GGUF = "transformers/integrations/ggml.py"


def gguf_architectures(source: str) -> set[str]:
    """The GGUF `general.architecture` names transformers reads (the keys of `GGUF_CONFIG_MAPPING`, which
    `modeling_gguf_pytorch_utils.GGUF_SUPPORTED_ARCHITECTURES` lists; it raises "GGUF model with architecture X is
    not supported yet" for any other). vLLM up to 0.23 reads a GGUF file's config through it."""
    values = _module_values(ast.parse(source))
    return _dict_keys(values.get("GGUF_CONFIG_MAPPING")) - {"general", "tokenizer"}


def _name_targets(node: ast.stmt) -> list[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
        else []
    return [t.id for t in targets if isinstance(t, ast.Name)]


def _strings(node: ast.AST | None) -> list[str]:
    """The string constants of a list, tuple or subscript slice (`Literal["a", "b"]`)."""
    if node is None:
        return []
    elts = node.elts if isinstance(node, ast.List | ast.Tuple) else [node]
    return [e.value for e in elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def _module_values(tree: ast.Module) -> dict[str, ast.AST]:
    return {name: node.value for node in tree.body for name in _name_targets(node) if node.value is not None}


def vllm_quant_methods(source: str) -> set[str]:
    """`QuantizationMethods = Literal[...]` (every release read), else a `QUANTIZATION_METHODS` list literal."""
    values = _module_values(ast.parse(source))
    literal = values.get("QuantizationMethods")
    if isinstance(literal, ast.Subscript):
        return set(_strings(literal.slice))
    return set(_strings(values.get("QUANTIZATION_METHODS")))


def vllm_deprecated_methods(source: str) -> set[str]:
    """`DEPRECATED_QUANTIZATION_METHODS` (from 0.14-0.15): `ModelConfig._verify_quantization` raises for these
    unless `--allow-deprecated-quantization` is given."""
    return set(_strings(_module_values(ast.parse(source)).get("DEPRECATED_QUANTIZATION_METHODS")))


ALGO_NAME = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$")


def vllm_mixed_layer_algos(source: str) -> set[str]:
    """The per-layer `quant_algo`s `ModelOptMixedPrecisionConfig` (from 0.17) names: the algo-like string constants
    in its class body and in the module-level tuples, lists and dicts the body refers to by name. A layer whose algo
    the class never names gets no quantized method (UnquantizedLinearMethod / no MoE method up to 0.23). An
    understatement is possible where a release dispatches through a helper outside the class."""
    tree = ast.parse(source)
    values = _module_values(tree)
    found: set[str] = set()
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and node.name == "ModelOptMixedPrecisionConfig"):
            continue
        for part in ast.walk(node):
            if isinstance(part, ast.Constant) and isinstance(part.value, str) and ALGO_NAME.match(part.value):
                found.add(part.value)
            elif isinstance(part, ast.Name) and part.id in values:
                named = values[part.id]
                elements = named.keys if isinstance(named, ast.Dict) else getattr(named, "elts", [])
                found |= {e.value for e in elements if isinstance(e, ast.Constant) and isinstance(e.value, str)
                          and ALGO_NAME.match(e.value)}
    return found - {"MIXED_PRECISION"}


def vllm_modelopt_algos(source: str) -> set[str]:
    """`QUANT_ALGOS`: a list of strings, or starred names of module-level dicts or lists (their keys/items)."""
    values = _module_values(ast.parse(source))
    found: set[str] = set()
    node = values.get("QUANT_ALGOS")
    for element in node.elts if isinstance(node, ast.List | ast.Tuple) else []:
        if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name):
            named = values.get(element.value.id)
            keys = named.keys if isinstance(named, ast.Dict) else getattr(named, "elts", [])
            found |= {k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
        else:
            found |= set(_strings(element))
    return found


def _dict_keys(node: Any) -> set[str]:
    if not isinstance(node, ast.Dict):
        return set()
    return {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}


def _update_keys(body: list[ast.stmt], name: str) -> set[str]:
    keys: set[str] = set()
    for node in body:
        call = node.value if isinstance(node, ast.Expr) else None
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "update" \
                and isinstance(call.func.value, ast.Name) and call.func.value.id == name and call.args:
            keys |= _dict_keys(call.args[0])
    return keys


def _on_cuda(test: ast.expr) -> bool | None:
    """What an `if` test gives on a CUDA machine: `is_cuda()` is true, the other platform probes (`is_hip()`,
    `is_npu()`, ...) false, anything else unknown (None)."""
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id.startswith("is_"):
        return test.func.id == "is_cuda"
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _on_cuda(test.operand)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        parts = [_on_cuda(v) for v in test.values]
        if isinstance(test.op, ast.Or):
            return True if True in parts else None if None in parts else False
        return False if False in parts else None if None in parts else True
    return None


def _cuda_branch_keys(node: ast.stmt) -> set[str]:
    """The registry updates the branch of an `if`/`elif` chain a CUDA machine takes (none where a test is unknown)."""
    while isinstance(node, ast.If):
        verdict = _on_cuda(node.test)
        if verdict is True:
            return _update_keys(node.body, "BASE_QUANTIZATION_METHODS")
        if verdict is None or len(node.orelse) != 1:
            return _update_keys(node.orelse, "BASE_QUANTIZATION_METHODS") if verdict is False else set()
        node = node.orelse[0]
    return set()


def sglang_quant_methods(source: str) -> dict[str, set[str]]:
    """{"quant_methods": registered on CUDA, "quant_methods_via_vllm": registered only with vLLM installed}."""
    tree = ast.parse(source)
    values = _module_values(tree)
    base = _dict_keys(values.get("BASE_QUANTIZATION_METHODS")) | _update_keys(tree.body, "BASE_QUANTIZATION_METHODS")
    for node in tree.body:
        base |= _cuda_branch_keys(node)
    via_vllm = _dict_keys(values.get("VLLM_QUANTIZATION_METHODS")) - base
    return {"quant_methods": base, "quant_methods_via_vllm": via_vllm}
