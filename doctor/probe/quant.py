"""Quantization normalised to one scheme name, with what is quantized and what is ignored.

Schemes: bf16 fp16 fp32 | intN-wNa16[-asym] (group g) | int8-w8a8 | int8-w8a16 | fp8-tensor | fp8-channel |
fp8-block [bn,bk] | nvfp4 | mxfp4 | mxfp8 | w4a8-awq | awq | gptq | auto-round | bnb-4bit[-dq] | bnb-8bit | hqq.
Sources: config.json `quantization_config` (top level or inside `text_config`), or ModelOpt's
hf_quant_config.json. Mixed checkpoints carry per-module entries (doctor.probe.quant_formats).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Quantization
from doctor.probe.quant_common import (  # noqa: F401  (is_ignored, the regex guards: tests import them here)
    MODULE_KINDS,
    _backtracks_little,
    _bounded_regex,
    group_size,
    is_ignored,
    with_targets,
)
from doctor.probe.quant_common import as_list as _list
from doctor.probe.quant_common import positive_int as _int
from doctor.probe.quant_common import str_list as _str_list


def normalise_quantization(config: dict[str, Any], hf_quant: dict[str, Any] | None, dtype: str,
                           text: dict[str, Any] | None = None) -> Quantization:
    """`config` holds quantization_config; `text` the language model's fields where they are nested apart
    (a multimodal config's text_config)."""
    q = _normalise(config, hf_quant, dtype)
    shape = config if text is None else text
    absent = _absent_kinds(shape)
    if absent:
        q = dataclasses.replace(q, quantized=tuple(k for k in q.quantized if k not in absent))
    if dict.get(shape, "enable_moe_block") and q.source:  # Gemma 4: experts beside the MLP, not inside it
        beside = not is_ignored(EXPERTS_BESIDE_MLP, q.ignored)
        kinds = [k for k in q.quantized if k != "routed_experts"] + (["routed_experts"] if beside else [])
        q = dataclasses.replace(q, quantized=tuple(kinds))
    expert = _expert_dtype(config)
    return dataclasses.replace(q, expert_scheme=expert) if expert and expert != q.scheme else q


# Gemma 4 keeps its routed experts beside the dense MLP (layers.N.experts, layers.N.router): an exclude pattern
# `layers.N.mlp*` leaves them quantized (nvidia/Gemma-4-26B-A4B-NVFP4's hf_quant_config.json excludes exactly that).
EXPERTS_BESIDE_MLP = "model.layers.5.experts.7.gate_proj"

# Module kinds only some architectures have, and the config fields that say a model has them.
HYBRID_KINDS = {"mamba": ("mamba_num_heads", "mamba_head_dim", "ssm_state_size", "mamba_d_ssm"),
                "linear_attention": ("linear_num_value_heads", "linear_key_head_dim", "linear_conv_kernel_dim"),
                "latent": ("moe_latent_size",)}


def _absent_kinds(config: dict[str, Any]) -> set[str]:
    # dict.get: asking is not reading for sizing (doctor.probe.config_fields tracks what the model reader uses)
    return {kind for kind, fields in HYBRID_KINDS.items() if not any(dict.get(config, f) for f in fields)}


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
        return with_targets(Quantization(scheme="mxfp4", method=method, bits=4, group_size=32,
                                          ignored=ignored, source="config.json"))
    if method == "mxfp8":  # MiniMax-M3-MXFP8: e4m3 values, a ue8m0 scale per 32 (weight_block_size [1, 32])
        ignored = _str_list(qc.get("ignored_layers") or qc.get("modules_to_not_convert"), "ignored_layers")
        return with_targets(Quantization(scheme="mxfp8", method=method, bits=8, group_size=32,
                                          ignored=ignored, source="config.json"))
    if method in ("awq", "gptq"):
        return _formats().gptq_awq(qc, method)
    if method in ("auto-round", "auto_round", "autoround", "intel/auto-round"):
        return _formats().auto_round(qc)
    if method == "bitsandbytes":
        return _formats().bitsandbytes(qc)
    if method == "hqq":
        return _formats().hqq(qc)
    return Quantization(scheme=method or "unknown", method=method or None, source="config.json")


def _formats() -> Any:
    """doctor.probe.quant_formats, loaded for the formats that need it (dense, FP8 and MXFP4 checkpoints don't)."""
    from doctor.probe import quant_formats

    return quant_formats


def _dense_scheme(dtype: str) -> str:
    return {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}.get(dtype, dtype)


def _fp8(qc: dict[str, Any]) -> Quantization:
    block = qc.get("weight_block_size")
    activation = f"fp8-{qc.get('activation_scheme', 'dynamic')}"
    # transformers' native fp8 path never converts lm_head, listed or not
    ignored = _str_list(qc.get("modules_to_not_convert"), "modules_to_not_convert") or ("lm_head",)
    if block is not None:
        shape = tuple(_int(v, "weight_block_size") for v in _list(block, "weight_block_size"))
        return with_targets(Quantization(scheme="fp8-block", method="fp8", bits=8, block_shape=shape,
                                          activation=activation, ignored=ignored, source="config.json"))
    return with_targets(Quantization(scheme="fp8-tensor", method="fp8", bits=8, activation=activation,
                                      ignored=ignored, source="config.json"))


def _compressed_tensors(qc: dict[str, Any]) -> Quantization:
    groups = qc.get("config_groups") or {}
    if not isinstance(groups, dict) or not groups:
        raise InputError("config.json: compressed-tensors quantization_config has no config_groups")
    group = next(iter(groups.values()))
    scheme, bits, group_size, shape = _ct_group_scheme(group)
    acts = group.get("input_activations")
    activation = None
    if isinstance(acts, dict):
        activation = f"{acts.get('type', 'int')}{acts.get('num_bits')}-{acts.get('strategy')}"
        activation += "-dynamic" if acts.get("dynamic") else "-static"
    kv = qc.get("kv_cache_scheme")
    ignored = _str_list(qc.get("ignore"), "ignore")
    q = with_targets(Quantization(
        scheme=scheme, method="compressed-tensors", bits=bits, group_size=group_size, block_shape=shape,
        activation=activation, ignored=ignored, kv_cache_dtype=_kv_dtype(kv), source="config.json"))
    if len(groups) == 1 and (group.get("targets") or ["Linear"]) == ["Linear"]:
        return q
    modules = _formats().group_modules(groups, _ct_group_scheme, ignored)
    return dataclasses.replace(q, modules=tuple(m for m in modules if (m.scheme, m.bits, m.group_size) !=
                                                (scheme, bits, group_size)))


def _ct_group_scheme(group: Any) -> tuple[str, int, int | None, tuple[int, ...] | None]:
    """(scheme, bits, group size, block) of one compressed-tensors config group's weights."""
    if not isinstance(group, dict) or not isinstance(group.get("weights"), dict):
        raise InputError("config.json: compressed-tensors config group has no weights scheme")
    weights, acts = group["weights"], group.get("input_activations")
    bits = _int(weights.get("num_bits"), "num_bits")
    size = group_size(weights.get("group_size")) if weights.get("group_size") else None
    scheme, shape = _ct_scheme(bits, weights.get("type", "int"), weights.get("strategy"), size,
                               weights.get("block_structure"), acts)
    if scheme.startswith("int") and weights.get("symmetric") is False:
        scheme += "-asym"
    return scheme, bits, size, shape


def _ct_scheme(bits: int, kind: str, strategy: Any, group_size: int | None, block: Any,
               acts: Any) -> tuple[str, tuple[int, ...] | None]:
    if kind == "float" and bits == 4:
        return ("mxfp4" if group_size == 32 else "nvfp4"), None
    if kind == "float" and bits == 8:
        if strategy == "block" and block:
            return "fp8-block", tuple(_int(v, "block_structure") for v in _list(block, "block_structure"))
        return ("fp8-channel" if strategy == "channel" else "fp8-tensor"), None
    if kind == "int" and bits == 8:
        return ("int8-w8a8" if acts else "int8-w8a16"), None
    if kind == "int" and bits in (2, 3, 4):  # pack-quantized weight-only (W4A16, W3A16, W2A16)
        return f"int{bits}-w{bits}a16", None
    return f"{kind}{bits}", None


def _modelopt(q: dict[str, Any], source: str) -> Quantization:
    algo = str(q.get("quant_algo", "")).upper()
    modules: list[Any] = []
    if algo == "MIXED_PRECISION":  # per-layer algorithms: each module sized by its own (quant_formats)
        scheme, modules = _formats().modelopt_mixed(q.get("quantized_layers"), q.get("config_groups"), _ct_group_scheme)
    else:
        scheme = _formats().modelopt_scheme(algo)
    ignored = _str_list(q.get("exclude_modules") or q.get("ignore"), "exclude_modules")
    group = q.get("group_size")
    kv_algo = q.get("kv_cache_quant_algo")
    if kv_algo is None and isinstance(q.get("kv_cache_scheme"), dict):
        kv = _kv_dtype(q["kv_cache_scheme"])
    else:
        kv = "fp8_e4m3" if str(kv_algo).upper() == "FP8" else None
    bits = 4 if scheme in ("nvfp4", "mxfp4", "awq", "w4a8-awq", "int4-w4a16") else 8 if scheme.startswith(
        ("fp8", "int8", "mxfp8")) else None
    out = with_targets(Quantization(
        scheme=scheme or "unknown", method="modelopt", bits=bits,
        group_size=_int(group, "group_size") if group else _formats().MODELOPT_GROUPS.get(scheme),
        block_shape=(128, 128) if scheme == "fp8-block" else None,
        ignored=ignored, kv_cache_dtype=kv, source=source, algo=algo or None,
        layer_algos=_layer_algos(q.get("quantized_layers")) if algo == "MIXED_PRECISION" else ()))
    return dataclasses.replace(out, modules=tuple(modules)) if modules else out


def _layer_algos(layers: Any) -> tuple[str, ...]:
    """The distinct `quant_algo`s of hf_quant_config.json's `quantized_layers` (what the engine dispatches on)."""
    if not isinstance(layers, dict):
        return ()
    return tuple(sorted({str(v.get("quant_algo", "")).upper() for v in layers.values()
                         if isinstance(v, dict) and v.get("quant_algo")}))


def _kv_dtype(scheme: Any) -> str | None:
    if isinstance(scheme, dict) and scheme.get("num_bits") == 8:
        return "fp8_e4m3" if scheme.get("type", "float") == "float" else "int8"
    return None
