"""The vision tower's share of vLLM's profile run (doctor/engines/vllm/encoder_profile.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from doctor.engines.vllm.encoder_profile import encoder_profile, peak_bytes_per_patch, profiled
from doctor.probe.model import load_model

QWEN35 = Path(__file__).resolve().parents[3] / "tests" / "cases" / "models" / "qwen3.5-35b-a3b"


@pytest.fixture(scope="module")
def qwen35():
    return load_model(str(QWEN35), {}, offline=True)


def test_the_measured_peak_per_patch():
    # bench/results/vision-peak-h200-2026-11-28.jsonl at 65,536 patches
    assert peak_bytes_per_patch(1152) == 2910847488 // 65536
    assert peak_bytes_per_patch(1024) == 2587886080 // 65536


def test_one_dummy_image_of_65536_patches_at_the_small_batch(qwen35):
    peak, outputs = encoder_profile(qwen35, 2048)
    assert peak == 65536 * peak_bytes_per_patch(1152)
    assert outputs == 16384 * qwen35.hidden_size * 2


def test_a_budget_of_two_images_profiles_two(qwen35):
    assert encoder_profile(qwen35, 32768)[0] == 2 * encoder_profile(qwen35, 16384)[0]
    assert encoder_profile(qwen35, 32767)[0] == encoder_profile(qwen35, 16384)[0]


def test_other_vision_towers_and_text_models_are_not_modelled(qwen35):
    assert encoder_profile(dataclasses.replace(qwen35, model_type="qwen2_5_vl"), 2048) == (0, 0)
    assert encoder_profile(dataclasses.replace(qwen35, vision=None), 2048) == (0, 0)


@pytest.mark.parametrize("values, on", [
    ({}, True),
    ({"skip_mm_profiling": True}, False),
    ({"language_model_only": True}, False),
    ({"limit_mm_per_prompt": '{"image": 0, "video": 0}'}, False),
    ({"limit_mm_per_prompt": {"image": 0, "video": 0}}, False),
    ({"limit_mm_per_prompt": '{"image": 1, "video": 0}'}, True),
    ({"limit_mm_per_prompt": "not json"}, True),
    ({"limit_mm_per_prompt": "image=0,video=0"}, False),
    ({"limit_mm_per_prompt": "image=2,video=0"}, True),
])
def test_flags_that_skip_the_profile(values, on):
    assert profiled(values) is on


@pytest.mark.parametrize("argv, on", [
    ([], True),
    (["--skip-mm-profiling"], False),
    (["--language-model-only"], False),
    (["--limit-mm-per-prompt", '{"image": 0, "video": 0}'], False),
    (["--limit-mm-per-prompt", '{"image": 1}'], True),
])
def test_the_launch_flags_reach_it(argv, on):
    from doctor.engines.vllm.launch import parse_launch

    assert profiled(parse_launch(argv).values) is on
