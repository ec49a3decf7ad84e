"""vLLM's KV pool for models whose linear-attention (Gated-DeltaNet/Mamba) layers share it with their attention
layers: `_get_kv_cache_groups_uniform_page_size` splits every layer type into groups of the smallest type's size,
each state group takes one page per request, and up to 0.23.x the "GPU KV cache size" line divides the pool by the
group count. The doctor plans with what the pool holds; `logged_kv_cache_size` is only the log line (checked
against GB10 logs in tests/engines/test_memory_tables.py: 581,856 tokens for 44.47 GiB of Qwen3.5-35B-A3B)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.vllm.memory import VLLMMemory, hybrid_state_groups, logged_kv_cache_size
from doctor.plan import kv as kvmod
from doctor.probe.model import load_model

GiB = 1 << 30
QWEN35 = "tests/cases/models/qwen3.5-35b-a3b"


@pytest.mark.parametrize(("attention", "state", "expected"), [
    (10, 30, (10, 4)),   # Qwen3.5/3.6-35B-A3B: 3:1 Gated-DeltaNet to attention
    (15, 45, (15, 4)),   # Qwen3.5-397B-A17B's 60 layers
    (12, 13, (13, 2)),   # under 1.5x: the larger count, padded (gpt-oss-20b + eagle in vLLM's comment)
    (8, 44, (8, 7)),     # 44 state layers take cdiv(44, 8) = 6 groups, the last one padded
])
def test_groups_follow_vllms_uniform_page_grouping(attention, state, expected):
    assert hybrid_state_groups(attention, state) == expected


def pool(release: str, budget_gib: float) -> tuple[int, int]:
    """(tokens of attention context the pool holds, the "GPU KV cache size" the release logs for it)."""
    model = load_model(QWEN35, {}, offline=True)
    memory = VLLMMemory(Version(release), (12, 1), "NVIDIA GB10")
    shape = kvmod.kv_shape(model, 1, 0, model.num_layers, "bf16", memory.kv_cell_bytes)
    assert (shape.layers, shape.linear_layers) == (10, 30)
    capacity = memory.kv_tokens(int(budget_gib * GiB), shape, {"page_size": 16})
    return capacity, logged_kv_cache_size(release, capacity, shape)


def test_the_plan_keeps_what_the_pool_holds():
    """44.47 GiB of bf16 Qwen3.5-35B-A3B on vLLM 0.16: the log gives 2.21 requests of 1,048,576 tokens, so the
    pool holds at least two such contexts; the doctor's capacity must not fall to the logged 581,856 (a false
    'fewer tokens than one request' warning)."""
    capacity, _ = pool("0.16.0", 44.47)
    assert 2 * 1_048_576 < capacity < 2.3 * 1_048_576


def test_the_log_line_is_a_quarter_of_the_pool_up_to_0_23():
    capacity, logged = pool("0.16.0", 44.47)
    assert logged == capacity // 4
    assert logged == pytest.approx(581_856, rel=0.01)
    assert pool("0.23.0", 44.47)[1] == logged


def test_from_0_24_the_log_line_is_the_capacity():
    """0.24.0 reports max concurrency x max_model_len (`get_kv_cache_capacity`), which counts a state group as one
    page per request."""
    capacity, logged = pool("0.24.0", 44.47)
    assert logged == capacity


def test_models_without_state_layers_log_what_the_pool_holds():
    model = load_model("openai/gpt-oss-120b", {}, offline=True)
    shape = kvmod.kv_shape(model, 1, 0, model.num_layers, "bf16")
    assert shape.linear_layers == 0
    assert logged_kv_cache_size("0.16.0", 123_456, shape) == 123_456
