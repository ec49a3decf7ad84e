"""vLLM's Mamba / Gated-DeltaNet state blocks (doctor/engines/vllm/state_cache.py) against figures worked out by
hand from the vLLM wheels' formulas and one public log, and the config reader that feeds it."""

from __future__ import annotations

import pytest

from doctor.engines.spi import LayoutShape
from doctor.engines.vllm.state_cache import (
    conv_dtype,
    group_size,
    launch_options,
    ssm_dtype,
    state_cache,
    state_page_bytes,
)
from doctor.pipeline.facts import RecurrentState
from doctor.plan import kv as kvmod
from doctor.probe.model import load_model
from doctor.probe.model_config import parse_model
from doctor.probe.recurrent_state import recurrent_state

GiB = 1 << 30


@pytest.fixture(scope="module")
def qwen36_27b():
    return load_model("Qwen/Qwen3.6-27B", {}, offline=True)


def test_qwen36_27b_state_is_read_from_its_config(qwen36_27b):
    assert qwen36_27b.recurrent_state == RecurrentState(
        kind="gdn", layers=48, conv_channels=2 * 16 * 128 + 48 * 128, conv_kernel=4, heads=48, head_dim=128,
        state_dim=128, groups=16, ssm_dtype="float32")


def test_nemotron_h_counts_only_its_mamba_blocks():
    model = load_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", {}, offline=True)
    state = model.recurrent_state
    assert state is not None and state.kind == "mamba2"
    assert state.layers == 23  # the "M" blocks; its MoE and MLP blocks hold no state
    assert model.attention.linear_attention_layers > state.layers


def test_a_plain_decoder_has_no_state():
    assert load_model("Qwen/Qwen3-8B", {}, offline=True).recurrent_state is None
    assert recurrent_state({"hidden_size": 8}, 0) is None


def test_one_layer_page_at_tp1(qwen36_27b):
    # conv: 3 rows x 10240 channels x bf16; SSM: 48 heads x 128 x 128 x float32
    assert state_page_bytes(qwen36_27b, 1, "bfloat16", "float32") == 3 * 10240 * 2 + 48 * 128 * 128 * 4
    assert state_page_bytes(qwen36_27b, 2, "bfloat16", "float32") == 3 * 5120 * 2 + 24 * 128 * 128 * 4


def test_mamba2_groups_are_replicated_when_tp_does_not_divide_them():
    model = parse_model({"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 1024,
                         "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
                         "vocab_size": 1000, "hybrid_override_pattern": "M*", "mamba_num_heads": 8,
                         "mamba_head_dim": 64, "n_groups": 1, "ssm_state_size": 128, "conv_kernel": 4},
                        None, model_id="t", source="local", source_path=None)
    # extra_groups_for_head_shards: 1 group at TP2 becomes 2, conv channels 512 + 2 x 2 x 128, split over 2
    assert state_page_bytes(model, 2, "bfloat16", "float32") == 3 * ((512 + 4 * 128) // 2) * 2 + 4 * 64 * 128 * 4


def test_qwen35_ssm_dtype_follows_the_config_from_0_17_only(qwen36_27b):
    assert ssm_dtype(qwen36_27b, "0.17.0", {}) == "float32"
    assert ssm_dtype(qwen36_27b, "0.16.0", {}) == "bfloat16"  # the conv dtype: the model's
    assert ssm_dtype(qwen36_27b, "0.24.0", {"mamba_ssm_cache_dtype": "bfloat16"}) == "bfloat16"
    assert conv_dtype(qwen36_27b, {"mamba_cache_dtype": "float32"}) == "float32"


def test_group_size_is_the_smaller_layer_count_unless_within_1_5x():
    assert group_size(16, 48) == 16  # Qwen3.6-27B: 1 attention group + 3 GDN groups of 16
    assert group_size(10, 30) == 10
    assert group_size(10, 14) == 14


def test_the_logged_pool_of_vllm_49064_gives_its_161_blocks(qwen36_27b):
    """Qwen3.8-27B (Qwen3.6-27B's shapes) at TP2 with a logged 3.86 GiB KV pool: vLLM printed 161 blocks."""
    shape = kvmod.kv_shape(qwen36_27b, 2, 0, qwen36_27b.num_layers, "bf16")
    state = state_cache("0.23.0", int(3.86 * GiB), shape, qwen36_27b, LayoutShape(2, 1, 1), {"max_num_seqs": 256},
                        {})
    assert state is not None
    assert state["block_size"] == 784 and state["page_bytes"] == 784 * 2 * 256 * 2 * 2
    assert state["group_size"] == 16
    assert state["blocks"] == 161
    assert state["short"] and state["short_for_sure"]


def test_max_num_seqs_equal_to_the_blocks_is_not_short(qwen36_27b):
    shape = kvmod.kv_shape(qwen36_27b, 1, 0, qwen36_27b.num_layers, "bf16")
    budget = 20 * GiB
    blocks = state_cache("0.24.0", budget, shape, qwen36_27b, LayoutShape(1, 1, 1), {"max_num_seqs": 1}, {})["blocks"]
    at_limit = state_cache("0.24.0", budget, shape, qwen36_27b, LayoutShape(1, 1, 1), {"max_num_seqs": blocks}, {})
    above = state_cache("0.24.0", budget, shape, qwen36_27b, LayoutShape(1, 1, 1), {"max_num_seqs": blocks + 1}, {})
    assert not at_limit["short"] and above["short"]


@pytest.mark.parametrize("args, full", [
    ((), True),
    (("--enforce-eager",), True),  # the memory model turns it off itself
    (("-cc.cudagraph_mode=PIECEWISE",), False),
    (("--compilation-config", '{"cudagraph_mode": "NONE"}'), False),
    (("--compilation-config", '{"cudagraph_mode": "FULL_AND_PIECEWISE"}'), True),
])
def test_launch_options_see_the_cudagraph_mode(args, full):
    assert launch_options(args)["full_cudagraphs"] is full


def test_launch_options_read_both_spellings_of_the_mamba_dtypes():
    assert launch_options(["--mamba-ssm-cache-dtype", "float32"])["mamba_ssm_cache_dtype"] == "float32"
    assert launch_options(["--mamba_ssm_cache_dtype=bfloat16"])["mamba_ssm_cache_dtype"] == "bfloat16"
    assert launch_options(["--mamba-cache-dtype", "auto"])["mamba_cache_dtype"] == "auto"
