"""Whether a vLLM release reserves the CUDA graphs' pool before sizing the KV cache (cudagraph_pool.py), read in
the wheels: the switch's default per release, Model Runner V2's placeholder estimate (0.21.0-0.28.0) and the runner
each release picks for a model."""

from __future__ import annotations

import pytest

from doctor.engines.vllm.cudagraph_pool import model_runner, pool_reserved
from doctor.probe.model import load_model

LLAMA, QWEN3, QWEN3_MOE = "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B"


@pytest.mark.parametrize(("version", "model", "runner"), [
    ("0.21.0", QWEN3, "v1"), ("0.22.0", QWEN3, "v2"), ("0.22.0", LLAMA, "v1"), ("0.23.0", LLAMA, "v2"),
    ("0.24.1", LLAMA, "v2"), ("0.25.0", LLAMA, "v2"), ("0.25.0", QWEN3_MOE, "v1"), ("0.28.0", QWEN3, "v2"),
])
def test_the_runner_each_release_picks(version, model, runner):
    assert model_runner(version, {}, load_model(model, {}, offline=True), speculative=False) == runner


def test_the_environment_and_speculative_decoding():
    llama = load_model(LLAMA, {}, offline=True)
    assert model_runner("0.25.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, llama, speculative=False) == "v1"
    assert model_runner("0.19.0", {"VLLM_USE_V2_MODEL_RUNNER": "true"}, llama, speculative=False) == "v2"
    assert model_runner("0.25.0", {}, llama, speculative=True) is None
    assert model_runner("0.25.0", {}, None, speculative=False) is None


@pytest.mark.parametrize(("version", "default", "env", "model", "reserved"), [
    ("0.17.0", None, {}, LLAMA, False),                     # no switch
    ("0.19.0", "0", {}, LLAMA, False),
    ("0.19.0", "0", {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "1"}, LLAMA, True),
    ("0.20.0", "1", {}, LLAMA, True),
    ("0.20.0", "1", {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0"}, LLAMA, False),
    ("0.24.0", "1", {}, LLAMA, False),                      # V2's placeholder 0
    ("0.24.0", "1", {"VLLM_USE_V2_MODEL_RUNNER": "0"}, LLAMA, True),
    ("0.25.0", "1", {}, QWEN3_MOE, True),
    ("0.25.0", "1", {}, None, None),                         # runner not settled
    ("0.29.0", "1", {}, QWEN3, True),
])
def test_pool_reserved(version, default, env, model, reserved):
    loaded = load_model(model, {}, offline=True) if model else None
    assert pool_reserved(version, default, env, loaded, speculative=False, enforce_eager=False) is reserved


def test_eager_has_nothing_to_reserve():
    assert pool_reserved("0.19.0", "0", {}, None, speculative=False, enforce_eager=True) is None
