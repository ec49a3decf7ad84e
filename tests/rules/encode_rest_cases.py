"""Positive and boundary cases for the rules of task encode-rest (rules/encode_rest.toml). test_rule_cases.py runs
them; tests/rules/test_error_boundaries.py sweeps each error rule's bounds from its positive cases here."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build
from tests.rules.log_line_cases import logged

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
DSV3 = "deepseek-ai/DeepSeek-V3"  # block FP8, q_lora_rank 1536 + kv_lora_rank 512 + rope 64 = 2112
GLM5 = "zai-org/GLM-5-FP8"  # block FP8, 2048 + 512 + 64 = 2624 (flashinfer#2787's n)
QWEN3_FP8 = "Qwen/Qwen3-32B-FP8"  # block FP8 without MLA: every N a multiple of 128
DSV3_NVFP4 = "tests/cases/models/deepseek-v3.1-nvfp4"  # the same MLA shapes, NVFP4
FI_CUTLASS = ("--fp8-gemm-backend", "flashinfer_cutlass")


def sglang(version: str, model: str = DSV3, profile: str = PRO) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"sglang=={version}",))


ENCODE_REST_CASES = [
    # SGL330: flashinfer#2787 (GLM-5-FP8, SGLang at 6c5bf53 between 0.5.9 and 0.5.10, SM120)
    a("SGL330", True, "GLM-5-FP8 with flashinfer_cutlass on 0.5.10 (flashinfer#2787)", sglang("0.5.10", GLM5),
      *FI_CUTLASS),
    a("SGL330", True, "DeepSeek-V3 (N = 2112) on 0.5.23, the last release read", sglang("0.5.23"), *FI_CUTLASS),
    a("SGL330", True, "GB10: the same Blackwell dispatch", sglang("0.5.16", profile=SPARK), *FI_CUTLASS),
    a("SGL330", True, "an RTX 5090", sglang("0.5.12", profile=R5090), *FI_CUTLASS),
    a("SGL330", False, "0.5.9 has no flashinfer_cutlass FP8 GEMM backend", sglang("0.5.9"), *FI_CUTLASS),
    a("SGL330", False, "the default backend (Triton, then SGLang's CUTLASS with its N % 128 fallback)",
      sglang("0.5.10")),
    a("SGL330", False, "the default from 0.5.16", sglang("0.5.16")),
    a("SGL330", False, "triton named", sglang("0.5.10"), "--fp8-gemm-backend", "triton"),
    a("SGL330", False, "block FP8 without MLA: N a multiple of 128", sglang("0.5.10", QWEN3_FP8), *FI_CUTLASS),
    a("SGL330", False, "NVFP4 weights: not the block-FP8 path", sglang("0.5.10", DSV3_NVFP4), *FI_CUTLASS),
    a("SGL330", False, "Hopper: the flag raises 'requires Blackwell' instead", sglang("0.5.10", profile=H100),
      *FI_CUTLASS),
    a("SGL330", False, "B200: outside the doctor's SM12x scope", sglang("0.5.10", profile=B200), *FI_CUTLASS),

    # VLLM220: a log line only (vllm#55773, the GB10 comment on vllm PR 53906)
    logged("VLLM220", True, "the fp8_ds_mla pe_dim line on an RTX PRO 6000 (vllm#55773)", PRO),
    logged("VLLM220", True, "the same line on GB10 (vllm PR 53906)", SPARK),
    logged("VLLM220", False, "Hopper: outside the doctor's SM12x scope", H100),
    logged("VLLM220", False, "B200", B200),
    logged("VLLM220", False, "check: no log", PRO, shown=()),
    logged("VLLM220", False, "another rule's line", PRO, shown=("VLLM112",)),
]
