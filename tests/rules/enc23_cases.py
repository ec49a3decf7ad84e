"""Positive and boundary cases for the rules of task enc23 (rules/enc23.toml): the classes of the spent held-out
samples 1-3. test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib
from tests.rules.log_line_cases import logged

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
QWEN36_NVFP4 = "nvidia/Qwen3.6-35B-A3B-NVFP4"  # ModelOpt MIXED_PRECISION: FP8 linear-attention projections
LLAMA70_FP8 = "nvidia/Llama-3.1-70B-Instruct-FP8"  # ModelOpt FP8: per-tensor
GLM47_FP8 = "zai-org/GLM-4.7-FP8"  # per-channel FP8: not FlashInfer's scaled-mm
QWEN3_FP8 = "Qwen/Qwen3-32B-FP8"  # block FP8: other kernels
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"  # BF16
EAGER = ("--enforce-eager",)


def vllm(version: str, model: str = QWEN36_NVFP4, profile: str = SPARK, flashinfer: str | None = None,
         cudnn: str | None = None, env: dict[str, str] | None = None) -> Callable[[], Facts]:
    """vLLM at `version` with flashinfer-python `flashinfer` installed beside it (None: the wheel's pin) and the
    cuDNN `cudnn` (None: not stated)."""
    libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
    libs += (lib("cudnn", cudnn),) if cudnn else ()
    return lambda: build(profile, model, (f"vllm=={version}",), libs=libs, env=env)


ENC23_CASES = [
    # FI140: FlashInfer 0.6.11-0.6.17 bmm_fp8(auto) keeps cuDNN's FP8 GEMM on SM12x below cuDNN 9.23.1
    a("FI140", True, "vllm#49926: 0.25.1 (FlashInfer 0.6.13 pin), Qwen3.6 NVFP4 mixed FP8 on GB10", vllm("0.25.1")),
    a("FI140", True, "the same on an RTX PRO 6000 (12.0)", vllm("0.25.1", profile=PRO)),
    a("FI140", True, "per-tensor FP8 checkpoint on an RTX 5090, FlashInfer 0.6.15.post1 (flashinfer#4165)",
      vllm("0.26.0", LLAMA70_FP8, R5090, flashinfer="0.6.15.post1")),
    a("FI140", True, "FlashInfer 0.6.11 (first with #2914)", vllm("0.22.0", flashinfer="0.6.11")),
    a("FI140", True, "FlashInfer 0.6.17 (last without the gate)", vllm("0.28.0", flashinfer="0.6.17")),
    a("FI140", True, "cuDNN 9.19 stated (vLLM 0.24.0's environment)", vllm("0.24.0", cudnn="9.19.0.56")),
    a("FI140", True, "cuDNN 9.23.0: below override_shape", vllm("0.24.0", cudnn="9.23.0")),
    a("FI140", True, "vllm#49926's nightly 0.25.1.dev24 (no pins read: the releases around it)",
      vllm("0.25.1.dev24")),
    a("FI140", False, "a 0.28.1 development build: may already pin 0.6.18", vllm("0.28.1.dev3")),
    a("FI140", False, "a 0.21.1 release candidate: before the 0.6.11 pins", vllm("0.21.1rc1")),
    a("FI140", False, "a development build with FlashInfer 0.6.18 stated", vllm("0.25.1.dev24",
      flashinfer="0.6.18")),
    a("FI140", False, "FlashInfer 0.6.10.post1: before #2914", vllm("0.24.0", flashinfer="0.6.10.post1")),
    a("FI140", False, "FlashInfer 0.6.18 gates cuDNN out on SM12x", vllm("0.24.0", flashinfer="0.6.18")),
    a("FI140", False, "vLLM 0.29.0 pins FlashInfer 0.6.18", vllm("0.29.0")),
    a("FI140", False, "vLLM 0.21.0 pins FlashInfer 0.6.8.post1", vllm("0.21.0")),
    a("FI140", False, "cuDNN 9.23.1 has override_shape: cuDNN kept, and clean in #4165", vllm("0.24.0",
      cudnn="9.23.1")),
    a("FI140", False, "Hopper: FlashInfer's FP8 scaled-mm needs capability 100", vllm("0.25.1", profile=H100)),
    a("FI140", False, "B200: not the SM12x path", vllm("0.25.1", profile=B200)),
    a("FI140", False, "eager mode (clean in vllm#55571)", vllm("0.25.1"), *EAGER),
    a("FI140", False, "the kernel disabled", vllm("0.25.1", env={
      "VLLM_DISABLED_KERNELS": "FlashInferFP8ScaledMMLinearKernel"})),
    a("FI140", False, "per-channel FP8 does not reach FlashInfer's scaled-mm", vllm("0.25.1", GLM47_FP8)),
    a("FI140", False, "block FP8 uses other kernels", vllm("0.25.1", QWEN3_FP8)),
    a("FI140", False, "BF16: no FP8 linear layers", vllm("0.25.1", LLAMA)),

    # DRV040: a log (or issue body) that says a GB10's clock is stuck low
    logged("DRV040", True, "spark-vllm-docker#334's account of the 702 MHz clock", SPARK),
    logged("DRV040", False, "check: no log", SPARK, shown=()),
    logged("DRV040", False, "another rule's line", SPARK, shown=("TRI010",)),

    # ATTN020: flash-attn-4's TMA O-store AttributeError, a log line only
    logged("ATTN020", True, "flash-attention#2453 on an RTX 5060 Ti (12.0)", "rtx-5060-ti-16gb"),
    logged("ATTN020", True, "the same line on GB10", SPARK),
    logged("ATTN020", False, "Hopper builds the TMA atom: another cause", H100),
    logged("ATTN020", False, "B200: not the SM12x path", B200),
    logged("ATTN020", False, "check: no log", R5090, shown=()),

    # ATTN021: flash-attn-4 installed or stated before 4.0.0b21 on SM12x
    a("ATTN021", True, "flash-attention#2453: 4.0.0b8 on an RTX 5060 Ti", lambda: build("rtx-5060-ti-16gb",
      libs=(lib("flash-attn-4", "4.0.0b8"),))),
    a("ATTN021", True, "flash-attention#2649: 4.0.0b16 on GB10", lambda: build(SPARK,
      libs=(lib("flash-attn-4", "4.0.0b16"),))),
    a("ATTN021", True, "4.0.0b20: the last tag with the TMA store on SM12x", lambda: build(PRO,
      libs=(lib("flash-attn-4", "4.0.0b20"),))),
    a("ATTN021", False, "4.0.0b21 stores O without TMA on SM12x", lambda: build(PRO,
      libs=(lib("flash-attn-4", "4.0.0b21"),))),
    a("ATTN021", False, "Hopper builds the TMA atom", lambda: build(H100, libs=(lib("flash-attn-4", "4.0.0b8"),))),
    a("ATTN021", False, "B200: the SM100 forward", lambda: build(B200, libs=(lib("flash-attn-4", "4.0.0b8"),))),
    a("ATTN021", False, "not installed", lambda: build(PRO)),
]
