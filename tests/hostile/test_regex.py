"""Issue 15 point 3: `re:` patterns in a quantization ignore list are matched in bounded time."""

import time

import pytest

from doctor.probe.quant import MODULE_KINDS, is_ignored, normalise_quantization

HOSTILE = ["(.*)*!", "(a|a)*$", "(.*a){30}", "((.*)*)*#", "(x+x+)+y", ".*" * 50 + "!"]


@pytest.mark.parametrize("pattern", HOSTILE)
def test_catastrophic_patterns_finish_at_once(pattern):
    start = time.perf_counter()
    for name in MODULE_KINDS.values():
        assert not is_ignored(name * 4, (f"re:{pattern}",))
    assert time.perf_counter() - start < 0.5


def test_ordinary_patterns_still_match():
    assert is_ignored("model.layers.5.self_attn.q_proj", ("re:.*self_attn\\.(q|k|v)_proj$",))
    assert not is_ignored("model.layers.5.mlp.experts.7.gate_proj", ("re:.*self_attn.*",))


def test_unsupported_or_huge_patterns_match_nothing():
    assert not is_ignored("lm_head", ("re:(lm)_\\1",))  # a backreference: RE2 cannot, so no match
    assert not is_ignored("lm_head", ("re:" + "l?" * 2000 + "lm_head",))


def test_hostile_ignore_list_in_a_config():
    start = time.perf_counter()
    config = {"quantization_config": {"quant_method": "compressed-tensors", "ignore": [f"re:{p}" for p in HOSTILE],
                                      "config_groups": {"g": {"weights": {"num_bits": 8, "type": "float"}}}}}
    q = normalise_quantization(config, None, "bfloat16")
    assert "routed_experts" in q.quantized
    assert time.perf_counter() - start < 1.0


@pytest.mark.parametrize("pattern", [*HOSTILE, "(ab|cd)*x", "(a)\\1", "(?=x).*", ".*a.*b.*c"])
def test_patterns_that_could_backtrack_go_to_re2(pattern):
    from doctor.probe.quant import _backtracks_little

    assert not _backtracks_little(pattern)


@pytest.mark.parametrize("pattern", [".*self_attn.*", r".*mlp\.(gate|up|gate_up|down)_proj.*", r".*\.(q|k)_norm$",
                                     "lm_head", r"[a-z]+\.[0-9]+"])
def test_checkpoint_shapes_use_the_stdlib(pattern):
    """The ignore-list shapes published checkpoints use are matched by `re`, RE2 is not even loaded."""
    from doctor.probe.quant import _backtracks_little, _bounded_regex

    assert _backtracks_little(pattern)
    assert type(_bounded_regex(pattern)).__module__ == "re"
