"""What every per-architecture writer of the -hf estimate shares (doctor/probe/gguf_arch.py): the table being
written, the converter's default storage type per tensor, and the blocks most architectures repeat (q/k/v/output
as create_tensor_qkv makes them, routed experts, dense MLP, MoE keys)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

BF16, F32, MXFP4 = "BF16", "F32", "MXFP4"
Shape = tuple[int, ...]


@dataclass
class Table:
    arch: str
    config: dict[str, Any]
    tensors: list[tuple[str, Shape, str]] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def add(self, name: str, shape: Shape, source: str | None = None) -> None:
        self.tensors.append((name, shape, source or (F32 if len(shape) == 1 or name.endswith("_norm.weight")
                                                      or "ffn_gate_inp" in name or "ssm_conv1d" in name else BF16)))

    def key(self, name: str, value: Any) -> None:
        self.meta[f"{self.arch}.{name}"] = value

    def get(self, *names: str, default: Any = None) -> Any:
        for name in names:
            if self.config.get(name) is not None:
                return self.config[name]
        return default


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's config (multimodal checkpoints nest it under `text_config`)."""
    inner = config.get("text_config")
    return {**config, **inner} if isinstance(inner, dict) else config


def common(t: Table, head_dim: int | None = None) -> tuple[int, int, int, int]:
    hidden, layers = int(t.get("hidden_size")), int(t.get("num_hidden_layers"))
    heads = int(t.get("num_attention_heads"))
    kv_heads = int(t.get("num_key_value_heads", default=heads))
    head = int(head_dim or t.get("head_dim", default=hidden // heads))
    vocab = int(t.get("vocab_size"))
    t.key("block_count", layers)
    t.key("embedding_length", hidden)
    t.key("attention.head_count", heads)
    t.key("attention.head_count_kv", kv_heads)
    t.key("attention.key_length", head)
    t.key("attention.value_length", head)
    t.key("vocab_size", vocab)
    t.key("feed_forward_length", int(t.get("intermediate_size", default=0) or 0))
    if t.get("max_position_embeddings"):
        t.key("context_length", int(t.get("max_position_embeddings")))
    t.add("token_embd.weight", (hidden, vocab))
    t.add("output_norm.weight", (hidden,))
    if not t.get("tie_word_embeddings", default=False):
        t.add("output.weight", (hidden, vocab))
    return hidden, layers, heads, kv_heads


def qkv(t: Table, p: str, hidden: int, q: int, kv: int, out_in: int, bias: bool = False) -> None:
    """create_tensor_qkv (src/llama-model.cpp:3413): separate attn_q/k/v unless the converter ran with --fuse-qkv
    (off by default, conversion/base.py:134)."""
    for name, width in (("attn_q", q), ("attn_k", kv), ("attn_v", kv)):
        t.add(f"{p}{name}.weight", (hidden, width))
        if bias:
            t.add(f"{p}{name}.bias", (width,))
    t.add(f"{p}attn_output.weight", (out_in, hidden))


def experts_block(t: Table, p: str, hidden: int, width: int, experts: int, source: str | None = None) -> None:
    t.add(f"{p}ffn_gate_inp.weight", (hidden, experts))
    t.add(f"{p}ffn_gate_exps.weight", (hidden, width, experts), source)
    t.add(f"{p}ffn_up_exps.weight", (hidden, width, experts), source)
    t.add(f"{p}ffn_down_exps.weight", (width, hidden, experts), source)


def dense(t: Table, p: str, hidden: int, width: int, suffix: str = "") -> None:
    t.add(f"{p}ffn_gate{suffix}.weight", (hidden, width))
    t.add(f"{p}ffn_up{suffix}.weight", (hidden, width))
    t.add(f"{p}ffn_down{suffix}.weight", (width, hidden))


def deepseek_moe_keys(t: Table) -> tuple[int, int, int, int]:
    """A DeepSeek-style MoE's routed experts, their width, shared experts and leading dense layers (DeepSeek2,
    GLM-4 MoE), their metadata keys written."""
    experts, width = int(t.get("n_routed_experts")), int(t.get("moe_intermediate_size"))
    shared, lead = int(t.get("n_shared_experts", default=0) or 0), int(t.get("first_k_dense_replace", default=0))
    moe_keys(t, experts, int(t.get("num_experts_per_tok")), width, shared, lead)
    return experts, width, shared, lead


def deepseek_ffn(t: Table, p: str, il: int, hidden: int, moe: tuple[int, int, int, int]) -> None:
    """Layer `il`'s feed-forward: dense in the leading layers, else the routed experts with their selection bias
    and the shared expert."""
    experts, width, shared, lead = moe
    if il < lead:
        dense(t, p, hidden, int(t.get("intermediate_size")))
        return
    experts_block(t, p, hidden, width, experts)
    t.add(p + "exp_probs_b.bias", (experts,))
    if shared:
        dense(t, p, hidden, width * shared, "_shexp")


def moe_keys(t: Table, experts: int, used: int, width: int, shared: int = 0, dense_lead: int = 0) -> None:
    t.key("expert_count", experts)
    t.key("expert_used_count", used)
    t.key("expert_feed_forward_length", width)
    t.key("expert_shared_count", shared)
    t.key("leading_dense_block_count", dense_lead)
