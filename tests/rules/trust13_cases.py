"""Boundary cases for the rules trust13 re-scoped (VLLM004: NVFP4 NaN before vLLM 0.19, an info because #37725's
fix is in the build); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import a, build
from tests.rules.sweep10_cases import B200, PRO, R5090, SPARK

NVFP4, LLAMA = "nvidia/Kimi-K2.5-NVFP4", "meta-llama/Llama-3.1-8B-Instruct"


def vl(version: str, model: str = NVFP4, profile: str = R5090):
    return lambda: build(profile, model, (f"vllm=={version}",))


TRUST13_CASES = [
    a("VLLM004", True, "12.0 (RTX 5090), 0.18.1, NVFP4", vl("0.18.1")),
    a("VLLM004", True, "12.1 (GB10), 0.15.1, NVFP4: the build decides, not the capability",
      vl("0.15.1", profile=SPARK)),
    a("VLLM004", True, "12.0 (RTX PRO 6000), 0.17.0, NVFP4", vl("0.17.0", profile=PRO)),
    a("VLLM004", False, "0.19.0 keeps the suffix (#37725)", vl("0.19.0")),
    a("VLLM004", False, "0.19.0 on GB10", vl("0.19.0", profile=SPARK)),
    a("VLLM004", False, "B200 (10.0): outside the SM12x build question", vl("0.18.1", profile=B200)),
    a("VLLM004", False, "a BF16 model runs no NVFP4 kernels", vl("0.18.1", model=LLAMA)),
]
