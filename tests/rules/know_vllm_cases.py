"""Positive and boundary cases for the rules of rules/vllm_know.toml (task know-vllm, issue 25's ledger).
test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds from
its positive cases here."""

from __future__ import annotations

from tests.rules.builders import a, build, lib
from tests.rules.vllm_2026_cases import B200, H100, PRO, QWEN235_FP8, SPARK, vl

DSV4 = "tests/cases/models/deepseek-v4-flash"
DSV3 = "deepseek-ai/DeepSeek-V3"
DEEPGEMM_OFF = {"VLLM_USE_DEEP_GEMM": "0"}
FP8_EXPERTS = {"expert_scheme": None}  # DeepSeek-V4-Flash-Base: expert_dtype fp8, float32 linear scales



PER_TENSOR = {"scheme": "fp8-tensor"}


def source_build(version, arch_list, nvcc, profile=SPARK, quant=PER_TENSOR):
    """A vLLM built from source (the arch list in the environment, the toolkit the facts hold) serving a
    per-tensor FP8 checkpoint unless `quant` says otherwise."""
    def facts():
        return build(profile, QWEN235_FP8, (f"vllm=={version}",), libs=(lib("nvcc", nvcc),),
                     env={"TORCH_CUDA_ARCH_LIST": arch_list}, quant=quant)
    return facts


def cu12x(version, torch, profile=SPARK, quant=None, env=None):
    """vLLM with a torch of a given CUDA build (vLLM's own build goes with it) serving block FP8."""
    def facts():
        cuda = torch.split("+cu")[1]
        return build(profile, QWEN235_FP8, (f"vllm=={version}",), env=env, quant=quant,
                     libs=(lib("torch", torch, cuda_version=f"{cuda[:-1]}.{cuda[-1]}"),))
    return facts


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
    a("VLLM081", True, "0.20.0 built with CUDA 12.9 for 12.1a on GB10 (eugr/spark-vllm-docker#143)",
      source_build("0.20.0", "12.1a", "12.9.86")),
    a("VLLM081", True, "0.19.0, 12.0 and 12.1 both listed: sm_121a still built",
      source_build("0.19.0", "12.0;12.1", "12.9.86")),
    a("VLLM081", True, "0.21.0, plain 12.1", source_build("0.21.0", "12.1", "12.9.86")),
    a("VLLM081", False, "0.22.0: enable_sm120_family", source_build("0.22.0", "12.1a", "12.9.86")),
    a("VLLM081", False, "0.18.0: CUDA < 13 lists 12.0a only", source_build("0.18.0", "12.1a", "12.9.86")),
    a("VLLM081", False, "CUDA 13.0: the family target 12.0f", source_build("0.20.0", "12.0;12.1a", "13.0.88")),
    a("VLLM081", False, "no 12.1 target in the list", source_build("0.20.0", "12.0", "12.9.86")),
    a("VLLM081", False, "RTX 5090 (12.0): the guard passes",
      source_build("0.20.0", "12.0;12.1a", "12.9.86", "rtx-5090")),
    a("VLLM081", False, "no arch list: a release wheel", vl("0.20.0", QWEN235_FP8, SPARK, quant=PER_TENSOR)),
    a("VLLM081", False, "block FP8: the blockwise kernel is enable_sm120_family",
      source_build("0.20.0", "12.1a", "12.9.86", quant=None)),
    a("VLLM081", False, "BF16 model: no FP8 GEMM",
      source_build("0.20.0", "12.1a", "12.9.86", quant={"scheme": "bf16"})),
    a("VLLM082", True, "0.21.0 cu129 build, block FP8 on GB10 (vllm#43367)", cu12x("0.21.0", "2.10.0+cu129")),
    a("VLLM082", True, "0.23.0 cu129 build", cu12x("0.23.0", "2.11.0+cu129")),
    a("VLLM082", True, "0.12.0 cu128 build: cutlass_blockwise", cu12x("0.12.0", "2.9.0+cu128")),
    a("VLLM082", False, "cu130 build: family target 12.0f", cu12x("0.21.0", "2.10.0+cu130")),
    a("VLLM082", False, "RTX PRO 6000 (12.0): sm_120a runs", cu12x("0.21.0", "2.10.0+cu129", PRO)),
    a("VLLM082", False, "0.25.0: block FP8 leaves CUTLASS on 12.x", cu12x("0.25.0", "2.11.0+cu129")),
    a("VLLM082", False, "per-tensor FP8: FlashInfer's GEMM first", cu12x("0.21.0", "2.10.0+cu129", quant=PER_TENSOR)),
    a("VLLM082", False, "the build list names 12.1",
      cu12x("0.23.0", "2.11.0+cu129", env={"TORCH_CUDA_ARCH_LIST": "12.0;12.1"})),
    a("VLLM082", False, "before 0.12.0: not read", cu12x("0.11.0", "2.8.0+cu128")),
]
