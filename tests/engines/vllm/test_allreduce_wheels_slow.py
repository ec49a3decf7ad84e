"""Against the boundary wheels: the all-reduce facts re-extracted equal the committed ones, and every line they
cite is, in the wheel's own file, the statement they describe (read as text, independent of the extractor)."""

from __future__ import annotations

import zipfile
from functools import cache

import pytest

from doctor.engines.vllm import knowledge
from tests.wheels import download_wheel
from tools.vllm_facts import TORCH_TABLE
from tools.vllm_facts.allreduce import allreduce_facts
from tools.vllm_facts.nccl import load_table, nccl_facts, torch_pin
from tools.vllm_facts.source import WheelSource

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
BOUNDARY = ("0.15.0", "0.15.1", "0.33.0")


@cache
def lines(version: str, path: str) -> list[str]:
    with zipfile.ZipFile(download_wheel("vllm", version)) as archive:
        return archive.read(path).decode("utf-8").splitlines()


@pytest.mark.parametrize("version", BOUNDARY)
def test_reextracted_all_reduce_and_nccl_facts_equal_the_committed(version):
    source = WheelSource(download_wheel("vllm", version))
    try:
        fresh = {"allreduce": allreduce_facts(source), "nccl": nccl_facts(torch_pin(source), load_table(TORCH_TABLE))}
    finally:
        source.close()
    committed = knowledge.facts(version)
    assert fresh == {"allreduce": committed["allreduce"], "nccl": committed["nccl"]}


@pytest.mark.parametrize("version", BOUNDARY)
def test_every_cited_gate_line_is_that_if_statement(version):
    section = knowledge.facts(version)["allreduce"]
    custom = section["custom"]
    gates = [(custom["file"], g) for g in custom["gates"]] + [(g["file"], g) for g in section["config_disables"]]
    for path, gate in gates:
        text = lines(version, path)[gate["line"] - 1].strip()
        assert text.startswith("if"), (path, gate)
        first_name = gate["test"].replace("not ", "").split("(")[0].split(" ")[0]
        assert first_name in " ".join(lines(version, path)[gate["line"] - 1:gate["line"] + 4]), (path, gate)
    size_line = lines(version, custom["file"])[custom["world_sizes"]["line"] - 1]
    assert "_SUPPORTED_WORLD_SIZES" in size_line and str(custom["world_sizes"]["value"]) in size_line


@pytest.mark.parametrize("version", BOUNDARY)
def test_the_torch_pin_line_is_in_the_metadata(version):
    pin = knowledge.facts(version)["nccl"]["torch"]
    assert lines(version, pin["file"])[pin["line"] - 1] == f"Requires-Dist: {pin['requirement']}"
