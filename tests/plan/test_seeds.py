"""Predicted vs measured: the field reports (shared/seeds) of SGLang on 8x RTX PRO 6000 96 GB, TP8.

SGLang's "GB" in these logs is GiB: `get_available_gpu_memory` returns bytes / (1 << 30), and the KV log
divides by `GB = 1024 * 1024 * 1024` (0.5.8 mem_cache/memory_pool.py). The measured values live here
only; the code computes its numbers from configs and SGLang's formulas.
"""

import pytest

from doctor.engines.sglang.memory import SGLangMemory
from doctor.hardware import load_profile
from doctor.plan import kv
from doctor.plan.layouts import Layout
from doctor.plan.planner import PlanRequest, plan_layout
from doctor.probe.model import load_model

GiB = 1 << 30
RIG = "rtx-pro-6000-x8"


def model(model_id):
    return load_model(model_id, {}, offline=True)


def tp8(model_id):
    return plan_layout(load_profile(RIG), model(model_id), Layout(8, 1), PlanRequest(SGLangMemory("0.5.8")))


@pytest.mark.parametrize("model_id, measured_gib", [
    ("moonshotai/Kimi-K2.5", 72.33),  # seed 002: "Memory per GPU: ~72.33 GB weights"
    ("zai-org/GLM-4.7-FP8", 42.0),  # seed 002: "Model loads successfully (~42GB per GPU for weights)"
])
def test_weights_per_gpu_within_3_percent(model_id, measured_gib):
    predicted = tp8(model_id).weights_per_gpu_bytes / GiB
    assert abs(predicted - measured_gib) / measured_gib < 0.03, predicted


def test_k2_thinking_nvfp4_gap_is_stated_not_tuned():
    """73.87 GiB measured; the reconstructed config predicts 4-5 % less. docs/plan.md says why; this test
    pins the gap so a change that silently moves it is noticed."""
    predicted = tp8("nvidia/Kimi-K2-Thinking-NVFP4").weights_per_gpu_bytes / GiB
    assert -0.06 < (predicted - 73.87) / 73.87 < -0.03, predicted


@pytest.mark.parametrize("model_id, kv_gib, tokens", [
    ("moonshotai/Kimi-K2.5", 0.30, 4_578),  # "KV Cache: 0.30 GB", bf16 MLA latent
    ("nvidia/Kimi-K2-Thinking-NVFP4", 5.90, 180_191),  # "KV Cache: 5.90 GB per GPU (180,191 tokens)", fp8
    ("zai-org/GLM-4.7-FP8", 2 * 19.0, 864_247),  # "KV cache: ~19GB per GPU (864,247 tokens)": SGLang logs K and V
])
def test_tokens_for_the_kv_memory_sglang_had(model_id, kv_gib, tokens):
    plan = tp8(model_id)
    shape = kv.kv_shape(model(model_id), 8, 0, model(model_id).num_layers, plan.kv_cache_dtype)
    predicted = kv.tokens_for_bytes(int(kv_gib * GiB), shape)
    assert abs(predicted - tokens) / tokens < 0.03, predicted


def test_cell_sizes_match_the_logs():
    assert tp8("moonshotai/Kimi-K2.5").kv_bytes_per_token == 576 * 61 * 2
    assert tp8("nvidia/Kimi-K2-Thinking-NVFP4").kv_bytes_per_token == 576 * 61  # fp8_e4m3 declared by the ckpt
    assert tp8("zai-org/GLM-4.7-FP8").kv_bytes_per_token == 1 * 256 * 92 * 2  # 8 KV heads / TP8 = 1 per rank


def test_glm_fp8_end_to_end_kv_capacity_within_3_percent():
    """Weights, mem_fraction_static 0.848 and the KV formula chained: 864,247 tokens measured."""
    assert abs(tp8("zai-org/GLM-4.7-FP8").kv_capacity_tokens - 864_247) / 864_247 < 0.03


def test_kimi_k25_int4_is_borderline_as_observed():
    """SGLang had 0.30 GiB of KV left: any estimate is within its error of zero, and says so."""
    plan = tp8("moonshotai/Kimi-K2.5")
    assert plan.borderline and abs(plan.kv_budget_bytes) < 2 * GiB
    assert any("borderline" in r for r in plan.reasons)
