"""Positive and boundary cases for the rules of rules/vllm_2026.toml (issue 25's vLLM reports of 2026).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

import dataclasses

from tests.rules.builders import a, build, fused_moe, lib

PRO, SPARK, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "h100-sxm-x8", "b200-x8"
QWEN235_FP8, DSV3, LLAMA = "Qwen/Qwen3-235B-A22B-FP8", "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-8B-Instruct"
NVFP4 = "nvidia/Kimi-K2.5-NVFP4"
QWEN30 = "Qwen/Qwen3-30B-A3B"
QWEN35_TEXT = {"model_type": "qwen3_5_moe_text"}
FP4_ON = {"VLLM_USE_FLASHINFER_MOE_FP4": "1"}
LATENCY, THROUGHPUT = ({**FP4_ON, "VLLM_FLASHINFER_MOE_BACKEND": b} for b in ("latency", "throughput"))
MODELOPT_FP8 = {"scheme": "fp8-tensor", "method": "modelopt"}



def vllm_moe(fits: bool, source: str):
    check = fused_moe(fits, source)
    details = {**check.details, "lookup_from": "vLLM 0.11.0 wheel"}
    return dataclasses.replace(check, engine="vllm", details=details)


def vl(version, model=LLAMA, profile=PRO, env=None, quant=None, **model_fields):
    def facts():
        built = build(profile, model, (f"vllm=={version}",), env=env, quant=quant)
        if model_fields:
            built = built.replace(model=dataclasses.replace(built.model, **model_fields))
        return built
    return facts


VLLM_2026_CASES = [
    a("VLLM070", True, "0.27.1 block FP8 on SM120", vl("0.27.1", QWEN235_FP8)),
    a("VLLM070", True, "0.27.0 block FP8 MLA on GB10", vl("0.27.0", DSV3, SPARK)),
    a("VLLM070", False, "a separately installed deep_gemm is imported before the vendored copy",
      lambda: vl("0.27.1", QWEN235_FP8)().replace(
          libraries={**vl("0.27.1", QWEN235_FP8)().libraries, "deep-gemm": lib("deep-gemm", "2.3.0")})),
    a("VLLM070", False, "0.26.0 bundles SM120 DeepGEMM", vl("0.26.0", QWEN235_FP8)),
    a("VLLM070", False, "0.28.0 bundles it again", vl("0.28.0", QWEN235_FP8)),
    a("VLLM070", False, "DeepGEMM off", vl("0.27.1", QWEN235_FP8, env={"VLLM_USE_DEEP_GEMM": "0"})),
    a("VLLM070", True, "DeepGEMM explicitly on", vl("0.27.1", QWEN235_FP8, env={"VLLM_USE_DEEP_GEMM": "1"})),
    a("VLLM070", False, "Qwen3.5 text types auto-disable DeepGEMM", vl("0.27.1", QWEN235_FP8, **QWEN35_TEXT)),
    a("VLLM070", False, "per-tensor FP8 takes no DeepGEMM", vl("0.27.1", QWEN235_FP8, quant={"scheme": "fp8-tensor"})),
    a("VLLM070", False, "BF16 model", vl("0.27.1", LLAMA)),
    a("VLLM070", False, "Hopper: DeepGEMM has sm90", vl("0.27.1", QWEN235_FP8, H100)),
    a("VLLM071", True, "0.11.1 ModelOpt NVFP4 MoE, FlashInfer FP4, default latency", vl("0.11.1", NVFP4, env=FP4_ON)),
    a("VLLM071", True, "0.11.2 on GB10", vl("0.11.2", NVFP4, SPARK, env=FP4_ON)),
    a("VLLM071", True, "latency named", vl("0.11.2", NVFP4, env=LATENCY)),
    a("VLLM071", False, "ModelOpt FP8 MoE: not claimed (non-gated experts fall back to CUTLASS)",
      vl("0.11.1", QWEN235_FP8, env={"VLLM_USE_FLASHINFER_MOE_FP8": "1"}, quant=MODELOPT_FP8)),
    a("VLLM071", False, "throughput backend", vl("0.11.1", NVFP4, env=THROUGHPUT)),
    a("VLLM071", False, "FlashInfer FP4 MoE not asked for", vl("0.11.1", NVFP4)),
    a("VLLM071", False, "0.11.0: FlashInfer FP4 MoE needs 10.0", vl("0.11.0", NVFP4, env=FP4_ON)),
    a("VLLM071", False, "0.12.0 falls back to CUTLASS", vl("0.12.0", NVFP4, env=FP4_ON)),
    a("VLLM071", False, "compressed-tensors NVFP4 does not ask get_flashinfer_moe_backend",
      vl("0.11.1", NVFP4, env=FP4_ON, quant={"method": "compressed-tensors"})),
    a("VLLM071", False, "datacenter Blackwell has trtllm-gen", vl("0.11.1", NVFP4, B200, env=FP4_ON)),
    a("VLLM072", True, "no RTX 5090 table at E=128 N=384 (0.11.2)", vl("0.11.2", QWEN30, "rtx-5090-x2"),
      "--tensor-parallel-size", "2"),
    a("VLLM072", True, "default tile that fits", vl("0.20.0", QWEN30), kernels=(vllm_moe(True, "default"),)),
    a("VLLM072", False, "a shipped table", vl("0.20.0", QWEN30), kernels=(vllm_moe(True, "file"),)),
    a("VLLM072", False, "default tile overflows: VLLM015", vl("0.20.0", QWEN30),
      kernels=(vllm_moe(False, "default"),)),
    a("VLLM072", False, "Hopper", vl("0.20.0", QWEN30, H100), kernels=(vllm_moe(True, "default"),)),
    a("VLLM072", False, "dense model: no fused MoE", vl("0.11.2", LLAMA, "rtx-5090")),
]
