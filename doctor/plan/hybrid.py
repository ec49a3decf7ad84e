"""Weights of the layers a plain decoder layer (attention + MLP/MoE) does not describe, from the config's fields:

- Nemotron-H (`hybrid_override_pattern` "M" Mamba2, "*" attention, "-" MLP, "E" MoE; or `layers_block_type`):
  every layer is ONE block. Mamba2 mixer: in_proj [2 x d_inner + 2 x n_groups x d_state + heads, hidden],
  depthwise conv1d over d_inner + 2 x n_groups x d_state channels (with bias), A_log/D/dt_bias per head, a
  gated norm over d_inner, out_proj [hidden, d_inner]. MLP and experts are non-gated (relu2): up and down only.
  Latent MoE (`moe_latent_size`, Nemotron-3-Super): the routed experts work on the latent width, between
  fc1_latent_proj [latent, hidden] and fc2_latent_proj [hidden, latent]; the shared expert stays on hidden
  (transformers' NemotronH modeling, vLLM's nemotron_h.py).
- Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5 `layer_types` "linear_attention"): in_proj_qkvz
  [2 x key_dim + 2 x value_dim, hidden], in_proj_ba [2 x v_heads, hidden], conv1d over 2 x key_dim + value_dim
  channels, A_log/dt_bias per value head, a norm over the value head dim, out_proj [hidden, value_dim]; the full
  attention layers of these models gate their output, so q_proj is twice as wide (checked against the
  Qwen3-Next-80B-A3B tensor table of gogongxt/python scripts/models/qwen3_next_80b_a3b_instruct.md).
"""

from __future__ import annotations

from typing import Any, Protocol

from doctor.errors import InputError
from doctor.pipeline.facts import Model

BLOCK_CHARS = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
BLOCK_NAMES = {"mamba": "mamba", "attention": "attention", "mlp": "mlp", "moe": "moe", "hybrid": "mamba"}


class Builder(Protocol):
    m: Model
    cfg: dict[str, Any]

    def linear(self, kind: str, out: int, inp: int, shard: str, layer: int | None, quant_kind: str | None = None,
               place: str = "layer", count: int = 1) -> None: ...

    def dense(self, kind: str, numel: int, shard: str, layer: int | None, dtype: str | None = None,
              place: str = "layer") -> None: ...


def _int(cfg: dict[str, Any], key: str, default: int = 0) -> int:
    value = cfg.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default


def block_types(cfg: dict[str, Any]) -> list[str] | None:
    """One block type per layer for Nemotron-H style configs; None for plain decoders."""
    pattern = cfg.get("hybrid_override_pattern")
    if isinstance(pattern, str) and pattern and set(pattern) <= set(BLOCK_CHARS):
        return [BLOCK_CHARS[c] for c in pattern]
    types = cfg.get("layers_block_type")
    if isinstance(types, list) and types and all(isinstance(t, str) and t in BLOCK_NAMES for t in types):
        return [BLOCK_NAMES[t] for t in types]
    return None


def mtp_block_types(cfg: dict[str, Any]) -> list[str]:
    pattern = cfg.get("mtp_hybrid_override_pattern")
    return [BLOCK_CHARS[c] for c in pattern if c in BLOCK_CHARS] if isinstance(pattern, str) else []


def block(b: Builder, layer: int, kind: str, override: str | None = None) -> None:
    """One Nemotron-H layer: its pre-norm and its one mixer."""
    h = b.m.hidden_size
    b.dense(override or "norm", h, "rep", layer)
    if kind == "mamba":
        mamba(b, layer, override)
    elif kind == "attention":
        attention(b, layer, override)
    elif kind == "mlp":
        inter = b.m.intermediate_size or _int(b.cfg, "intermediate_size", 4 * h)
        b.linear(override or "dense_mlp", inter, h, "tp", layer, "dense_mlp")
        b.linear(override or "dense_mlp", h, inter, "tp", layer, "dense_mlp")
    else:
        moe(b, layer, override)


def mamba(b: Builder, layer: int, override: str | None = None) -> None:
    cfg, h = b.cfg, b.m.hidden_size
    heads = _int(cfg, "mamba_num_heads", 1)
    d_inner = heads * _int(cfg, "mamba_head_dim", 64)
    groups, state = _int(cfg, "n_groups", 1), _int(cfg, "ssm_state_size", 128)
    conv_dim = d_inner + 2 * groups * state
    kind = override or "mamba"
    b.linear(kind, 2 * d_inner + 2 * groups * state + heads, h, "tp", layer, "mamba")
    b.dense(kind, conv_dim * _int(cfg, "conv_kernel", 4) + conv_dim, "tp", layer)  # conv1d weight + bias
    b.dense(kind, 3 * heads + d_inner, "tp", layer)  # A_log, D, dt_bias, gated norm
    b.linear(kind, h, d_inner, "tp", layer, "mamba")


def attention(b: Builder, layer: int, override: str | None = None) -> None:
    a, h = b.m.attention, b.m.hidden_size
    kind = override or "attention"
    b.linear(kind, a.num_heads * a.head_dim, h, "tp", layer, "attention")
    b.linear(kind, 2 * a.num_kv_heads * a.head_dim, h, "kv", layer, "attention")
    b.linear(kind, h, a.num_heads * a.v_head_dim, "tp", layer, "attention")


def moe(b: Builder, layer: int, override: str | None = None) -> None:
    """A Nemotron-H MoE block: router (+ fp32 correction bias), non-gated experts on the latent width when
    there is one, its two projections, and the shared expert on hidden."""
    m, cfg, h = b.m, b.cfg, b.m.hidden_size
    if m.moe is None:
        raise InputError(f"{m.id}: config.json has MoE blocks in its hybrid pattern but names no experts "
                         "(n_routed_experts / moe_intermediate_size)")
    experts, inter = m.moe.routed_experts, m.moe.intermediate_size
    latent = _int(cfg, "moe_latent_size")
    width = latent or h
    b.dense(override or "router", experts * h, "rep", layer)
    b.dense(override or "router", experts, "rep", layer, dtype="float32")
    b.linear(override or "routed_experts", inter, width, "tp", layer, "routed_experts", count=experts)
    b.linear(override or "routed_experts", width, inter, "tp", layer, "routed_experts", count=experts)
    if latent:
        b.linear(override or "latent", latent, h, "rep", layer, "latent")
        b.linear(override or "latent", h, latent, "rep", layer, "latent")
    shared = _int(cfg, "moe_shared_expert_intermediate_size") * max(m.moe.shared_experts, 1) if \
        m.moe.shared_experts else 0
    if shared:
        b.linear(override or "shared_experts", shared, h, "tp", layer, "shared_experts")
        b.linear(override or "shared_experts", h, shared, "tp", layer, "shared_experts")


def nemotron_mtp(b: Builder, first_layer: int) -> None:
    """Nemotron-H MTP: `mtp_hybrid_override_pattern` blocks per predicted token, plus eh_proj [hidden, 2 x hidden]
    and its norms."""
    h = b.m.hidden_size
    for i in range(b.m.nextn_layers):
        layer = first_layer + i
        for kind in mtp_block_types(b.cfg):
            block(b, layer, kind, override="mtp")
        b.dense("mtp", 2 * h * h, "tp", layer)
        b.dense("mtp", 4 * h, "rep", layer)


# --- Gated DeltaNet (Qwen3-Next, Qwen3.5) ----------------------------------------------------------------------
def linear_attention_layers(cfg: dict[str, Any], num_layers: int) -> set[int]:
    types = cfg.get("layer_types")
    if isinstance(types, list):
        return {i for i, t in enumerate(types[:num_layers]) if t == "linear_attention"}
    interval = cfg.get("full_attention_interval")
    gdn = "linear_num_value_heads" in cfg
    if isinstance(interval, int) and not isinstance(interval, bool) and interval > 1 and gdn:
        return {i for i in range(num_layers) if (i + 1) % interval}
    return set()


def gated_deltanet(b: Builder, layer: int, override: str | None = None) -> None:
    cfg, h = b.cfg, b.m.hidden_size
    k_heads, v_heads = _int(cfg, "linear_num_key_heads", 16), _int(cfg, "linear_num_value_heads", 32)
    key_dim = k_heads * _int(cfg, "linear_key_head_dim", 128)
    v_head_dim = _int(cfg, "linear_value_head_dim", 128)
    value_dim = v_heads * v_head_dim
    kind = override or "linear_attention"
    b.linear(kind, 2 * key_dim + 2 * value_dim, h, "tp", layer, "linear_attention")
    b.linear(kind, 2 * v_heads, h, "tp", layer, "linear_attention")
    b.dense(kind, (2 * key_dim + value_dim) * _int(cfg, "linear_conv_kernel_dim", 4), "tp", layer)
    b.dense(kind, 2 * v_heads + v_head_dim, "tp", layer)  # A_log, dt_bias, gated norm
    b.linear(kind, h, value_dim, "tp", layer, "linear_attention")


def gated_output_attention(m: Model, cfg: dict[str, Any]) -> bool:
    """Full attention whose q_proj also produces an output gate (Qwen3-Next, Qwen3.5)."""
    return bool(cfg.get("attn_output_gate", m.model_type.startswith(("qwen3_next", "qwen3_5"))))
