"""The engine-neutral half of the derived dispatch tables (doctor/data/derived/<engine>/<release>.json,
written offline by `python -m tools.engine_oracle ENGINE RELEASE`): the model shape class the entries are
keyed on (the features of a model that backend selection gates on), the KV-cache dtype class, and reading
an engine's tables. The oracle classifies its grid configs with this same function, so a checked model and
a table entry agree by construction; a model whose class no table holds is "not derived", never matched to
a neighbour. A toolkit library (spi.TOOLKIT): it knows nothing of any engine."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.pipeline.facts import Model

DERIVED = Path(__file__).resolve().parents[1] / "data" / "derived"
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


def _rarer_features(model: Model) -> dict[str, Any]:
    """Features only some models have, keyed only when present (so the classes of the models without them,
    and the tables written before these were keyed, stay as they were): a second head size for the full-attention
    layers (Gemma 4: 512, which attention backends gate on) and latent MoE (Nemotron-3-Super)."""
    features: dict[str, Any] = {}
    wide = model.attention.global_head_dim
    if wide and wide != model.attention.head_dim:
        features["global_head_dim"] = wide
    if model.moe is not None and model.moe.latent_size:
        features["latent_moe"] = True
    return features


def shape_class(model: Model, drafter: str | None = None) -> dict[str, Any]:
    """Attention kind, head size(s), sliding window, sinks, hybrid layers, experts, checkpoint format; for a
    speculative-decoding drafter built from the model's own layers (`drafter`: "mtp"), the drafter's class."""
    attention = model.attention
    shape = {"attention": _attention(model), "head_dim": attention.head_dim,
             "sliding_window": bool(attention.sliding_window), "sinks": attention.sinks,
             "hybrid": _hybrid(model), "moe": model.moe is not None, "quant": model.quantization.scheme,
             **_rarer_features(model)}
    return {**shape, "drafter": drafter} if drafter else shape


def shape_key(shape: dict[str, Any]) -> str:
    """A short stable name: mla/h576/moe/fp8-block, gqa/h256/g512/sliding_window/moe/bf16, .../drafter-mtp."""
    parts = [shape["attention"], f"h{shape['head_dim']}"]
    parts += [f"g{shape['global_head_dim']}"] if shape.get("global_head_dim") else []
    parts += [flag for flag in ("sliding_window", "sinks") if shape[flag]]
    if shape["hybrid"] != "none":
        parts.append(shape["hybrid"])
    parts += (["latent-moe"] if shape.get("latent_moe") else ["moe"]) if shape["moe"] else []
    parts += [f"drafter-{shape['drafter']}"] if shape.get("drafter") else []
    return "/".join([*parts, shape["quant"]])


def kv_class(value: str) -> str:
    """The KV-cache dtype class an entry is keyed on: fp8 (any FP8 spelling), nvfp4 (FP4 spellings), auto."""
    value = value.lower()
    if value.startswith("fp8"):
        return "fp8"
    if "fp4" in value:
        return "nvfp4"
    return "auto"


@cache
def tabulated(engine: str) -> tuple[str, ...]:
    """The releases with a table for the engine, oldest first."""
    folder = DERIVED / engine
    names = (p.stem for p in folder.glob("*.json")) if folder.is_dir() else ()
    return tuple(sorted(names, key=Version))


@cache
def table(engine: str, release: str) -> dict[str, Any]:
    return json.loads((DERIVED / engine / f"{release}.json").read_text(encoding="utf-8"))


def capability_label(capability: tuple[int, int]) -> str:
    return f"{capability[0]}.{capability[1]}"
