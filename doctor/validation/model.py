"""Physical ranges for a Model fact, wherever it comes from (a config.json through
doctor.probe.model_config, or the `model` of a facts file): sizes positive and below any real model,
counts consistent with each other, a dtype torch has, and experts on an architecture that routes to them."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from doctor.errors import InputError
from doctor.validation import check_int, shown

if TYPE_CHECKING:
    from doctor.pipeline.facts import Model

LIMITS = {  # upper bounds far beyond any real model; above them a config is corrupt or hostile
    "hidden_size": 1 << 20,
    "num_hidden_layers": 10_000,
    "num_attention_heads": 1 << 16,
    "num_key_value_heads": 1 << 16,
    "head_dim": 1 << 14,
    "vocab_size": 1 << 27,
    "intermediate_size": 1 << 22,
    "moe_intermediate_size": 1 << 22,
    "experts": 1 << 16,
    "max_position_embeddings": 1 << 31,
}
# torch's floating-point dtype names as config.json writes them (`torch_dtype` / `dtype`); quantized
# checkpoints keep the compute dtype here and describe the quantization in quantization_config.
TORCH_DTYPES = ("bfloat16", "float16", "float32", "float64", "half", "float", "double", "bf16", "fp16", "fp32",
                "float8_e4m3fn", "float8_e5m2", "auto")
# Architectures that route tokens to experts: without an expert count they cannot be planned.
MOE_MODEL_TYPES = re.compile(r"deepseek_v[23]|kimi_k2\w*|qwen[23]_moe\w*|gpt_oss|glm4_moe\w*|mixtral|dbrx|"
                             r"\w*moe\w*", re.IGNORECASE)
MAX_ID = 4096  # PATH_MAX: a local model directory is named by its path


def check_model(model: Model, where: str) -> None:
    if not model.id or len(model.id) > MAX_ID:
        raise InputError(f"{where}: model id {shown(model.id)} is not 1..{MAX_ID} characters")
    if model.dtype not in TORCH_DTYPES:
        raise InputError(f"{where}: torch_dtype {shown(model.dtype)} is not a torch floating-point dtype "
                         f"({', '.join(TORCH_DTYPES[:5])}, ...)")
    check_int(model.hidden_size, f"{where}: hidden_size", 1, LIMITS["hidden_size"])
    check_int(model.num_layers, f"{where}: num_hidden_layers", 1, LIMITS["num_hidden_layers"])
    check_int(model.vocab_size, f"{where}: vocab_size", 1, LIMITS["vocab_size"])
    _attention(model, where)
    _moe(model, where)
    check_int(model.nextn_layers, f"{where}: num_nextn_predict_layers", 0, model.num_layers)


def _attention(model: Model, where: str) -> None:
    a = model.attention
    heads = check_int(a.num_heads, f"{where}: num_attention_heads", 1, LIMITS["num_attention_heads"])
    check_int(a.num_kv_heads, f"{where}: num_key_value_heads", 1, heads)
    check_int(a.head_dim, f"{where}: head_dim", 1, LIMITS["head_dim"])
    check_int(a.v_head_dim, f"{where}: v_head_dim", 1, LIMITS["head_dim"])
    if a.sliding_window is not None:
        check_int(a.sliding_window, f"{where}: sliding_window", 1, LIMITS["max_position_embeddings"])
    check_int(a.sliding_window_layers, f"{where}: sliding window layers", 0, model.num_layers)


def _moe(model: Model, where: str) -> None:
    moe = model.moe
    if moe is None:
        if MOE_MODEL_TYPES.fullmatch(model.model_type) or MOE_MODEL_TYPES.fullmatch(model.family):
            raise InputError(f"{where}: model_type {shown(model.model_type)} is a mixture-of-experts architecture, "
                             "but the config gives no positive expert count (n_routed_experts, num_local_experts "
                             "or num_experts)")
        return
    experts = check_int(moe.routed_experts, f"{where}: routed experts", 1, LIMITS["experts"])
    check_int(moe.top_k, f"{where}: num_experts_per_tok", 1, experts)
    check_int(moe.intermediate_size, f"{where}: moe_intermediate_size", 1, LIMITS["moe_intermediate_size"])
    check_int(moe.shared_experts, f"{where}: n_shared_experts", 0, experts)
    check_int(moe.first_dense_layers, f"{where}: first_k_dense_replace", 0, model.num_layers - 1)
