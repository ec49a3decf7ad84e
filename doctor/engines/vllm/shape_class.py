"""The model shape class the derived dispatch tables are keyed on (doctor/data/derived/vllm, written by
`python -m tools.engine_oracle`): the features of a model that vLLM's backend selection gates on. The oracle
classifies its grid configs with this same function, so a checked model and a table entry agree by
construction; a model whose class no table holds is "not derived", never matched to a neighbour."""

from __future__ import annotations

from typing import Any

from doctor.engines.spi import Model

SPARSE_MLA_TYPES = ("deepseek_v32", "glm_moe_dsa")
MAMBA_TYPES = ("nemotron_h", "mamba", "mamba2", "jamba", "falcon_h1", "granitemoehybrid", "bamba")


def _hybrid(model: Model) -> str:
    if not model.attention.linear_attention_layers:
        return "none"
    return "mamba" if model.model_type in MAMBA_TYPES else "linear"


def _attention(model: Model) -> str:
    if model.attention.kind == "mla":
        return "mla-sparse" if model.model_type in SPARSE_MLA_TYPES else "mla"
    return "gqa"


def shape_class(model: Model) -> dict[str, Any]:
    """Attention kind, head size, sliding window, sinks, hybrid layers, experts, checkpoint format."""
    attention = model.attention
    return {"attention": _attention(model), "head_dim": attention.head_dim,
            "sliding_window": bool(attention.sliding_window), "sinks": attention.sinks,
            "hybrid": _hybrid(model), "moe": model.moe is not None, "quant": model.quantization.scheme}


def shape_key(shape: dict[str, Any]) -> str:
    """A short stable name: mla/h576/moe/fp8-block."""
    parts = [shape["attention"], f"h{shape['head_dim']}"]
    parts += [flag for flag in ("sliding_window", "sinks") if shape[flag]]
    if shape["hybrid"] != "none":
        parts.append(shape["hybrid"])
    parts += ["moe"] if shape["moe"] else []
    return "/".join([*parts, shape["quant"]])
