"""Positive and boundary cases for the gapV2 rules (rules/gapV2.toml); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import a, build

PRO5000, PRO, PRO_X2, SPARK, B200 = "rtx-pro-5000", "rtx-pro-6000", "rtx-pro-6000-x2", "dgx-spark", "b200-x8"
QWEN35_08B = "Qwen/Qwen3.5-0.8B"  # linear_num_value_heads 16: in_proj_ba is 32 wide
QWEN35_122B = "Qwen/Qwen3.5-122B-A10B"  # linear_num_value_heads 64: 128 wide at TP 1, 64 at TP 2
BLOCK = ("--quantization", "fp8_per_block")


def vl(version, profile=PRO5000, model=QWEN35_08B, env=None):
    return lambda: build(profile, model, engines=(f"vllm=={version}",), env=env)


GAPV2_CASES = [
    # VLLM670: --quantization fp8_per_block (0.20.0 on) on a GDN model whose in_proj_ba is not 128-wide per rank
    a("VLLM670", True, "vllm#48587: Qwen3.5-0.8B on an RTX PRO 5000, 0.23.x", vl("0.23.0"), *BLOCK),
    a("VLLM670", True, "0.20.0: the first release with fp8_per_block", vl("0.20.0"), *BLOCK),
    a("VLLM670", True, "0.33.0: can_implement still checks no N", vl("0.33.0"), *BLOCK),
    a("VLLM670", False, "0.19.0: no fp8_per_block method", vl("0.19.0"), *BLOCK),
    a("VLLM670", False, "no --quantization: the BF16 layers run unquantized", vl("0.23.0")),
    a("VLLM670", False, "--quantization fp8: per-tensor scales, no 128-wide tile", vl("0.23.0"),
      "--quantization", "fp8"),
    a("VLLM670", False, "a model without GDN layers", vl("0.23.0", PRO5000, "Qwen/Qwen3-8B"), *BLOCK),
    a("VLLM670", False, "Qwen3.5-122B at TP 1: in_proj_ba is 128 wide", vl("0.23.0", PRO_X2, QWEN35_122B), *BLOCK,
      "--tensor-parallel-size", "1"),
    a("VLLM670", True, "Qwen3.5-122B at TP 2: 64 wide per rank", vl("0.23.0", PRO_X2, QWEN35_122B), *BLOCK,
      "--tensor-parallel-size", "2"),
    a("VLLM670", False, "VLLM_DISABLED_KERNELS takes CUTLASS out of the chain",
      vl("0.23.0", env={"VLLM_DISABLED_KERNELS": "CutlassFp8BlockScaledMMKernel"}), *BLOCK),
    a("VLLM670", False, "a block-FP8 checkpoint: online quantization does not apply (VLLM112's case)",
      vl("0.23.0", PRO5000, "Qwen/Qwen3.5-27B-FP8"), *BLOCK),
    a("VLLM670", True, "RTX PRO 6000 (12.0)", vl("0.25.1", PRO), *BLOCK),
    a("VLLM670", False, "B200 (10.0): outside the SM12x scope", vl("0.23.0", B200), *BLOCK),
]
