"""Positive and boundary cases for the rules of helper deepen (rules/deepen.toml): ledger reports read further.
test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build
from tests.rules.log_line_cases import logged

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
QWEN3_8B = "Qwen/Qwen3-8B"  # BF16 dense: `--quantization mxfp8` quantizes it online
MXFP8_DENSE = "tests/cases/models/qwen3-8b-mxfp8-standin"  # quant_method mxfp8, dense
MINIMAX_M3_MXFP8 = "MiniMaxAI/MiniMax-M3-MXFP8"  # quant_method mxfp8, MoE (SGL341's)
ONLINE = ("--quantization", "mxfp8")
MIMO_V2_FLASH = "XiaomiMiMo/MiMo-V2-Flash"  # bundled: head_dim 192, v_head_dim 128 (MiMoV2FlashForCausalLM)


def vllm(version: str, model: str, profile: str = PRO) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"vllm=={version}",))


def sglang(version: str, model: str = QWEN3_8B, profile: str = PRO) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"sglang=={version}",))


DEEPEN_CASES = [
    # SGL590: MXFP8 dense layers on SGLang's Triton MXFP8 GEMM on SM12x, 0.5.9-0.5.17 (0.5.18 moves them to FlashInfer)
    a("SGL590", True, "0.5.17 --quantization mxfp8 on an RTX PRO 6000 (sglang#33208's GPU)", sglang("0.5.17"), *ONLINE),
    a("SGL590", True, "0.5.9: first release with MXFP8, Triton always", sglang("0.5.9"), *ONLINE),
    a("SGL590", True, "0.5.12 mxfp8 checkpoint on GB10", sglang("0.5.12", MXFP8_DENSE, SPARK)),
    a("SGL590", True, "0.5.17 mxfp8 checkpoint on a 5090", sglang("0.5.17", MXFP8_DENSE, R5090)),
    a("SGL590", True, "0.5.9 ignores --fp8-gemm-backend for MXFP8", sglang("0.5.9"), *ONLINE,
      "--fp8-gemm-backend", "flashinfer_cutlass"),
    a("SGL590", True, "0.5.16 --fp8-gemm-backend cutlass still falls back to Triton", sglang("0.5.16"), *ONLINE,
      "--fp8-gemm-backend", "cutlass"),
    a("SGL590", False, "0.5.18 routes Blackwell to FlashInfer", sglang("0.5.18"), *ONLINE),
    a("SGL590", False, "0.5.18 mxfp8 checkpoint", sglang("0.5.18", MXFP8_DENSE)),
    a("SGL590", False, "0.5.8.post1 has no MXFP8", sglang("0.5.8.post1"), *ONLINE),
    a("SGL590", False, "0.5.10 --fp8-gemm-backend flashinfer_cutlass takes FlashInfer", sglang("0.5.10"), *ONLINE,
      "--fp8-gemm-backend", "flashinfer_cutlass"),
    a("SGL590", False, "BF16 without --quantization", sglang("0.5.17")),
    a("SGL590", False, "MXFP8 MoE: SGL341's load failure", sglang("0.5.17", MINIMAX_M3_MXFP8)),
    a("SGL590", False, "Hopper: not this rule's GPUs", sglang("0.5.17", profile=H100), *ONLINE),
    a("SGL590", False, "B200: not this rule's GPUs", sglang("0.5.17", profile=B200), *ONLINE),
    # ATTN060: xformers 0.0.31-0.0.32's FlashAttention-3 launched on SM12x, refused with invalid argument (a log line)
    *(logged("ATTN060", True, f"its line on {profile}", profile) for profile in (R5090, SPARK, "rtx-pro-6000")),
    logged("ATTN060", False, "its line on an H100: FA3's own GPU", H100),
    logged("ATTN060", False, "its line on a B200: not an SM12x GPU", B200),
    logged("ATTN060", False, "check: no log", R5090, shown=()),
    logged("ATTN060", False, "the no-kernel-image line of xformers 0.0.30 (BLD021's)", R5090, shown=("BLD021",)),
    # VLLM560: MiMo-V2 forced onto FlashAttention diff-KV (needs FA3/FA4) on SM12x, vLLM 0.20.0-0.23.x
    a("VLLM560", True, "0.23.0 MiMo-V2-Flash on an RTX PRO 6000", vllm("0.23.0", MIMO_V2_FLASH)),
    a("VLLM560", True, "0.20.0: first release that forces diff-KV", vllm("0.20.0", MIMO_V2_FLASH, R5090)),
    a("VLLM560", True, "0.22.1 on GB10 (vllm#41519's sm_121 report)", vllm("0.22.1", MIMO_V2_FLASH, SPARK)),
    a("VLLM560", False, "0.24.0 falls back to TRITON_ATTN_DIFFKV", vllm("0.24.0", MIMO_V2_FLASH)),
    a("VLLM560", False, "0.19.0 pads V to head_dim", vllm("0.19.0", MIMO_V2_FLASH)),
    a("VLLM560", False, "another model", vllm("0.23.0", QWEN3_8B)),
    a("VLLM560", False, "Hopper runs FA3 diff-KV", vllm("0.23.0", MIMO_V2_FLASH, H100)),
    a("VLLM560", False, "B200 runs FA4 diff-KV", vllm("0.23.0", MIMO_V2_FLASH, B200)),
]
