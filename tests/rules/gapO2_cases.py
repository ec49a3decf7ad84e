"""Positive and boundary cases for rules/gapO2.toml (task gapO2: non-vLLM ledger entries that establish a cause
and a fix). test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

SPARK, PRO, R5090, B200 = "dgx-spark", "rtx-pro-6000", "rtx-5090", "b200-x8"
NEXT_FP8 = "tests/cases/models/qwen3-next-80b-a3b-fp8-standin"
NEXT_BF16 = "Qwen/Qwen3-Next-80B-A3B-Thinking"
QWEN3_FP8 = "tests/cases/models/qwen3-32b-fp8"


def trt(version: str = "1.3.0rc7", profile: str = SPARK, model: str | None = NEXT_FP8) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",))


TRT250_CASES = [
    # TensorRT-LLM#12230: Qwen3-Next FP8 autotuner IndexError at warmup on GB10, 1.3.0rc7; PR #12310 (2026-06-11)
    a("TRT250", True, "1.3.0rc7, Qwen3-Next FP8, DGX Spark (the report)", trt()),
    a("TRT250", True, "1.3.0rc17: the last release certainly before the fix", trt("1.3.0rc17")),
    a("TRT250", False, "1.3.0rc6: before the report's release, not read", trt("1.3.0rc6")),
    a("TRT250", False, "1.3.0rc18: the fix's merge falls between its bump and rc19's, left out", trt("1.3.0rc18")),
    a("TRT250", False, "1.3.0rc19: carries PR #12310", trt("1.3.0rc19")),
    a("TRT250", False, "RTX PRO 6000 (12.0): the PR names SM121", trt(profile=PRO)),
    a("TRT250", False, "RTX 5090 (12.0)", trt(profile=R5090)),
    a("TRT250", False, "B200 (10.0)", trt(profile=B200)),
    a("TRT250", False, "the BF16 Qwen3-Next checkpoint", trt(model=NEXT_BF16)),
    a("TRT250", False, "another FP8 architecture (Qwen3-32B-FP8)", trt(model=QWEN3_FP8)),
    a("TRT250", False, "model-less", trt(model=None)),
]

GAPO2_CASES = [*TRT250_CASES]
