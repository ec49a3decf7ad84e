"""Positive and boundary cases for the fix-PR rules of task fixpr-sgl (rules/sglang_fixpr.toml, SGL340-SGL399 and
FI090-FI119). test_rule_cases.py runs them; tests/rules/test_error_boundaries.py sweeps each error rule's bounds."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
QWEN3_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"  # Qwen3NextForCausalLM: 36 Gated DeltaNet layers
QWEN35 = "Qwen/Qwen3.5-27B"  # qwen3_5_text: 48 Gated DeltaNet layers
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"  # no linear attention
CUTEDSL = ("--linear-attn-backend", "cutedsl")
CUTEDSL_PREFILL = ("--linear-attn-prefill-backend", "cutedsl")


def sglang(version: str, model: str = QWEN35, profile: str = PRO, flashinfer: str | None = None) -> Callable[[], Facts]:
    libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
    return lambda: build(profile, model, (f"sglang=={version}",), libs=libs)


FIXPR_SGL_CASES = [
    # SGL340: 0.5.13-0.5.22 let SM12x take the SM100 (tcgen05) CuTe DSL GDN prefill
    a("SGL340", True, "0.5.20 --linear-attn-backend cutedsl", sglang("0.5.20"), *CUTEDSL),
    a("SGL340", True, "0.5.13: first release with the prefill, GB10", sglang("0.5.13", profile=SPARK),
      *CUTEDSL_PREFILL),
    a("SGL340", True, "0.5.22: last release before the fix, Qwen3-Next on a 5090", sglang("0.5.22", QWEN3_NEXT, R5090),
      *CUTEDSL),
    a("SGL340", False, "0.5.23 falls back to Triton on SM12x", sglang("0.5.23"), *CUTEDSL),
    a("SGL340", False, "0.5.12.post1 has no CuTe DSL prefill", sglang("0.5.12.post1"), *CUTEDSL),
    a("SGL340", False, "prefill kept on triton", sglang("0.5.20"), *CUTEDSL, "--linear-attn-prefill-backend", "triton"),
    a("SGL340", False, "cutedsl for decode only", sglang("0.5.20"), "--linear-attn-decode-backend", "cutedsl"),
    a("SGL340", False, "no linear-attention backend named", sglang("0.5.20")),
    a("SGL340", False, "no Gated DeltaNet layers", sglang("0.5.20", LLAMA), *CUTEDSL),
    a("SGL340", False, "B200 has tcgen05", sglang("0.5.20", profile=B200), *CUTEDSL),
    a("SGL340", False, "Hopper falls back to Triton", sglang("0.5.20", profile=H100), *CUTEDSL),
]


def vllm(version: str, flashinfer: str | None = None, profile: str = PRO, env: dict[str, str] | None = None,
         model: str = LLAMA) -> Callable[[], Facts]:
    """vLLM at `version`; `flashinfer` states the flashinfer-python installed beside it (else its wheel's pin)."""
    libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
    return lambda: build(profile, model, (f"vllm=={version}",), libs=libs, env=env)


SAMPLER_ON, SAMPLER_OFF = {"VLLM_USE_FLASHINFER_SAMPLER": "1"}, {"VLLM_USE_FLASHINFER_SAMPLER": "0"}

FIXPR_SGL_CASES += [
    # FI090: FlashInfer 0.6.0-0.6.13 multi-CTA radix top-k hang, reached through vLLM's FlashInfer sampler
    a("FI090", True, "vLLM 0.24.0 on its pin (0.6.12), sampler on by default", vllm("0.24.0")),
    a("FI090", True, "vLLM 0.21.0, first default-on release, GB10", vllm("0.21.0", profile=SPARK)),
    a("FI090", True, "vLLM 0.25.1 with 0.6.13 installed on a 5090", vllm("0.25.1", "0.6.13", R5090)),
    a("FI090", True, "vLLM 0.19.1 with the sampler asked for", vllm("0.19.1", env=SAMPLER_ON)),
    a("FI090", True, "vLLM 0.15.0 with the sampler asked for, FlashInfer 0.6.0",
      vllm("0.15.0", "0.6.0", env=SAMPLER_ON)),
    a("FI090", False, "FlashInfer 0.6.14 has the fix", vllm("0.25.1", "0.6.14")),
    a("FI090", False, "vLLM 0.26.0 pins 0.6.14", vllm("0.26.0")),
    a("FI090", False, "FlashInfer 0.5.3 has no multi-CTA radix top-k", vllm("0.14.1", "0.5.3", env=SAMPLER_ON)),
    a("FI090", False, "sampler turned off", vllm("0.24.0", env=SAMPLER_OFF)),
    a("FI090", False, "vLLM 0.20.2: sampler off by default", vllm("0.20.2")),
    a("FI090", False, "Hopper: not the SM12x race", vllm("0.24.0", profile=H100)),
    a("FI090", False, "B200: not the SM12x race", vllm("0.24.0", profile=B200)),
]

NVFP4_MOE, NVFP4_DSV3 = "nvidia/Kimi-K2.5-NVFP4", "tests/cases/models/deepseek-v3.1-nvfp4"
QWEN235_NVFP4 = "nvidia/Qwen3-235B-A22B-NVFP4"
FI_CUTLASS_MOE = ("--moe-runner-backend", "flashinfer_cutlass")

FIXPR_SGL_CASES += [
    # FI091: FlashInfer < 0.6.8 builds its CUTLASS fused MoE without GDC barriers but launches it with PDL
    a("FI091", True, "SGLang 0.5.10 (pins 0.6.7.post2) NVFP4 experts on flashinfer_cutlass",
      sglang("0.5.10", NVFP4_MOE), *FI_CUTLASS_MOE),
    a("FI091", True, "SGLang 0.5.9 (pins 0.6.3) on GB10", sglang("0.5.9", NVFP4_DSV3, SPARK), *FI_CUTLASS_MOE),
    a("FI091", True, "vLLM 0.19.0 with FlashInfer 0.6.7 installed", vllm("0.19.0", "0.6.7", model=QWEN235_NVFP4)),
    a("FI091", False, "SGLang 0.5.11 pins 0.6.8.post1", sglang("0.5.11", NVFP4_MOE), *FI_CUTLASS_MOE),
    a("FI091", False, "FlashInfer 0.6.8 installed beside 0.5.10", sglang("0.5.10", NVFP4_MOE, flashinfer="0.6.8"),
      *FI_CUTLASS_MOE),
    a("FI091", False, "experts on triton", sglang("0.5.10", NVFP4_MOE), "--moe-runner-backend", "triton"),
    a("FI091", False, "no MoE runner named", sglang("0.5.10", NVFP4_MOE)),
    a("FI091", False, "a dense model", sglang("0.5.10", LLAMA), *FI_CUTLASS_MOE),
    a("FI091", False, "vLLM 0.19.0 on its pin 0.6.6 is MOE030's", vllm("0.19.0", model=QWEN235_NVFP4)),
    a("FI091", False, "vLLM 0.20.0 pins 0.6.8.post1", vllm("0.20.0", model=QWEN235_NVFP4)),
    a("FI091", False, "Hopper", sglang("0.5.10", NVFP4_MOE, H100), *FI_CUTLASS_MOE),
]

FIXPR_SGL_CASES += [
    # FI092: FlashInfer 0.5.3-0.6.6 dense CUTLASS FP4 GEMM launched with PDL without GDC barriers (vLLM's linear)
    a("FI092", True, "vLLM 0.19.0 NVFP4 on its pin 0.6.6", vllm("0.19.0", model=QWEN235_NVFP4)),
    a("FI092", True, "vLLM 0.15.0 (pins 0.6.1) on GB10", vllm("0.15.0", profile=SPARK, model=QWEN235_NVFP4)),
    a("FI092", True, "vLLM 0.17.0 on a 5090", vllm("0.17.0", profile=R5090, model=QWEN235_NVFP4)),
    a("FI092", False, "FlashInfer 0.6.7 has the GDC flag", vllm("0.19.0", "0.6.7", model=QWEN235_NVFP4)),
    a("FI092", False, "vLLM 0.20.0 pins 0.6.8.post1", vllm("0.20.0", model=QWEN235_NVFP4)),
    a("FI092", False, "linear layers on vLLM's CUTLASS", vllm("0.19.0", model=QWEN235_NVFP4,
                                                               env={"VLLM_NVFP4_GEMM_BACKEND": "cutlass"})),
    a("FI092", False, "a 16-bit model", vllm("0.19.0")),
    a("FI092", False, "B200", vllm("0.19.0", profile=B200, model=QWEN235_NVFP4)),
]

MINIMAX_M3_MXFP8 = "MiniMaxAI/MiniMax-M3-MXFP8"  # quant_method mxfp8, MoE

FIXPR_SGL_CASES += [
    # SGL341: Fp8MoEMethod prepares MXFP8 experts on SM100 (or ROCm gfx95) only, 0.5.9-0.5.23
    a("SGL341", True, "0.5.20 MiniMax-M3-MXFP8", sglang("0.5.20", MINIMAX_M3_MXFP8)),
    a("SGL341", True, "0.5.16 on GB10", sglang("0.5.16", MINIMAX_M3_MXFP8, SPARK)),
    a("SGL341", True, "0.5.23 on a 5090", sglang("0.5.23", MINIMAX_M3_MXFP8, R5090)),
    a("SGL341", True, "0.5.9: first release with MXFP8", sglang("0.5.9", MINIMAX_M3_MXFP8)),
    a("SGL341", True, "0.5.16 ignores the block-convert variable (not read before 0.5.17)",
      lambda: build(PRO, MINIMAX_M3_MXFP8, ("sglang==0.5.16",), env={"SGLANG_FORCE_MXFP8_BLOCK_CONVERT": "1"})),
    a("SGL341", False, "0.5.8.post1 has no MXFP8", sglang("0.5.8.post1", MINIMAX_M3_MXFP8)),
    a("SGL341", False, "0.5.17 converts to block-FP8 when asked",
      lambda: build(PRO, MINIMAX_M3_MXFP8, ("sglang==0.5.17",), env={"SGLANG_FORCE_MXFP8_BLOCK_CONVERT": "1"})),
    a("SGL341", False, "MegaMoE a2a takes its own path", sglang("0.5.20", MINIMAX_M3_MXFP8), "--moe-a2a-backend",
      "flashinfer_megamoe"),
    a("SGL341", False, "B200 has the SM100 path", sglang("0.5.20", MINIMAX_M3_MXFP8, B200)),
    a("SGL341", False, "Hopper: not this rule's GPUs", sglang("0.5.20", MINIMAX_M3_MXFP8, H100)),
    a("SGL341", False, "a block-FP8 MoE", sglang("0.5.20", "Qwen/Qwen3-235B-A22B-FP8")),
]

QWEN3_06B = "Qwen/Qwen3-0.6B"  # torch_dtype bfloat16
DETERMINISTIC, FP16 = ("--enable-deterministic-inference",), ("--dtype", "float16")

FIXPR_SGL_CASES += [
    # SGL342: the batch-invariant persistent matmul's float16 config needs 106496 B of shared memory
    a("SGL342", True, "0.5.9 Qwen3-0.6B --dtype float16 on a 5090 (sglang#29149's launch)",
      sglang("0.5.9", QWEN3_06B, R5090), *DETERMINISTIC, *FP16),
    a("SGL342", True, "0.5.3: first release with the flag, GB10", sglang("0.5.3", QWEN3_06B, SPARK), *DETERMINISTIC,
      "--dtype", "half"),
    a("SGL342", True, "0.5.23 RTX PRO 6000", sglang("0.5.23", QWEN3_06B), *DETERMINISTIC, *FP16),
    a("SGL342", False, "bfloat16 (the config's own dtype) fits", sglang("0.5.20", QWEN3_06B), *DETERMINISTIC),
    a("SGL342", False, "--dtype bfloat16", sglang("0.5.20", QWEN3_06B), *DETERMINISTIC, "--dtype", "bfloat16"),
    a("SGL342", False, "float16 without deterministic inference", sglang("0.5.20", QWEN3_06B), *FP16),
    a("SGL342", False, "0.5.2 has no deterministic inference", sglang("0.5.2", QWEN3_06B), *DETERMINISTIC, *FP16),
    a("SGL342", False, "Hopper has 227 KiB", sglang("0.5.20", QWEN3_06B, H100), *DETERMINISTIC, *FP16),
    a("SGL342", False, "B200 has 227 KiB", sglang("0.5.20", QWEN3_06B, B200), *DETERMINISTIC, *FP16),
]
