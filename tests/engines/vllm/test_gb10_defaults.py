"""vLLM's serve defaults on GB10: the small tier (2048 batched tokens, 256 sequences) whatever the pool size,
as the 0.13.0-0.33.0 wheels choose it (NVML's memory query fails there; 0.33.0 names GB10); an RTX PRO 6000
(96 GB, not an A100) gets the large one."""

from __future__ import annotations

from packaging.version import Version

from doctor.engines.vllm.memory import VLLMMemory
from doctor.hardware import load_profile
from doctor.plan.layouts import Layout
from doctor.plan.planner import PlanRequest, plan_layout
from doctor.probe.model import load_model


def reasons_on(profile: str, capability: tuple[int, int], name: str) -> str:
    facts = load_profile(profile)
    model = load_model("openai/gpt-oss-20b", {}, offline=True)
    memory = VLLMMemory(Version("0.23.0"), capability, name)
    return " ".join(plan_layout(facts, model, Layout(1, 1, 1), PlanRequest(memory=memory)).reasons)


def test_gb10_gets_the_small_serve_defaults():
    assert "(2048 batched tokens, 256 sequences)" in reasons_on("dgx-spark", (12, 1), "NVIDIA GB10")


def test_a_96_gb_workstation_card_gets_the_large_ones():
    reasons = reasons_on("rtx-pro-6000-ws-x4", (12, 0), "NVIDIA RTX PRO 6000 Blackwell Workstation Edition")
    assert "(8192 batched tokens, 1024 sequences)" in reasons
