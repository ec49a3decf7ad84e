"""Positive and boundary cases for the issue-25 SGLang / DeepGEMM / TensorRT-LLM rules (SGL170-189, DG001-019,
TRT020-039); test_rule_cases.py runs them with the rest (and test_error_boundaries.py sweeps the error rules)."""

from __future__ import annotations

from tests.rules.builders import a, build, lib
from tests.wheels import cache_root

PRO, WS4, R5090, SPARK, H100 = "rtx-pro-6000-x8", "rtx-pro-6000-ws-x4", "rtx-5090", "dgx-spark", "h100-sxm-x8"
LLAMA, QWEN_MOE, DSV3 = "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B", "deepseek-ai/DeepSeek-V3"
GPTOSS, DSV4 = "openai/gpt-oss-20b", "tests/cases/models/deepseek-v4-flash"
QWEN_FP8 = "Qwen/Qwen3-235B-A22B-FP8"
DSV4_SM120_ENV = {"SGLANG_OPT_FP8_WO_A_GEMM": "0", "SGLANG_OPT_DEEPGEMM_HC_PRENORM": "0",
                  "SGLANG_FP8_PAGED_MQA_LOGITS_TORCH": "1"}


def sg(version, model=LLAMA, profile=R5090, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


def attn_options(backend: str) -> tuple[str, str]:
    """`--extra_llm_api_options FILE` choosing TensorRT-LLM's attention backend (written once to the test cache)."""
    path = cache_root() / "trt-options" / f"attn-backend-{backend.lower()}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"attn_backend: {backend}\n")
    return "--extra_llm_api_options", str(path)


def trt(version, model=GPTOSS, profile=SPARK):
    return lambda: build(profile, model, libs=(lib("tensorrt-llm", version),))


SGL_TRT_CASES = [
    a("SGL170", True, "0.5.6.post1 llama on 5090", sg("0.5.6.post1")),
    a("SGL170", True, "0.5.6.post2 qwen moe on spark", sg("0.5.6.post2", QWEN_MOE, SPARK)),
    a("SGL170", False, "0.5.6: flashinfer default", sg("0.5.6")),
    a("SGL170", False, "0.5.7: sm100 only (PR #14842)", sg("0.5.7")),
    a("SGL170", False, "backend named", sg("0.5.6.post1"), "--attention-backend", "flashinfer"),
    a("SGL170", False, "prefill backend named", sg("0.5.6.post1"), "--prefill-attention-backend", "triton"),
    a("SGL170", False, "spec top-k 4", sg("0.5.6.post1"), "--speculative-eagle-topk", "4"),
    a("SGL170", True, "spec top-k 1, page size 1", sg("0.5.6.post1"), "--speculative-eagle-topk", "1"),
    a("SGL170", False, "spec top-k 1, page size 16", sg("0.5.6.post1"),
      "--speculative-eagle-topk", "1", "--page-size", "16"),
    a("SGL170", False, "gpt-oss: own branch picks triton", sg("0.5.6.post2", GPTOSS)),
    a("SGL170", False, "MLA: triton on sm12x", sg("0.5.6.post2", DSV3, PRO)),
    a("SGL170", False, "hopper", sg("0.5.6.post2", LLAMA, H100)),
    a("DG001", True, "0.5.12 dsv4 on pro 6000", sg("0.5.12", DSV4, WS4)),
    a("DG001", True, "0.5.12.post1 dsv4 on spark", sg("0.5.12.post1", DSV4, SPARK)),
    a("DG001", True, "only two of the three switches off",
      sg("0.5.12", DSV4, WS4, env={k: v for k, v in DSV4_SM120_ENV.items() if "MQA" not in k})),
    a("DG001", True, "pinned sgl-deep-gemm 0.1.0", sg("0.5.12", DSV4, WS4, libs=(lib("sgl-deep-gemm", "0.1.0"),))),
    a("DG001", False, "0.5.13 turns them off on sm120", sg("0.5.13", DSV4, WS4)),
    a("DG001", False, "0.5.11 has no DeepSeek-V4", sg("0.5.11", DSV4, WS4)),
    a("DG001", False, "all three switched off", sg("0.5.12", DSV4, WS4, env=DSV4_SM120_ENV)),
    a("DG001", False, "sgl-deep-gemm 0.1.5.post3 has sm120 kernels",
      sg("0.5.12", DSV4, WS4, libs=(lib("sgl-deep-gemm", "0.1.5.post3"),))),
    a("DG001", False, "DeepSeek-V3", sg("0.5.12", DSV3, WS4)),
    a("DG001", False, "hopper", sg("0.5.12", DSV4, H100)),
    a("TRT020", True, "1.2.0rc0 gpt-oss on spark", trt("1.2.0rc0")),
    a("TRT020", True, "1.1.0 gpt-oss on 5090", trt("1.1.0", profile=R5090)),
    a("TRT020", False, "1.2.0", trt("1.2.0")),
    a("TRT020", False, "no sinks", trt("1.2.0rc0", LLAMA)),
    a("TRT020", False, "hopper", trt("1.1.0", profile=H100)),
    a("DG002", True, "0.5.8 block fp8 on pro 6000", sg("0.5.8", QWEN_FP8, PRO)),
    a("DG002", True, "0.5.5 block fp8 on 5090", sg("0.5.5", DSV3)),
    a("DG002", True, "0.5.3 block fp8 on 5090", sg("0.5.3", QWEN_FP8)),
    a("DG002", False, "0.5.2 not read", sg("0.5.2", QWEN_FP8, PRO)),
    a("DG002", False, "0.5.3 DeepGEMM off (old switch name)",
      sg("0.5.3", QWEN_FP8, env={"SGL_ENABLE_JIT_DEEPGEMM": "0"})),
    a("DG002", False, "0.5.10 forces triton on sm120", sg("0.5.10", QWEN_FP8, PRO)),
    a("DG002", False, "DeepGEMM off", sg("0.5.8", QWEN_FP8, PRO, env={"SGLANG_ENABLE_JIT_DEEPGEMM": "0"})),
    a("DG002", False, "CUTLASS switch", sg("0.5.9", QWEN_FP8, PRO, env={"SGLANG_SUPPORT_CUTLASS_BLOCK_FP8": "1"})),
    a("DG002", False, "backend named", sg("0.5.8", QWEN_FP8, PRO), "--fp8-gemm-backend", "triton"),
    a("DG002", False, "per-channel fp8", sg("0.5.8", "zai-org/GLM-4.7-FP8", PRO)),
    a("DG002", False, "GB10: aarch64 kernel wheel not read", sg("0.5.8", QWEN_FP8, SPARK)),
    a("DG002", False, "hopper", sg("0.5.8", QWEN_FP8, H100)),
    a("DG003", True, "0.5.18 megamoe on pro 6000", sg("0.5.18", DSV4, PRO), "--moe-a2a-backend", "megamoe"),
    a("DG003", True, "0.5.23 refuses it on spark", sg("0.5.23", DSV4, SPARK), "--moe-a2a-backend", "megamoe"),
    a("DG003", True, "0.5.14 env switch", sg("0.5.14", DSV4, PRO, env={"SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE": "1"})),
    a("DG003", True, "0.5.18 runner alias", sg("0.5.18", DSV4, PRO), "--moe-runner-backend", "megamoe"),
    a("DG003", False, "0.5.11 has no megamoe", sg("0.5.11", DSV4, PRO), "--moe-a2a-backend", "megamoe"),
    a("DG003", False, "0.5.24 not read", sg("0.5.24", DSV4, PRO), "--moe-a2a-backend", "megamoe"),
    a("DG003", False, "0.5.18 env switch gone", sg("0.5.18", DSV4, PRO, env={"SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE": "1"})),
    a("DG003", False, "no megamoe", sg("0.5.18", DSV4, PRO)),
    a("DG003", False, "hopper", sg("0.5.18", DSV4, H100), "--moe-a2a-backend", "megamoe"),
    a("TRT021", True, "gpt-oss with FLASHINFER attention", trt("1.2.0", profile=WS4), *attn_options("FLASHINFER")),
    a("TRT021", True, "gpt-oss with VANILLA attention on spark", trt("1.3.0"), *attn_options("VANILLA")),
    a("TRT021", False, "gpt-oss with TRTLLM attention", trt("1.2.0", profile=WS4), *attn_options("TRTLLM")),
    a("TRT021", False, "gpt-oss, default attention", trt("1.2.0", profile=WS4)),
    a("TRT021", False, "no sinks with FLASHINFER", trt("1.2.0", LLAMA, WS4), *attn_options("FLASHINFER")),
    a("TRT021", False, "hopper", trt("1.2.0", profile=H100), *attn_options("FLASHINFER")),
]

