"""DeepSeek-V4 style checkpoints: FP8 block everywhere except the routed experts, stored as `expert_dtype` says
(fp4: MXFP4 with a ue8m0 scale per 32; a missing value on deepseek_v4 means fp4, as vLLM reads it)."""

from __future__ import annotations

import json

import pytest

from doctor.errors import InputError
from doctor.plan.storage import linear_bytes
from doctor.probe.model import load_model
from doctor.probe.quant import normalise_quantization

FP8_BLOCK = {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128], "activation_scheme": "dynamic"}
V4 = {"architectures": ["DeepseekV4ForCausalLM"], "model_type": "deepseek_v4", "vocab_size": 129280,
      "hidden_size": 4096, "moe_intermediate_size": 2048, "n_routed_experts": 256, "n_shared_experts": 1,
      "num_experts_per_tok": 6, "num_hidden_layers": 43, "num_attention_heads": 64, "num_key_value_heads": 1,
      "head_dim": 512, "max_position_embeddings": 1048576, "torch_dtype": "bfloat16",
      "quantization_config": FP8_BLOCK}


@pytest.mark.parametrize(("extra", "experts"), [
    ({"expert_dtype": "fp4"}, "mxfp4"), ({}, "mxfp4"), ({"expert_dtype": "fp8"}, "fp8-block"),
])
def test_expert_scheme(extra, experts):
    q = normalise_quantization({**V4, **extra}, None, "bfloat16")
    assert q.scheme == "fp8-block"
    assert q.for_experts().scheme == experts


def test_other_models_keep_one_scheme():
    q = normalise_quantization({**V4, "model_type": "deepseek_v3"}, None, "bfloat16")
    assert q.expert_scheme is None and q.for_experts() is q


def test_a_non_string_expert_dtype_is_one_clear_error():
    with pytest.raises(InputError, match="expert_dtype"):
        normalise_quantization({**V4, "expert_dtype": 4}, None, "bfloat16")


def test_routed_experts_weigh_as_mxfp4_and_the_rest_as_fp8_block(tmp_path):
    def weights(extra):
        (tmp_path / "config.json").write_text(json.dumps({**V4, **extra}))
        return load_model(str(tmp_path), {}, offline=True)

    fp4, fp8 = weights({"expert_dtype": "fp4"}), weights({"expert_dtype": "fp8"})
    q = fp4.quantization.for_experts()
    gate_up = linear_bytes(2 * 2048, 4096, q, "bfloat16")
    assert gate_up == 2 * 2048 * 4096 // 2 + 2 * 2048 * 4096 // 32  # e2m1 pairs + one ue8m0 per 32
    assert "expert_dtype" not in fp4.unread_fields and fp8.quantization.for_experts().scheme == "fp8-block"


def test_the_weight_plan_sizes_routed_experts_in_fp4(tmp_path):
    from doctor.plan.arch import model_pieces

    def routed(extra):
        (tmp_path / "config.json").write_text(json.dumps({**V4, **extra}))
        model = load_model(str(tmp_path), {}, offline=True)
        pieces = model_pieces(model)
        return (sum(p.nbytes for p in pieces if p.kind == "routed_experts"),
                sum(p.nbytes for p in pieces if p.kind == "attention"))

    (fp4_experts, fp4_attention), (fp8_experts, fp8_attention) = routed({}), routed({"expert_dtype": "fp8"})
    assert fp4_attention == fp8_attention  # FP8 block either way
    assert 0.52 < fp4_experts / fp8_experts < 0.54  # 4.25 bits against 8 bits plus a float per 128x128 block
