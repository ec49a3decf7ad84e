"""Positive and boundary cases for the wrong-output rules of task nvfp4out (rules/wrong_output.toml);
test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

PRO, SPARK, R5090, B200 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "b200-x8"
NVFP4 = "nvidia/Kimi-K2.5-NVFP4"  # DeepSeek-V3 layout: layer 0 is a dense MLP, NVFP4 (modelopt)
FP8 = "Qwen/Qwen3-235B-A22B-FP8"
CUTLASS = ("--fp4-gemm-backend", "flashinfer_cutlass")
CUDNN = ("--fp4-gemm-backend", "flashinfer_cudnn")


def sglang(version: str, model: str = NVFP4, profile: str = PRO) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"sglang=={version}",))


NVFP4OUT_CASES = [
    # FI070: FlashInfer's CUTLASS FP4 GEMM NaN rows in heterogeneous batches on SM120 (sglang#20043 / PR 20047)
    a("FI070", True, "0.5.9 default on an RTX PRO 6000", sglang("0.5.9")),
    a("FI070", True, "0.5.9 default on GB10 (the 0.5.10 fix gates on major 12)", sglang("0.5.9", profile=SPARK)),
    a("FI070", True, "0.5.9 default on an RTX 5090", sglang("0.5.9", profile=R5090)),
    a("FI070", True, "0.5.12 with flashinfer_cutlass forced", sglang("0.5.12"), *CUTLASS),
    a("FI070", True, "0.5.8 with flashinfer_cutlass forced", sglang("0.5.8"), *CUTLASS),
    a("FI070", False, "0.5.10 default picks cuDNN on SM12x", sglang("0.5.10")),
    a("FI070", False, "0.5.8 default hands auto to FlashInfer", sglang("0.5.8")),
    a("FI070", False, "0.5.13 not claimed: no fix established either way", sglang("0.5.13"), *CUTLASS),
    a("FI070", False, "0.5.9 with cuDNN", sglang("0.5.9"), *CUDNN),
    a("FI070", False, "0.5.9 with auto", sglang("0.5.9"), "--fp4-gemm-backend", "auto"),
    a("FI070", False, "B200 (10.0)", sglang("0.5.9", profile=B200)),
    a("FI070", False, "not NVFP4", sglang("0.5.9", FP8)),
]
