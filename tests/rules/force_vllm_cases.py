"""Positive and boundary cases for the rules of rules/force_vllm.toml (task force-vllm: vLLM environment variables
that force a MoE backend SM12x lacks). test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps
each error rule's bounds from its positive cases here."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

SPARK, PRO, RTX5090, H100, B200 = "dgx-spark", "rtx-pro-6000", "rtx-5090", "h100-sxm-x8", "b200-x8"
GPTOSS, DSV3, NVFP4 = "openai/gpt-oss-120b", "deepseek-ai/DeepSeek-V3", "nvidia/Kimi-K2.5-NVFP4"
QWEN30_FP8 = "Qwen/Qwen3-30B-A3B"


def vl(version, model=GPTOSS, profile=SPARK, env=None, quant=None):
    return lambda: build(profile, model, (f"vllm=={version}",), env=env, quant=quant)


BF16_ON, BF16_OFF = {"VLLM_USE_FLASHINFER_MOE_MXFP4_BF16": "1"}, {"VLLM_USE_FLASHINFER_MOE_MXFP4_BF16": "0"}
MXFP8_ON = {"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "1"}

FORCE_VLLM_CASES = [
    # VLLM250: VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1 raises off 9.0 / 10.x in 0.19.0-0.23.x
    a("VLLM250", True, "0.21.0, gpt-oss-120b on GB10", vl("0.21.0", env=BF16_ON)),
    a("VLLM250", True, "0.19.0, the first release of the MXFP4 oracle, RTX PRO 6000",
      vl("0.19.0", profile=PRO, env=BF16_ON)),
    a("VLLM250", True, "0.23.0, the last release that reads it, RTX 5090", vl("0.23.0", profile=RTX5090, env=BF16_ON)),
    a("VLLM250", False, "0.18.1 reads it under capability 9.0 only", vl("0.18.1", env=BF16_ON)),
    a("VLLM250", False, "0.24.0 reads it nowhere", vl("0.24.0", env=BF16_ON)),
    a("VLLM250", False, "9.0 takes the CUTLASS MXFP4 x BF16 MoE", vl("0.21.0", profile=H100, env=BF16_ON)),
    a("VLLM250", False, "10.0 takes the TRT-LLM one", vl("0.21.0", profile=B200, env=BF16_ON)),
    a("VLLM250", False, "set to 0: FlashInfer removed, Marlin runs", vl("0.21.0", env=BF16_OFF)),
    a("VLLM250", False, "unset", vl("0.21.0", env={})),
    a("VLLM250", False, "a named --moe-backend is read first", vl("0.21.0", env=BF16_ON), "--moe-backend", "marlin"),
    a("VLLM250", False, "an NVFP4 checkpoint takes the NVFP4 oracle", vl("0.21.0", NVFP4, env=BF16_ON)),
    # VLLM251: VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8=1 forces the 10.x-only TRT-LLM MXFP4 MoE in 0.19.0-0.23.x
    a("VLLM251", True, "0.21.0, gpt-oss-120b on GB10 (vllm#43969)", vl("0.21.0", env=MXFP8_ON)),
    a("VLLM251", True, "0.19.0 on RTX PRO 6000", vl("0.19.0", profile=PRO, env=MXFP8_ON)),
    a("VLLM251", True, "0.23.0 with the BF16 variable set to 0", vl("0.23.0", env={**MXFP8_ON, **BF16_OFF})),
    a("VLLM251", False, "0.18.1 reads it under the 10.x family only", vl("0.18.1", env=MXFP8_ON)),
    a("VLLM251", False, "0.24.0 reads it nowhere", vl("0.24.0", env=MXFP8_ON)),
    a("VLLM251", False, "10.0 runs the TRT-LLM MXFP4 MoE", vl("0.21.0", profile=B200, env=MXFP8_ON)),
    a("VLLM251", False, "9.0 is refused too, not an SM12x finding", vl("0.21.0", profile=H100, env=MXFP8_ON)),
    a("VLLM251", False, "set to 0", vl("0.21.0", env={"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "0"})),
    a("VLLM251", False, "the BF16 variable raises first (VLLM250)", vl("0.21.0", env={**MXFP8_ON, **BF16_ON})),
    a("VLLM251", False, "a named --moe-backend is read first", vl("0.21.0", env=MXFP8_ON), "--moe-backend", "marlin"),
    a("VLLM251", False, "a block-FP8 checkpoint takes the FP8 oracle", vl("0.21.0", DSV3, env=MXFP8_ON)),
]

FP8_ON = {"VLLM_USE_FLASHINFER_MOE_FP8": "1"}
FP8_BLOCK, FP8_TENSOR = {"scheme": "fp8-block", "method": "fp8"}, {"scheme": "fp8-tensor", "method": "fp8"}
DG_ON = {"VLLM_USE_DEEP_GEMM": "1"}

FORCE_VLLM_CASES += [
    # VLLM252: VLLM_USE_FLASHINFER_MOE_FP8=1 with block-FP8 experts on SM12x, 0.15.0-0.23.x
    a("VLLM252", True, "0.21.0, DeepSeek-V3 block FP8 on RTX PRO 6000", vl("0.21.0", DSV3, PRO, FP8_ON)),
    a("VLLM252", True, "0.15.0, the first release of the branch, GB10", vl("0.15.0", DSV3, SPARK, FP8_ON)),
    a("VLLM252", True, "0.23.0 with VLLM_FLASHINFER_MOE_BACKEND=latency (CUTLASS off 10.x)",
      vl("0.23.0", DSV3, PRO, {**FP8_ON, "VLLM_FLASHINFER_MOE_BACKEND": "latency"})),
    a("VLLM252", True, "a Qwen3 MoE with block-FP8 weights", vl("0.20.0", QWEN30_FP8, RTX5090, FP8_ON, FP8_BLOCK)),
    a("VLLM252", False, "0.14.0 reads it under 9.0/10.x only", vl("0.14.0", DSV3, PRO, FP8_ON)),
    a("VLLM252", False, "0.24.0 removed the variable", vl("0.24.0", DSV3, PRO, FP8_ON)),
    a("VLLM252", False, "9.0: CUTLASS takes block FP8", vl("0.21.0", DSV3, H100, FP8_ON)),
    a("VLLM252", False, "10.0: TRT-LLM takes block FP8", vl("0.21.0", DSV3, B200, FP8_ON)),
    a("VLLM252", False, "per-tensor FP8 is allowed from 9.0 up", vl("0.21.0", QWEN30_FP8, PRO, FP8_ON, FP8_TENSOR)),
    a("VLLM252", False, "set to 0", vl("0.21.0", DSV3, PRO, {"VLLM_USE_FLASHINFER_MOE_FP8": "0"})),
    a("VLLM252", False, "unset", vl("0.21.0", DSV3, PRO, {})),
    a("VLLM252", False, "a named --moe-backend is read first", vl("0.21.0", DSV3, PRO, FP8_ON),
      "--moe-backend", "triton"),
    # VLLM253: an explicit VLLM_USE_DEEP_GEMM=1 with block-FP8 experts on SM12x, 0.15.0-0.23.x
    a("VLLM253", True, "0.21.0, DeepSeek-V3 block FP8 on RTX PRO 6000", vl("0.21.0", DSV3, PRO, DG_ON)),
    a("VLLM253", True, "0.15.0 on GB10", vl("0.15.0", DSV3, SPARK, DG_ON)),
    a("VLLM253", True, "0.23.0 on RTX 5090, Qwen3 MoE block FP8",
      vl("0.23.0", QWEN30_FP8, RTX5090, DG_ON, FP8_BLOCK)),
    a("VLLM253", False, "0.14.0 has no explicit-DeepGEMM branch", vl("0.14.0", DSV3, PRO, DG_ON)),
    a("VLLM253", False, "0.24.0 admits the 12.x family (MOE004 judges the kernel)",
      vl("0.24.0", DSV3, PRO, DG_ON)),
    a("VLLM253", False, "9.0 runs DeepGEMM", vl("0.21.0", DSV3, H100, DG_ON)),
    a("VLLM253", False, "10.0 runs DeepGEMM", vl("0.21.0", DSV3, B200, DG_ON)),
    a("VLLM253", False, "unset: the default skips DeepGEMM on SM12x", vl("0.21.0", DSV3, PRO, {})),
    a("VLLM253", False, "set to 0", vl("0.21.0", DSV3, PRO, {"VLLM_USE_DEEP_GEMM": "0"})),
    a("VLLM253", False, "VLLM_MOE_USE_DEEP_GEMM=0 removes it",
      vl("0.21.0", DSV3, PRO, {**DG_ON, "VLLM_MOE_USE_DEEP_GEMM": "0"})),
    a("VLLM253", False, "the FlashInfer FP8 branch is read first (VLLM252)",
      vl("0.21.0", DSV3, PRO, {**DG_ON, **FP8_ON})),
    a("VLLM253", False, "per-tensor FP8 is not DeepGEMM's", vl("0.21.0", QWEN30_FP8, PRO, DG_ON, FP8_TENSOR)),
]

FP4_ON = {"VLLM_USE_FLASHINFER_MOE_FP4": "1"}

FORCE_VLLM_CASES += [
    # VLLM254: VLLM_USE_FLASHINFER_MOE_FP4=1 in 0.15.0, whose FlashInfer NVFP4 MoE backends are all 10.x-only
    a("VLLM254", True, "0.15.0, Kimi-K2.5 NVFP4 on RTX PRO 6000", vl("0.15.0", NVFP4, PRO, FP4_ON)),
    a("VLLM254", True, "0.15.0 on GB10", vl("0.15.0", NVFP4, SPARK, FP4_ON)),
    a("VLLM254", False, "0.15.1 admits 12.x to the CUTLASS experts", vl("0.15.1", NVFP4, PRO, FP4_ON)),
    a("VLLM254", False, "0.14.0 admits has_device_capability(100) to FlashInfer CUTLASS",
      vl("0.14.0", NVFP4, PRO, FP4_ON)),
    a("VLLM254", False, "10.0 runs them", vl("0.15.0", NVFP4, B200, FP4_ON)),
    a("VLLM254", False, "9.0 has no NVFP4 (another finding)", vl("0.15.0", NVFP4, H100, FP4_ON)),
    a("VLLM254", False, "set to 0", vl("0.15.0", NVFP4, PRO, {"VLLM_USE_FLASHINFER_MOE_FP4": "0"})),
    a("VLLM254", False, "unset", vl("0.15.0", NVFP4, PRO, {})),
    a("VLLM254", False, "a block-FP8 checkpoint", vl("0.15.0", DSV3, PRO, FP4_ON)),
]

MASKED = {**FP4_ON, "VLLM_FLASHINFER_MOE_BACKEND": "masked_gemm"}

FORCE_VLLM_CASES += [
    # VLLM256: VLLM_FLASHINFER_MOE_BACKEND=masked_gemm forces the 10.x-only CuTe DSL NVFP4 MoE, 0.15.0-0.23.x
    a("VLLM256", True, "0.21.0, Kimi-K2.5 NVFP4 on RTX PRO 6000", vl("0.21.0", NVFP4, PRO, MASKED)),
    a("VLLM256", True, "0.15.0 on GB10", vl("0.15.0", NVFP4, SPARK, MASKED)),
    a("VLLM256", True, "0.23.0 on RTX 5090", vl("0.23.0", NVFP4, RTX5090, MASKED)),
    a("VLLM256", False, "0.14.0 has no device gate here (not modelled)", vl("0.14.0", NVFP4, PRO, MASKED)),
    a("VLLM256", False, "0.24.0 reads neither variable", vl("0.24.0", NVFP4, PRO, MASKED)),
    a("VLLM256", False, "10.0 runs the CuTe DSL MoE", vl("0.21.0", NVFP4, B200, MASKED)),
    a("VLLM256", False, "9.0 has no NVFP4 MoE (another finding)", vl("0.21.0", NVFP4, H100, MASKED)),
    a("VLLM256", False, "throughput is CUTLASS",
      vl("0.21.0", NVFP4, PRO, {**FP4_ON, "VLLM_FLASHINFER_MOE_BACKEND": "throughput"})),
    a("VLLM256", False, "latency falls back to CUTLASS off 10.x",
      vl("0.21.0", NVFP4, PRO, {**FP4_ON, "VLLM_FLASHINFER_MOE_BACKEND": "latency"})),
    a("VLLM256", False, "FP4 variable 0 removes FlashInfer",
      vl("0.21.0", NVFP4, PRO, {"VLLM_USE_FLASHINFER_MOE_FP4": "0", "VLLM_FLASHINFER_MOE_BACKEND": "masked_gemm"})),
    a("VLLM256", False, "a named --moe-backend is read first", vl("0.21.0", NVFP4, PRO, MASKED),
      "--moe-backend", "marlin"),
    a("VLLM256", False, "a block-FP8 checkpoint", vl("0.21.0", DSV3, PRO, MASKED)),
]


def logged(fires, why, profile, version="0.20.0", shown=("VLLM255",)):
    """`diagnose` on a log whose signatures `shown` matched (shown=() is `check`: no log)."""
    log = {"signatures": list(shown)} if shown != () else None
    return Case("VLLM255", fires, vl(version, None, profile), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


FORCE_VLLM_CASES += [
    # VLLM255: a named MoE backend refused on its device test (log only)
    logged(True, "--moe-backend flashinfer_trtllm on GB10 (vllm#41477)", SPARK),
    logged(True, "on an RTX PRO 6000, 0.33.0", PRO, "0.33.0"),
    logged(False, "an H100's log", H100),
    logged(False, "a B200's log", B200),
    logged(False, "check: no log", SPARK, shown=()),
    logged(False, "another rule's line", SPARK, shown=("VLLM244",)),
]
