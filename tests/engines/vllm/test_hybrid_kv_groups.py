"""vLLM's token count for models whose linear-attention (Gated-DeltaNet/Mamba) layers share the KV pool with their
attention layers: `_get_kv_cache_groups_uniform_page_size` splits every layer type into groups of the smallest type's
size, and "GPU KV cache size" is blocks // groups x block size up to 0.23.x. Checked against GB10 logs in
tests/engines/test_memory_tables.py (581,856 tokens for 44.47 GiB of Qwen3.5-35B-A3B)."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.vllm.memory import VLLMMemory, hybrid_state_groups
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


def tokens(release: str, budget_gib: float) -> int:
    model = load_model(QWEN35, {}, offline=True)
    memory = VLLMMemory(Version(release), (12, 1), "NVIDIA GB10")
    shape = kvmod.kv_shape(model, 1, 0, model.num_layers, "bf16", memory.kv_cell_bytes)
    assert (shape.layers, shape.linear_layers) == (10, 30)
    settings = {"page_size": 16}
    return memory.kv_tokens(int(budget_gib * GiB), shape, settings)


def test_a_quarter_of_the_attention_only_count_up_to_0_23():
    """44.47 GiB of bf16 Qwen3.5-35B-A3B: vLLM 0.16 logs 581,856 tokens; 20,480 bytes per token over the 10
    attention layers alone would say 2.33 million."""
    assert tokens("0.16.0", 44.47) == pytest.approx(581_856, rel=0.01)
    assert tokens("0.23.0", 44.47) == tokens("0.16.0", 44.47)


def test_from_0_24_the_attention_only_count_is_kept():
    """0.24.0 reports max concurrency x max_model_len (`get_kv_cache_capacity`), where a state group costs a request
    one page: the doctor does not model that and keeps its attention-only count, four times the older figure."""
    assert tokens("0.24.0", 44.47) == pytest.approx(4 * tokens("0.23.0", 44.47), rel=0.001)


def test_models_without_state_layers_are_unchanged():
    model = load_model("openai/gpt-oss-120b", {}, offline=True)
    shape = kvmod.kv_shape(model, 1, 0, model.num_layers, "bf16")
    assert shape.linear_layers == 0
