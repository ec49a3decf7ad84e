"""Positive and boundary cases for the rules of rules/vllm_know4.toml (task know-vllm4, issue 25).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

from tests.rules.builders import a, build, lib

QWEN3_8B = "Qwen/Qwen3-8B"
NVCC_128 = lib("nvcc", "12.8.93", location="/usr/local/cuda-12.8/bin/nvcc")
NVCC_129 = lib("nvcc", "12.9.86", location="/usr/local/cuda-12.9/bin/nvcc")
ON, OFF = {"VLLM_USE_FLASHINFER_SAMPLER": "1"}, {"VLLM_USE_FLASHINFER_SAMPLER": "0"}
JIT_CACHE, FI_066 = lib("flashinfer-jit-cache", "0.6.13"), lib("flashinfer-python", "0.6.6")


def sampler(version, profile="rtx-5090", nvcc=NVCC_128, env=None, extra=()):
    """vLLM `version` as a what-if (its wheel pins FlashInfer) with a local nvcc, as vllm#42393/#50705 run it."""
    return lambda: build(profile, QWEN3_8B, (f"vllm=={version}",), libs=(nvcc, *extra), env=env)


KNOW_VLLM4_CASES = [
    # VLLM180: the default-on FlashInfer sampler JITs with an nvcc older than 12.9 on SM12x
    a("VLLM180", True, "0.25.0 (FlashInfer 0.6.13 pinned) on an RTX 5090 with nvcc 12.8, variable unset",
      sampler("0.25.0")),
    a("VLLM180", True, "0.21.0, the first release with the sampler on by default", sampler("0.21.0")),
    a("VLLM180", True, "0.30.0, the last release without the JIT probe, on GB10", sampler("0.30.0", "dgx-spark")),
    a("VLLM180", True, "FLASH_ATTN attention does not save it (vllm#48956)", sampler("0.25.0"),
      "--attention-backend", "FLASH_ATTN"),
    a("VLLM180", True, "0.20.2 with the sampler opted in explicitly", sampler("0.20.2", env=ON)),
    a("VLLM180", True, "0.31.0 with the variable set explicitly raises", sampler("0.31.0", env=ON)),
    a("VLLM180", False, "0.20.2: the sampler is off by default", sampler("0.20.2")),
    a("VLLM180", False, "0.31.0: falls back to the PyTorch sampler by itself", sampler("0.31.0")),
    a("VLLM180", False, "VLLM_USE_FLASHINFER_SAMPLER=0", sampler("0.25.0", env=OFF)),
    a("VLLM180", False, "nvcc 12.9 compiles compute_120f", sampler("0.25.0", nvcc=NVCC_129)),
    a("VLLM180", False, "flashinfer-jit-cache installed", sampler("0.25.0", extra=(JIT_CACHE,))),
    a("VLLM180", False, "9.0 (H100) has no family target to drop", sampler("0.25.0", "h100-sxm-x8")),
    a("VLLM180", False, "10.0 (B200)", sampler("0.25.0", "b200-x8")),
    a("VLLM180", False, "FlashInfer 0.6.6 still JITs sm_120a", sampler("0.25.0", extra=(FI_066,))),
]

DSV4_NVFP4, DSV4_FP4 = "nvidia/DeepSeek-V4-Flash-NVFP4", "deepseek-ai/DeepSeek-V4-Flash"


def dsv4(version, model=DSV4_NVFP4, profile="rtx-pro-6000-x2"):
    return lambda: build(profile, model, (f"vllm=={version}",))


KNOW_VLLM4_CASES += [
    # VLLM181: DeepSeek-V4's SwiGLU clamp leaves only FLASHINFER_TRTLLM for NVFP4 MoE in 0.22-0.23
    a("VLLM181", True, "0.23.0, DeepSeek-V4-Flash NVFP4 on 2x RTX PRO 6000 (vllm#46492)", dsv4("0.23.0"),
      "-tp", "2", "--enable-expert-parallel"),
    a("VLLM181", True, "0.22.0, the first release with the clamp filter, on GB10", dsv4("0.22.0", profile="dgx-spark")),
    a("VLLM181", True, "DeepSeek-V4-Pro NVFP4", dsv4("0.22.1", "nvidia/DeepSeek-V4-Pro-NVFP4", "rtx-pro-6000-x8"),
      "-tp", "8"),
    a("VLLM181", False, "0.21.0: no clamp filter yet", dsv4("0.21.0")),
    a("VLLM181", False, "0.24.0 adds FLASHINFER_CUTLASS and MARLIN", dsv4("0.24.0")),
    a("VLLM181", False, "10.0 (B200) runs FLASHINFER_TRTLLM", dsv4("0.23.0", profile="b200-x8")),
    a("VLLM181", False, "the base checkpoint's FP4 experts go through another oracle", dsv4("0.23.0", DSV4_FP4)),
    a("VLLM181", False, "another NVFP4 MoE model sets no swiglu_limit", dsv4("0.23.0", "nvidia/Qwen3-30B-A3B-NVFP4")),
]
