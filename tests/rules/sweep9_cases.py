"""Positive and boundary cases for the sweep9 rules (rules/sweep9.toml); test_rule_cases.py runs them with the rest
(and test_error_boundaries.py sweeps the error rules)."""

from __future__ import annotations

import dataclasses

from tests.rules.builders import a, build, lib

PRO, R5090, SPARK, H100, B200 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"
DSV4, DSV4_PRO_NVFP4, DSV32 = ("deepseek-ai/DeepSeek-V4-Flash", "nvidia/DeepSeek-V4-Pro-NVFP4",
                               "deepseek-ai/DeepSeek-V3.2")


def sg(version, model=DSV4, profile=PRO, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


TRTLLM, MEGA = ("--dsv4-attn-backend", "trtllm"), ("--dsv4-attn-backend", "flashmla_mega")
V41, V41_NEW = {"SGLANG_DSV4_KV_LAYOUT": "v41"}, {"SGLANG_DSV4_KV_LAYOUT": "v41_new"}

SWEEP9_CASES = [
    a("SGL500", True, "0.5.20 trtllm: first release with the flag", sg("0.5.20"), *TRTLLM),
    a("SGL500", True, "0.5.23 trtllm on spark (12.1)", sg("0.5.23", profile=SPARK), *TRTLLM),
    a("SGL500", True, "0.5.23 flashmla_mega on a 5090", sg("0.5.23", DSV4_PRO_NVFP4, R5090), *MEGA),
    a("SGL500", False, "0.5.19 has no --dsv4-attn-backend", sg("0.5.19"), *TRTLLM),
    a("SGL500", False, "0.5.22 has no flashmla_mega", sg("0.5.22"), *MEGA),
    a("SGL500", False, "flashmla runs on SM12x", sg("0.5.23"), "--dsv4-attn-backend", "flashmla"),
    a("SGL500", False, "auto resolves to flashmla", sg("0.5.23"), "--dsv4-attn-backend", "auto"),
    a("SGL500", False, "no backend named", sg("0.5.23")),
    a("SGL500", False, "B200 (10.0) passes the assertion", sg("0.5.23", profile=B200), *TRTLLM),
    a("SGL500", False, "Hopper is outside this doctor's scope", sg("0.5.23", profile=H100), *TRTLLM),
    a("SGL500", False, "DeepSeek-V3.2 never reaches the V4 hook", sg("0.5.23", DSV32), *TRTLLM),
    a("SGL501", True, "0.5.21 v41 on spark: first release with the variable", sg("0.5.21", profile=SPARK, env=V41)),
    a("SGL501", True, "0.5.23 v41_new on a PRO 6000", sg("0.5.23", env=V41_NEW)),
    a("SGL501", False, "0.5.20 has no SGLANG_DSV4_KV_LAYOUT", sg("0.5.20", env=V41)),
    a("SGL501", False, "0.5.22 has no v41_new (another assertion)", sg("0.5.22", env=V41_NEW)),
    a("SGL501", False, "v4 is the default", sg("0.5.23", env={"SGLANG_DSV4_KV_LAYOUT": "v4"})),
    a("SGL501", False, "auto falls back to V4 off SM100", sg("0.5.23", env={"SGLANG_DSV4_KV_LAYOUT": "auto"})),
    a("SGL501", False, "trtllm stops first (SGL500)", sg("0.5.23", env=V41), *TRTLLM),
    a("SGL501", False, "B200 (10.0) has the V4.1 layouts", sg("0.5.23", profile=B200, env=V41)),
    a("SGL501", False, "Hopper is outside this doctor's scope", sg("0.5.23", profile=H100, env=V41)),
    a("SGL501", False, "DeepSeek-V3.2 builds no V4 pool", sg("0.5.23", DSV32, env=V41)),
]

KIMI_NVFP4, GPTOSS, KIMI_INT4 = "nvidia/Kimi-K2.5-NVFP4", "openai/gpt-oss-120b", "moonshotai/Kimi-K2.5"
B12X = ("--moe-backend", "b12x")


def vl_installed(version, model=KIMI_NVFP4, profile=PRO, b12x=None):
    """vLLM as a live probe finds it installed, with or without the b12x package beside it."""
    libs = (lib("vllm", version),) + ((lib("b12x", b12x),) if b12x else ())
    return lambda: build(profile, model, libs=libs)


SWEEP9_CASES += [
    a("VLLM360", True, "0.33.0 NVFP4 experts without b12x", vl_installed("0.33.0"), *B12X),
    a("VLLM360", True, "0.29.0: first release with b12x, on spark", vl_installed("0.29.0", profile=SPARK), *B12X),
    a("VLLM360", True, "gpt-oss MXFP4 on a 5090 (0.31.0)", vl_installed("0.31.0", GPTOSS, R5090), *B12X),
    a("VLLM360", False, "b12x installed", vl_installed("0.33.0", b12x="1.5.1"), *B12X),
    a("VLLM360", False, "0.28.0 has no b12x backend (the flag-value rules' matter)", vl_installed("0.28.0"), *B12X),
    a("VLLM360", False, "auto skips B12X", vl_installed("0.33.0"), "--moe-backend", "auto"),
    a("VLLM360", False, "flashinfer_b12x is FlashInfer's, not the b12x package", vl_installed("0.33.0"),
      "--moe-backend", "flashinfer_b12x"),
    a("VLLM360", False, "B200 (10.0): another device test", vl_installed("0.33.0", profile=B200), *B12X),
    a("VLLM360", False, "Hopper is outside this doctor's scope", vl_installed("0.33.0", profile=H100), *B12X),
    a("VLLM360", False, "INT4 experts: not an FP4 oracle", vl_installed("0.33.0", KIMI_INT4), *B12X),
]

QWEN235_FP8, QWEN30 = "Qwen/Qwen3-235B-A22B-FP8", "Qwen/Qwen3-30B-A3B"
LINEAR_B12X = ("--linear-backend", "b12x")

SWEEP9_CASES += [
    a("VLLM360", True, "0.28.0 --linear-backend b12x, block-FP8 attention", vl_installed("0.28.0", QWEN235_FP8),
      *LINEAR_B12X),
    a("VLLM360", True, "0.33.0 --linear-backend b12x, NVFP4 dense layers on spark",
      vl_installed("0.33.0", profile=SPARK), *LINEAR_B12X),
    a("VLLM360", False, "0.27.1 has no b12x linear backend", vl_installed("0.27.1", QWEN235_FP8), *LINEAR_B12X),
    a("VLLM360", False, "linear b12x with b12x installed", vl_installed("0.33.0", QWEN235_FP8, b12x="1.5.1"),
      *LINEAR_B12X),
    a("VLLM360", False, "gpt-oss: BF16 linear layers, no FP4 chooser", vl_installed("0.33.0", GPTOSS), *LINEAR_B12X),
    a("VLLM360", False, "BF16 model", vl_installed("0.33.0", QWEN30), *LINEAR_B12X),
    a("VLLM360", False, "linear b12x on a B200", vl_installed("0.33.0", QWEN235_FP8, B200), *LINEAR_B12X),
]

ATTN_B12X = ("--attention-backend", "B12X")

SWEEP9_CASES += [
    a("VLLM360", True, "0.31.0 --attention-backend B12X without b12x", vl_installed("0.31.0", QWEN30, R5090),
      *ATTN_B12X),
    a("VLLM360", False, "B12X attention with b12x installed", vl_installed("0.33.0", QWEN30, b12x="1.5.1"), *ATTN_B12X),
    a("VLLM360", False, "0.30.0: the B12X attention backend not read", vl_installed("0.30.0", QWEN30), *ATTN_B12X),
    a("VLLM360", False, "another attention backend", vl_installed("0.33.0", QWEN30), "--attention-backend",
      "TRITON_ATTN"),
]

QWEN38 = "Qwen/Qwen3.8-27B"  # bundled; its architecture is replaced by Qwen3.8-Flash-Next's (no config bundled)


def qwen4_exp(version, profile=PRO, architecture="Qwen4ExpForConditionalGeneration"):
    """Qwen3.8-Flash-Next stand-in: the rule reads only the architecture name the override is registered for."""
    def facts():
        base = build(profile, QWEN38, (f"sglang=={version}",))
        return base.replace(model=dataclasses.replace(base.model, architecture=architecture))
    return facts


FP8_INDEXER = ("--qsa-indexer-dtype", "fp8_e4m3")

SWEEP9_CASES += [
    a("SGL502", True, "0.5.22 fp8 indexer: first release with the flag", qwen4_exp("0.5.22"), *FP8_INDEXER),
    a("SGL502", True, "0.5.23 fp8 indexer on spark", qwen4_exp("0.5.23", SPARK), *FP8_INDEXER),
    a("SGL502", False, "0.5.21 has no --qsa-indexer-dtype", qwen4_exp("0.5.21"), *FP8_INDEXER),
    a("SGL502", False, "bfloat16 indexer", qwen4_exp("0.5.23"), "--qsa-indexer-dtype", "bfloat16"),
    a("SGL502", False, "auto is BF16", qwen4_exp("0.5.23")),
    a("SGL502", False, "B200 (SM100) runs the FP8 indexer", qwen4_exp("0.5.23", B200), *FP8_INDEXER),
    a("SGL502", False, "Hopper runs the FP8 indexer", qwen4_exp("0.5.23", H100), *FP8_INDEXER),
    a("SGL502", False, "another architecture never reads the flag",
      qwen4_exp("0.5.23", architecture="Qwen3_5ForConditionalGeneration"), *FP8_INDEXER),
]

NVFP4_ONLINE = ("--quantization", "nvfp4_online")

SWEEP9_CASES += [
    a("SGL503", True, "0.5.14 nvfp4_online: first release with it", sg("0.5.14", QWEN235_FP8), *NVFP4_ONLINE),
    a("SGL503", True, "0.5.23 nvfp4_online on a 5090", sg("0.5.23", QWEN30, R5090), *NVFP4_ONLINE),
    a("SGL503", True, "0.5.20 nvfp4_online on spark", sg("0.5.20", QWEN30, SPARK), *NVFP4_ONLINE),
    a("SGL503", False, "0.5.13 has no nvfp4_online", sg("0.5.13", QWEN235_FP8), *NVFP4_ONLINE),
    a("SGL503", False, "a published NVFP4 checkpoint", sg("0.5.23", DSV4_PRO_NVFP4), "--quantization", "modelopt_fp4"),
    a("SGL503", False, "no --quantization", sg("0.5.23", QWEN235_FP8)),
    a("SGL503", False, "B200 runs it", sg("0.5.23", QWEN235_FP8, B200), *NVFP4_ONLINE),
    a("SGL503", False, "Hopper is outside this doctor's scope", sg("0.5.23", QWEN235_FP8, H100), *NVFP4_ONLINE),
]

SR = ("--enable-mamba-cache-stochastic-rounding", "--mamba-ssm-dtype", "float16")

SWEEP9_CASES += [
    a("SGL504", True, "0.5.15 stochastic rounding on triton (default)", sg("0.5.15", QWEN38), *SR),
    a("SGL504", True, "0.5.23 explicit triton on spark", sg("0.5.23", QWEN38, SPARK), *SR, "--mamba-backend",
      "triton"),
    a("SGL504", False, "0.5.14 has no stochastic rounding", sg("0.5.14", QWEN38), *SR),
    a("SGL504", False, "flashinfer Mamba backend", sg("0.5.23", QWEN38), *SR, "--mamba-backend", "flashinfer"),
    a("SGL504", False, "bf16 SSM: the float16 check refuses first", sg("0.5.23", QWEN38),
      "--enable-mamba-cache-stochastic-rounding", "--mamba-ssm-dtype", "bfloat16"),
    a("SGL504", False, "no stochastic rounding", sg("0.5.23", QWEN38), "--mamba-ssm-dtype", "float16"),
    a("SGL504", False, "B200 has cvt.rs", sg("0.5.23", QWEN38, B200), *SR),
    a("SGL504", False, "Hopper is outside this doctor's scope", sg("0.5.23", QWEN38, H100), *SR),
]

EP = ("--moe-backend", "b12x", "--enable-expert-parallel")

SWEEP9_CASES += [
    a("VLLM361", True, "0.33.0 b12x with expert parallelism", vl_installed("0.33.0", b12x="1.5.1"), *EP),
    a("VLLM361", True, "0.29.0 b12x with EPLB on spark", vl_installed("0.29.0", profile=SPARK, b12x="1.2.6"),
      "--moe-backend", "b12x", "--enable-eplb"),
    a("VLLM361", False, "0.28.0 has no b12x MoE backend", vl_installed("0.28.0", b12x="1.2.4"), *EP),
    a("VLLM361", False, "tensor-parallel experts", vl_installed("0.33.0", b12x="1.5.1"), *B12X),
    a("VLLM361", False, "b12x missing: the device test fails first (VLLM360)", vl_installed("0.33.0"), *EP),
    a("VLLM361", False, "another backend with EP", vl_installed("0.33.0", b12x="1.5.1"), "--moe-backend",
      "flashinfer_cutlass", "--enable-expert-parallel"),
    a("VLLM361", False, "B200: b12x never passes its device test", vl_installed("0.33.0", profile=B200, b12x="1.5.1"),
      *EP),
    a("VLLM361", False, "Hopper is outside this doctor's scope", vl_installed("0.33.0", profile=H100, b12x="1.5.1"),
      *EP),
    a("VLLM361", False, "INT4 experts", vl_installed("0.33.0", KIMI_INT4, b12x="1.5.1"), *EP),
]
