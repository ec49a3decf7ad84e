"""Quantization normalised to one scheme name, with what is quantized and what is ignored.

Schemes: bf16 fp16 fp32 | int4-w4a16 (group g) | int8-w8a8 | int8-w8a16 | fp8-tensor | fp8-channel |
fp8-block [bn,bk] | nvfp4 | mxfp4 | awq | gptq. Sources: config.json `quantization_config` (top level or
inside `text_config`), or ModelOpt's hf_quant_config.json.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import re
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Quantization

# Representative module names per component, as the checkpoints name them (with and without the
# multimodal wrapper's `language_model.` prefix). Used to decide what an ignore list leaves unquantized.
MODULE_KINDS = {
    "attention": "model.layers.5.self_attn.q_proj",
    "dense_mlp": "model.layers.0.mlp.gate_proj",
    "shared_experts": "model.layers.5.mlp.shared_experts.gate_proj",
    "routed_experts": "model.layers.5.mlp.experts.7.gate_proj",
    "lm_head": "lm_head",
}


def normalise_quantization(config: dict[str, Any], hf_quant: dict[str, Any] | None, dtype: str) -> Quantization:
    q = _normalise(config, hf_quant, dtype)
    expert = _expert_dtype(config)
    return dataclasses.replace(q, expert_scheme=expert) if expert and expert != q.scheme else q


# DeepSeek-V4 stores the routed experts in FP4 and everything else FP8 block: `expert_dtype` "fp4" is MXFP4
# (e2m1 values, a ue8m0 scale per 32), "fp8" the checkpoint's FP8 block; vLLM reads a missing value as "fp4"
# (DeepseekV4FP8Config, https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/models/deepseek_v4.py).
EXPERT_DTYPES = {"fp4": "mxfp4", "mxfp4": "mxfp4"}


def _expert_dtype(config: dict[str, Any]) -> str | None:
    value = config.get("expert_dtype")
    if value is None and config.get("model_type") == "deepseek_v4":
        value = "fp4"
    if value is None or not isinstance(config.get("quantization_config"), dict):
        return None
    if not isinstance(value, str):
        raise InputError("config.json: expert_dtype must be a string")
    return EXPERT_DTYPES.get(value.lower())


def _normalise(config: dict[str, Any], hf_quant: dict[str, Any] | None, dtype: str) -> Quantization:
    qc = config.get("quantization_config")
    if hf_quant is not None and isinstance(hf_quant.get("quantization"), dict):
        return _modelopt(hf_quant["quantization"], "hf_quant_config.json")
    if qc is None:
        return Quantization(scheme=_dense_scheme(dtype), quantized=(), source=None)
    if not isinstance(qc, dict):
        raise InputError("config.json: quantization_config must be an object")
    method = str(qc.get("quant_method", "")).lower()
    if method == "compressed-tensors":
        return _compressed_tensors(qc)
    if method == "modelopt":
        return _modelopt(qc, "config.json")
    if method == "fp8":
        return _fp8(qc)
    if method == "mxfp4":
        ignored = _str_list(qc.get("modules_to_not_convert"), "modules_to_not_convert")
        return _with_targets(Quantization(scheme="mxfp4", method=method, bits=4, group_size=32,
                                          ignored=ignored, source="config.json"))
    if method in ("awq", "gptq"):
        return _with_targets(Quantization(
            scheme=method, method=method, bits=_int(qc.get("bits") or qc.get("w_bit"), "bits"),
            group_size=_int(qc.get("group_size") or qc.get("q_group_size"), "group_size"),
            ignored=_str_list(qc.get("modules_to_not_convert"), "modules_to_not_convert"),
            source="config.json"))
    return Quantization(scheme=method or "unknown", method=method or None, source="config.json")


def _dense_scheme(dtype: str) -> str:
    return {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}.get(dtype, dtype)


def _fp8(qc: dict[str, Any]) -> Quantization:
    block = qc.get("weight_block_size")
    activation = f"fp8-{qc.get('activation_scheme', 'dynamic')}"
    # transformers' native fp8 path never converts lm_head, listed or not
    ignored = _str_list(qc.get("modules_to_not_convert"), "modules_to_not_convert") or ("lm_head",)
    if block is not None:
        shape = tuple(_int(v, "weight_block_size") for v in _list(block, "weight_block_size"))
        return _with_targets(Quantization(scheme="fp8-block", method="fp8", bits=8, block_shape=shape,
                                          activation=activation, ignored=ignored, source="config.json"))
    return _with_targets(Quantization(scheme="fp8-tensor", method="fp8", bits=8, activation=activation,
                                      ignored=ignored, source="config.json"))


def _compressed_tensors(qc: dict[str, Any]) -> Quantization:
    groups = qc.get("config_groups") or {}
    if not isinstance(groups, dict) or not groups:
        raise InputError("config.json: compressed-tensors quantization_config has no config_groups")
    group = next(iter(groups.values()))
    if not isinstance(group, dict) or not isinstance(group.get("weights"), dict):
        raise InputError("config.json: compressed-tensors config group has no weights scheme")
    weights, acts = group["weights"], group.get("input_activations")
    bits = _int(weights.get("num_bits"), "num_bits")
    kind = weights.get("type", "int")
    strategy = weights.get("strategy")
    group_size = _int(weights.get("group_size"), "group_size") if weights.get("group_size") else None
    block = weights.get("block_structure")
    scheme, shape = _ct_scheme(bits, kind, strategy, group_size, block, acts)
    activation = None
    if isinstance(acts, dict):
        activation = f"{acts.get('type', 'int')}{acts.get('num_bits')}-{acts.get('strategy')}"
        activation += "-dynamic" if acts.get("dynamic") else "-static"
    kv = qc.get("kv_cache_scheme")
    return _with_targets(Quantization(
        scheme=scheme, method="compressed-tensors", bits=bits, group_size=group_size, block_shape=shape,
        activation=activation, ignored=_str_list(qc.get("ignore"), "ignore"),
        kv_cache_dtype=_kv_dtype(kv), source="config.json"))


def _ct_scheme(bits: int, kind: str, strategy: Any, group_size: int | None, block: Any,
               acts: Any) -> tuple[str, tuple[int, ...] | None]:
    if kind == "float" and bits == 4:
        return "nvfp4", None
    if kind == "float" and bits == 8:
        if strategy == "block" and block:
            return "fp8-block", tuple(_int(v, "block_structure") for v in _list(block, "block_structure"))
        return ("fp8-channel" if strategy == "channel" else "fp8-tensor"), None
    if kind == "int" and bits == 4:
        return "int4-w4a16", None
    if kind == "int" and bits == 8:
        return ("int8-w8a8" if acts else "int8-w8a16"), None
    return f"{kind}{bits}", None


def _modelopt(q: dict[str, Any], source: str) -> Quantization:
    algo = str(q.get("quant_algo", "")).upper()
    if algo == "MIXED_PRECISION":  # per-layer algos: size the checkpoint by the one most layers use
        algo = _dominant_algo(q.get("quantized_layers"))
    scheme = {"NVFP4": "nvfp4", "FP8": "fp8-tensor", "W4A16_AWQ": "awq", "MXFP4": "mxfp4"}.get(algo, algo.lower())
    ignored = _str_list(q.get("exclude_modules") or q.get("ignore"), "exclude_modules")
    group = q.get("group_size")
    kv_algo = q.get("kv_cache_quant_algo")
    if kv_algo is None and isinstance(q.get("kv_cache_scheme"), dict):
        kv = _kv_dtype(q["kv_cache_scheme"])
    else:
        kv = "fp8_e4m3" if str(kv_algo).upper() == "FP8" else None
    return _with_targets(Quantization(
        scheme=scheme or "unknown", method="modelopt", bits=4 if scheme == "nvfp4" else None,
        group_size=_int(group, "group_size") if group else (16 if scheme == "nvfp4" else None),
        ignored=ignored, kv_cache_dtype=kv, source=source))


def _dominant_algo(layers: Any) -> str:
    """ModelOpt MIXED_PRECISION exports list `quantized_layers: {name: {quant_algo: NVFP4 | FP8 | ...}}`."""
    if not isinstance(layers, dict):
        return "MIXED_PRECISION"
    algos = [str(v.get("quant_algo", "")).upper() for v in layers.values() if isinstance(v, dict)]
    return max(set(algos), key=algos.count) if algos else "MIXED_PRECISION"


def _kv_dtype(scheme: Any) -> str | None:
    if isinstance(scheme, dict) and scheme.get("num_bits") == 8:
        return "fp8_e4m3" if scheme.get("type", "float") == "float" else "int8"
    return None


def _with_targets(q: Quantization) -> Quantization:
    import dataclasses

    quantized = tuple(kind for kind, name in MODULE_KINDS.items() if not is_ignored(name, q.ignored))
    return dataclasses.replace(q, quantized=quantized)


def is_ignored(module: str, patterns: tuple[str, ...]) -> bool:
    names = (module, f"language_model.{module}", f"model.language_model.{module.removeprefix('model.')}")
    for pattern in patterns:
        for name in names:
            if _matches(pattern, name):
                return True
    return False


def _matches(pattern: str, name: str) -> bool:
    if pattern.startswith("re:"):
        compiled = _bounded_regex(pattern[3:])
        return compiled is not None and compiled.match(name) is not None
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, pattern + ".*")
    return name == pattern or name.endswith("." + pattern) or name.startswith(pattern + ".")


MAX_PATTERN = 1000  # characters; ignore-list patterns name modules, a few dozen characters each


@functools.lru_cache(maxsize=256)
def _bounded_regex(pattern: str) -> Any:
    """A `re:` pattern from a config, compiled so that matching a module name stays fast whatever the
    pattern (Python's backtracking `re` takes seconds on `(.*)*!`): the shapes real checkpoints use
    (`.*mlp\\.(gate|up)_proj.*`) by `re`, anything else by RE2, whose matching is linear. A pattern RE2
    cannot compile (backreferences, lookaround) or longer than MAX_PATTERN matches nothing."""
    if len(pattern) > MAX_PATTERN:
        return None
    if _backtracks_little(pattern):
        return re.compile(pattern)
    import re2  # ~5 ms to load: only for patterns `re` could take too long on

    options = re2.Options()
    options.log_errors = False  # RE2 would print parse errors on stderr
    options.max_mem = 8 << 20
    try:
        return re2.compile(pattern, options)
    except re2.error:
        return None



MAX_PLAIN_REPEATS = 2  # un-nested repeats: backtracking over a name of n characters is at most ~n**3 steps
_UNSAFE = {"GROUPREF", "GROUPREF_EXISTS", "ASSERT", "ASSERT_NOT", "ATOMIC_GROUP"}  # RE2 refuses these
_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _backtracks_little(pattern: str) -> bool:
    """True when `re` matches `pattern` in polynomial time: no repeat inside a repeat, at most
    MAX_PLAIN_REPEATS repeats, nothing RE2 would refuse. Decided on the stdlib's own parse tree."""
    try:
        from re import _parser
    except ImportError:  # a Python without it: leave every pattern to RE2
        return False
    try:
        tree = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError):
        return False
    repeats = _repeats(list(tree), nested=False)
    return repeats is not None and repeats <= MAX_PLAIN_REPEATS


def _repeats(items: list[Any], nested: bool) -> int | None:
    """How many repeats `items` hold; None when one sits inside another (or inside a repeated branch)."""
    total = 0
    for op, arg in items:
        name = str(op)
        if name in _UNSAFE:
            return None
        inner: list[list[Any]] = []
        if name in _REPEATS:
            if nested:
                return None
            total += 1
            inner = [list(arg[2])]
        elif name == "SUBPATTERN":
            inner = [list(arg[-1])]
        elif name == "BRANCH":
            if nested:  # `(a|a)*b` backtracks exponentially without a nested repeat
                return None
            inner = [list(alt) for alt in arg[1]]
        for part in inner:
            found = _repeats(part, nested or name in _REPEATS)
            if found is None:
                return None
            total += found
    return total

def _list(value: Any, field: str) -> list[Any]:
    if not isinstance(value, list):
        raise InputError(f"config.json: quantization field {field} must be a list")
    return value


def _str_list(value: Any, field: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = _list(value, field)
    if not all(isinstance(v, str) for v in items):
        raise InputError(f"config.json: quantization field {field} must be a list of strings")
    return tuple(items)


def _int(value: Any, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 1 << 20:
        raise InputError(f"config.json: quantization field {field}={value!r} is not a positive integer")
    return value
