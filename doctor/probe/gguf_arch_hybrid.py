"""-hf estimate writers for the hybrid architectures that keep a recurrent state: Gated DeltaNet (qwen35,
qwen35moe, qwen3next) and Mamba-2 (nemotron_h, nemotron_h_moe). See doctor/probe/gguf_arch.py."""

from __future__ import annotations

from doctor.probe.gguf_arch_table import F32, Table, common, dense, experts_block, moe_keys, qkv


def qwen35(t: Table) -> None:
    """qwen35 / qwen35moe / qwen3next: Gated DeltaNet layers and, every `full_attention_interval`-th layer,
    gated full attention (attn_q carries the gate: 2 x heads x head_dim). models/qwen35moe.cpp:55-105,
    models/qwen35.cpp:50-100, models/qwen3next.cpp:56-110; keys conversion/qwen.py:376-393."""
    hidden, layers, heads, kv_heads = common(t)
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
        moe_keys(t, experts, int(t.get("num_experts_per_tok")), width)
        t.key("expert_shared_feed_forward_length", shared)
    for il in range(layers):
        p = f"blk.{il}."
        t.add(p + "attn_norm.weight", (hidden,))
        t.add(p + "post_attention_norm.weight", (hidden,))
        if not recurrent[il]:
            qkv(t, p, hidden, 2 * heads * head, kv_heads * head, heads * head)
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
            dense(t, p, hidden, int(t.get("intermediate_size")))
            continue
        experts_block(t, p, hidden, width, experts)
        t.add(p + "ffn_gate_inp_shexp.weight", (hidden,))
        dense(t, p, hidden, shared, "_shexp")


def nemotron_h(t: Table) -> None:
    """nemotron_h / nemotron_h_moe (Nemotron-H, Nemotron 3 Nano/Super/Ultra): `hybrid_override_pattern` M = Mamba-2,
    * = attention, E = MoE (relu2 experts: up/down only, shared expert, optional latent projection), - = MLP
    (conversion/nemotron.py:200-365, conversion/granite.py:486-512, models/nemotron-h.cpp:57-137). Keys: per-layer
    head_count_kv (0 outside attention) and feed_forward_length (0 outside MLP/MoE), from which the loader tells
    the recurrent layers."""
    hidden, layers, heads, kv_heads = common(t)
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
        moe_keys(t, experts, int(t.get("num_experts_per_tok")), width, int(t.get("n_shared_experts", default=0)))
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
            qkv(t, p, hidden, heads * head, kv_heads * head, heads * head)
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
