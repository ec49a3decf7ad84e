"""Positive and boundary cases for the know-sgl rules (rules/sglang_sm12x_2026.toml, SGL180-SGL199);
test_rule_cases.py runs them with the rest (and test_error_boundaries.py sweeps the error rules)."""

from __future__ import annotations

from tests.rules.builders import a, build, lib

PRO, R5090, SPARK, H100, B200 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"
KIMI_NVFP4, DSV31_NVFP4 = "nvidia/Kimi-K2-Thinking-NVFP4", "tests/cases/models/deepseek-v3.1-nvfp4"
QWEN36_NVFP4, NEMO_NVFP4 = "tests/cases/models/qwen3.6-35b-a3b-nvfp4", "tests/cases/models/minimax-m2.1-nvfp4"
KIMI_INT4, DSV3 = "moonshotai/Kimi-K2.5", "deepseek-ai/DeepSeek-V3"


def sg(version, model=KIMI_NVFP4, profile=PRO, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


KNOW_SGL_CASES = [
    a("SGL180", True, "0.5.19 Kimi-K2-Thinking NVFP4 on pro 6000", sg("0.5.19")),
    a("SGL180", True, "0.5.14 first release read", sg("0.5.14", DSV31_NVFP4)),
    a("SGL180", True, "0.5.23 newest read, qwen3.6 nvfp4 on spark", sg("0.5.23", QWEN36_NVFP4, SPARK)),
    a("SGL180", True, "0.5.16 on 5090", sg("0.5.16", DSV31_NVFP4, R5090)),
    a("SGL180", True, "--moe-runner-backend auto is the default", sg("0.5.19"), "--moe-runner-backend", "auto"),
    a("SGL180", True, "0.5.13 bare checkpoint", sg("0.5.13")),
    a("SGL180", False, "0.5.13 with --quantization modelopt_fp4: the SM12x hook", sg("0.5.13"),
      "--quantization", "modelopt_fp4"),
    a("SGL180", True, "0.5.12.post1: no hook, the flag does not help", sg("0.5.12.post1"),
      "--quantization", "modelopt_fp4"),
    a("SGL180", True, "0.5.11: first release with the unconditional default", sg("0.5.11", DSV31_NVFP4, SPARK)),
    a("SGL180", False, "0.5.10.post1: no runner for auto", sg("0.5.10.post1")),
    a("SGL180", False, "0.5.24 not read", sg("0.5.24")),
    a("SGL180", False, "--quantization modelopt_fp4: the SM120 hook picks flashinfer_cutlass", sg("0.5.19"),
      "--quantization", "modelopt_fp4"),
    a("SGL180", False, "runner named", sg("0.5.19"), "--moe-runner-backend", "flashinfer_cutlass"),
    a("SGL180", False, "a2a backend named", sg("0.5.19"), "--moe-a2a-backend", "deepep"),
    a("SGL180", False, "int4 (compressed-tensors) Kimi", sg("0.5.19", KIMI_INT4)),
    a("SGL180", False, "fp8 DeepSeek-V3", sg("0.5.19", DSV3)),
    a("SGL180", False, "MiniMax-M2: architecture not read, not claimed", sg("0.5.19", NEMO_NVFP4)),
    a("SGL180", False, "hopper: marlin", sg("0.5.19", profile=H100)),
]


def kernel_torch(sglang, kernel, torch, profile=SPARK):
    return lambda: build(profile, None, (f"sglang=={sglang}",),
                         libs=(lib("sgl-kernel", kernel), lib("torch", torch)) if kernel else (lib("torch", torch),))


KNOW_SGL_CASES += [
    a("SGL181", False, "0.4.4+cu130 with torch 2.12.1 (sglang#29317): a measured pair, PIN002's error",
      kernel_torch("0.5.14", "0.4.4+cu130", "2.12.1+cu130")),
    a("PIN002", True, "0.4.4+cu130 with torch 2.12.1 (sglang#29317)",
      kernel_torch("0.5.14", "0.4.4+cu130", "2.12.1+cu130")),
    a("SGL181", True, "0.3.21 with torch 2.11 on 5090", kernel_torch("0.5.9", "0.3.21", "2.11.0", R5090)),
    a("SGL181", True, "0.4.7 with torch 2.14.1 on pro 6000", kernel_torch("0.5.20", "0.4.7", "2.14.1+cu130", PRO)),
    a("SGL181", False, "0.4.4 with its own torch 2.11.0+cu130", kernel_torch("0.5.14", "0.4.4+cu130", "2.11.0+cu130")),
    a("SGL181", False, "patch release of the same minor", kernel_torch("0.5.9", "0.3.21", "2.9.0")),
    a("SGL181", False, "kernel not in the table", kernel_torch("0.5.9", "0.0.1", "2.9.0")),
    a("SGL181", True, "0.1.2.post1 (built for 2.6) with a 2.9 nightly (sglang#8373)",
      kernel_torch("0.4.9.post2", "0.1.2.post1", "2.9.0.dev20250722+cu128", R5090)),
    a("SGL181", False, "what-if SGLang alone: pip brings its own torch", kernel_torch("0.5.14", None, "2.12.1")),
    a("SGL181", True, "not a GPU matter: hopper too", kernel_torch("0.5.9", "0.3.21", "2.11.0", H100)),
]

QWEN235_FP8, GLM_FP8_CHANNEL = "Qwen/Qwen3-235B-A22B-FP8", "zai-org/GLM-4.7-FP8"
CUT = ("--moe-runner-backend", "cutlass")

KNOW_SGL_CASES += [
    a("SGL182", True, "0.5.19 qwen3 235b fp8 on pro 6000", sg("0.5.19", QWEN235_FP8), *CUT),
    a("SGL182", True, "0.5.3.post2: first release with the choice", sg("0.5.3.post2", DSV3, R5090), *CUT),
    a("SGL182", True, "0.5.23 on spark", sg("0.5.23", QWEN235_FP8, SPARK), *CUT),
    a("SGL182", False, "0.5.3.post1: no cutlass choice", sg("0.5.3.post1", QWEN235_FP8), *CUT),
    a("SGL182", False, "0.5.24 not read", sg("0.5.24", QWEN235_FP8), *CUT),
    a("SGL182", False, "kernel 0.4.11 not read", sg("0.5.23", QWEN235_FP8, libs=(lib("sgl-kernel", "0.4.11"),)), *CUT),
    a("SGL182", False, "triton runner", sg("0.5.19", QWEN235_FP8), "--moe-runner-backend", "triton"),
    a("SGL182", False, "per-channel fp8", sg("0.5.19", GLM_FP8_CHANNEL), *CUT),
    a("SGL182", False, "nvfp4 (cutlass fp4 path)", sg("0.5.19"), *CUT),
    a("SGL182", False, "hopper", sg("0.5.19", QWEN235_FP8, H100), *CUT),
]

GPTOSS = "openai/gpt-oss-20b"

KNOW_SGL_CASES += [
    a("SGL183", True, "0.5.16 gpt-oss on 5090: marlin", sg("0.5.16", GPTOSS, R5090)),
    a("SGL183", True, "0.5.14 gpt-oss on spark", sg("0.5.14", GPTOSS, SPARK)),
    a("SGL183", False, "0.5.13: triton_kernel", sg("0.5.13", GPTOSS, R5090)),
    a("SGL183", False, "0.5.17: flashinfer cutlass mxfp4", sg("0.5.17", GPTOSS, R5090)),
    a("SGL183", False, "runner named", sg("0.5.16", GPTOSS, R5090), "--moe-runner-backend", "triton"),
    a("SGL183", False, "not mxfp4", sg("0.5.16", QWEN235_FP8, R5090)),
    a("SGL183", False, "hopper", sg("0.5.16", GPTOSS, H100)),
]


def trt(version, model=GPTOSS, profile=SPARK):
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",))


LLAMA, QWEN3_MOE = "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B"

KNOW_SGL_CASES += [
    a("TRT030", True, "gpt-oss --backend tensorrt on spark", trt("1.2.0"), "--backend", "tensorrt"),
    a("TRT030", True, "trt alias on pro 6000", trt("1.1.0", profile=PRO), "--backend", "trt"),
    a("TRT030", True, "not a GPU matter: hopper too", trt("1.2.0", profile=H100), "--backend", "tensorrt"),
    a("TRT030", False, "default (pytorch) backend", trt("1.2.0")),
    a("TRT030", False, "--backend pytorch", trt("1.2.0"), "--backend", "pytorch"),
    a("TRT030", False, "llama is in MODEL_MAP", trt("1.2.0", LLAMA), "--backend", "tensorrt"),
    a("TRT031", True, "qwen3 moe --backend tensorrt", trt("1.2.0", QWEN3_MOE), "--backend", "tensorrt"),
    a("TRT031", True, "deepseek-v3 --backend trt", trt("1.2.0", DSV3, PRO), "--backend", "trt"),
    a("TRT031", False, "llama is in MODEL_MAP", trt("1.2.0", LLAMA), "--backend", "tensorrt"),
    a("TRT031", False, "gpt-oss is TRT030's", trt("1.2.0"), "--backend", "tensorrt"),
    a("TRT031", False, "pytorch backend", trt("1.2.0", QWEN3_MOE)),
]

DSV4 = "tests/cases/models/deepseek-v4-flash"

KNOW_SGL_CASES += [
    a("TRT032", True, "1.3.0rc24 dsv4 on pro 6000", trt("1.3.0rc24", DSV4, PRO)),
    a("TRT032", True, "1.3.0rc20 dsv4 on spark", trt("1.3.0rc20", DSV4, SPARK)),
    a("TRT032", False, "1.3.0rc25 not read", trt("1.3.0rc25", DSV4, PRO)),
    a("TRT032", False, "1.2.1: no 1.3 pre-release", trt("1.2.1", DSV4, PRO)),
    a("TRT032", False, "deepseek-v3", trt("1.3.0rc24", DSV3, PRO)),
    a("TRT032", False, "blackwell datacenter", trt("1.3.0rc24", DSV4, "b200-x8")),
]


def nccl(version, profile="rtx-5090-x2"):
    return lambda: build(profile, None, libs=(lib("nccl", version),))


KNOW_SGL_CASES += [
    a("NCCL010", True, "2.27.5+cuda12.4 on two 5090 (nccl#1852)", nccl("2.27.5+cuda12.4")),
    a("NCCL010", True, "2.26.2+cuda12.2 on pro 6000 x8", nccl("2.26.2+cuda12.2", PRO)),
    a("NCCL010", True, "+cuda12.7", nccl("2.28.3+cuda12.7")),
    a("NCCL010", False, "+cuda12.8 has sm_120", nccl("2.27.5+cuda12.8")),
    a("NCCL010", False, "+cuda12.9", nccl("2.31.2+cuda12.9", PRO)),
    a("NCCL010", False, "+cuda13.0", nccl("2.28.3+cuda13.0")),
    a("NCCL010", False, "build not stated", nccl("2.27.5")),
    a("NCCL010", False, "one GPU", nccl("2.27.5+cuda12.4", R5090)),
    a("NCCL010", False, "hopper", nccl("2.27.5+cuda12.4", H100)),
]


def in_image(rule, fires, why, image, model, profile=SPARK):
    from doctor.engines.images import image_facts
    from tests.rules.builders import Case

    return Case(rule, fires, lambda: build(profile, model, ("sglang==0.5.3.post3",)), (), (), why,
                lambda: {"image": image_facts(image), "recipe": None})


QWEN35_VL = "tests/cases/models/qwen3.5-35b-a3b"

KNOW_SGL_CASES += [
    in_image("SGL184", True, "spark image, vision model", "lmsysorg/sglang:spark", QWEN35_VL),
    in_image("SGL184", True, "docker.io spelling", "docker.io/lmsysorg/sglang:spark", "moonshotai/Kimi-K2.5"),
    in_image("SGL184", False, "text-only model", "lmsysorg/sglang:spark", LLAMA),
    in_image("SGL184", False, "NGC image", "nvcr.io/nvidia/sglang:26.02-py3", QWEN35_VL),
    in_image("SGL184", False, "a release image", "lmsysorg/sglang:v0.5.3.post3-cu129", QWEN35_VL),
]

NVFP4_MOE = "tests/cases/models/qwen3.6-35b-a3b-nvfp4"

KNOW_SGL_CASES += [
    a("TRT033", True, "1.3.0rc2 nvfp4 on spark", trt("1.3.0rc2", NVFP4_MOE, SPARK)),
    a("TRT033", True, "1.2.1 nvfp4 on 5090", trt("1.2.1", NVFP4_MOE, R5090)),
    a("TRT033", True, "1.3.0rc7, the last tag cut before PR #12141", trt("1.3.0rc7", NVFP4_MOE, SPARK)),
    a("TRT033", False, "1.3.0rc8 not read", trt("1.3.0rc8", NVFP4_MOE, SPARK)),
    a("TRT033", False, "0.20.0 before 1.0", trt("0.20.0", NVFP4_MOE, SPARK)),
    a("TRT033", False, "fp8 model", trt("1.3.0rc2", QWEN235_FP8, SPARK)),
    a("TRT033", False, "b200", trt("1.3.0rc2", NVFP4_MOE, "b200-x8")),
]
