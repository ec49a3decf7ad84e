"""Positive and boundary cases for rules/famarch.toml (DSP060-DSP063): the kernel family vLLM's own dispatch picks
(doctor/data/derived/vllm) against the images that release's PyPI wheel carries for the GPU
(doctor/data/wheel_archs.json, kernel families per file). test_rule_cases.py runs them;
tests/rules/test_error_boundaries.py sweeps each error rule's bounds from its positive cases here.

Boundaries read from the wheels: Marlin kernels for 16-bit activations (dense and MoE) are PTX-only on 12.0 up to
0.22.0 and have sm_120 SASS from 0.23.0 (vllm#40923); the FP8-activation Marlin kernels have sm_120 SASS from
0.12.0; the NVFP4 grouped GEMM of cutlass_moe_mm is sm_120a-only (no 12.1 image) in the aarch64 wheel of 0.14.0;
FlashAttention 2 is sm_80 + compute_80 in every wheel."""

from __future__ import annotations

import dataclasses

from doctor.engines.images import image_facts
from tests.rules.builders import a, build

PRO, R5090, SPARK, H100, B200 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8", "b200-x8"
QWEN_MOE, LLAMA = "Qwen/Qwen3-30B-A3B", "meta-llama/Llama-3.1-8B-Instruct"
NVFP4_DSV3 = "tests/cases/models/deepseek-v3.1-nvfp4"
AWQ = {"scheme": "awq", "method": "awq", "bits": 4}
FP8_INPUT = {"VLLM_MARLIN_INPUT_DTYPE": "fp8"}


def vl(version, model=QWEN_MOE, profile=PRO, env=None, quant=AWQ):
    return lambda: build(profile, model, (f"vllm=={version}",), env=env, quant=quant)


def in_image(case, image: str):
    """The same case launched in a container image (as `lint` hands the image over)."""
    return dataclasses.replace(case, launch_file=lambda: {"image": image_facts(image), "recipe": None})


FAMARCH_CASES = [
    # DSP062: Marlin MoE (16-bit activations) only as compute_80 PTX on 12.x, SASS from 0.23.0
    a("DSP062", True, "0.22.0, AWQ MoE on RTX PRO 6000: Marlin MoE a16 is sm_80 + compute_80", vl("0.22.0")),
    a("DSP062", True, "and on RTX 5090", vl("0.22.0", profile=R5090)),
    a("DSP062", True, "0.9.2, the first release with a table: dense Marlin (AWQMarlinLinearMethod)", vl("0.9.2")),
    a("DSP062", True, "0.22.0 on GB10: the aarch64 wheel's Marlin MoE a16 is sm_80 + compute_80 too",
      vl("0.22.0", profile=SPARK)),
    a("DSP062", False, "0.23.0 on GB10: sm_120f SASS serves 12.1", vl("0.23.0", profile=SPARK)),
    a("DSP062", False, "0.9.2 on GB10: PyPI has no aarch64 wheel of it (not derived)", vl("0.9.2", profile=SPARK)),
    a("DSP062", False, "0.23.0 ships sm_120f Marlin kernels", vl("0.23.0")),
    a("DSP062", False, "9.0: sm_90 SASS", vl("0.22.0", profile=H100)),
    a("DSP062", False, "10.0: not SM12x", vl("0.22.0", profile=B200)),
    a("DSP062", False, "BF16 MoE: no Marlin pick", vl("0.22.0", quant={"scheme": "bf16"})),
    a("DSP062", False, "FP8 activations (W4A8): those Marlin kernels have sm_120 SASS from 0.12.0",
      vl("0.22.0", env=FP8_INPUT)),
    a("DSP062", False, "a local build is not the PyPI wheel", vl("0.22.0+cu129")),
    a("DSP062", False, "0.8.5 has no derived table", vl("0.8.5")),
    # DSP063: FlashAttention 2 is compute_80 PTX on 12.x in every audited wheel
    a("DSP063", True, "0.33.0 Llama on RTX PRO 6000 picks FLASH_ATTN", vl("0.33.0", LLAMA, quant=None)),
    a("DSP063", False, "--attention-backend TRITON_ATTN moves attention off FlashAttention",
      vl("0.33.0", LLAMA, quant=None), "--attention-backend", "TRITON_ATTN"),
    a("DSP063", False, "9.0 runs FlashAttention 3", vl("0.33.0", LLAMA, H100, quant=None)),
    a("DSP063", True, "--attention-backend FLASH_ATTN forced and accepted", vl("0.33.0", LLAMA, quant=None),
      "--attention-backend", "FLASH_ATTN"),
    a("DSP060", False, "a forced FLASHMLA the release refuses for this shape launches no FlashMLA kernel",
      vl("0.33.0", LLAMA, quant=None), "--attention-backend", "FLASHMLA"),
    a("DSP063", False, "a release candidate is not the final PyPI wheel", vl("0.33.0rc1", LLAMA, quant=None)),
    # DSP060: NVFP4 MoE on VLLM_CUTLASS on GB10 with 0.14.0, whose aarch64 wheel has the grouped GEMM as sm_120a
    a("DSP060", True, "0.14.0, DeepSeek-V3.1 NVFP4 on GB10: VLLM_CUTLASS grouped GEMM only sm_120a",
      vl("0.14.0", NVFP4_DSV3, SPARK, quant=None)),
    a("DSP060", True, "0.15.0 on GB10, the same pick and images", vl("0.15.0", NVFP4_DSV3, SPARK, quant=None)),
    a("DSP060", False, "12.0 runs the sm_120a image", vl("0.14.0", NVFP4_DSV3, PRO, quant=None)),
    a("DSP060", False, "10.0: B200 runs the sm_100a image",
      vl("0.14.0", NVFP4_DSV3, B200, quant=None)),
    a("DSP060", False, "0.20.0's aarch64 wheel has SASS for 12.1 (and 0.19.0 picks FlashInfer here)",
      vl("0.20.0", NVFP4_DSV3, SPARK, quant=None)),
    a("DSP060", False, "a forced --moe-backend the grid did not ask is not derived",
      vl("0.14.0", NVFP4_DSV3, SPARK, quant=None), "--moe-backend", "marlin"),
    a("DSP060", False, "a BF16 model on GB10 picks no cutlass_moe_mm", vl("0.14.0", QWEN_MOE, SPARK, quant=None)),
    # a container image carries its own build: NGC's vLLM 0.11.1 (nvcr.io/nvidia/vllm:26.01-py3) is not the wheel
    in_image(a("DSP062", False, "the same GB10 deployment in NGC's vLLM image", vl("0.22.0", profile=SPARK)),
             "nvcr.io/nvidia/vllm:26.01-py3"),
    in_image(a("DSP060", False, "the same GB10 NVFP4 deployment in a container image",
               vl("0.14.0", NVFP4_DSV3, SPARK, quant=None)), "vllm/vllm-openai:v0.14.0"),
    # DSP064: a derived deployment whose build no audited wheel stands for
    a("DSP064", True, "0.10.0 on GB10: PyPI has no aarch64 wheel of it", vl("0.10.0", profile=SPARK)),
    a("DSP064", True, "a local build of 0.22.0", vl("0.22.0+cu129")),
    a("DSP064", False, "0.22.0 on GB10: its aarch64 wheel is audited", vl("0.22.0", profile=SPARK)),
    a("DSP064", False, "0.8.5 has no derived table (DSP009 says so)", vl("0.8.5")),
    a("DSP064", False, "0.10.0 refuses this NVFP4 MoE shape: nothing launches (DSP001 says so)",
      vl("0.10.0", "nvidia/Qwen3.6-35B-A3B-NVFP4", "rtx-pro-6000", quant=None)),
]
