"""The quantization formats whose storage differs by module or by library: GPTQ/AWQ (with GPTQModel's `dynamic`),
auto-round and its export variants, bitsandbytes, HQQ, compressed-tensors config groups and ModelOpt
MIXED_PRECISION. Each returns a Quantization whose `modules` say where a module kind (or one layer's) is stored
otherwise than the main scheme, so the weights are sized per module (doctor.plan.storage)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import ModuleQuant, Quantization
from doctor.probe.quant_common import (
    KIND_ALIASES,
    MODULE_KINDS,
    PER_CHANNEL,
    group_size,
    is_ignored,
    kind_of,
    matches,
    positive_int,
    str_list,
    with_targets,
)

CONFIG = "config.json"


# --- GPTQ / AWQ ------------------------------------------------------------------------------------------------
def gptq_awq(qc: dict[str, Any], method: str) -> Quantization:
    """AutoGPTQ / GPTQModel / AutoAWQ configs: `bits` 2/3/4/8 (`w_bit`), `group_size` (-1: per channel;
    `q_group_size`), `modules_to_not_convert`, GPTQModel's `dynamic` ({"-:regex": {}} skips a module,
    {"+:regex" or "regex": {"bits": 8, "group_size": 64}} overrides it) and `modules_in_block_to_quantize`."""
    bits = positive_int(qc.get("bits") or qc.get("w_bit"), "bits")
    group = group_size(qc.get("group_size", qc.get("q_group_size")))
    ignored = str_list(qc.get("modules_to_not_convert"), "modules_to_not_convert")
    ignored = _without_lm_head(qc, substrings(ignored) if method == "awq" else ignored)
    q = with_targets(Quantization(scheme=method, method=method, bits=bits, group_size=group, ignored=ignored,
                                  source=CONFIG))
    modules = _dynamic_modules(qc.get("dynamic"), method, bits, group) + _block_modules(
        qc.get("modules_in_block_to_quantize"))
    return _with_modules(q, modules)


def substrings(keys: tuple[str, ...]) -> tuple[str, ...]:
    """transformers skips a module for bitsandbytes and AWQ when any key occurs in its name (`key in name`)."""
    return tuple(k if any(ch in k for ch in "*?[") or k.startswith("re:") else f"*{k}*" for k in keys)


def _without_lm_head(qc: dict[str, Any], ignored: tuple[str, ...]) -> tuple[str, ...]:
    """AutoGPTQ, AutoAWQ and AutoRound leave lm_head in the model dtype unless the config says otherwise
    (GPTQModel `lm_head: true`, AutoRound `quant_lm_head: true`): TheBloke/Llama-2-7B-AWQ stores it fp16."""
    if qc.get("lm_head") is True or qc.get("quant_lm_head") is True:
        return ignored
    return (*ignored, "lm_head")


def _dynamic_modules(dynamic: Any, scheme: str, bits: int, group: int | None) -> list[ModuleQuant]:
    if dynamic is None:
        return []
    if not isinstance(dynamic, dict):
        raise InputError("config.json: quantization field dynamic must be an object")
    out: list[ModuleQuant] = []
    for kind, name in MODULE_KINDS.items():
        for key, settings in dynamic.items():
            pattern = str(key)
            skip = pattern.startswith("-:")
            regex = pattern[2:] if pattern[:2] in ("-:", "+:") else pattern
            if not matches(f"re:{regex}", name):
                continue
            if skip:
                out.append(ModuleQuant(kind, "none"))
            elif isinstance(settings, dict):
                out.append(ModuleQuant(kind, scheme, positive_int(settings.get("bits", bits), "dynamic bits"),
                                       group_size(settings.get("group_size", group))))
            break
    return out


def _block_modules(listed: Any) -> list[ModuleQuant]:
    """`modules_in_block_to_quantize`: only these modules of each decoder layer are quantized."""
    if not isinstance(listed, list) or not listed:
        return []
    names = [n for part in listed for n in (part if isinstance(part, list) else [part]) if isinstance(n, str)]
    kinds = {kind_of(f"model.layers.0.{name}")[0] for name in names}
    layer_kinds = ("attention", "dense_mlp", "shared_experts", "routed_experts", "mamba", "linear_attention")
    return [ModuleQuant(kind, "none") for kind in layer_kinds if kind not in kinds]


# --- auto-round --------------------------------------------------------------------------------------------------
# AutoRound's `packing_format` names the export: auto_round:auto_gptq and auto_round:auto_awq are those libraries'
# layouts; auto_round (native) packs like GPTQ without g_idx; auto_round:llm_compressor writes compressed-tensors.
AUTO_ROUND_FLOATS = {("nv_fp", 4): "nvfp4", ("nvfp", 4): "nvfp4", ("mx_fp", 4): "mxfp4", ("mxfp", 4): "mxfp4",
                     ("mx_fp", 8): "mxfp8", ("mxfp", 8): "mxfp8", ("fp", 8): "fp8-tensor", ("fp8", 8): "fp8-tensor"}


def auto_round(qc: dict[str, Any]) -> Quantization:
    """`quant_method: auto-round` (Intel AutoRound): `bits`, `group_size`, `data_type`, `packing_format` (older:
    `backend`), `extra_config` per layer name or regex ({"bits": 16} keeps a module unquantized)."""
    bits = positive_int(qc.get("bits", 4), "bits")
    group = group_size(qc.get("group_size", 128))
    scheme = _auto_round_scheme(qc, bits)
    ignored = _without_lm_head(qc, str_list(qc.get("modules_to_not_convert"), "modules_to_not_convert"))
    q = with_targets(Quantization(scheme=scheme, method="auto-round", bits=bits, group_size=group,
                                  ignored=ignored, source=CONFIG))
    return _with_modules(q, _extra_config_modules(qc.get("extra_config"), q))


def _auto_round_scheme(qc: dict[str, Any], bits: int) -> str:
    data_type = str(qc.get("data_type", "int")).lower().replace("-", "_")
    float_scheme = next((s for (prefix, b), s in AUTO_ROUND_FLOATS.items()
                         if data_type.startswith(prefix) and b == bits), None)
    if float_scheme:
        return float_scheme
    packing = str(qc.get("packing_format") or qc.get("backend") or "auto_round").lower()
    if "awq" in packing:
        return "awq"
    if "gptq" in packing:
        return "gptq"
    return "auto-round"


def _extra_config_modules(extra: Any, q: Quantization) -> list[ModuleQuant]:
    """Exact layer names set one layer's kind; regexes set a kind wherever the representative name matches."""
    if extra is None:
        return []
    if not isinstance(extra, dict):
        raise InputError("config.json: quantization field extra_config must be an object")
    per_layer: dict[str, Counter] = {}
    out: dict[str, ModuleQuant] = {}
    for name, settings in extra.items():
        if not isinstance(settings, dict):
            continue
        entry = _auto_round_entry(settings, q)
        if any(ch in str(name) for ch in "*?[(\\^$|+"):
            for kind, rep in MODULE_KINDS.items():
                if kind not in out and matches(f"re:{name}", rep):
                    out[kind] = ModuleQuant(kind, *entry)
            continue
        kind, layer = kind_of(str(name))
        if kind is not None:
            per_layer.setdefault(f"{kind}@{layer}" if layer is not None else kind, Counter())[entry] += 1
    for key, counts in per_layer.items():
        out.setdefault(key, ModuleQuant(key, *counts.most_common(1)[0][0]))
    return list(out.values())


def _auto_round_entry(settings: dict[str, Any], q: Quantization) -> tuple[str, int | None, int | None]:
    bits = settings.get("bits", q.bits)
    if not isinstance(bits, int) or isinstance(bits, bool) or bits >= 16:
        return "none", None, None
    data_type = settings.get("data_type")
    scheme = _auto_round_scheme({"data_type": data_type}, bits) if data_type else q.scheme
    if scheme == "auto-round" and q.scheme in ("gptq", "awq"):
        scheme = q.scheme
    return scheme, bits, group_size(settings.get("group_size", q.group_size))


# --- bitsandbytes ------------------------------------------------------------------------------------------------
def bitsandbytes(qc: dict[str, Any]) -> Quantization:
    """transformers' BitsAndBytesConfig: 4-bit (nf4/fp4, blocks of 64, optionally double-quantized absmax) or
    LLM.int8(); `llm_int8_skip_modules` (lm_head is never converted)."""
    four = bool(qc.get("load_in_4bit") or qc.get("_load_in_4bit"))
    eight = bool(qc.get("load_in_8bit") or qc.get("_load_in_8bit"))
    if not four and not eight:
        raise InputError("config.json: bitsandbytes quantization_config sets neither load_in_4bit nor load_in_8bit")
    skip = substrings(str_list(qc.get("llm_int8_skip_modules"), "llm_int8_skip_modules") or ("lm_head",))
    if four:
        kind = str(qc.get("bnb_4bit_quant_type", "fp4")).lower()
        scheme = "bnb-4bit-dq" if qc.get("bnb_4bit_use_double_quant") else "bnb-4bit"
        return with_targets(Quantization(scheme=scheme, method="bitsandbytes", bits=4, group_size=64,
                                         activation=kind, ignored=skip, source=CONFIG))
    return with_targets(Quantization(scheme="bnb-8bit", method="bitsandbytes", bits=8, ignored=skip,
                                     source=CONFIG))


# --- HQQ -----------------------------------------------------------------------------------------------------------
def hqq(qc: dict[str, Any]) -> Quantization:
    """transformers' HqqConfig, as saved: `nbits`/`group_size` at the top, or in `quant_config`
    (`weight_quant_params`), or per module name (HQQ's dynamic config); `skip_modules`."""
    inner = qc.get("quant_config") if isinstance(qc.get("quant_config"), dict) else {}
    skip = str_list(qc.get("skip_modules", inner.get("skip_modules")), "skip_modules") or ("lm_head",)
    params = _hqq_params(qc) or _hqq_params(inner) or _hqq_params(inner.get("quant_config"))
    per_module = {k: v for k, v in inner.items() if isinstance(v, dict) and _hqq_params(v)
                  and k not in ("quant_config", "weight_quant_params")}
    if params is None and per_module:
        params = _hqq_params(next(iter(per_module.values())))
    if params is None:
        raise InputError("config.json: hqq quantization_config gives no nbits")
    bits, group = params
    q = with_targets(Quantization(scheme="hqq", method="hqq", bits=bits, group_size=group, ignored=skip,
                                  source=CONFIG))
    modules = []
    for kind, rep in MODULE_KINDS.items():
        for name, settings in per_module.items():
            if rep.endswith("." + name) or matches(name, rep):
                found = _hqq_params(settings)
                if found:
                    modules.append(ModuleQuant(kind, "hqq", found[0], found[1]))
                break
    return _with_modules(q, modules)


def _hqq_params(data: Any) -> tuple[int, int | None] | None:
    if not isinstance(data, dict):
        return None
    source = data.get("weight_quant_params") if isinstance(data.get("weight_quant_params"), dict) else data
    bits = source.get("nbits")
    if not isinstance(bits, int) or isinstance(bits, bool) or bits not in (1, 2, 3, 4, 8):
        return None
    return bits, group_size(source.get("group_size", 64))


# --- compressed-tensors config groups ----------------------------------------------------------------------------
def group_modules(groups: dict[str, Any], scheme_of: Any, ignored: tuple[str, ...]) -> list[ModuleQuant]:
    """Which config group quantizes each module kind: a group naming the module (a name or `re:` target) wins
    over one targeting its class (`Linear`), as compressed-tensors matches; none matching: unquantized."""
    out = []
    for kind, rep in MODULE_KINDS.items():
        if is_ignored(rep, ignored):
            continue
        group = _group_for(groups.values(), (rep, *KIND_ALIASES.get(kind, ())))
        if group is None:
            out.append(ModuleQuant(kind, "none"))
            continue
        scheme, bits, group_size_, block = scheme_of(group)
        out.append(ModuleQuant(kind, scheme, bits, group_size_, block))
    return out


def _group_for(groups: Iterable[Any], names: tuple[str, ...]) -> dict[str, Any] | None:
    by_class = None
    for group in groups:
        if not isinstance(group, dict):
            continue
        targets = group.get("targets") or ["Linear"]
        if not isinstance(targets, list):
            raise InputError("config.json: compressed-tensors targets must be a list")
        for target in (t for t in targets if isinstance(t, str)):
            if target in ("Linear", "torch.nn.Linear"):
                by_class = by_class or group
            elif any(matches(target, name) for name in names):
                return group
    return by_class


# --- ModelOpt MIXED_PRECISION ------------------------------------------------------------------------------------
MODELOPT_ALGOS = {"NVFP4": "nvfp4", "W4A16_NVFP4": "nvfp4", "NVFP4_W4A16": "nvfp4", "NVFP4_AWQ": "nvfp4",
                  "FP8": "fp8-tensor", "FP8_PER_CHANNEL_PER_TOKEN": "fp8-channel", "FP8_PB_WO": "fp8-block",
                  "FP8_BLOCK": "fp8-block", "FP8_BLOCK_SCALES": "fp8-block", "UNQUANTIZED": "none", "NONE": "none",
                  "W4A16_AWQ": "awq", "W4A8_AWQ": "w4a8-awq", "MXFP4": "mxfp4",
                  "W4A8_MXFP4_FP8": "mxfp4", "MXFP8": "mxfp8", "W8A8_SQ_PER_CHANNEL": "int8-w8a8",
                  "INT8_WO": "int8-w8a16", "INT4_WO": "int4-w4a16"}
MODELOPT_GROUPS = {"nvfp4": 16, "mxfp4": 32, "mxfp8": 32, "awq": 128, "w4a8-awq": 128, "int4-w4a16": 128}


def modelopt_scheme(algo: str) -> str:
    return MODELOPT_ALGOS.get(algo.upper(), algo.lower())


def modelopt_mixed(layers: Any, groups: Any = None, scheme_of: Any = None) -> tuple[str, list[ModuleQuant]]:
    """`quantized_layers: {module name: {quant_algo, group_size?}}` (hf_quant_config.json, or config.json's
    modelopt quantization_config, whose `config_groups` may name the modules instead): each listed module's
    algorithm, by kind and layer (the most common one where a layer's modules differ; fused `mlp.experts`
    entries count for the layer's routed experts); a kind or layer not listed stays unquantized. Returns the
    checkpoint's dominant scheme and the per-module entries (nvidia/Qwen3.6-35B-A3B-NVFP4 lists its experts
    W4A16_NVFP4, linear-attention out_proj FP8 and lm_head W4A16_NVFP4 this way)."""
    entries = _layer_entries(layers) or _group_entries(groups, scheme_of)
    if not entries:  # nothing to size by: an unknown scheme, said as such
        return "mixed_precision", []
    per_key: dict[str, Counter] = {}
    overall: Counter = Counter()
    for name, (scheme, group) in entries.items():
        kind, layer = kind_of(str(name))
        if kind is None:
            continue
        key = f"{kind}@{layer}" if layer is not None else kind
        per_key.setdefault(key, Counter())[(scheme, group)] += 1
        overall[scheme] += 1
    out = [ModuleQuant(kind, "none") for kind in MODULE_KINDS]  # unlisted: kept in the model dtype
    for key, counts in per_key.items():
        (scheme, group), _ = counts.most_common(1)[0]
        block = (128, 128) if scheme == "fp8-block" else None
        bits = None if scheme == "none" else 4 if scheme in ("nvfp4", "mxfp4", "awq", "w4a8-awq") else 8
        out.append(ModuleQuant(key, scheme, bits, None if group == PER_CHANNEL else group, block))
    quantized = Counter({k: v for k, v in overall.items() if k != "none"})
    dominant = quantized.most_common(1)[0][0] if quantized else "unknown"
    return dominant, out


def _layer_entries(layers: Any) -> dict[str, tuple[str, int | None]]:
    if not isinstance(layers, dict):
        return {}
    out = {}
    for name, entry in layers.items():
        if isinstance(entry, dict):
            scheme = modelopt_scheme(str(entry.get("quant_algo", "")))
            out[str(name)] = (scheme, group_size(entry.get("group_size", MODELOPT_GROUPS.get(scheme))))
    return out


def _group_entries(groups: Any, scheme_of: Any) -> dict[str, tuple[str, int | None]]:
    """config_groups whose targets are module names (ModelOpt's config.json form of MIXED_PRECISION)."""
    if not isinstance(groups, dict) or scheme_of is None:
        return {}
    out = {}
    for group in groups.values():
        if not isinstance(group, dict) or not isinstance(group.get("targets"), list):
            continue
        scheme, _bits, size, _block = scheme_of(group)
        for target in group["targets"]:
            if isinstance(target, str) and target != "Linear" and not target.startswith("re:"):
                out[target] = (scheme, size)
    return out


def _with_modules(q: Quantization, modules: list[ModuleQuant]) -> Quantization:
    import dataclasses

    return dataclasses.replace(q, modules=tuple(modules)) if modules else q
