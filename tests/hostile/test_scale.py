"""Issue 15 point 5: check's cost is near-linear in the GPUs of a facts file. Before: 32 GPUs 2.7 s,
64 GPUs 41 s, 128 GPUs over 150 s (a linear scan per link lookup inside cubic and per-layout loops).
Measured in CPU time of this process, so a busy machine does not make the test flaky."""

import time
from pathlib import Path

import pytest

from doctor.check import CheckRequest, run_check
from doctor.facts import load_facts
from doctor.plan.layouts import Layout, communication
from tests.scale_facts import write_scaled_facts


def _check_cpu_seconds(facts_file: Path) -> float:
    start = time.process_time()
    report = run_check(CheckRequest(model="moonshotai/Kimi-K2.5", facts_file=facts_file, engines=["sglang==0.5.8"],
                                    offline=True))
    assert report.analysis.plan and report.analysis.plan["best"]["tp"] == 64
    return time.process_time() - start


@pytest.mark.parametrize(("gpus", "shape", "budget_s"), [(256, "hosts", 3.0), (128, "mesh", 3.0)])
def test_many_gpus_check_in_seconds(tmp_path, gpus, shape, budget_s):
    run_check(CheckRequest(model="moonshotai/Kimi-K2.5", hardware="rtx-pro-6000-x8", offline=True))  # warm caches
    assert _check_cpu_seconds(write_scaled_facts(gpus, tmp_path / "facts.json", shape)) < budget_s


def test_cost_grows_near_linearly(tmp_path):
    small = _check_cpu_seconds(write_scaled_facts(128, tmp_path / "small.json", "hosts"))
    large = _check_cpu_seconds(write_scaled_facts(512, tmp_path / "large.json", "hosts"))
    assert large < 4 * small * 1.5  # 4x the GPUs; cubic growth would be 64x


def test_numa_groups_on_a_large_mesh(tmp_path):
    facts = load_facts(write_scaled_facts(96, tmp_path / "facts.json", "mesh"))
    # 8 GPUs per NUMA node: NODE/PIX inside, SYS across
    assert facts.link_index.sys_free_group(facts.gpus) == 8
    comm = communication(facts, Layout(tp=8, pp=12))
    assert (comm.tp_link, comm.pp_link) == ("NODE", "SYS")
    assert communication(facts, Layout(tp=2, pp=3)).tp_link == "PIX"
