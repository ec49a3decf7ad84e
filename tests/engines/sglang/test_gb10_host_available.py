"""SGLang on GB10 measures its memory base from the host from 0.5.9 (`get_available_gpu_memory`: on an integrated
GPU `psutil.virtual_memory().available`, not cudaMemGetInfo; absent in the 0.5.8 wheel): with the Spark probed,
what the host holds of the pool comes off SGLang's KV budget; off unified memory and before 0.5.9 nothing moves."""

from __future__ import annotations

import dataclasses

import pytest
from packaging.version import Version

from doctor.engines.base import EngineRun
from doctor.engines.sglang.engine import SGLang
from doctor.engines.sglang.memory import SGLangMemory
from doctor.hardware import load_profile
from doctor.launch import parse_launch
from doctor.pipeline.facts import Library
from doctor.plan.layouts import Layout
from doctor.plan.planner import PlanRequest, plan_layout
from doctor.probe.model import load_model

GiB = 1 << 30
MODEL = "openai/gpt-oss-20b"


def budget(profile: str, version: str, available_gib: float | None, unified: bool | None = None) -> int:
    facts = load_profile(profile)
    if unified is not None:
        facts = facts.replace(gpus=tuple(dataclasses.replace(g, unified_memory=unified) for g in facts.gpus))
    available = None if available_gib is None else int(available_gib * GiB)
    memory = SGLangMemory(version, mem_fraction_static=0.8, host_available_bytes=available)
    return plan_layout(facts, load_model(MODEL, {}, offline=True), Layout(1, 1, 1),
                       PlanRequest(memory=memory)).kv_budget_bytes


def test_from_0_5_9_the_hosts_use_of_the_pool_comes_off_the_kv_budget():
    """121.69 GiB pool, 60 GiB available: SGLang's base is 61.69 GiB smaller, and it keeps 0.8 of it."""
    unprobed, probed = budget("dgx-spark", "0.5.9", None), budget("dgx-spark", "0.5.9", 60)
    assert (unprobed - probed) / GiB == pytest.approx((121.69 - 60) * 0.8, rel=1e-6)


@pytest.mark.parametrize(("profile", "version", "unified"), [
    ("dgx-spark", "0.5.8", None),  # one release before: cudaMemGetInfo's free, which the probe does not record
    ("rtx-pro-6000-x8", "0.5.9", None),  # a discrete GPU: MemAvailable is host memory, not the GPU's
    ("rtx-5090", "0.5.23", False),
])
def test_nothing_moves_before_0_5_9_or_off_unified_memory(profile, version, unified):
    assert budget(profile, version, 60, unified) == budget(profile, version, None, unified)


def test_more_available_than_the_pool_estimate_never_raises_the_base():
    assert budget("dgx-spark", "0.5.9", 500) == budget("dgx-spark", "0.5.9", None)


@pytest.mark.parametrize(("available_gib", "expected"), [(73.0, int(73.0 * GiB)), (None, None)])
def test_the_launch_passes_the_probed_available_memory_on_gb10(available_gib, expected):
    spark = load_profile("dgx-spark")
    host = dataclasses.replace(spark.host, memory_available_bytes=None if available_gib is None
                               else int(available_gib * GiB))
    run = EngineRun(spark.replace(host=host), Library(name="sglang", version="0.5.9"), Version("0.5.9"),
                    parse_launch(["python", "-m", "sglang.launch_server", "--model-path", MODEL]))
    memory = SGLang().memory_model(run)
    assert isinstance(memory, SGLangMemory) and memory.host_available == expected
