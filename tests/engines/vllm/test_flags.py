"""`vllm serve` flags per release, from the wheel data: the problems check_flags names and the rewrites."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.compose import Flags
from doctor.engines.vllm.flags import check_flags, table
from doctor.engines.vllm.launch import human_int, parse_launch
from doctor.engines.vllm.rewrite import rewrite_flags
from doctor.errors import UsageError


def problems(version: str, *argv: str) -> list[str]:
    return check_flags(list(argv), Version(version))


def test_valid_flags_have_no_problem():
    assert problems("0.15.1", "--tensor-parallel-size", "8", "--max-model-len", "32768", "--enforce-eager",
                    "--kv-cache-dtype", "fp8", "--gpu-memory-utilization", "0.9") == []


def test_underscores_aliases_negations_and_dot_notation_are_valid():
    assert problems("0.33.0", "--tensor_parallel_size", "2", "-tp", "2", "--no-enforce-eager",
                    "--compilation-config.cudagraph_mode", "PIECEWISE") == []


def test_unknown_flag_names_the_closest_spelling():
    [problem] = problems("0.15.1", "--tensor-paralel-size", "8")
    assert "--tensor-paralel-size does not exist in vLLM 0.15.1" in problem
    assert "did you mean --tensor-parallel-size?" in problem


def test_flag_not_yet_added_says_when_it_came():
    [problem] = problems("0.12.0", "--attention-backend", "TRITON_MLA")
    assert "does not exist in vLLM 0.12.0 (added in 0.13.0)" in problem


def test_value_outside_the_choices():
    [problem] = problems("0.15.1", "--kv-cache-dtype", "fp9")
    assert problem.startswith("--kv-cache-dtype fp9 is not a choice in vLLM 0.15.1")
    assert "fp8_e4m3" in problem


def test_attention_backend_value_checked_against_the_enum_case_insensitively():
    assert problems("0.15.1", "--attention-backend", "triton_mla") == []
    [problem] = problems("0.15.1", "--attention-backend", "TRITON_MLA_FAST")
    assert "not a choice" in problem and "TRITON_MLA" in problem


def test_moe_backend_choices_appear_with_the_flag():
    assert "--moe-backend" not in table("0.16.0").flags
    assert problems("0.33.0", "--moe-backend", "triton") == []
    assert problems("0.33.0", "--moe-backend", "no_such_backend")


def test_unique_prefix_is_accepted_and_spelled_out():
    assert problems("0.15.1", "--max-model", "4096") == []
    given = Flags()
    given.set("--max-model", "4096", "you", [])
    notes: list[str] = []
    rewrite_flags(given, Version("0.15.1"), notes)
    assert list(given.items) == ["--max-model-len"] and "argparse expands the prefix" in notes[0]


def test_short_alias_is_spelled_out():
    given = Flags()
    given.set("-tp", "8", "you", [])
    notes: list[str] = []
    rewrite_flags(given, Version("0.15.1"), notes)
    assert given.items == {"--tensor-parallel-size": "8"}


def test_flag_this_release_lacks_is_dropped_with_a_note():
    given = Flags()
    given.set("--attention-backend", "TRITON_MLA", "you", [])
    notes: list[str] = []
    rewrite_flags(given, Version("0.12.0"), notes)
    assert given.items == {} and "dropped --attention-backend" in notes[0]


def test_parse_launch_maps_vllm_spellings():
    launch = parse_launch(["-tp", "4", "--max-model-len", "32k", "--gpu_memory_utilization", "0.85",
                           "--enforce-eager", "--enable-expert-parallel", "--attention-backend", "TRITON_MLA"])
    assert launch.values["tp"] == 4 and launch.values["context_length"] == 32000
    assert launch.values["gpu_memory_utilization"] == 0.85 and launch.values["enforce_eager"] is True
    assert launch.values["ep"] == 4 and launch.values["attention_backend"] == "TRITON_MLA"


@pytest.mark.parametrize(("text", "value"), [("32k", 32000), ("32K", 32768), ("25.6k", 25600), ("4096", 4096)])
def test_human_readable_ints(text, value):
    assert human_int(text) == value


def test_decimals_with_a_binary_suffix_are_refused_as_vllm_does():
    with pytest.raises(ValueError):
        human_int("1.5M")


def test_bad_value_is_a_usage_error():
    with pytest.raises(UsageError):
        parse_launch(["--gpu-memory-utilization", "1.5"])


def test_dash_o_level_is_read_as_vllms_parser_rewrites_it():
    # vllm/utils/argparse_utils.py (0.13.0+): -O3, -O=3 and -O 3 become --optimization-level 3, an IntEnum
    # (vllm/config/vllm.py OptimizationLevel) that pydantic validates by value.
    for release in ("0.13.0", "0.24.0", "0.33.0"):
        assert problems(release, "-O3") == []
        assert problems(release, "-O=2", "--max-model-len", "4096") == []
        assert problems(release, "-O", "1", "--enforce-eager") == []
        assert problems(release, "--optimization-level", "3") == []
    # vllm/utils/__init__.py (0.11.0): -O was --compilation-config's alias; -O3 becomes -O.level=3.
    assert problems("0.11.0", "-O3") == []
    assert problems("0.11.0", "-O", "3") == []


def test_dash_o_level_outside_the_enum_is_still_a_problem():
    [problem] = problems("0.24.0", "-O7")
    assert problem.startswith("--optimization-level 7 is not a choice in vLLM 0.24.0")
    [problem] = problems("0.24.0", "--optimization-level", "4")
    assert "not a choice" in problem and "3" in problem
    # -O before a word that is no level is not rewritten by vLLM: argparse meets a flag it does not know.
    assert problems("0.24.0", "-O", "fast")


def test_limit_mm_per_prompt_takes_dot_notation_where_its_dict_subclass_is_a_cli_dict():
    # 0.31.0 typed the field MultiModalDummyOptions (a dict subclass); its _compute_kwargs maps dict subclasses
    # to dict (is_dict_subclass), so --limit-mm-per-prompt.image 2 is JSON dot notation as before.
    for release in ("0.30.0", "0.31.0", "0.33.0"):
        assert problems(release, "--limit-mm-per-prompt.image", "2") == []
        assert problems(release, "--limit-mm-per-prompt", '{"image": 2}') == []
    # dot notation stays a problem on a flag that takes no JSON
    assert problems("0.31.0", "--max-model-len.image", "2")
