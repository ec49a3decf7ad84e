"""Positive and boundary cases for the rules of rules/vllm_know.toml (task know-vllm, issue 25's ledger).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

from tests.rules.builders import a
from tests.rules.vllm_2026_cases import B200, H100, PRO, QWEN235_FP8, SPARK, vl

DSV4 = "tests/cases/models/deepseek-v4-flash"
DSV3 = "deepseek-ai/DeepSeek-V3"
DEEPGEMM_OFF = {"VLLM_USE_DEEP_GEMM": "0"}
FP8_EXPERTS = {"expert_scheme": None}  # DeepSeek-V4-Flash-Base: expert_dtype fp8, float32 linear scales

KNOW_VLLM_CASES = [
    a("VLLM080", True, "0.23.0 DeepSeek-V4-Flash on SM120 (vllm#47818)", vl("0.23.0", DSV4, PRO)),
    a("VLLM080", True, "0.22.0, the first release with DeepSeek-V4, on GB10", vl("0.22.0", DSV4, SPARK)),
    a("VLLM080", False, "0.21.0 has no DeepSeek-V4", vl("0.21.0", DSV4, PRO)),
    a("VLLM080", False, "0.24.0: the SM120 DeepSeek-V4 path (not claimed)", vl("0.24.0", DSV4, PRO)),
    a("VLLM080", False, "0.26.0 with DeepGEMM off: serves per vllm#51758", vl("0.26.0", DSV4, PRO, env=DEEPGEMM_OFF)),
    a("VLLM080", False, "FP8 experts (Flash-Base): float32 scales", vl("0.23.0", DSV4, PRO, quant=FP8_EXPERTS)),
    a("VLLM080", False, "DeepSeek-V3 block FP8: float32 scales", vl("0.23.0", DSV3, PRO)),
    a("VLLM080", False, "Qwen3 block FP8", vl("0.23.0", QWEN235_FP8, PRO)),
    a("VLLM080", False, "Hopper: DeepGEMM", vl("0.23.0", DSV4, H100)),
    a("VLLM080", False, "datacenter Blackwell: DeepGEMM", vl("0.23.0", DSV4, B200)),
]
