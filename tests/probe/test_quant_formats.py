"""Quantization formats sized per module: each config shape as the format's library writes it, and the bytes
each layout stores (the libraries' own tensor layouts, cited per test)."""

from __future__ import annotations

import pytest

from doctor.errors import InputError
from doctor.plan.storage import linear_bytes
from doctor.probe.model_config import parse_model
from doctor.probe.quant import normalise_quantization
from doctor.probe.quant_common import PER_CHANNEL, kind_of

LLAMA = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
         "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32, "vocab_size": 32000,
         "torch_dtype": "float16"}
MOE = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
       "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
       "vocab_size": 151936,
       "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128, "num_experts_per_tok": 8,
       "torch_dtype": "bfloat16"}


def quant(qc, hf_quant=None, base=LLAMA):
    return normalise_quantization({**base, "quantization_config": qc} if qc else dict(base), hf_quant, "float16")


# --- GPTQ / AWQ -----------------------------------------------------------------------------------------------
def test_gptq_leaves_lm_head_in_the_model_dtype_unless_the_config_quantizes_it():
    assert quant({"quant_method": "gptq", "bits": 4, "group_size": 128}).for_module("lm_head") is None
    q = quant({"quant_method": "gptq", "bits": 4, "group_size": 128, "lm_head": True})
    assert q.for_module("lm_head").scheme == "gptq"


def test_gptq_per_channel_group_is_one_group_per_row_not_an_error():
    q = quant({"quant_method": "gptq", "bits": 4, "group_size": -1})
    assert q.group_size == PER_CHANNEL
    # qweight in x out / 8 int32s, one scale and one packed zero row, g_idx [in]
    assert linear_bytes(4096, 4096, q, "float16") == 4096 * 4096 // 2 + 4096 * 2 + 4096 // 2 + 4096 * 4


@pytest.mark.parametrize(("bits", "expected"), [(2, 4096 * 4096 // 4), (3, 4096 * 4096 * 3 // 8), (8, 4096 * 4096)])
def test_gptq_bit_widths_pack_bits_per_weight(bits, expected):
    q = quant({"quant_method": "gptq", "bits": bits, "group_size": 128})
    groups = 4096 // 128
    assert linear_bytes(4096, 4096, q, "float16") == expected + groups * 4096 * 2 + groups * 4096 * bits // 8 + 4096 * 4


def test_gptqmodel_dynamic_skips_and_overrides_modules():
    q = quant({"quant_method": "gptq", "bits": 4, "group_size": 128,
               "dynamic": {"-:.*self_attn.*": {}, "+:.*mlp\\.down_proj.*": {"bits": 8, "group_size": 32}}})
    assert q.for_module("attention") is None
    mlp = q.for_module("dense_mlp")  # the representative dense module is gate_proj: not overridden
    assert (mlp.scheme, mlp.bits) == ("gptq", 4)


def test_awq_matches_thebloke_llama2_7b_tensor_table():
    """TheBloke/Llama-2-7B-AWQ: down_proj qweight int32 [11008, 512], qzeros int32 [86, 512], scales fp16
    [86, 4096] (gogongxt/python scripts/models/llama2-7b-awq.txt)."""
    q = quant({"quant_method": "awq", "bits": 4, "group_size": 128, "version": "gemm", "zero_point": True})
    assert linear_bytes(4096, 11008, q, "float16") == 11008 * 512 * 4 + 86 * 512 * 4 + 86 * 4096 * 2


# --- auto-round ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("extra", "scheme"), [
    ({"packing_format": "auto_round:auto_gptq"}, "gptq"), ({"packing_format": "auto_round:auto_awq"}, "awq"),
    ({"packing_format": "auto_round"}, "auto-round"), ({"backend": "auto_round:gptq:exllamav2"}, "gptq"),
    ({"data_type": "nv_fp", "packing_format": "auto_round:llm_compressor"}, "nvfp4"),
    ({"data_type": "mx_fp", "packing_format": "auto_round:llm_compressor"}, "mxfp4"),
])
def test_auto_round_export_variants(extra, scheme):
    q = quant({"quant_method": "auto-round", "bits": 4, "group_size": 128, "sym": True, **extra})
    assert (q.scheme, q.method) == (scheme, "auto-round")


def test_auto_round_extra_config_keeps_modules_and_layers_in_16_bit():
    q = quant({"quant_method": "auto-round", "bits": 4, "group_size": 128, "packing_format": "auto_round:auto_gptq",
               "extra_config": {".*self_attn.*": {"bits": 16, "data_type": "float"},
                                "model.layers.3.mlp.down_proj": {"bits": 8, "group_size": 128}}})
    assert q.for_module("attention") is None
    assert q.for_module("dense_mlp", 3).bits == 8 and q.for_module("dense_mlp", 4).bits == 4


def test_auto_round_native_format_has_no_g_idx():
    """auto_round_extension's triton QuantLinear registers qweight, qzeros and scales (g_idx is rebuilt at
    load); the auto_gptq export registers g_idx too (auto_round 0.16.1 wheel)."""
    native = quant({"quant_method": "auto-round", "bits": 4, "group_size": 128, "packing_format": "auto_round"})
    gptq = quant({"quant_method": "auto-round", "bits": 4, "group_size": 128, "packing_format": "auto_round:auto_gptq"})
    assert linear_bytes(4096, 4096, gptq, "float16") - linear_bytes(4096, 4096, native, "float16") == 4096 * 4


# --- bitsandbytes / HQQ ---------------------------------------------------------------------------------------------
def test_bitsandbytes_4bit_layouts():
    """bitsandbytes 0.50.2 QuantState.as_dict: packed uint8 weight, absmax per 64 (fp32; uint8 when nested, with an
    fp32 absmax per 256 blocks and a 256-entry code book), a 16-entry quant map."""
    numel = 4096 * 4096
    nf4 = quant({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_quant_type": "nf4"})
    assert (nf4.scheme, nf4.activation) == ("bnb-4bit", "nf4")
    assert linear_bytes(4096, 4096, nf4, "bfloat16") == numel // 2 + numel // 64 * 4 + 64
    dq = quant({"quant_method": "bitsandbytes", "load_in_4bit": True, "bnb_4bit_use_double_quant": True})
    assert linear_bytes(4096, 4096, dq, "bfloat16") == numel // 2 + numel // 64 + numel // 64 // 256 * 4 + 272 * 4 + 4
    assert dq.for_module("lm_head") is None  # transformers never converts the output embedding


def test_bitsandbytes_8bit_and_a_config_that_sets_neither():
    q = quant({"quant_method": "bitsandbytes", "load_in_8bit": True, "llm_int8_skip_modules": ["mlp"]})
    assert linear_bytes(4096, 4096, q, "float16") == 4096 * 4096 + 4096 * 4
    assert q.for_module("dense_mlp") is None
    with pytest.raises(InputError):
        quant({"quant_method": "bitsandbytes"})


@pytest.mark.parametrize(("bits", "per_weight"), [(4, 0.5), (3, 0.4), (2, 0.25)])
def test_hqq_packing(bits, per_weight):
    """hqq 0.2.8 bitpack: 4-bit two per uint8, 3-bit ten per int32, 2-bit four per uint8; fp16 scale and zero
    per group."""
    q = quant({"quant_method": "hqq", "quant_config": {"quant_config": {"weight_quant_params": {
        "nbits": bits, "group_size": 64}}}, "skip_modules": ["lm_head"]})
    assert (q.scheme, q.bits, q.group_size) == ("hqq", bits, 64)
    assert linear_bytes(4096, 4096, q, "float16") == int(4096 * 4096 * per_weight) + 4096 * 4096 // 64 * 4


# --- compressed-tensors mixtures ---------------------------------------------------------------------------------
def test_compressed_tensors_groups_by_target_with_the_named_group_winning():
    groups = {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel"},
                          "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": True}},
              "group_1": {"targets": ["re:.*mlp\\.experts.*"],
                          "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32}}}
    q = quant({"quant_method": "compressed-tensors", "config_groups": groups, "ignore": ["lm_head"]}, base=MOE)
    assert q.for_module("attention", 3).scheme == "fp8-channel"
    assert (q.for_experts().scheme, q.for_experts().group_size) == ("int4-w4a16", 32)
    assert q.for_module("lm_head") is None


def test_compressed_tensors_asymmetric_int4_stores_zero_points():
    qc = {"quant_method": "compressed-tensors", "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
        "num_bits": 4, "type": "int", "strategy": "group", "group_size": 128, "symmetric": False}}}}
    q = quant(qc)
    assert q.scheme == "int4-w4a16-asym"
    assert linear_bytes(4096, 4096, q, "float16") == 4096 * 4096 // 2 + 4096 * 32 * 2 + 4096 * 32 // 2 + 8


# --- ModelOpt MIXED_PRECISION -------------------------------------------------------------------------------------
def mixed(layers, base=MOE):
    hf = {"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "MIXED_PRECISION",
                                                            "kv_cache_quant_algo": "FP8", "exclude_modules": ["mtp*"],
                                                            "quantized_layers": layers}}
    return normalise_quantization(dict(base), hf, "bfloat16")


def test_modelopt_mixed_precision_per_kind_and_layer():
    """The shape of nvidia/Qwen3.6-35B-A3B-NVFP4's hf_quant_config.json: fused experts W4A16_NVFP4, some
    projections FP8, lm_head NVFP4, everything unlisted BF16."""
    layers = {f"model.language_model.layers.{i}.mlp.experts": {"quant_algo": "W4A16_NVFP4", "group_size": 16}
              for i in range(48)}
    layers |= {"model.language_model.layers.3.self_attn.q_proj": {"quant_algo": "FP8"},
               "model.language_model.layers.3.self_attn.o_proj": {"quant_algo": "FP8"},
               "model.language_model.layers.7.mlp.shared_expert.gate_proj": {"quant_algo": "UNQUANTIZED"},
               "mtp.layers.0.mlp.experts": {"quant_algo": "FP8_PB_WO"},
               "lm_head": {"quant_algo": "W4A16_NVFP4", "group_size": 16}}
    q = mixed(layers)
    assert (q.scheme, q.kv_cache_dtype) == ("nvfp4", "fp8_e4m3")
    assert q.for_module("routed_experts", 0).scheme == "nvfp4" and q.for_experts().scheme == "nvfp4"
    assert q.for_module("attention", 3).scheme == "fp8-tensor" and q.for_module("attention", 5) is None
    assert q.for_module("shared_experts", 7) is None and q.for_module("lm_head").group_size == 16
    assert q.for_module("routed_experts", 0).group_size == 16  # the MTP entry did not land on layer 0


def test_modelopt_mixed_precision_from_config_groups_with_module_names():
    groups = {"group_0": {"targets": ["backbone.layers.0.mixer.in_proj"],
                          "weights": {"num_bits": 8, "type": "float"}},
              "group_1": {"targets": ["backbone.layers.1.mixer.experts.0.up_proj",
                                      "backbone.layers.1.mixer.experts.1.up_proj"],
                          "weights": {"num_bits": 4, "type": "float", "group_size": 16}}}
    q = normalise_quantization({"quantization_config": {"quant_method": "modelopt", "quant_algo": "MIXED_PRECISION",
                                                        "config_groups": groups}}, None, "bfloat16")
    assert q.scheme == "nvfp4"
    assert q.for_module("routed_experts", 1).scheme == "nvfp4" and q.for_module("mamba", 0).scheme == "fp8-tensor"
    assert q.for_module("mamba", 2) is None


def test_module_names_to_kinds():
    assert kind_of("backbone.layers.7.mixer.fc2_latent_proj") == ("latent", 7)
    assert kind_of("model.layers.2.linear_attn.in_proj_qkvz") == ("linear_attention", 2)
    assert kind_of("model.layers.4.mlp.gate") == (None, 4)  # the router is not a quantized linear
    assert kind_of("mtp.layers.0.mlp.experts") == (None, None)


def test_unknown_method_keeps_its_name_and_hybrid_kinds_only_where_the_model_has_them():
    q = quant({"quant_method": "exl3", "bits": 4})
    assert q.scheme == "exl3"
    dense = quant({"quant_method": "gptq", "bits": 4, "group_size": 128})
    assert "mamba" not in dense.quantized and "latent" not in dense.quantized


def test_nemotron_h_kv_layers_are_the_attention_blocks_only():
    config = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 4096,
              "num_hidden_layers": 88, "num_attention_heads": 32, "num_key_value_heads": 2, "head_dim": 128,
              "vocab_size": 131072, "hybrid_override_pattern": "MEMEMEMEME*" * 8, "n_routed_experts": 512,
              "num_experts_per_tok": 22, "moe_intermediate_size": 2688, "moe_latent_size": 1024,
              "mamba_num_heads": 128, "mamba_head_dim": 64, "torch_dtype": "bfloat16"}
    model = parse_model(config, None, model_id="t", source="local", source_path=None)
    assert model.attention.linear_attention_layers == 80
    assert not {"mamba_num_heads", "mamba_head_dim", "moe_latent_size"} & set(model.unread_fields)


def test_gemma4_experts_beside_the_mlp_stay_quantized_under_an_mlp_exclude():
    """nvidia/Gemma-4-26B-A4B-NVFP4 excludes `layers.N.mlp*` (the dense MLP); its experts are layers.N.experts
    (config and hf_quant_config: tests/knowngood/models, copied from ai-dynamo/aiconfigurator)."""
    from pathlib import Path

    from doctor.probe.model import load_model

    folder = Path(__file__).resolve().parents[1] / "knowngood" / "models" / "nvidia--Gemma-4-26B-A4B-NVFP4"
    model = load_model(str(folder), {}, offline=True)
    assert "routed_experts" in model.quantization.quantized and "attention" not in model.quantization.quantized
    assert model.quantization.for_experts().scheme == "nvfp4"
