"""Configs of newer model families are read, not refused: expert top-k spellings, linear-attention layers
left out of the KV cache, ModelOpt mixed-precision checkpoints sized by their dominant algorithm."""

from __future__ import annotations

import dataclasses

from doctor.plan.kv import attention_layers
from doctor.probe.model_config import parse_model
from doctor.probe.quant import normalise_quantization

BASE = {"architectures": ["X"], "model_type": "x", "hidden_size": 2048, "num_hidden_layers": 48,
        "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 1000}


def model(**fields):
    return parse_model({**BASE, **fields}, None, model_id="t/x", source="local", source_path=None)


def test_gemma4_top_k_experts_is_read():
    moe = model(enable_moe_block=True, num_experts=128, top_k_experts=8, moe_intermediate_size=704).moe
    assert (moe.routed_experts, moe.top_k) == (128, 8)


def test_moe_block_switched_off_is_dense():
    assert model(enable_moe_block=False, num_experts=128, top_k_experts=8).moe is None


def test_full_attention_interval_counts_linear_layers_and_kv_skips_them():
    m = model(full_attention_interval=4)
    assert m.attention.linear_attention_layers == 36
    assert attention_layers(m, 0, 48) == (12, 0)


def test_layer_types_and_hybrid_pattern_count_linear_layers():
    types = ["linear_attention", "linear_attention", "linear_attention", "full_attention"] * 12
    assert model(layer_types=types).attention.linear_attention_layers == 36
    # Nemotron-H: only "*" layers hold KV; Mamba ("M"), MLP ("-") and MoE ("E") layers have none
    assert model(hybrid_override_pattern="M-M*-" * 8 + "M-M-M-M-").attention.linear_attention_layers == 40
    assert model(layers_block_type=["mamba", "moe", "attention", "mlp"] * 12).attention.linear_attention_layers == 36


def test_dense_model_has_every_layer_in_kv():
    m = model()
    assert attention_layers(m, 0, 48) == (48, 0)
    half = dataclasses.replace(m, attention=dataclasses.replace(m.attention, linear_attention_layers=24))
    assert attention_layers(half, 0, 24) == (12, 0)


def test_mixed_precision_modelopt_is_sized_by_its_dominant_algorithm():
    layers = {"a.experts.0": {"quant_algo": "NVFP4"}, "b.experts.1": {"quant_algo": "NVFP4"},
              "c.self_attn": {"quant_algo": "FP8"}}
    q = normalise_quantization({}, {"quantization": {"quant_algo": "MIXED_PRECISION", "quantized_layers": layers}},
                               "bfloat16")
    assert (q.scheme, q.bits) == ("nvfp4", 4)


def test_mixed_precision_without_layers_stays_named():
    q = normalise_quantization({}, {"quantization": {"quant_algo": "MIXED_PRECISION"}}, "bfloat16")
    assert q.scheme == "mixed_precision"
