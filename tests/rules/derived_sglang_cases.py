"""Cases of the SGLang derived findings (DSP020-DSP029): what SGLang's own selection decided on an emulated
device (doctor/data/derived/sglang/<release>.json), each positive with negatives just outside it (the other
capabilities, the same launch with one choice changed, a release the tables do not hold)."""

from __future__ import annotations

from tests.rules.builders import a, build

PRO, SPARK, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "h100-sxm-x8", "b200-x8"
DSV3, LLAMA, GPTOSS = "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-120b"
QWEN235_FP8, KIMI = "Qwen/Qwen3-235B-A22B-FP8", "moonshotai/Kimi-K2.5"
NVFP4_MOE = {"scheme": "nvfp4", "method": "modelopt", "quantized": ("routed_experts",)}
NO_DEEP_GEMM = {"SGLANG_ENABLE_JIT_DEEPGEMM": "0"}


def sg(version, model=LLAMA, profile=PRO, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


DERIVED_SGLANG_CASES = [
    # SGLang refuses the launch (server args or model construction) for this shape on this GPU
    a("DSP020", True, "TRT-LLM MHA forced on 12.0: SM100 only", sg("0.5.9"), "--attention-backend", "trtllm_mha"),
    a("DSP020", True, "and on 12.1", sg("0.5.9", profile=SPARK), "--attention-backend", "trtllm_mha"),
    a("DSP020", False, "FlashInfer forced on 12.0: accepted", sg("0.5.9"), "--attention-backend", "flashinfer"),
    a("DSP020", False, "no override", sg("0.5.9")),
    a("DSP020", False, "TRT-LLM MHA on 10.0: not in the control grid", sg("0.5.9", profile=B200),
      "--attention-backend", "trtllm_mha"),
    a("DSP020", True, "TRT-LLM MHA prefill forced on 12.0 in 0.5.16", sg("0.5.16"),
      "--attention-backend", "trtllm_mha"),
    a("DSP020", False, "TRT-LLM MHA forced on 12.0 in 0.5.23: accepted (server args)", sg("0.5.23"),
      "--attention-backend", "trtllm_mha"),
    a("DSP020", True, "gpt-oss with FlashInfer attention in 0.5.23 too", sg("0.5.23", GPTOSS),
      "--attention-backend", "flashinfer"),
    a("DSP020", True, "gpt-oss with FlashInfer attention: the model's own backend list", sg("0.5.9", GPTOSS),
      "--attention-backend", "flashinfer"),
    a("DSP020", False, "gpt-oss with Triton attention", sg("0.5.9", GPTOSS), "--attention-backend", "triton"),
    a("DSP020", True, "CUTLASS FP8 MoE forced on 12.0: SM90/SM100 only", sg("0.5.9", DSV3),
      "--moe-runner-backend", "cutlass"),
    a("DSP020", False, "Triton MoE forced on 12.0", sg("0.5.9", DSV3), "--moe-runner-backend", "triton"),
    a("DSP020", True, "ModelOpt NVFP4 without --quantization modelopt_fp4", sg("0.5.9", "Qwen/Qwen3-30B-A3B",
                                                                           quant=NVFP4_MOE)),
    a("DSP020", False, "with --quantization modelopt_fp4", sg("0.5.9", "Qwen/Qwen3-30B-A3B", quant=NVFP4_MOE),
      "--quantization", "modelopt_fp4"),
    a("DSP020", True, "explicit FlashInfer TRT-LLM FP8 GEMM on 12.0 in 0.5.10: SM100 gate", sg("0.5.10", DSV3),
      "--fp8-gemm-backend", "flashinfer_trtllm"),
    a("DSP020", True, "and on 12.1", sg("0.5.10", DSV3, SPARK), "--fp8-gemm-backend", "flashinfer_trtllm"),
    a("DSP020", False, "0.5.9 builds it (its kernels are SGL109's business)", sg("0.5.9", DSV3),
      "--fp8-gemm-backend", "flashinfer_trtllm"),
    a("DSP020", False, "explicit Triton FP8 GEMM in 0.5.10", sg("0.5.10", DSV3), "--fp8-gemm-backend", "triton"),
    a("DSP020", False, "NVFP4 without the format flag in 0.5.10: detected", sg("0.5.10", "Qwen/Qwen3-30B-A3B",
                                                                             quant=NVFP4_MOE)),
    # 0.5.3's ModelOptNvFp4FusedMoEMethod: `if not is_sm100_supported(): raise ValueError` (major 10 only)
    a("DSP020", True, "ModelOpt NVFP4 MoE on 12.0 in 0.5.3: SM100 only", sg("0.5.3", "Qwen/Qwen3-30B-A3B",
                                                                          quant=NVFP4_MOE),
      "--quantization", "modelopt_fp4"),
    a("DSP020", True, "and on 12.1", sg("0.5.3", "Qwen/Qwen3-30B-A3B", SPARK, quant=NVFP4_MOE),
      "--quantization", "modelopt_fp4"),
    a("DSP020", False, "0.5.5 builds it", sg("0.5.5", "Qwen/Qwen3-30B-A3B", quant=NVFP4_MOE),
      "--quantization", "modelopt_fp4"),
    a("DSP020", False, "0.5.3 on 10.0 builds it", sg("0.5.3", "Qwen/Qwen3-30B-A3B", B200, quant=NVFP4_MOE),
      "--quantization", "modelopt_fp4"),
    # a JIT DeepGEMM kernel picked where the installed DeepGEMM has no sources for the architecture
    a("DSP021", True, "block-FP8 linear layers on DeepGEMM on 12.0", sg("0.5.9", DSV3)),
    a("DSP021", False, "12.1: GB10 machines install aarch64 kernel wheels, not the table's x86_64 set",
      sg("0.5.9", DSV3, SPARK)),
    a("DSP021", True, "0.5.8: the same DeepGEMM (sgl-kernel 0.3.21)", sg("0.5.8", DSV3)),
    a("DSP021", True, "block-FP8 MoE model", sg("0.5.9", QWEN235_FP8)),
    a("DSP021", False, "DeepGEMM off", sg("0.5.9", DSV3, env=NO_DEEP_GEMM)),
    a("DSP021", False, "explicit Triton FP8 GEMM", sg("0.5.9", DSV3), "--fp8-gemm-backend", "triton"),
    a("DSP021", False, "Hopper: sm90 sources", sg("0.5.9", DSV3, H100)),
    a("DSP021", False, "B200: sm100 sources", sg("0.5.9", DSV3, B200)),
    a("DSP021", False, "BF16 model", sg("0.5.9")),
    a("DSP021", False, "0.5.10: block-FP8 auto is Triton on SM120", sg("0.5.10", DSV3)),
    a("DSP021", False, "0.5.23: block-FP8 linear layers on CUTLASS on 12.0", sg("0.5.23", DSV3)),
    # a slow fallback for a format with native kernels
    a("DSP022", True, "gpt-oss MXFP4 experts on Marlin on 12.0 (0.5.14)", sg("0.5.14", GPTOSS)),
    a("DSP022", True, "and on 12.1", sg("0.5.14", GPTOSS, SPARK)),
    a("DSP022", False, "0.5.10: triton_kernel", sg("0.5.10", GPTOSS)),
    a("DSP022", False, "0.5.9: flashinfer_mxfp4", sg("0.5.9", GPTOSS)),
    a("DSP022", False, "Marlin asked for explicitly", sg("0.5.14", GPTOSS), "--moe-runner-backend", "marlin"),
    a("DSP022", False, "B200 on 0.5.14", sg("0.5.14", GPTOSS, B200)),
    a("DSP020", True, "flashinfer_mxfp4 forced on 12.0 in 0.5.14: SM90/SM100 only", sg("0.5.14", GPTOSS),
      "--moe-runner-backend", "flashinfer_mxfp4"),
    a("DSP020", False, "flashinfer_mxfp4 forced in 0.5.9: built", sg("0.5.9", GPTOSS),
      "--moe-runner-backend", "flashinfer_mxfp4"),
    # the tables hold no entry: said, never guessed
    a("DSP029", True, "INT4 MLA experts: not in the grid", sg("0.5.9", KIMI)),
    a("DSP029", True, "a release without a table (0.5.1: before SGLang's first SM12x kernels)", sg("0.5.1")),
    a("DSP029", True, "a forced backend the grid did not ask", sg("0.5.9"), "--attention-backend", "torch_native"),
    a("DSP029", False, "Llama BF16 on 0.5.9: derived", sg("0.5.9")),
    a("DSP029", False, "Hopper: a note for SM12x only", sg("0.5.1", profile=H100)),
    # release boundaries: two adjacent tabulated releases whose own dispatch differs on SM12x
    a("DSP020", True, "0.5.6.post2 defaults Llama to trtllm_mha on 12.0 and refuses it (sglang PR #14842)",
      sg("0.5.6.post2")),
    a("DSP020", True, "and on 12.1", sg("0.5.6.post2", profile=SPARK)),
    a("DSP020", False, "0.5.6 picks FlashInfer", sg("0.5.6")),
    a("DSP020", False, "0.5.7 picks FlashInfer again", sg("0.5.7")),
    a("DSP020", False, "0.5.6.post2 on Hopper: FA3", sg("0.5.6.post2", profile=H100)),
    a("DSP029", True, "0.5.6.post1 has no table of its own: not read from 0.5.6's", sg("0.5.6.post1")),
    a("DSP020", True, "TRT-LLM MHA prefill forced on 12.0 in 0.5.18: the last release refusing it", sg("0.5.18"),
      "--attention-backend", "trtllm_mha"),
    a("DSP020", True, "and on 12.1", sg("0.5.18", profile=SPARK), "--attention-backend", "trtllm_mha"),
    a("DSP020", False, "0.5.19 accepts TRT-LLM MHA on 12.0", sg("0.5.19"), "--attention-backend", "trtllm_mha"),
    a("DSP020", False, "and on 12.1", sg("0.5.19", profile=SPARK), "--attention-backend", "trtllm_mha"),
    a("DSP020", True, "gpt-oss on TRT-LLM MHA in 0.5.18", sg("0.5.18", GPTOSS), "--attention-backend", "trtllm_mha"),
    a("DSP020", False, "gpt-oss on TRT-LLM MHA in 0.5.19", sg("0.5.19", GPTOSS), "--attention-backend", "trtllm_mha"),
    a("DSP022", False, "0.5.13: triton_kernel, the release before Marlin", sg("0.5.13", GPTOSS)),
    a("DSP022", True, "0.5.14 (the first release on Marlin) on 12.1", sg("0.5.14", GPTOSS, SPARK)),
    a("DSP022", True, "gpt-oss MXFP4 experts on Marlin in 0.5.16: the last release", sg("0.5.16", GPTOSS)),
    a("DSP022", True, "and on 12.1", sg("0.5.16", GPTOSS, SPARK)),
    a("DSP022", False, "0.5.17: FlashInfer CUTLASS MXFP4 on 12.0", sg("0.5.17", GPTOSS)),
    a("DSP022", False, "and on 12.1", sg("0.5.17", GPTOSS, SPARK)),
    a("DSP020", True, "flashinfer_mxfp4 forced on 12.0 in 0.5.16: SM90/SM100 only", sg("0.5.16", GPTOSS),
      "--moe-runner-backend", "flashinfer_mxfp4"),
    a("DSP020", False, "0.5.17 builds it (FlashInfer CUTLASS on SM120)", sg("0.5.17", GPTOSS),
      "--moe-runner-backend", "flashinfer_mxfp4"),
]
