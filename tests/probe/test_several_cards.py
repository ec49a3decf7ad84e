"""`--hardware PROFILE-xN`: N cards of a one-GPU profile in one machine (an 8x RTX 5090 rig has no built-in
profile of its own). The cards are stated, the links between them are not."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from doctor.errors import InputError
from doctor.hardware import load_profile

MODEL = "Qwen/Qwen3.5-27B"


def _check(capsys, *args: str) -> dict:
    main(["check", MODEL, "--offline", "--format", "json", *args])
    return json.loads(capsys.readouterr().out)


def _ids(report: dict) -> set[str]:
    return {f["id"] for f in report["findings"]}


def test_eight_cards_of_the_one_card_profile():
    single, eight = load_profile("rtx-5090"), load_profile("rtx-5090-x8")
    assert [g.index for g in eight.gpus] == list(range(8)) == [g.cuda_index for g in eight.gpus]
    assert {g.name for g in eight.gpus} == {single.gpus[0].name}
    assert {g.memory_total_bytes for g in eight.gpus} == {single.gpus[0].memory_total_bytes}
    assert eight.topology == () and eight.source.name == "rtx-5090-x8"
    assert "links between the cards are not stated" in eight.source.notes[-1]


def test_a_built_in_multi_gpu_profile_is_read_as_it_is():
    assert load_profile("rtx-5090-x4").topology  # its file states the links
    assert load_profile("rtx-pro-6000-x8").gpus[0].name.endswith("Server Edition")


@pytest.mark.parametrize(("name", "says"), [
    ("dgx-spark-x2", "--hardware dgx-spark --nodes 2"),  # a GB10 is a machine, not a card
    ("rtx-5090-x2-x2", "unknown hardware profile"),  # a multi-GPU profile is not repeated inside one host
    ("rtx-5090-x1", "2 to 16"),
    ("rtx-5090-x17", "2 to 16"),
    ("rtx-9090-x2", "unknown hardware profile"),
])
def test_what_is_not_several_cards(name, says):
    with pytest.raises(InputError, match=says.replace("-", r"\-")):
        load_profile(name)


def test_tp8_on_eight_cards_is_a_valid_layout(capsys):
    eight = _check(capsys, "--hardware", "rtx-5090-x8", "--engine", "vllm==0.30.0", "--tp", "8")
    assert "MEM003" not in _ids(eight)
    assert "TOPO001" not in _ids(eight)  # no links stated: nothing to judge them by


def test_tp8_on_one_card_names_the_profile_that_states_eight(capsys):
    one = _check(capsys, "--hardware", "rtx-5090", "--engine", "vllm==0.30.0", "--tp", "8")
    mem003 = next(f for f in one["findings"] if f["id"] == "MEM003")
    assert "`--hardware rtx-5090-x8`" in mem003["message"]


def test_tp4_on_the_four_card_profile_keeps_its_link_rule(capsys):
    four = _check(capsys, "--hardware", "rtx-5090-x4", "--engine", "vllm==0.30.0", "--tp", "4")
    assert "TOPO001" in _ids(four)
