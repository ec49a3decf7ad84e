"""Positive and boundary cases for the gapV rules (rules/gapV.toml); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

PRO, MAXQ, SPARK, B200 = "rtx-pro-6000", "rtx-pro-6000-maxq", "dgx-spark", "b200-x8"
QWEN35_NVFP4 = "nvidia/Qwen3.5-122B-A10B-NVFP4"
QWEN35_BF16 = "Qwen/Qwen3.5-122B-A10B"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"


def vl(version, profile=PRO, model=QWEN35_NVFP4, *extra):
    return lambda: build(profile, model, engines=(f"vllm=={version}", *extra))


def stated_cudnn(version):
    """vLLM 0.25.1 with nvidia-cudnn stated beside it (`--engine nvidia-cudnn-cu13==X`), not the torch pin."""
    return lambda: build(PRO, QWEN35_NVFP4, engines=("vllm==0.25.1", f"nvidia-cudnn-cu13=={version}"))


def logged(rule, fires, why, profile, engines=(), shown=None):
    """`diagnose` on `profile` with `shown` (default: the rule itself) as the rules the log's signatures named;
    `shown=()` is `check` (no log)."""
    log = None if shown == () else {"signatures": [rule] if shown is None else list(shown)}
    return Case(rule, fires, lambda: build(profile, engines=tuple(engines)), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


GAPV_CASES = [
    # VLLM600: cuDNN >= 9.19, < 9.23.1 (torch 2.11/2.13 pins) on 12.0, NVFP4 MoE, CUDA graphs (vllm#35566)
    a("VLLM600", True, "vllm#35566: 0.25.1 on an RTX PRO 6000 Max-Q, torch 2.11.0+cu130 (cuDNN 9.19.0.56)",
      vl("0.25.1", MAXQ, QWEN35_NVFP4, "torch==2.11.0+cu130")),
    a("VLLM600", True, "0.20.0: the first release pinning torch 2.11.0", vl("0.20.0")),
    a("VLLM600", True, "0.32.0: torch 2.13.0 pins cuDNN 9.20.0.48, still before 9.23.1", vl("0.32.0")),
    a("VLLM600", True, "cuDNN 9.23.0 stated: just before the fix", stated_cudnn("9.23.0")),
    a("VLLM600", False, "cuDNN 9.23.1 stated: the fixed release", stated_cudnn("9.23.1")),
    a("VLLM600", False, "0.19.0: torch 2.10.0 pins cuDNN 9.10.2.21, not the reported 9.19", vl("0.19.0")),
    a("VLLM600", False, "0.33.0: torch 2.14.0 pins cuDNN 9.24.0.43", vl("0.33.0")),
    a("VLLM600", False, "a torch built for CUDA 12 (+cu128) is not the PyPI cu13 wheel: its cuDNN is not known",
      vl("0.25.1", PRO, QWEN35_NVFP4, "torch==2.11.0+cu128")),
    a("VLLM600", False, "--enforce-eager: stable in the report", vl("0.25.1"), "--enforce-eager"),
    a("VLLM600", False, "TP 2: the report crashed at TP 1 only", vl("0.25.1", "rtx-pro-6000-x8"),
      "--tensor-parallel-size", "2"),
    a("VLLM600", True, "TP 1 on an eight-GPU host", vl("0.25.1", "rtx-pro-6000-x8"), "--tensor-parallel-size", "1"),
    a("VLLM600", False, "BF16 weights: the report's model is NVFP4", vl("0.25.1", PRO, QWEN35_BF16)),
    a("VLLM600", False, "a dense model: no MoE", vl("0.25.1", PRO, LLAMA)),
    a("VLLM600", False, "DGX Spark (12.1): the report is sm_120", vl("0.25.1", SPARK)),
    a("VLLM600", False, "B200 (10.0): outside the report", vl("0.25.1", B200)),
    # VLLM601: vLLM's enable_sm120_only printf on a 12.1 GPU, vLLM before 0.22.0 (eugr/spark-vllm-docker#143)
    logged("VLLM601", True, "spark-vllm-docker#143: the line on a DGX Spark (0.20.0 for its unstated build)", SPARK,
           ("vllm==0.20.0",)),
    logged("VLLM601", True, "0.21.0: the last release with enable_sm120_only", SPARK, ("vllm==0.21.0",)),
    logged("VLLM601", True, "0.19.0", SPARK, ("vllm==0.19.0",)),
    logged("VLLM601", False, "0.22.0: enable_sm120_family, no enable_sm120_only left", SPARK, ("vllm==0.22.0",)),
    logged("VLLM601", False, "RTX PRO 6000 (12.0): the guard runs the kernel there", PRO, ("vllm==0.21.0",)),
    logged("VLLM601", False, "B200 (10.0): not SM12x", B200, ("vllm==0.21.0",)),
    logged("VLLM601", False, "check: no log", SPARK, ("vllm==0.21.0",), shown=()),
    logged("VLLM601", False, "another rule's line", SPARK, ("vllm==0.21.0",), shown=("VLLM600",)),
    # VLLM602: a stack standing in the Triton top-k/top-p kernel of the start-up dummy run (vllm#42987)
    logged("VLLM602", True, "vllm#42987: the py-spy line on an RTX 5090", "rtx-5090"),
    logged("VLLM602", True, "the line on a DGX Spark", SPARK, ("vllm==0.20.0",)),
    logged("VLLM602", False, "H100 (9.0): outside SM12x", "h100-sxm-x8", ("vllm==0.20.0",)),
    logged("VLLM602", False, "check: no log", "rtx-5090", ("vllm==0.20.0",), shown=()),
    logged("VLLM602", False, "another rule's line", "rtx-5090", ("vllm==0.20.0",), shown=("VLLM601",)),
]
