"""-hf estimate writer for multi-head latent attention (deepseek2) and DeepSeek sparse attention (deepseek32,
glm-dsa). See doctor/probe/gguf_arch.py."""

from __future__ import annotations

from doctor.probe.gguf_arch_table import F32, Table, common, deepseek_ffn, deepseek_moe_keys


def deepseek2(t: Table) -> None:
    """deepseek2 (DeepSeek-V3/R1, Kimi-K2, GLM-4.7-Flash) and, with a DSA indexer, deepseek32 / glm-dsa
    (DeepSeek-V3.2, GLM-5.x): MLA with kv_b split into attn_k_b/attn_v_b for the absorbed path
    (conversion/deepseek.py:433-449, models/deepseek2.cpp:37-89, models/glm-dsa.cpp); the cache keeps the latent
    plus the rope part (key_length = kv_lora_rank + rope, value_length = kv_lora_rank, conversion/deepseek.py:
    349-353)."""
    hidden, layers, heads = int(t.get("hidden_size")), int(t.get("num_hidden_layers")), int(
        t.get("num_attention_heads"))
    common(t, head_dim=1)
    q_lora, kv_lora = int(t.get("q_lora_rank", default=0) or 0), int(t.get("kv_lora_rank"))
    nope, rope, v_head = int(t.get("qk_nope_head_dim")), int(t.get("qk_rope_head_dim")), int(t.get("v_head_dim"))
    t.key("attention.head_count_kv", 1)
    t.key("attention.key_length", kv_lora + rope)
    t.key("attention.value_length", kv_lora)
    t.key("attention.key_length_mla", nope + rope)
    t.key("attention.value_length_mla", v_head)
    t.key("attention.kv_lora_rank", kv_lora)
    t.key("attention.q_lora_rank", q_lora)
    t.key("rope.dimension_count", rope)
    moe = deepseek_moe_keys(t)
    indexed = _indexer_keys(t, layers)
    for il in range(layers):
        p = f"blk.{il}."
        if indexed[il]:
            _indexer(t, p, hidden, q_lora)
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "attn_kv_a_norm.weight", (kv_lora,))
        if q_lora:
            t.add(p + "attn_q_a_norm.weight", (q_lora,))
            t.add(p + "attn_q_a.weight", (hidden, q_lora))
            t.add(p + "attn_q_b.weight", (q_lora, heads * (nope + rope)))
        else:
            t.add(p + "attn_q.weight", (hidden, heads * (nope + rope)))
        t.add(p + "attn_kv_a_mqa.weight", (hidden, kv_lora + rope))
        t.add(p + "attn_k_b.weight", (nope, kv_lora, heads))
        t.add(p + "attn_v_b.weight", (kv_lora, v_head, heads))
        t.add(p + "attn_output.weight", (heads * v_head, hidden))
        t.add(p + "ffn_norm.weight", (hidden,))
        deepseek_ffn(t, p, il, hidden, moe)


def _indexer_keys(t: Table, layers: int) -> list[bool]:
    """DeepSeek sparse attention (deepseek32: DeepSeek-V3.2; glm-dsa: GLM-5.x): the lightning indexer's keys, and
    which layers carry their own indexer (GLM-5.2's `indexer_types`, 'full' or 'shared'; every layer otherwise;
    conversion/glm.py:377-382, conversion/deepseek.py:520, models/glm-dsa.cpp:49-66)."""
    if t.get("index_n_heads") is None:
        return [False] * layers
    t.key("attention.indexer.head_count", int(t.get("index_n_heads")))
    t.key("attention.indexer.key_length", int(t.get("index_head_dim")))
    t.key("attention.indexer.top_k", int(t.get("index_topk")))
    kinds = t.get("indexer_types")
    if not kinds:
        return [True] * layers
    full = [kind == "full" for kind in kinds[:layers]]
    t.key("attention.indexer.types", full)
    return full


def _indexer(t: Table, p: str, hidden: int, q_lora: int) -> None:
    """The indexer's tensors (models/glm-dsa.cpp:144-148, models/deepseek32.cpp): k_norm, proj (kept F32 by the
    converter, base.py:1116), attn_k, attn_q_b."""
    heads, head = t.meta[f"{t.arch}.attention.indexer.head_count"], t.meta[f"{t.arch}.attention.indexer.key_length"]
    t.add(p + "indexer.k_norm.weight", (head,))
    t.add(p + "indexer.k_norm.bias", (head,))
    t.add(p + "indexer.proj.weight", (hidden, heads), F32)
    t.add(p + "indexer.attn_k.weight", (hidden, head))
    t.add(p + "indexer.attn_q_b.weight", (q_lora, heads * head))
