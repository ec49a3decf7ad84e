"""A model's weights as pieces: every tensor group with its bytes, the decoder layer it belongs to and
how the engine shards it. Built from the config (parameter counts x storage of the module's
quantization); `safetensors.py` builds the same pieces from a checkpoint's tensor headers.

Sharding follows the serving engines' modules:
- `tp`: split over the attention/MoE tensor-parallel group (q/q_b/kv_b/o projections, dense MLP and shared
  experts, routed experts' intermediate dim, vocab-parallel embedding and lm_head);
- `kv`: GQA k/v projections, split by KV head and replicated once TP exceeds the KV heads;
- `rep`: replicated on every rank (MLA's q_a/kv_a low-rank projections, norms, routers, the ViT's MLPs
  and projector).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doctor.output import read_regular_bytes
from doctor.pipeline.facts import Model, Quantization
from doctor.plan import hybrid
from doctor.plan.storage import dense_bytes, linear_bytes

KINDS = ("embed", "lm_head", "attention", "dense_mlp", "shared_experts", "routed_experts", "router", "norm",
         "vision", "mtp", "engine")


@dataclass(frozen=True)
class Piece:
    """Bytes of one group of weights: its kind, how TP shards it, its layer and pipeline place."""

    kind: str
    nbytes: int
    shard: str  # tp | kv | rep
    layer: int | None = None  # decoder layer; None: placed by `place`
    place: str = "layer"  # layer | first | last


def raw_text_config(model: Model) -> dict[str, Any]:
    """The config.json the Model fact came from (text part), for fields the fact does not keep."""
    if not model.source_path:
        return {}
    path = Path(model.source_path) / "config.json"
    try:
        config = json.loads(read_regular_bytes(path, 16 << 20))
    except (OSError, ValueError):
        return {}
    if not isinstance(config, dict):
        return {}
    inner = config.get("text_config")
    text = inner if isinstance(inner, dict) else config
    vision = config.get("vision_config")
    return {**text, "_vision": vision if isinstance(vision, dict) else None}


def _q(model: Model, kind: str, layer: int | None = None) -> Quantization | None:
    return model.quantization.for_module(kind, layer)


def _int(cfg: dict[str, Any], key: str, default: int) -> int:
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


class _Builder:
    def __init__(self, model: Model, cfg: dict[str, Any]) -> None:
        self.m, self.cfg, self.pieces = model, cfg, []
        self.dtype = model.dtype
        self.linear_layers: set[int] = set()  # Gated DeltaNet layers (doctor.plan.hybrid)

    def linear(self, kind: str, out: int, inp: int, shard: str, layer: int | None, quant_kind: str | None = None,
               place: str = "layer", count: int = 1) -> None:
        q = _q(self.m, quant_kind or kind, layer)
        self.pieces.append(Piece(kind, count * linear_bytes(out, inp, q, self.dtype), shard, layer, place))

    def dense(self, kind: str, numel: int, shard: str, layer: int | None, dtype: str | None = None,
              place: str = "layer") -> None:
        self.pieces.append(Piece(kind, dense_bytes(numel, dtype or self.dtype), shard, layer, place))


def model_pieces(model: Model, cfg: dict[str, Any] | None = None) -> list[Piece]:
    """Every weight of the checkpoint, MTP/nextn layers and the vision tower included."""
    cfg = raw_text_config(model) if cfg is None else cfg
    b = _Builder(model, cfg)
    h, vocab = model.hidden_size, model.vocab_size
    b.dense("embed", vocab * h, "tp", None, place="first")
    if not model.tie_word_embeddings:
        b.linear("lm_head", vocab, h, "tp", None, place="last")
    b.dense("norm", h, "rep", None, place="last")
    blocks = hybrid.block_types(cfg)
    if blocks and len(blocks) == model.num_layers:  # Nemotron-H: one block per layer
        for layer, kind in enumerate(blocks):
            hybrid.block(b, layer, kind)
        hybrid.nemotron_mtp(b, model.num_layers)
    else:
        b.linear_layers = hybrid.linear_attention_layers(cfg, model.num_layers)
        for layer in range(model.num_layers):
            _decoder_layer(b, layer, "attention")
        _mtp(b)
    _vision(b)
    return b.pieces


def _mtp(b: _Builder) -> None:
    """DeepSeek/GLM nextn layers; Qwen3-Next's MTP module (shipped in its checkpoints though its config names no
    MTP field: `mtp.fc` [hidden, 2 x hidden], one decoder layer, three norms)."""
    m, cfg = b.m, b.cfg
    if m.nextn_layers:
        for i in range(m.nextn_layers):
            _mtp_layer(b, m.num_layers + i)
        return
    qwen_mtp = _int(cfg, "mtp_num_hidden_layers", 1 if m.model_type == "qwen3_next" else 0)
    h = m.hidden_size
    for i in range(qwen_mtp):
        layer = m.num_layers + i
        _decoder_layer(b, layer, "attention", kind_override="mtp")
        b.dense("mtp", 2 * h * h + 3 * h, "tp", layer)


def _decoder_layer(b: _Builder, layer: int, kind_attention: str, kind_override: str | None = None) -> None:
    m, h = b.m, b.m.hidden_size
    if layer in b.linear_layers:
        hybrid.gated_deltanet(b, layer, kind_override)
    else:
        _attention(b, layer, kind_override)
    b.dense(kind_override or "norm", 2 * h, "rep", layer)
    moe = m.moe
    if moe is not None and layer >= moe.first_dense_layers:
        _moe(b, layer, kind_override)
    else:
        inter = m.intermediate_size or 4 * h
        b.linear(kind_override or "dense_mlp", 2 * inter, h, "tp", layer, "dense_mlp")
        b.linear(kind_override or "dense_mlp", h, inter, "tp", layer, "dense_mlp")


def _attention(b: _Builder, layer: int, kind_override: str | None) -> None:
    m, cfg, h = b.m, b.cfg, b.m.hidden_size
    a = m.attention
    kind = kind_override or "attention"
    if a.kind == "mla":
        qk = (a.qk_nope_head_dim or 128) + (a.qk_rope_head_dim or 64)
        q_lora = a.q_lora_rank or cfg.get("q_lora_rank")
        if isinstance(q_lora, int) and q_lora > 0:
            b.linear(kind, q_lora, h, "rep", layer, "attention")
            b.dense(kind, q_lora, "rep", layer)  # q_a_layernorm
            b.linear(kind, a.num_heads * qk, q_lora, "tp", layer, "attention")
        else:
            b.linear(kind, a.num_heads * qk, h, "tp", layer, "attention")
        kv_lora, rope = a.kv_lora_rank or 512, a.qk_rope_head_dim or 64
        b.linear(kind, kv_lora + rope, h, "rep", layer, "attention")
        b.dense(kind, kv_lora, "rep", layer)  # kv_a_layernorm
        b.linear(kind, a.num_heads * ((a.qk_nope_head_dim or 128) + a.v_head_dim), kv_lora, "tp", layer, "attention")
        b.linear(kind, h, a.num_heads * a.v_head_dim, "tp", layer, "attention")
        return
    hd = a.head_dim
    gate = 2 if hybrid.gated_output_attention(m, cfg) else 1
    b.linear(kind, gate * a.num_heads * hd, h, "tp", layer, "attention")
    b.linear(kind, 2 * a.num_kv_heads * hd, h, "kv", layer, "attention")
    b.linear(kind, h, a.num_heads * a.v_head_dim, "tp", layer, "attention")
    if cfg.get("attention_bias") or m.model_type == "gpt_oss":
        b.dense(kind, a.num_heads * hd, "tp", layer)
        b.dense(kind, 2 * a.num_kv_heads * hd, "kv", layer)
        if m.model_type == "gpt_oss":
            b.dense(kind, h, "rep", layer)
    if cfg.get("use_qk_norm") or m.model_type.startswith("qwen3"):
        b.dense(kind, 2 * hd, "rep", layer)
    if a.sinks:
        b.dense(kind, a.num_heads, "tp", layer)


def _moe(b: _Builder, layer: int, kind_override: str | None) -> None:
    m, cfg, h = b.m, b.cfg, b.m.hidden_size
    moe = m.moe
    assert moe is not None
    inter, experts = moe.intermediate_size, moe.routed_experts
    b.dense(kind_override or "router", experts * h, "rep", layer)
    if m.model_type == "gpt_oss":
        b.dense(kind_override or "router", experts, "rep", layer)
        b.dense(kind_override or "routed_experts", experts * (2 * inter + h), "tp", layer)
    if cfg.get("topk_method") == "noaux_tc":
        b.dense(kind_override or "router", experts, "rep", layer, dtype="float32")
    b.linear(kind_override or "routed_experts", 2 * inter, h, "tp", layer, "routed_experts", count=experts)
    b.linear(kind_override or "routed_experts", h, inter, "tp", layer, "routed_experts", count=experts)
    if moe.shared_experts:
        shared = _int(cfg, "shared_expert_intermediate_size", 0) or inter * moe.shared_experts
        b.linear(kind_override or "shared_experts", 2 * shared, h, "tp", layer, "shared_experts")
        b.linear(kind_override or "shared_experts", h, shared, "tp", layer, "shared_experts")


def _mtp_layer(b: _Builder, layer: int) -> None:
    """DeepSeek/GLM nextn layer as stored: a full decoder layer plus enorm/hnorm, eh_proj and its own
    copy of embed_tokens and shared_head (the DeepSeek-V3 tensor table of model_inspector.py,
    https://github.com/gogongxt/python/tree/ec9962697819add8f24ce1b180cf98ca6a53c40f/scripts/models)."""
    m, h = b.m, b.m.hidden_size
    _decoder_layer(b, layer, "attention", kind_override="mtp")
    b.dense("mtp", 3 * h, "rep", layer)
    b.dense("mtp", 2 * h * h, "tp", layer)
    b.dense("mtp", m.vocab_size * h, "tp", layer)
    b.dense("mtp", m.vocab_size * h, "tp", layer)


def _vision(b: _Builder) -> None:
    """A ViT as the engine builds it: attention TP-sharded, MLPs and the projector replicated
    (MoonViT/VisionAttention). Unquantized in every checkpoint we know."""
    v, raw = b.m.vision, b.cfg.get("_vision") or {}
    if v is None:
        return
    hv = v.hidden_size
    inter = _int(raw, "vt_intermediate_size", _int(raw, "intermediate_size", 4 * hv))
    per_layer_attention = 4 * hv * hv + 4 * hv
    per_layer_rest = 2 * hv * inter + inter + hv + 4 * hv
    b.dense("vision", v.num_layers * per_layer_attention, "tp", None, place="first")
    b.dense("vision", v.num_layers * per_layer_rest, "rep", None, place="first")
    patch = _int(raw, "patch_size", 14)
    b.dense("vision", 3 * patch * patch * hv + hv, "rep", None, place="first")
    pos = _int(raw, "init_pos_emb_height", 0) * _int(raw, "init_pos_emb_width", 0)
    b.dense("vision", pos * hv, "rep", None, place="first")
    merge = raw.get("merge_kernel_size")
    factor = merge[0] * merge[1] if isinstance(merge, list) and len(merge) == 2 and all(
        isinstance(x, int) for x in merge) else 1
    mm = hv * factor
    text_hidden = b.m.hidden_size
    b.dense("vision", mm * mm + mm + mm * text_hidden + text_hidden + 2 * hv, "rep", None, place="first")
