"""VLLM013 at its boundaries: which words of a `vllm serve` line are switches, which take a value, per release,
as the committed wheel data says, and that data against the real parsers of two releases (0.24.0 and 0.33.0,
dumped by tools/vllm_facts/real_parser.py from vLLM installed from PyPI, kept in real_parsers/)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.version import Version

from doctor.engines.vllm import knowledge
from doctor.engines.vllm.flags import check_flags, expand_dash_o
from doctor.engines.vllm.launch import parse_launch
from tools.vllm_facts.parser_check import mismatches

REAL = Path(__file__).parent / "real_parsers"
SWITCH_RELEASES = [r for r in knowledge.releases() if Version(r) >= Version("0.12.0")]


def problems(version: str, *argv: str) -> list[str]:
    return check_flags(list(argv), Version(version))


@pytest.mark.parametrize("version", SWITCH_RELEASES)
@pytest.mark.parametrize("flag", ["--enable-prefix-caching", "--enable-chunked-prefill"])
def test_a_switch_last_on_the_line_needs_no_value(version, flag):
    """The known-good Qwen3.6 NVFP4 recipe ends with `--enable-chunked-prefill`: vLLM 0.12-0.33 spread the
    bool field through a dict literal, which the data once read as a flag taking a value."""
    assert problems(version, "--max-num-seqs", "4", flag) == []
    assert problems(version, flag, "--max-num-seqs", "4") == []


@pytest.mark.parametrize("version", ["0.11.0", "0.12.0", "0.24.0", "0.32.0", "0.33.0"])
def test_no_form_of_a_switch_is_valid(version):
    assert problems(version, "--no-enable-prefix-caching") == []
    assert problems(version, "--no-enable-chunked-prefill", "--max-model-len", "4096") == []


def test_disable_form_arrives_with_the_enable_disable_action_in_0_33():
    assert problems("0.33.0", "--disable-prefix-caching") == []
    assert problems("0.33.0", "--disable-chunked-prefill", "--max-model-len", "8192") == []
    [problem] = problems("0.32.0", "--disable-prefix-caching")
    assert "--disable-prefix-caching does not exist in vLLM 0.32.0" in problem


@pytest.mark.parametrize("version", ["0.9.2", "0.12.0", "0.24.0", "0.33.0"])
def test_a_value_flag_missing_its_value_is_still_an_error(version):
    [problem] = problems(version, "--enforce-eager", "--max-model-len")
    assert problem == f"--max-model-len needs a value in vLLM {version}"
    [problem] = problems(version, "--kv-cache-dtype", "--enable-prefix-caching")
    assert problem == f"--kv-cache-dtype needs a value in vLLM {version}"


def test_a_switch_given_a_value_word_leaves_the_word_alone():
    """argparse gives a switch no value: the word after it is the model or an unknown positional, never the
    switch's value; the doctor does not pair them either."""
    assert problems("0.33.0", "--enable-prefix-caching", "--kv-cache-dtype", "fp8") == []


def test_a_flag_added_between_releases():
    history = knowledge.flag_history("--moe-backend")
    assert history is not None
    first = history["releases"][0][0]
    before = knowledge.releases()[knowledge.releases().index(first) - 1]
    assert problems(first, "--moe-backend", "triton") == []
    [problem] = problems(before, "--moe-backend", "triton")
    assert f"(added in {first})" in problem


def test_a_flag_removed_between_releases():
    """`--calculate-kv-scales` (a switch) is in 0.9.2-0.27.0: fine at 0.27.0 with the next flag after it,
    unknown at 0.28.0."""
    assert knowledge.flag_history("--calculate-kv-scales")["releases"] == [["0.9.2", "0.27.0"]]
    assert problems("0.27.0", "--calculate-kv-scales", "--kv-cache-dtype", "fp8") == []
    [problem] = problems("0.28.0", "--calculate-kv-scales", "--kv-cache-dtype", "fp8")
    assert problem.startswith("--calculate-kv-scales does not exist in vLLM 0.28.0 (removed in 0.28.0; last in 0.27.0)")


def test_a_value_starting_with_a_dash_is_a_value_only_when_argparse_says_so():
    assert problems("0.33.0", "--max-model-len", "-1") == []  # a negative number
    assert problems("0.33.0", "--chat-template", "-x y.jinja") == []  # a word with a space
    assert "--chat-template needs a value in vLLM 0.33.0" in problems("0.33.0", "--chat-template", "-x")


@pytest.mark.parametrize(("version", "argv"), [
    ("0.9.2", ["-O3"]), ("0.11.0", ["-O", "3"]), ("0.11.0", ["-O.cudagraph_mode=FULL"]),
    ("0.12.0", ["-O3"]), ("0.12.0", ["-O.cudagraph_mode=FULL"]), ("0.15.0", ["-O=2"]),
    ("0.24.0", ["-O", "3"]), ("0.33.0", ["-O3", "--enforce-eager"]), ("0.33.0", ["-O0"]),
])
def test_dash_o_as_the_release_rewrites_it(version, argv):
    assert problems(version, *argv) == []


def test_dash_o_dotted_is_a_level_from_0_15_and_no_level_at_all():
    """From 0.15 `-O.x` is no longer sent to the compilation config: `-O.cudagraph_mode=FULL` becomes
    `--optimization-level .cudagraph_mode=FULL`, which OptimizationLevel refuses."""
    [problem] = problems("0.15.0", "-O.cudagraph_mode=FULL")
    assert "--optimization-level .cudagraph_mode=FULL is not a choice in vLLM 0.15.0" in problem
    [problem] = problems("0.33.0", "-O7")
    assert "--optimization-level 7 is not a choice" in problem


def test_dash_o_rewrite_rules_per_release():
    old = knowledge.facts("0.11.0")["flag_semantics"]["dash_o"]
    new = knowledge.facts("0.33.0")["flag_semantics"]["dash_o"]
    assert expand_dash_o(["-O3"], old) == ["-O.level=3"]
    assert expand_dash_o(["-O", "3", "-O.x=1"], old) == ["-O.level", "3", "-O.x=1"]
    assert expand_dash_o(["-O3"], new) == ["--optimization-level", "3"]
    assert expand_dash_o(["-O", "fast"], new) == ["-O", "fast"]  # only a level word is taken


@pytest.mark.parametrize("version", ["0.24.0", "0.33.0"])
def test_committed_table_reads_every_option_as_the_real_parser_does(version):
    """Every option string the release's own parser accepts (hidden `--no-X`/`--disable-X` inverses included)
    is known to the table with the same shape (switch / one value / list / optional value) and choices, and
    the table accepts no spelling the parser lacks."""
    real = json.loads((REAL / f"vllm-{version}.json").read_text(encoding="utf-8"))
    assert real["vllm"] == version
    assert mismatches(dict(knowledge.facts(version)), real) == []


def test_the_comparison_can_fail():
    real = json.loads((REAL / "vllm-0.33.0.json").read_text(encoding="utf-8"))
    facts = json.loads(json.dumps(knowledge.facts("0.33.0")))
    facts["flags"]["--enable-prefix-caching"] = {"aliases": [], "takes_value": True}
    found = mismatches(facts, real)
    assert "--enable-prefix-caching: table says value, real parser switch (EnableDisableAction)" in found
    assert any(line.startswith("--disable-prefix-caching: missing") for line in found)


@pytest.mark.parametrize(("argv", "enabled"), [
    (["--enable-prefix-caching"], True), (["--no-enable-prefix-caching"], False),
    (["--disable-prefix-caching"], False), (["--enable-prefix-caching", "--max-model-len", "4096"], True),
])
def test_launch_values_read_every_negation(argv, enabled):
    launch = parse_launch(argv)
    assert launch.values["enable_prefix_caching"] is enabled
    assert launch.unknown == ()


def test_enable_form_of_a_disable_switch_turns_it_off():
    assert parse_launch(["--enable-custom-all-reduce"]).values["disable_custom_all_reduce"] is False
