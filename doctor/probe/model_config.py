"""config.json (plus hf_quant_config.json) → a normalised Model fact. JSON only: model code is never
imported and trust_remote_code is never honoured. Implausible values are rejected with one clear line."""

from __future__ import annotations

import dataclasses
from typing import Any

from doctor.errors import InputError
from doctor.pipeline.facts import Attention, Model, Moe, Vision
from doctor.probe.config_fields import ReadTracking, unread_sizing_fields
from doctor.probe.quant import normalise_quantization
from doctor.probe.recurrent_state import recurrent_state
from doctor.validation.model import LIMITS, check_model

MLA_FAMILIES = {"deepseek_v3", "deepseek_v2", "kimi_k2"}
# Experts per token, as model families spell it (Gemma 4: top_k_experts; some exports: moe_top_k).
LINEAR_LAYER_TYPES = {"linear_attention", "mamba", "mamba2", "gated_deltanet", "gdn"}
# Fields doctor.plan.arch / doctor.plan.hybrid read from the raw config to size weights: always, for Gated
# DeltaNet layers (Qwen3-Next, Qwen3.5), and for Nemotron-H block patterns (Mamba2, relu2 MLP, latent MoE).
ARCH_FIELDS = ("shared_expert_intermediate_size", "attn_output_gate", "mtp_num_hidden_layers")
GDN_FIELDS = ("linear_conv_kernel_dim", "linear_key_head_dim", "linear_num_key_heads", "linear_num_value_heads",
              "linear_value_head_dim")
BLOCK_FIELDS = ("mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "conv_kernel", "moe_latent_size",
                "moe_shared_expert_intermediate_size", "mtp_hybrid_override_pattern", "mlp_hidden_act")


def _touch_modelled_fields(text: ReadTracking) -> None:
    fields = list(ARCH_FIELDS)
    if dict.get(text, "linear_num_value_heads"):
        fields += GDN_FIELDS
    if dict.get(text, "hybrid_override_pattern") or dict.get(text, "layers_block_type"):
        fields += BLOCK_FIELDS
    for key in fields:
        text.get(key)
TOP_K_KEYS = ("num_experts_per_tok", "top_k_experts", "moe_top_k", "num_experts_per_token")
# Where configs name the MLP activation, the MoE-specific field first (Nemotron-H keeps hidden_act for Mamba).
ACT_FIELDS = ("mlp_hidden_act", "hidden_act", "hidden_activation")


def parse_model(config: Any, hf_quant: Any, *, model_id: str, source: str, source_path: str | None,
                reconstructed: bool = False, derivation: str | None = None,
                architecture_unverified: str | None = None) -> Model:
    if not isinstance(config, dict):
        raise InputError(f"{model_id}: config.json must be a JSON object")
    if hf_quant is not None and not isinstance(hf_quant, dict):
        raise InputError(f"{model_id}: hf_quant_config.json must be a JSON object")
    text = ReadTracking(_text_config(config))
    if "text_config" not in config:
        config = text
    architecture = _architecture(config)
    model_type = _str(text.get("model_type") or config.get("model_type") or "unknown", "model_type")
    dtype = _str(text.get("dtype") or text.get("torch_dtype") or config.get("dtype")
                 or config.get("torch_dtype") or "bfloat16", "torch_dtype")
    quant_source = text if "quantization_config" in text else config
    hidden = _pos(text, "hidden_size")
    model = Model(
        id=model_id,
        source=source,
        source_path=source_path,
        architecture=architecture,
        model_type=_str(config.get("model_type") or model_type, "model_type"),
        family=_family(model_type, text),
        hidden_size=hidden,
        num_layers=_layer_count(text),
        vocab_size=_pos(text, "vocab_size"),
        dtype=dtype,
        attention=_attention(text, hidden, model_type),
        quantization=normalise_quantization(quant_source, hf_quant, dtype, text),
        intermediate_size=_pos(text, "intermediate_size", required=False),
        max_position_embeddings=_pos(text, "max_position_embeddings", required=False),
        moe=_moe(text),
        vision=_vision(config),
        nextn_layers=_nonneg(text, "num_nextn_predict_layers"),
        tie_word_embeddings=bool(text.get("tie_word_embeddings", False)),
        reconstructed=reconstructed,
        derivation=derivation,
        architecture_unverified=architecture_unverified,
        auto_map=_auto_map(config),
    )
    _touch_modelled_fields(text)
    state = recurrent_state(text, model.attention.linear_attention_layers)
    model = dataclasses.replace(model, unread_fields=unread_sizing_fields(text), recurrent_state=state)
    check_model(model, "config.json")
    return model


def _auto_map(config: dict[str, Any]) -> tuple[str, ...]:
    """The classes the checkpoint brings its own code for; engines fall back to them only with --trust-remote-code."""
    auto_map = config.get("auto_map")
    return tuple(sorted(k for k in auto_map if isinstance(k, str))) if isinstance(auto_map, dict) else ()


def _text_config(config: dict[str, Any]) -> dict[str, Any]:
    inner = config.get("text_config")
    if inner is None:
        return config
    if not isinstance(inner, dict):
        raise InputError("config.json: text_config must be an object")
    return inner


def _architecture(config: dict[str, Any]) -> str:
    archs = config.get("architectures")
    if archs is None:
        return "unknown"
    if not isinstance(archs, list) or not archs or not isinstance(archs[0], str):
        raise InputError("config.json: architectures must be a non-empty list of strings")
    return archs[0]


def _family(model_type: str, text: dict[str, Any]) -> str:
    if model_type in MLA_FAMILIES or "kv_lora_rank" in text:
        return "deepseek_v3"
    return model_type


def _attention(text: dict[str, Any], hidden: int, model_type: str) -> Attention:
    heads = _pos(text, "num_attention_heads")
    if text.get("kv_lora_rank") is not None:
        nope = _pos(text, "qk_nope_head_dim")
        rope = _pos(text, "qk_rope_head_dim")
        return Attention(kind="mla", num_heads=heads, num_kv_heads=heads, head_dim=nope + rope,
                         v_head_dim=_pos(text, "v_head_dim"), kv_lora_rank=_pos(text, "kv_lora_rank"),
                         q_lora_rank=_pos(text, "q_lora_rank", required=False),
                         qk_rope_head_dim=rope, qk_nope_head_dim=nope,
                         sparse=text.get("index_topk") is not None)  # engines key sparse MLA on this field
    kv_heads = _pos(text, "num_key_value_heads", required=False) or heads
    if kv_heads > heads:
        raise InputError(f"config.json: num_key_value_heads={kv_heads} exceeds num_attention_heads={heads}")
    head_dim = _pos(text, "head_dim", required=False) or hidden // heads
    if head_dim < 1:
        raise InputError(f"config.json: head_dim derived from hidden_size/num_attention_heads is {head_dim}")
    window = _pos(text, "sliding_window", required=False, limit=1 << 31)
    layer_types = text.get("layer_types")
    sliding_layers = 0
    if isinstance(layer_types, list):
        sliding_layers = sum(1 for t in layer_types if t == "sliding_attention")
    elif window:
        sliding_layers = _pos(text, "num_hidden_layers")
    return Attention(kind="gqa" if kv_heads < heads else "mha", num_heads=heads, num_kv_heads=kv_heads,
                     head_dim=head_dim, v_head_dim=head_dim, sliding_window=window,
                     sliding_window_layers=sliding_layers if window else 0,
                     sinks=model_type == "gpt_oss", linear_attention_layers=_linear_layers(text),
                     global_head_dim=_pos(text, "global_head_dim", required=False),
                     sparse=text.get("index_topk") is not None)  # DeepSeek-V4: one 512-wide KV head, top-k indexed


def _layer_count(text: dict[str, Any]) -> int:
    """`num_hidden_layers`, else the length of Nemotron-H's `layers_block_type`: transformers 5 configs may
    omit the count, and NemotronHConfig then takes the list's length (it ignores a count that disagrees)."""
    blocks = text.get("layers_block_type")
    if text.get("num_hidden_layers") is None and isinstance(blocks, list) and blocks:
        return len(blocks)
    return _pos(text, "num_hidden_layers")


def _linear_layers(text: dict[str, Any]) -> int:
    """Layers without a KV cache: `layer_types` entries of linear attention / Mamba (Qwen3-Next, Qwen3.5),
    else every layer but each `full_attention_interval`-th, else every Nemotron-H layer that is not attention
    (`hybrid_override_pattern`: M Mamba, E MoE, - MLP, * attention; or `layers_block_type`)."""
    layers = text.get("num_hidden_layers")
    types = text.get("layer_types")
    if isinstance(types, list):
        return sum(1 for t in types if isinstance(t, str) and t in LINEAR_LAYER_TYPES)
    interval = text.get("full_attention_interval")
    if isinstance(interval, int) and not isinstance(interval, bool) and interval > 1 and isinstance(layers, int):
        return layers - layers // interval
    pattern = text.get("hybrid_override_pattern")
    if isinstance(pattern, str):
        return len(pattern) - pattern.count("*")
    blocks = text.get("layers_block_type")
    if isinstance(blocks, list):
        return sum(1 for t in blocks if t != "attention")
    return 0


def _moe(text: dict[str, Any]) -> Moe | None:
    key = next((k for k in ("n_routed_experts", "num_local_experts", "num_experts") if text.get(k)), None)
    if key is None or text.get("enable_moe_block") is False:
        return None
    experts = _pos(text, key, limit=LIMITS["experts"])
    top_k_key = next((k for k in TOP_K_KEYS if text.get(k) is not None), TOP_K_KEYS[0])
    top_k = _pos(text, top_k_key)
    if top_k > experts:
        raise InputError(f"config.json: {top_k_key}={top_k} exceeds {key}={experts}")
    size = _pos(text, "moe_intermediate_size", required=False) or _pos(text, "intermediate_size")
    dense = _nonneg(text, "first_k_dense_replace")
    if isinstance(text.get("mlp_only_layers"), list):
        dense = max(dense, len(text["mlp_only_layers"]))
    shared = _nonneg(text, "n_shared_experts") or int(bool(text.get("shared_expert_intermediate_size")))
    act_field = next((k for k in ACT_FIELDS if isinstance(text.get(k), str)), None)
    return Moe(routed_experts=experts, top_k=top_k, intermediate_size=size, shared_experts=shared,
               first_dense_layers=dense, hidden_act=text.get(act_field) if act_field else None,
               hidden_act_field=act_field, swiglu_limited=_swiglu_limited(text.get("swiglu_limits")),
               latent_size=_pos(text, "moe_latent_size", required=False))


def _swiglu_limited(limits: Any) -> bool:
    return isinstance(limits, list) and any(isinstance(v, int | float) and not isinstance(v, bool) and v
                                            for v in limits)


def _vision(config: dict[str, Any]) -> Vision | None:
    vision = config.get("vision_config")
    if not isinstance(vision, dict):
        return None
    hidden = vision.get("vt_hidden_size", vision.get("hidden_size"))
    heads = vision.get("vt_num_attention_heads", vision.get("num_attention_heads", vision.get("num_heads")))
    layers = vision.get("vt_num_hidden_layers", vision.get("num_hidden_layers", vision.get("depth")))
    values = {"vision hidden_size": hidden, "vision num_heads": heads, "vision num_layers": layers}
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 1 << 20:
            raise InputError(f"config.json: {name}={value!r} is not a plausible positive integer")
    head_dim = vision.get("head_dim") or hidden // heads
    return Vision(num_layers=layers, hidden_size=hidden, num_heads=heads, head_dim=head_dim)


def _pos(cfg: dict[str, Any], key: str, *, required: bool = True, limit: int | None = None) -> Any:
    value = cfg.get(key)
    if value is None:
        if required:
            raise InputError(f"config.json: required field {key!r} is missing")
        return None
    limit = limit or LIMITS.get(key, 1 << 31)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"config.json: {key} must be an integer, got {type(value).__name__}")
    if not 0 < value <= limit:
        raise InputError(f"config.json: {key}={value} is not a plausible value (expected 1..{limit})")
    return value


def _nonneg(cfg: dict[str, Any], key: str) -> int:
    value = cfg.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100_000:
        raise InputError(f"config.json: {key}={value!r} is not a plausible non-negative integer")
    return value


def _str(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"config.json: {key} must be a string, got {type(value).__name__}")
    return value
