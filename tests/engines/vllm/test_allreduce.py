"""The all-reduce facts committed for every release (doctor/data/vllm, read from the wheels) and the
engine's verdict on them: custom all-reduce per TP size and topology, the other paths, the NCCL per release."""

from __future__ import annotations

import dataclasses

import pytest
from packaging.version import Version

from doctor.engines.run import EngineRun
from doctor.engines.vllm import allreduce, knowledge
from doctor.engines.vllm.launch import parse_launch
from tests.rules.builders import build

PCIE_GATE = "Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs."
# torch -> the NCCL it pins, read from PyPI metadata (data/torch-nccl.json); the test checks the join per release
NCCL_BY_RELEASE = {"0.9.2": "2.26.2", "0.10.0": "2.26.2", "0.11.0": "2.27.3", "0.15.1": "2.27.5",
                   "0.19.0": "2.27.5", "0.20.0": "2.28.9", "0.27.0": "2.29.7", "0.33.0": "2.30.7"}


def run_for(version: str, profile: str, *args: str, env: dict[str, str] | None = None,
            iommu: str | None = None) -> EngineRun:
    facts = build(profile, "meta-llama/Llama-3.1-8B-Instruct", (f"vllm=={version}",), env=env, iommu=iommu)
    library = facts.library("vllm")
    assert library is not None
    return EngineRun(facts, library, Version(version), parse_launch(list(args)))


@pytest.mark.parametrize("release", knowledge.releases())
def test_every_release_has_the_custom_all_reduce_gates(release):
    custom = knowledge.facts(release)["allreduce"]["custom"]
    assert custom["world_sizes"]["value"][:4] == [2, 4, 6, 8]
    assert custom["max_size"]["value"] == 8 * 1024 * 1024
    pcie = [g for g in custom["gates"] if "fully_connected" in g["test"]]
    assert len(pcie) == 1 and pcie[0]["says"].startswith(PCIE_GATE)
    assert custom["p2p_check"]["skip_env"] == "VLLM_SKIP_P2P_CHECK"
    assert custom["fully_connected"]["asks"] == "nvmlDeviceGetP2PStatus(NVLINK)"
    assert custom["platform_allows"]["value"] is True


def test_world_size_16_from_0_27():
    sizes = {r: knowledge.facts(r)["allreduce"]["custom"]["world_sizes"]["value"] for r in knowledge.releases()}
    assert next(r for r, s in sizes.items() if 16 in s) == "0.27.0"


@pytest.mark.parametrize(("release", "nccl"), NCCL_BY_RELEASE.items())
def test_nccl_per_release(release, nccl):
    facts = knowledge.facts(release)["nccl"]
    assert facts["nccl"]["version"] == nccl
    assert facts["torch"]["requirement"] == f"torch=={facts['torch']['version']}"
    assert facts["nccl_source"].startswith("https://files.pythonhosted.org/")


def test_symmetric_memory_knows_no_sm12x_capability():
    for release in knowledge.releases():
        symm = knowledge.facts(release)["allreduce"]["symm_mem"]
        if symm is not None:
            assert not any(k.startswith("12") for k in symm["max_sizes"]["keys"]), release
    assert knowledge.facts("0.10.0")["allreduce"]["symm_mem"] is None
    assert knowledge.facts("0.11.0")["allreduce"]["symm_mem"] is not None


@pytest.mark.parametrize(("tp", "state"), [("2", "runs"), ("4", "disabled"), ("3", "disabled")])
def test_custom_all_reduce_on_pcie_rtx_pro(tp, state):
    verdict = allreduce.custom_all_reduce(run_for("0.15.1", "rtx-pro-6000-ws-x4", "--tensor-parallel-size", tp))
    assert verdict is not None and verdict.state == state
    if tp == "4":
        assert verdict.reason.startswith(PCIE_GATE) and verdict.where.endswith("custom_all_reduce.py:153")
    if tp == "3":
        assert "unsupported world size: 3" in verdict.reason


def test_geforce_pair_has_no_p2p():
    verdict = allreduce.custom_all_reduce(run_for("0.33.0", "rtx-5090-x2"))
    assert verdict is not None and verdict.state == "disabled" and verdict.p2p.works is False
    assert "P2P capability" in verdict.reason


def test_p2p_check_follows_the_release_default_and_the_environment():
    old = allreduce.custom_all_reduce(run_for("0.10.0", "rtx-pro-6000-ws-x4", "-tp", "2"))
    new = allreduce.custom_all_reduce(run_for("0.11.0", "rtx-pro-6000-ws-x4", "-tp", "2"))
    forced = allreduce.custom_all_reduce(run_for("0.11.0", "rtx-pro-6000-ws-x4", "-tp", "2",
                                                 env={"VLLM_SKIP_P2P_CHECK": "0"}))
    assert (old.p2p.check, new.p2p.check, forced.p2p.check) == ("functional", "driver", "functional")


def test_functional_check_fails_under_a_translating_iommu():
    run = run_for("0.15.1", "rtx-pro-6000-ws-x4", "-tp", "2", env={"VLLM_SKIP_P2P_CHECK": "0"}, iommu="translated")
    verdict = allreduce.custom_all_reduce(run)
    assert verdict.state == "disabled" and verdict.p2p.works is False


def test_flag_and_single_gpu():
    assert allreduce.custom_all_reduce(run_for("0.15.1", "rtx-pro-6000-ws-x4", "-tp", "2",
                                               "--disable-custom-all-reduce")).state == "flag"
    assert allreduce.custom_all_reduce(run_for("0.15.1", "rtx-5090")).state == "single"


def test_a_gate_the_engine_cannot_answer_is_unknown_not_a_guess(monkeypatch):
    facts = dict(knowledge.facts("0.15.1"))
    section = dict(facts["allreduce"])
    custom = dict(section["custom"])
    custom["gates"] = [*custom["gates"], {"line": 1, "test": "some_new_check(group)", "says": "new"}]
    facts["allreduce"] = {**section, "custom": custom}
    monkeypatch.setattr(knowledge, "facts_for", lambda version: facts)
    verdict = allreduce.custom_all_reduce(run_for("0.15.1", "rtx-pro-6000-ws-x4", "-tp", "2"))
    assert verdict.state == "unknown" and "some_new_check(group)" in verdict.reason


def test_nccl_in_use_prefers_the_installed_library_for_an_installed_vllm():
    run = run_for("0.10.0", "rtx-pro-6000-ws-x4")
    assert allreduce.nccl(run)["version"] == "2.26.2" and "pins torch==2.7.1" in allreduce.nccl(run)["source"]
    from doctor.pipeline.facts import Library
    libraries = {**run.facts.libraries, "nccl": Library(name="nccl", version="2.28.3"),
                 "vllm": dataclasses.replace(run.library, what_if=False)}
    installed = dataclasses.replace(run, facts=run.facts.replace(libraries=libraries), library=libraries["vllm"])
    assert allreduce.nccl(installed) == {"version": "2.28.3", "source": "installed", "release_pin": "2.26.2",
                                         "torch": "2.7.1"}


def test_notes_say_what_runs():
    notes = allreduce.notes(run_for("0.33.0", "rtx-pro-6000-ws-x4"))
    assert notes[0].startswith("custom all-reduce is disabled at TP 4")
    assert any("SymmMemCommunicator knows capabilities" in n for n in notes)
    assert notes[-1].startswith("NCCL 2.30.7: vLLM 0.33.0 pins torch==2.14.0")


@pytest.mark.parametrize("release", knowledge.releases())
def test_every_release_answers_tp2_and_tp4_on_a_pcie_rtx_pro(release):
    """Every gate of every release is answerable for an SM12x PCIe host: TP 2 runs, TP 4 hits the PCIe gate."""
    two = allreduce.custom_all_reduce(run_for(release, "rtx-pro-6000-ws-x4", "-tp", "2"))
    four = allreduce.custom_all_reduce(run_for(release, "rtx-pro-6000-ws-x4", "-tp", "4"))
    assert two.state == "runs", two
    assert four.state == "disabled" and four.reason.startswith(PCIE_GATE), four
