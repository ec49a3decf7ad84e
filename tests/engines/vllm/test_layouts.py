"""vLLM has no EP size: the planner offers and accepts only EP 1 and EP = TP for it (SGLang keeps every EP
that divides TP)."""

from __future__ import annotations

from packaging.version import Version

from doctor.engines.sglang.memory import SGLangMemory
from doctor.engines.vllm.memory import VLLMMemory
from doctor.hardware import load_profile
from doctor.plan.planner import PlanRequest, make_plans
from doctor.probe.model import load_model


def _plans(memory, **wanted):
    facts = load_profile("rtx-pro-6000-x8")
    model = load_model("Qwen/Qwen3-30B-A3B", {}, offline=True)
    return make_plans(facts, model, PlanRequest(memory=memory, **wanted))


def _vllm() -> VLLMMemory:
    return VLLMMemory(Version("0.33.0"), (12, 0), "NVIDIA RTX PRO 6000 Blackwell Workstation Edition")


def test_vllm_layouts_have_ep_1_or_tp():
    plans = _plans(_vllm())
    assert plans and all(p.ep in (1, p.tp) for p in plans)
    assert any(p.ep == p.tp > 1 for p in plans)


def test_a_requested_partial_ep_is_invalid_for_vllm_with_the_reason():
    first = _plans(_vllm(), tp=4, ep=2)[0]
    assert (first.tp, first.ep, first.valid) == (4, 2, False)
    assert any("vLLM has no EP size" in reason for reason in first.reasons)


def test_sglang_keeps_partial_ep():
    plans = _plans(SGLangMemory("0.5.8"))
    assert any(1 < p.ep < p.tp for p in plans)
