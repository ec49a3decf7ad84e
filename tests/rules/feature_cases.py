"""Positive and boundary cases for the model-feature x backend rules of issue 25 (MOE020-039): a forced vLLM
`--moe-backend` against the experts' activation and format, with real configs (the known-good corpus' NVFP4
Nemotron-3-Super and Gemma-4 exports, bundled Qwen3 configs)."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

WS4, SPARK, H100, B200 = "rtx-pro-6000-ws-x4", "dgx-spark", "h100-sxm-x8", "b200-x8"
NEMOTRON_NVFP4 = "tests/knowngood/models/nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"  # mlp_hidden_act relu2
GEMMA4_NVFP4 = "tests/knowngood/models/nvidia--Gemma-4-26B-A4B-NVFP4"  # hidden_activation gelu_pytorch_tanh
QWEN_BF16, QWEN_FP8, GPTOSS = "Qwen/Qwen3-30B-A3B", "Qwen/Qwen3-235B-A22B-FP8", "openai/gpt-oss-120b"
QWEN36_NVFP4 = "tests/knowngood/models/nvidia--Qwen3.6-35B-A3B-NVFP4"  # ModelOpt NVFP4, excludes mtp*
MTP = '{"method":"mtp","num_speculative_tokens":3}'
MTP_MARLIN = '{"method":"mtp","num_speculative_tokens":3,"moe_backend":"marlin"}'
MTP_TRITON = '{"method":"mtp","num_speculative_tokens":3,"moe_backend":"triton"}'
B12X, FI_CUTLASS = ("--moe-backend", "flashinfer_b12x"), ("--moe-backend", "flashinfer_cutlass")


def vllm(version: str, model: str, profile: str = WS4, libs=()) -> Callable[[], Facts]:
    def facts() -> Facts:
        from doctor.probe.model import load_model

        return build(profile, None, (f"vllm=={version}",), libs=tuple(libs)).replace(
            model=load_model(model, {}, offline=True))
    return facts


FORCED_MOE_CASES = [
    a("MOE020", True, "relu2 on b12x 0.24.0", vllm("0.24.0", NEMOTRON_NVFP4), *B12X),
    a("MOE020", True, "relu2 on b12x 0.22.0 (first release with the flag value)", vllm("0.22.0", NEMOTRON_NVFP4),
      *B12X),
    a("MOE020", False, "relu2 on b12x 0.25.0 (relu2 added)", vllm("0.25.0", NEMOTRON_NVFP4), *B12X),
    a("MOE020", True, "gelu_tanh on b12x 0.24.0 on GB10", vllm("0.24.0", GEMMA4_NVFP4, SPARK), *B12X),
    a("MOE020", True, "gelu_tanh on b12x 0.27.0", vllm("0.27.0", GEMMA4_NVFP4), *B12X),
    a("MOE020", False, "gelu_tanh on b12x 0.28.0 (added)", vllm("0.28.0", GEMMA4_NVFP4), *B12X),
    a("MOE020", True, "gemma4 gelu on flashinfer_cutlass 0.20.0", vllm("0.20.0", GEMMA4_NVFP4), *FI_CUTLASS),
    a("MOE020", True, "gemma4 gelu_tanh on flashinfer_cutlass 0.23.0", vllm("0.23.0", GEMMA4_NVFP4), *FI_CUTLASS),
    a("MOE020", False, "gemma4 gelu_tanh on flashinfer_cutlass 0.24.0", vllm("0.24.0", GEMMA4_NVFP4), *FI_CUTLASS),
    a("MOE020", True, "relu2 on flashinfer_cutedsl 0.17.0 on B200 (family 100: the device test passes)",
      vllm("0.17.0", NEMOTRON_NVFP4, B200), "--moe-backend", "flashinfer_cutedsl"),
    a("MOE020", False, "relu2 on flashinfer_cutedsl 0.17.0 on SM12x: the device test refuses first",
      vllm("0.17.0", NEMOTRON_NVFP4), "--moe-backend", "flashinfer_cutedsl"),
    a("MOE020", False, "0.16.0 has no --moe-backend", vllm("0.16.0", NEMOTRON_NVFP4), *B12X),
    a("MOE020", False, "relu2 on marlin 0.24.0", vllm("0.24.0", NEMOTRON_NVFP4), "--moe-backend", "marlin"),
    a("MOE020", False, "relu2, auto 0.24.0", vllm("0.24.0", NEMOTRON_NVFP4)),
    a("MOE020", False, "relu2 on b12x on Hopper: the device test refuses first", vllm("0.24.0", NEMOTRON_NVFP4, H100),
      *B12X),
    a("MOE020", False, "silu on b12x 0.24.0 is not this rule's (bf16 experts: MOE021)", vllm("0.24.0", QWEN_BF16),
      *B12X),
    a("MOE020", False, "mxfp4 experts: only the MXFP4 value list is read (MOE021)", vllm("0.24.0", GPTOSS), *B12X),
    a("MOE021", True, "b12x for mxfp4 experts 0.24.0", vllm("0.24.0", GPTOSS), *B12X),
    a("MOE021", True, "cutlass for mxfp4 experts 0.19.0", vllm("0.19.0", GPTOSS), "--moe-backend", "cutlass"),
    a("MOE021", False, "marlin for mxfp4 experts 0.24.0", vllm("0.24.0", GPTOSS), "--moe-backend", "marlin"),
    a("MOE021", False, "mxfp4 experts 0.18.0: no MXFP4 oracle", vllm("0.18.0", GPTOSS), "--moe-backend", "cutlass"),
    a("MOE021", True, "marlin for bf16 experts 0.24.0", vllm("0.24.0", QWEN_BF16), "--moe-backend", "marlin"),
    a("MOE021", True, "marlin for bf16 experts 0.32.0", vllm("0.32.0", QWEN_BF16), "--moe-backend", "marlin"),
    a("MOE021", False, "marlin for bf16 experts 0.33.0 (read as auto)", vllm("0.33.0", QWEN_BF16),
      "--moe-backend", "marlin"),
    a("MOE021", True, "humming for bf16 experts 0.24.0", vllm("0.24.0", QWEN_BF16), "--moe-backend", "humming"),
    a("MOE021", False, "humming for bf16 experts 0.25.0 (read as auto)", vllm("0.25.0", QWEN_BF16),
      "--moe-backend", "humming"),
    a("MOE021", True, "marlin inherited by a BF16 MTP drafter 0.29.0", vllm("0.29.0", QWEN36_NVFP4), "--moe-backend",
      "marlin", "--speculative-config", MTP),
    a("MOE021", True, "marlin inherited by a BF16 MTP drafter 0.19.0", vllm("0.19.0", QWEN36_NVFP4), "--moe-backend",
      "marlin", "--speculative-config", MTP),
    a("MOE021", False, "MTP drafter with its own moe_backend", vllm("0.29.0", QWEN36_NVFP4), "--moe-backend",
      "marlin", "--speculative-config", MTP_TRITON),
    a("MOE021", False, "MTP drafter, 0.18.0 (no drafter moe_backend: not read)", vllm("0.18.0", QWEN36_NVFP4),
      "--moe-backend", "marlin", "--speculative-config", MTP),
    a("MOE021", False, "MTP drafter, marlin read as auto in 0.33.0", vllm("0.33.0", QWEN36_NVFP4), "--moe-backend",
      "marlin", "--speculative-config", MTP),
    a("MOE021", False, "no speculative decoding", vllm("0.29.0", QWEN36_NVFP4), "--moe-backend", "marlin"),
    a("MOE021", True, "the drafter's own moe_backend marlin, no target flag", vllm("0.29.0", QWEN36_NVFP4),
      "--speculative-config", MTP_MARLIN),
    a("MOE021", False, "the drafter's own moe_backend triton, no target flag", vllm("0.29.0", QWEN36_NVFP4),
      "--speculative-config", MTP_TRITON),
    a("MOE021", False, "MTP without any moe_backend", vllm("0.29.0", QWEN36_NVFP4), "--speculative-config", MTP),
    a("MOE021", False, "MTP drafter quantized with the target (no mtp exclusion)", vllm("0.29.0", NEMOTRON_NVFP4),
      "--moe-backend", "marlin", "--speculative-config", MTP),
    a("MOE021", True, "b12x for fp8 experts 0.24.0", vllm("0.24.0", QWEN_FP8), *B12X),
    a("MOE021", False, "marlin for fp8 experts 0.24.0", vllm("0.24.0", QWEN_FP8), "--moe-backend", "marlin"),
    a("MOE021", False, "b12x for nvfp4 experts 0.24.0", vllm("0.24.0", NEMOTRON_NVFP4), *B12X),
    a("MOE021", False, "marlin for bf16 experts with LoRA", vllm("0.24.0", QWEN_BF16), "--moe-backend", "marlin",
      "--enable-lora"),
    a("MOE021", False, "auto for bf16 experts", vllm("0.24.0", QWEN_BF16), "--moe-backend", "auto"),
    a("MOE021", False, "0.16.0 has no --moe-backend", vllm("0.16.0", QWEN_BF16), "--moe-backend", "marlin"),
    a("MOE022", True, "flashinfer_cutedsl for nvfp4 experts on SM120 0.24.0", vllm("0.24.0", NEMOTRON_NVFP4),
      "--moe-backend", "flashinfer_cutedsl"),
    a("MOE022", True, "flashinfer_cutedsl on GB10 0.17.0", vllm("0.17.0", NEMOTRON_NVFP4, SPARK),
      "--moe-backend", "flashinfer_cutedsl"),
    a("MOE022", True, "hpc for fp8 experts 0.25.0", vllm("0.25.0", QWEN_FP8), "--moe-backend", "hpc"),
    a("MOE022", False, "flashinfer_cutedsl on B200 (family 100)", vllm("0.24.0", NEMOTRON_NVFP4, B200),
      "--moe-backend", "flashinfer_cutedsl"),
    a("MOE022", False, "flashinfer_trtllm is MOE003's", vllm("0.24.0", NEMOTRON_NVFP4), "--moe-backend",
      "flashinfer_trtllm"),
    a("MOE022", False, "flashinfer_b12x runs on SM120", vllm("0.24.0", NEMOTRON_NVFP4), *B12X),
    a("MOE022", False, "flashinfer_cutlass runs on SM120", vllm("0.24.0", NEMOTRON_NVFP4), *FI_CUTLASS),
    a("MOE022", False, "0.16.0 has no --moe-backend", vllm("0.16.0", NEMOTRON_NVFP4), "--moe-backend",
      "flashinfer_cutedsl"),
]

GEMMA4_BF16, LLAMA, R5090 = "tests/cases/models/gemma-4-26b-a4b-it", "meta-llama/Llama-3.1-8B-Instruct", "rtx-5090"
FORCED_FI = ("--attention-backend", "FLASHINFER")
CUBIN_0616 = [lib("flashinfer-cubin", "0.6.16.post3")]
XQA_HEAD_512_CASES = [
    a("VLLM050", True, "gemma4 FLASHINFER 0.28.0 with flashinfer-cubin", vllm("0.28.0", GEMMA4_BF16, R5090, CUBIN_0616),
      *FORCED_FI),
    a("VLLM050", True, "gemma4 FLASHINFER 0.28.0 on GB10", vllm("0.28.0", GEMMA4_BF16, SPARK, CUBIN_0616), *FORCED_FI),
    a("VLLM050", False, "0.27.0: no XQA decode on SM12x", vllm("0.27.0", GEMMA4_BF16, R5090, CUBIN_0616), *FORCED_FI),
    a("VLLM050", False, "0.29.0 pins flashinfer-python 0.6.18", vllm("0.29.0", GEMMA4_BF16, R5090, CUBIN_0616),
      *FORCED_FI),
    a("VLLM050", False, "XQA turned off", vllm("0.28.0", GEMMA4_BF16, R5090, CUBIN_0616), *FORCED_FI,
      "--attention-config.use_trtllm_attention", "0"),
    a("VLLM050", False, "auto backend (TRITON_ATTN)", vllm("0.28.0", GEMMA4_BF16, R5090, CUBIN_0616)),
    a("VLLM050", False, "head 128 model", vllm("0.28.0", LLAMA, R5090, CUBIN_0616), *FORCED_FI),
    a("VLLM050", False, "no flashinfer-cubin: VLLM051", vllm("0.28.0", GEMMA4_BF16, R5090), *FORCED_FI),
    a("VLLM051", True, "gemma4 FLASHINFER 0.28.0, cubin unknown", vllm("0.28.0", GEMMA4_BF16, R5090), *FORCED_FI),
    a("VLLM051", False, "cubin installed: VLLM050", vllm("0.28.0", GEMMA4_BF16, R5090, CUBIN_0616), *FORCED_FI),
    a("VLLM051", False, "0.27.0", vllm("0.27.0", GEMMA4_BF16, R5090), *FORCED_FI),
    a("VLLM051", False, "Hopper is not this rule's", vllm("0.28.0", GEMMA4_BF16, H100), *FORCED_FI),
]

