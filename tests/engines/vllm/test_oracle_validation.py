"""The derived tables against what real machines did: public reports that state vLLM's backend choice on a
real GPU (its log line or the report's own account of it), each checked against the table of the same
release, shape class and capability. A report from a release with no table is listed and skipped with the
release named, never matched against another release's table. Where the grid has no entry with the report's
flags, the launch is a validation query (tools/engine_oracle/validation.py) whose table lives in
doctor/data/derived/vllm-validation/ (`table="vllm-validation"`), which `check` never reads. Reports from real
9.0/10.0 machines are controls of the emulation itself."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

DERIVED = Path(__file__).resolve().parents[3] / "doctor" / "data" / "derived"


@dataclass(frozen=True)
class Observed:
    url: str
    release: str | None  # None: the report does not say
    gpu: str
    capability: str
    model: str
    grid: str  # the grid entry of the same shape class, KV dtype and flags
    decision: str  # attention | moe | linear | if_forced:<BACKEND> | accepts_forced:<BACKEND> | error | log
    expected: str  # the backend/kernel, a word of vLLM's reason, or (log) vLLM's line as the report quotes it
    evidence: str  # the report's words
    table: str = "vllm"  # vllm (the grid) or vllm-validation (validation.py: the report's own flags)


OBSERVED = [
    Observed("https://github.com/vllm-project/vllm/issues/40153", "0.17.0", "RTX PRO 6000 Blackwell", "12.0",
             "openai/gpt-oss-20b", "gqa-h64-swa-sinks-moe:native", "attention", "TRITON_ATTN",
             "GPT-OSS-20B on RTX PRO 6000 (SM120) falls back to TRITON_ATTN + Marlin"),
    Observed("https://github.com/vllm-project/vllm/issues/40153", "0.17.0", "RTX PRO 6000 Blackwell", "12.0",
             "openai/gpt-oss-20b", "gqa-h64-swa-sinks-moe:native", "moe", "MARLIN",
             "GPT-OSS-20B on RTX PRO 6000 (SM120) falls back to TRITON_ATTN + Marlin"),
    Observed("https://github.com/vllm-project/vllm/issues/40153", "0.17.0", "RTX PRO 6000 Blackwell", "12.0",
             "openai/gpt-oss-20b", "gqa-h64-swa-sinks-moe:native", "if_forced:FLASHINFER", "sink",
             "forcing FLASHINFER fails with sink setting not supported"),
    Observed("https://github.com/vllm-project/vllm/pull/37751", "0.18.0", "RTX PRO 6000 Blackwell Max-Q", "12.0",
             "openai/gpt-oss-120b", "gqa-h64-swa-sinks-moe:native", "moe", "MARLIN",
             "SM120 GPUs ... fall back to the slow Marlin backend for MXFP4 MoE models (vLLM 0.18.0)"),
    Observed("https://github.com/vllm-project/vllm/issues/47266", "0.24.0", "2x RTX PRO 6000 Blackwell", "12.0",
             "Qwen3.6-27B-FP8 (block FP8, dense)", "gqa-h128-dense:fp8-block", "linear", "DeepGemm",
             "vLLM 0.24.0 on 2x RTX PRO 6000: block-FP8 models crash in DeepGEMM warmup"),
    Observed("https://github.com/vllm-project/vllm/issues/43507#issuecomment-marlin", "0.24.0",
             "RTX 5090 Laptop (24 GB)", "12.0", "bg-digitalservices/Gemma-4-26B-A4B-it-NVFP4, TP=1, "
             "--moe-backend marlin", "gqa-h128-moe:nvfp4+moe=marlin", "log",
             "Using 'MARLIN' NvFp4 MoE backend out of potential backends: ['FLASHINFER_TRTLLM', "
             "'FLASHINFER_CUTEDSL', 'FLASHINFER_CUTEDSL_BATCHED', 'FLASHINFER_CUTLASS', 'VLLM_CUTLASS', 'MARLIN', "
             "'EMULATION'].",
             "vLLM 0.24.0 ... explicit --moe-backend marlin override ... startup then reports: Using 'MARLIN' NvFp4 "
             "MoE backend out of potential backends: [...]"),
    Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/28516ce33346c2ca2a99c899ee617ce844693efa/docs/"
             "vllm-sm120-nvfp4-working-state.md#forced", "0.15.1", "4x RTX PRO 6000 Blackwell Max-Q", "12.0",
             "Salyut1/GLM-4.7-NVFP4, TP=4, --attention-backend TRITON_ATTN", "gqa-h128-moe:nvfp4",
             "accepts_forced:TRITON_ATTN", "", "Using AttentionBackendEnum.TRITON_ATTN backend."),
    Observed("https://github.com/vllm-project/vllm/issues/50332", "0.26.0", "DGX Spark (GB10)", "12.1",
             "Qwen3.6-35B-A3B-FP8 (qwen3_5_moe_text: gated DeltaNet + attention, head size 256, block FP8 MoE), "
             "--enforce-eager, TP=1", "gqa-h256-linear-moe:fp8-block", "log",
             "Using DEEPGEMM Fp8 MoE backend out of potential backends: ['AITER', 'FLASHINFER_TRTLLM', "
             "'FLASHINFER_CUTLASS', 'DEEPGEMM', 'TRITON', 'MARLIN', [...]",
             "INFO [fp8.py:405] Using DEEPGEMM Fp8 MoE backend out of potential backends: ['AITER', "
             "'FLASHINFER_TRTLLM', 'FLASHINFER_CUTLASS', 'DEEPGEMM', 'TRITON', 'MARLIN', ...]"),
    Observed("https://github.com/vllm-project/vllm/issues/31936", None, "8x RTX PRO 6000", "12.0",
             "deepseek-ai/DeepSeek-V3.2", "mla-sparse-moe:native", "attention", "",
             "No valid attention backend found ... use_sparse=True ... TRITON_MLA: [sparse not supported]"),
    # Collected 2026-11-28 (task loglines): log lines and reports' own accounts from real machines.
    Observed("https://github.com/BigBIueWhale/devstral_vllm_config/blob/9be605ca285567a6a52a0600c4724c1c7c263eff/"
             "README.md", "0.15.1", "RTX 5090 (vllm/vllm-openai:v0.15.1)", "12.0",
             "cyankiwi/Devstral-Small-2-24B-Instruct-2512-AWQ-4bit (Mistral3; text layers GQA, head size 128)",
             "gqa-h128-dense:awq", "log",
             "Using FLASH_ATTN attention backend out of potential backends: ('FLASH_ATTN', 'FLASHINFER', "
             "'TRITON_ATTN', 'FLEX_ATTENTION')",
             "The vLLM startup log confirms `Using FLASH_ATTN attention backend out of potential backends: ...`"),
    *(Observed("https://github.com/vllm-project/vllm/issues/41477", "0.20.0", "DGX Spark (GB10)", "12.1",
               "openai/gpt-oss-120b (MXFP4), " + flags, grid, decision, expected,
               f"`{flags or 'marlin (default)'}`: {outcome} (\"same behavior on v0.20.0\")", table)
      for flags, grid, decision, expected, outcome, table in (
          ("", "gqa-h64-swa-sinks-moe:native", "moe", "MARLIN", "runs (Marlin is the default)", "vllm"),
          ("--moe-backend flashinfer_trtllm", "gqa-h64-swa-sinks-moe:native+moe=flashinfer_trtllm", "error",
           "kernel does not support current device", "\"kernel does not support current device cuda\"", "vllm"),
          ("--moe-backend triton", "gqa-h64-swa-sinks-moe:native+moe=triton", "error",
           "kernel does not support current device", "refused unless the capability gate is patched", "vllm"),
          ("--moe-backend flashinfer_cutlass", "gqa-h64-swa-sinks-moe:native+moe=flashinfer_cutlass", "error",
           "GroupShape(row=1, col=32)", "Quant scheme mismatch (`u8 / GroupShape(1,32)` not supported)",
           "vllm-validation"),
          ("--moe-backend deep_gemm", "gqa-h64-swa-sinks-moe:native+moe=deep_gemm", "error",
           "kernel does not support current device", "\"kernel does not support current device cuda\"",
           "vllm-validation"),
          ("--moe-backend emulation", "gqa-h64-swa-sinks-moe:native+moe=emulation", "moe", "EMULATION",
           "Works, but <= 5 tok/s", "vllm-validation"))),
    Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/28516ce33346c2ca2a99c899ee617ce844693efa/docs/"
             "vllm-sm120-nvfp4-working-state.md#flashinfer-attention", "0.15.1", "4x RTX PRO 6000 Blackwell Max-Q",
             "12.0", "Salyut1/GLM-4.7-NVFP4, --attention-backend TRITON", "gqa-h128-moe:nvfp4+attention=TRITON",
             "error", "Unknown attention backend: 'TRITON'. Valid options are: FLASH_ATTN",
             "ValueError: Unknown attention backend: 'TRITON'. Valid options are: FLASH_ATTN, TRITON_ATTN, ...",
             "vllm-validation"),
    # The same report on 0.16.0, its serve script exporting VLLM_USE_FLASHINFER_MOE_FP4=0 since commit 594b6b4
    # ("Force VLLM_CUTLASS via VLLM_USE_FLASHINFER_MOE_FP4=0") and forcing TRITON_ATTN.
    Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/2a4692d12f1ddd4a3feb290f8c15251f33912c87/docs/"
             "vllm-sm120-nvfp4-working-state.md#startup-sequence-normal-healthy-run", "0.16.0",
             "4x RTX PRO 6000 Blackwell Max-Q", "12.0", "Salyut1/GLM-4.7-NVFP4, TP=4, VLLM_USE_FLASHINFER_MOE_FP4=0",
             "gqa-h128-moe:nvfp4+env=VLLM_USE_FLASHINFER_MOE_FP4=0", "moe", "VLLM_CUTLASS",
             "vLLM: 0.16.0 ... [Worker] Using 'VLLM_CUTLASS' NvFp4 MoE backend"),
    Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/2a4692d12f1ddd4a3feb290f8c15251f33912c87/docs/"
             "vllm-sm120-nvfp4-working-state.md#startup-sequence-normal-healthy-run", "0.16.0",
             "4x RTX PRO 6000 Blackwell Max-Q", "12.0", "Salyut1/GLM-4.7-NVFP4, TP=4, --attention-backend TRITON_ATTN",
             "gqa-h128-moe:nvfp4", "accepts_forced:TRITON_ATTN", "",
             "vLLM: 0.16.0 ... [Worker] Using AttentionBackendEnum.TRITON_ATTN backend."),
    Observed("https://github.com/Blackwellboy/model-serving-minefield/blob/570c9faac4f235c3bf71734b6b2159eae3505c69/"
             "mining/2026-08-01-issue-19-unvalidated-config-surface.md", "0.26.0",
             "DGX Spark (GB10), vllm/vllm-openai:v0.26.0-aarch64-ubuntu2404", "12.1",
             "unsloth/Qwen3.6-35B-A3B-NVFP4-Fast (gated DeltaNet + attention, head size 256, NVFP4 MoE)",
             "gqa-h256-linear-moe:nvfp4", "log",
             "Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend out of potential backends: [...]",
             "the startup log selected the identical backend: `Using 'FLASHINFER_CUTLASS' NvFp4 MoE backend out of "
             "potential backends: [...]`"),
    # Rodder5/sm120-quant-bench: vLLM 0.26.0 on an RTX 5090, Qwen/Qwen3-8B and its llm-compressor quantizations.
    Observed("https://github.com/Rodder5/sm120-quant-bench/blob/6e27d838725112d79900d73f7a5097b181cfc155/serve/"
             "logs_bf16.stderr", "0.26.0", "RTX 5090", "12.0", "Qwen/Qwen3-8B (BF16; GQA, head size 128)",
             "gqa-h128-dense:bf16", "log",
             "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', "
             "'TRITON_ATTN', 'FLEX_ATTENTION'].",
             "(EngineCore pid=3735470) INFO 08-07 18:16:55 [cuda.py:482] Using FLASH_ATTN attention backend out of "
             "potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']."),
    Observed("https://github.com/Rodder5/sm120-quant-bench/blob/6e27d838725112d79900d73f7a5097b181cfc155/serve/"
             "logs_nvfp4.stderr", "0.26.0", "RTX 5090", "12.0",
             "Qwen/Qwen3-8B NVFP4 (llm-compressor QuantizationModifier scheme NVFP4: compressed-tensors; the grid's "
             "checkpoint is ModelOpt NVFP4, the kernel comes from the same NVFP4 linear-kernel selection, whose line "
             "this is)", "gqa-h128-dense:nvfp4", "linear", "FlashInferCutlassNvFp4LinearKernel",
             "INFO 08-07 18:23:11 [__init__.py:978] Using FlashInferCutlassNvFp4LinearKernel for NVFP4 GEMM"),
    # Reports whose crash names the kernel vLLM picked (DeepGEMM for block FP8 on 12.0).
    Observed("https://github.com/vllm-project/vllm/issues/47130", "0.24.0", "4x RTX PRO 6000 Blackwell Server",
             "12.0", "MiniMax-M2.7 (block FP8 MoE, GQA head size 128), TP=4, --kv-cache-dtype fp8",
             "gqa-h128-moe:fp8-block+kv-fp8", "moe", "DEEPGEMM",
             "v0.24.0: DeepGEMM \"Unknown recipe\" assertion in FP8 kernel warmup on Blackwell (sm_120)"),
    Observed("https://github.com/vllm-project/vllm/issues/51884", "0.27.1", "4x RTX PRO 6000 Blackwell Server",
             "12.0", "MiniMax-M2.7 (block FP8 MoE), TP=4, --kv-cache-dtype fp8 (the 2026-08-17 comment)",
             "gqa-h128-moe:fp8-block+kv-fp8", "linear", "DeepGemm",
             "RuntimeError: Assertion error (.../deepgemm-src/csrc/apis/layout.hpp:60): Unknown SF transformation"),
    Observed("https://github.com/vllm-project/vllm/issues/53748", "0.27.1", "RTX PRO 6000 Blackwell", "12.0",
             "deepseek-ai/DeepSeek-V2-Lite-Chat (MLA, BF16 weights), --kv-cache-dtype fp8 (the 2026-08-25 comment)",
             "mla-moe:native+kv-fp8", "attention", "TRITON_MLA",
             "MLA decode fails ... shared memory 102400 > 101376 (the Triton MLA decode kernel, "
             "_decode_grouped_att_m_fwd)"),
    Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/28516ce33346c2ca2a99c899ee617ce844693efa/docs/"
             "vllm-sm120-nvfp4-working-state.md#1-flashinfer-attention-backend-fails-on-sm120", "0.15.1",
             "4x RTX PRO 6000 Blackwell Max-Q", "12.0",
             "Salyut1/GLM-4.7-NVFP4, TP=4, default attention; the checkpoint's FP8 KV cache (729,248 tokens in "
             "31.99 GiB at TP 4 is 1 byte per element) stands as --kv-cache-dtype fp8",
             "gqa-h128-moe:nvfp4+kv-fp8", "attention", "FLASHINFER",
             "flashinfer attention backend fails on SM120: File \"vllm/v1/attention/backends/flashinfer.py\", line "
             "1045, in build: prefill_wrapper.plan(...). Fix: --attention-backend TRITON_ATTN", "vllm-validation"),
    Observed("https://github.com/vllm-project/vllm/issues/30163", "0.12.0", "2x DGX Spark (GB10)", "12.1",
             "lukealonso/GLM-4.6-NVFP4 (ModelOpt NVFP4 MoE), vllm/vllm-openai:v0.12.0-aarch64, TP=2 or PP=2",
             "gqa-h128-moe:nvfp4", "linear", "flashinfer-cutlass",
             "RuntimeError: [FP4 gemm Runner] Failed to run cutlass FP4 gemm on sm120. Error: Error Internal "
             "(FlashInfer's CUTLASS FP4 GEMM runner: the NVFP4 linear kernel vLLM 0.12.0 picked)"),
    # Controls: real 9.0/10.0 machines.
    Observed("https://github.com/crinex/b200_glm_poc/blob/36f9148711d795d5b584f33280ea4db08b085ab7/FINDINGS.md",
             "0.28.0", "8x B200", "10.0", "zai-org/GLM-5.2-FP8 (GlmMoeDsaForCausalLM: sparse MLA, block FP8 MoE), TP=8",
             "mla-sparse-moe:native", "log",
             "Using FLASHINFER_TRTLLM Fp8 MoE backend out of potential backends: "
             "['AITER','FLASHINFER_TRTLLM','FLASHINFER_CUTLASS','DEEPGEMM','TRITON','MA...']",
             "[fp8.py:411] Using FLASHINFER_TRTLLM Fp8 MoE backend out of potential backends: "
             "['AITER','FLASHINFER_TRTLLM','FLASHINFER_CUTLASS','DEEPGEMM','TRITON','MA...']"),
    # The same repository's server-D baseline run (collected 2026-11-28, task controls2): its run output quotes the
    # line whole, all twelve candidates. vLLM 0.28.0 is setup/install.sh's pin (VLLM_VERSION default "0.28.0",
    # "FINDINGS.md 기준 검증 버전") and the line's fp8.py:411 is the FINDINGS quote's source line. Flags: TP=8,
    # --kv-cache-dtype fp8 --async-scheduling --max-model-len 16384; the grid's 10.0 entry has a BF16 KV cache,
    # and the FP8 MoE oracle reads no KV dtype.
    Observed("https://github.com/crinex/b200_glm_poc/blob/36f9148711d795d5b584f33280ea4db08b085ab7/results/"
             "b200_D_run_output_baseline.txt", "0.28.0", "8x B200 (server D)", "10.0",
             "zai-org/GLM-5.2-FP8 (GlmMoeDsaForCausalLM: sparse MLA, block FP8 MoE), TP=8, --kv-cache-dtype fp8",
             "mla-sparse-moe:native", "log",
             "Using FLASHINFER_TRTLLM Fp8 MoE backend out of potential backends: ['AITER', 'FLASHINFER_TRTLLM', "
             "'FLASHINFER_CUTLASS', 'DEEPGEMM', 'TRITON', 'MARLIN', 'HUMMING', 'BATCHED_DEEPGEMM', 'BATCHED_TRITON', "
             "'XPU', 'CPU', 'HPC'].",
             "(Worker_TP0 pid=6321) INFO 09-01 13:01:49 [fp8.py:411] Using FLASHINFER_TRTLLM Fp8 MoE backend out of "
             "potential backends: ['AITER', 'FLASHINFER_TRTLLM', 'FLASHINFER_CUTLASS', 'DEEPGEMM', 'TRITON', 'MARLIN', "
             "'HUMMING', 'BATCHED_DEEPGEMM', 'BATCHED_TRITON', 'XPU', 'CPU', 'HPC']."),
    # vllm#30214: DeepSeek-V3.2 on 8x B200, default attention. The report runs vLLM 0.11.2.dev638+g541a2ef89 (main of
    # 2025-12-07); its traceback's source lines (deepseek_v2.py:1415, 1274, 1146, 1080, model_loader/base_loader.py:49,
    # model_loader/utils.py:48) are the 0.12.0 wheel's (0.14.0: 1422, 50, 48), and the 0.12.0 wheel holds the
    # assignment it trips on (platforms/cuda.py: `envs.VLLM_ATTENTION_BACKEND = "CUTLASS_MLA"` for any MLA model on
    # 10.0, sparse or not). PR #30195 fixed it after 0.12.0 (0.13.0's table: FLASHMLA_SPARSE).
    Observed("https://github.com/vllm-project/vllm/issues/30214", "0.12.0", "8x B200", "10.0",
             "DeepSeek-V3.2 (DeepseekV32ForCausalLM: sparse MLA, index_topk), default attention backend; data "
             "parallel (EngineCore_DP1), which the MLA selector does not read",
             "mla-sparse-moe:native", "error",
             "Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for this configuration. Reason: "
             "['sparse not supported']",
             "[Bug]: DeepSeek V3.2 on B200 fails with \"CUTLASS_MLA is not valid... Reason: ['sparse not supported']\" "
             "(PR #30227, citing it: ValueError: Selected backend AttentionBackendEnum.CUTLASS_MLA is not valid for "
             "this configuration. Reason: ['sparse not supported'])"),
    Observed("https://github.com/vllm-project/vllm/issues/52308", "0.27.0", "B200", "10.0",
             "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4 (NemotronH Mamba + non-gated ReLU2 MoE, FP8 KV cache), "
             "default backend selection", "gqa-h128-mamba-moe:nvfp4+kv-fp8", "moe", "FLASHINFER_TRTLLM",
             "with default backend selection on SM100-family GPUs (tested: B200) ... the auto-selected "
             "FLASHINFER_TRTLLM monolithic NVFP4 MoE backend", table="vllm-validation"),
    # Controls on real 9.0 machines (collected 2026-11-28, task controls).
    *(Observed("https://github.com/vllm-project/vllm/issues/33910", "0.15.0", "2 nodes x 8 H20 (collect_env: "
               "vLLM Version 0.15.0)", "9.0", "DeepSeek R1 671B (DeepseekV3ForCausalLM, block FP8 MoE), TP=16 over "
               "two nodes; the line is rank TP8's (the grid asks TP rank 0 of TP=1: the MLA selector config, head "
               "size 576, does not depend on the TP size)", "mla-moe:native", "log", expected, evidence)
      for expected, evidence in (
          ("Using FLASH_ATTN_MLA attention backend out of potential backends: ('FLASH_ATTN_MLA', 'FLASHMLA', "
           "'TRITON_MLA')",
           "(Worker_TP8 pid=152564) INFO 02-05 11:55:06 [cuda.py:364] Using FLASH_ATTN_MLA attention backend out "
           "of potential backends: ('FLASH_ATTN_MLA', 'FLASHMLA', 'TRITON_MLA')"),
          ("Using FLASHINFER_CUTLASS Fp8 MoE backend out of potential backends: ['AITER', 'FLASHINFER_TRTLLM', "
           "'FLASHINFER_CUTLASS', 'DEEPGEMM', [...]",
           "(Worker_TP8 pid=152564) INFO 02-05 11:55:06 [fp8.py:328] Using FLASHINFER_CUTLASS Fp8 MoE backend out "
           "of potential backends: ['AITER', 'FLASHINFER_TRTLLM', 'FLASHINFER_CUTLASS', 'DEEPGEMM', '..."))),
    Observed("https://github.com/vllm-project/vllm/issues/37180", "0.17.0", "GH200 (Linux ARM64)", "9.0",
             "Qwen/Qwen3.5-35B-A3B (gated DeltaNet + gated attention, head size 256, BF16 MoE), offline, default "
             "flags. The report gives no version line; its log's source lines (cuda.py:405, flash_attn.py:587) are "
             "vLLM 0.17.0's and 0.17.1's, whose vllm/platforms and attention selection code are the same (0.16.0 logs "
             "the line at cuda.py:367, 0.18.0 at 317), and the report is dated 2026-03-16",
             "gqa-h256-linear-moe:bf16", "log",
             "Using FLASH_ATTN attention backend out of potential backends: ['FLASH_ATTN', 'FLASHINFER', "
             "'TRITON_ATTN', 'FLEX_ATTENTION'].",
             "(Worker_TP0 pid=3068197) INFO 03-16 11:27:40 [cuda.py:405] Using FLASH_ATTN attention backend out of "
             "potential backends: ['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN', 'FLEX_ATTENTION']. ... "
             "[flash_attn.py:587] Using FlashAttention version 3", "vllm-validation"),
    Observed("https://github.com/vllm-project/vllm/issues/37180#fa-version", "0.17.0", "GH200 (Linux ARM64)", "9.0",
             "Qwen/Qwen3.5-35B-A3B, default flags (release as above)", "gqa-h256-linear-moe:bf16", "log",
             "Using FlashAttention version 3",
             "(Worker_TP0 pid=3068197) INFO 03-16 11:27:40 [flash_attn.py:587] Using FlashAttention version 3 "
             "(\"I did not install specific `flash-attn` version\": vLLM's own FA3 build on Hopper)",
             "vllm-validation"),
]
CONTROLS = [o for o in OBSERVED if o.capability in ("9.0", "10.0")]


# Real lines the emulation does NOT reproduce, each with the reason: asserted to still disagree (so the record
# stays true when a table changes), never counted as reproduced.
DISAGREES = [
    (Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/28516ce33346c2ca2a99c899ee617ce844693efa/docs/"
             "vllm-sm120-nvfp4-working-state.md", "0.15.1", "4x RTX PRO 6000 Blackwell Max-Q", "12.0",
             "Salyut1/GLM-4.7-NVFP4 (ModelOpt NVFP4 MoE), TP=4, --quantization modelopt_fp4 "
             "--attention-backend TRITON_ATTN", "gqa-h128-moe:nvfp4", "log",
             "Using 'VLLM_CUTLASS' NvFp4 MoE backend out of potential backends: ['FLASHINFER_TRTLLM', "
             "'FLASHINFER_CUTEDSL', 'FLASHINFER_CUTLASS', 'VLLM_CUTLASS', 'MARLIN']",
             "Backends Selected at Runtime (confirmed in logs): Using 'VLLM_CUTLASS' NvFp4 MoE backend out of "
             "potential backends: [...]"),
     "the host's toolchain: vLLM 0.15.x's has_flashinfer() is False without nvcc on PATH and without "
     "flashinfer-cubin, and then every FlashInfer MoE backend is skipped ('kernel does not support current "
     "device') and VLLM_CUTLASS is next; the report installs with `uv tool install vllm==0.15.1` and its log "
     "lists all five candidates, so VLLM_USE_FLASHINFER_MOE_FP4 was not set. The table pins nvcc on PATH and "
     "gets FLASHINFER_CUTLASS; the same query re-run with PATH=/usr/bin:/bin on the same wheel set printed the "
     "reported line verbatim (2026-11-28). The report's own history agrees: its next commits are 594b6b4 \"Force "
     "VLLM_CUTLASS via VLLM_USE_FLASHINFER_MOE_FP4=0\" (with that switch the table lists only ['VLLM_CUTLASS', "
     "'MARLIN'], so the five-candidate line predates it) and 4ed3345 \"Add vllm bin dir to PATH - fixes ninja not "
     "found during flashinfer SM120 JIT\""),
    (Observed("https://github.com/vllm-project/vllm/issues/43507#issuecomment-linear", "0.24.0",
              "RTX 5090 Laptop (24 GB), Windows 11, vLLM run natively", "12.0",
              "bg-digitalservices/Gemma-4-26B-A4B-it-NVFP4, TP=1", "gqa-h128-dense:nvfp4", "linear",
              "CutlassNvFp4LinearKernel", "startup then reports: Using CutlassNvFp4LinearKernel "
              "for NVFP4 GEMM"),
     "the table pins FlashInfer present (nvcc and ninja on PATH, as in vLLM's Linux images) and vLLM 0.24.0 then "
     "picks FlashInferCutlassNvFp4LinearKernel first; the report runs vLLM natively on Windows, where FlashInfer "
     "is not installed, so the next kernel in vLLM's order (CUTLASS) is chosen: an input the table records under "
     "`pinned`, not a wrong emulation"),
    (Observed("https://github.com/vllm-project/vllm/issues/50332#linear", "0.26.0", "DGX Spark (GB10)", "12.1",
              "Qwen3.6-35B-A3B-FP8 (model_type qwen3_5_moe_text), --enforce-eager, TP=1",
              "gqa-h256-linear-moe:fp8-block", "linear", "CutlassFp8BlockScaledMMKernel",
              "WARNING [vllm.py:1008] Auto-disabled DeepGemm for model_type=qwen3_5_moe_text on Blackwell. ... "
              "Falling back to CUTLASS."),
     "the grid's stand-in for this shape class is Qwen3-Next's config (model_type qwen3_next); vLLM 0.26.0 "
     "disables DeepGEMM for the linear layers by model_type (_DEEPGEMM_BLACKWELL_EXCLUDED_MODEL_TYPES holds "
     "qwen3_5_moe_text, as the report quotes; the table itself shows qwen3_next is not excluded), so the table "
     "keeps DeepGemmFp8BlockScaledMMKernel where the real run fell back to CUTLASS. A validation query with the "
     "qwen3_5_moe_text config would show it (not run: the 0.26.0 wheel is not in the uv cache). The same "
     "report's MoE line, DEEPGEMM, ignores that switch and is reproduced above"),
]


@pytest.mark.parametrize("seen,why", DISAGREES, ids=[o.url.rsplit("/", 1)[1] for o, _ in DISAGREES])
def test_known_disagreement_still_holds(seen, why):
    if _table(seen.release, seen.table) is None:
        pytest.skip(f"vLLM {seen.release} is not tabulated")
    entry = _entry(seen)
    if seen.decision == "log":
        assert not _logged(entry, seen.expected), (seen.url, why)
    else:
        assert seen.expected not in _decided(entry, seen.decision).split(), (seen.url, why)


# Reports of a choice the emulation cannot see, and why: kept out of the test, never counted as reproduced.
OUTSIDE_THE_EMULATION = {
    "https://github.com/vllm-project/vllm/issues/32732": "vLLM 0.14.0, 8x RTX PRO 6000, nvidia/DeepSeek-R1-0528-NVFP4: "
    "\"No valid attention backend found\". The 0.14.0 table selects TRITON_MLA for this shape with a BF16 KV cache "
    "(mla-moe:nvfp4) and rejects every MLA backend with an FP8 KV cache (mla-moe:native+kv-fp8: the same "
    "\"No valid attention backend found\"); ModelOpt NVFP4 exports usually carry an FP8 KV cache in their "
    "quantization config, but the part read shows the traceback, not the selector config: not counted",
    "https://github.com/vllm-project/vllm/issues/33416": "vLLM 0.15.0, RTX PRO 6000, MiniMax-M2.1-NVFP4: \"NvFp4 MoE "
    "backend 'FLASHINFER_CUTLASS' does not support the deployment configuration since kernel does not support "
    "current device\". The launch environment is not in the part read. In the 0.15.0 table vLLM's own default "
    "path skips FLASHINFER_CUTLASS on 12.0 and picks VLLM_CUTLASS without an error; the quoted ValueError is what "
    "vLLM raises when FlashInfer's FP4 MoE is requested (VLLM_USE_FLASHINFER_MOE_FP4=1, "
    "fused_moe/oracle/nvfp4.py), a variant the grid does not ask: not counted either way",
    "https://github.com/vllm-project/vllm/issues/34249": "8x H100, vLLM 0.15.2rc1.dev152 (a main build, not a "
    "release): \"Using FLASHINFER_CUTLASS Fp8 MoE backend out of potential backends: ['AITER', 'FLASHINFER_TRTLLM', "
    "'FLASHINFER_CUTLASS', 'DEEPGEMM', 'BATCHED_DEEPGEMM', 'TRITON', 'BATCHED_TRITON', 'MARLIN']\" for "
    "Qwen3-235B-A22B-FP8 with --enable-expert-parallel: no table for a development build (a control we lack)",
    "https://github.com/flashinfer-ai/flashinfer/issues/3334": "2x H200, vLLM 0.20.2rc1.dev353 with "
    "VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1: FLASHINFER_CUTLASS_MXFP4_BF16 selected for gpt-oss-20b; a development "
    "build and an environment switch the grid does not ask",
    "https://github.com/vllm-project/vllm/issues/53411": "GB200 (NV18, aarch64), vLLM 0.24.0: DeepSeek-V4-Pro's "
    "default MoE backend is FLASHINFER_TRTLLM; the grid has no DeepSeek-V4 shape: not counted",
    "https://github.com/vllm-project/vllm/issues/47169": "vLLM 0.24.0, Qwen3.6-27B-FP8 on 2x RTX PRO 6000: DeepGEMM's "
    "warmup runs although vLLM disabled DeepGEMM for qwen3_5_text; warmup is not part of the emulation (and the "
    "grid has no dense gated-DeltaNet shape)",
    "https://github.com/vllm-project/vllm/issues/47436": "vLLM 0.24.0, RTX PRO 6000, a Gemma-4 block-FP8 "
    "(compressed-tensors W8A8) checkpoint dies in DeepGEMM at load: the grid has no Gemma-4 shape",
    "https://github.com/Rodder5/sm120-quant-bench#pending": "vLLM 0.26.0 on an RTX 5090: `--linear-backend marlin` "
    "gives \"Using MarlinNvFp4LinearKernel for NVFP4 GEMM\" and the llm-compressor W4A16 (AWQ, GPTQ) checkpoints "
    "\"Using MarlinLinearKernel for CompressedTensorsWNA16\": validation queries the grid lacks, not run (the "
    "0.26.0 wheel is not in the uv cache and the shared disk was under 10 GB free)",
    "https://github.com/vllm-project/vllm/issues/41477#flashinfer_cutedsl": "vLLM 0.20.0 on GB10, gpt-oss-120b with "
    "--moe-backend flashinfer_cutedsl: \"Engine init failure\" with no message to compare",
    "https://github.com/RyderFreeman4Logos/gb10-services": "GB10, Qwen3-Embedding-8B: FLASH_ATTN out of four "
    "candidates, but served by a custom image (ghcr.io/aeon-7/aeon-vllm-ultimate:2026-07-01-v0.24.0), not a "
    "release wheel",
    "https://github.com/vllm-project/vllm/pull/37751#TRTLLM": "the TRT-LLM MXFP4 MoE failure is the kernel's own "
    "C++ check at run time ('kernel requires 10.x architecture'), reached through the author's code change; in "
    "the 0.18.0 table `--moe-backend flashinfer_trtllm` is not honoured for MXFP4 at all (MARLIN is kept)",
}


def _table(release: str, folder: str = "vllm") -> dict | None:
    path = DERIVED / folder / f"{release}.json"
    return json.loads(path.read_text()) if path.exists() else None


def _entry(seen: Observed) -> dict:
    table = _table(seen.release, seen.table)
    assert table is not None
    return next(e for e in table["entries"] if e["grid"] == seen.grid and e["capability"] == seen.capability)


def _normal(line: str) -> str:
    return "".join(line.split())


def _logged(entry: dict, quote: str) -> bool:
    """vLLM's own line, verbatim (whitespace aside: reports re-wrap and re-space lists); a quote the report cut
    with "[...]" or "..." matches by its head."""
    quote = _normal(quote)
    cut = next((mark for mark in ("[...]", "...") if mark in quote), None)
    head = quote.split(cut, 1)[0] if cut else None
    lines = [_normal(line) for line in entry["log"]]
    return any(line.startswith(head) if head is not None else quote in line for line in lines)


def _decided(entry: dict, decision: str) -> str:
    if decision == "attention":
        return (entry["attention"] or {}).get("backend") or ""
    if decision == "moe":
        return (entry["moe"] or {}).get("backend") or ""
    if decision == "linear":  # releases before vLLM's linear-kernel classes name the choice in the log only
        kernels = [k for group in entry["linear"] for k in group["kernels"].values()]
        logged = [m.group(1) for line in entry["log"] if (m := re.match(r"Using (\S+) for NVFP4 GEMM", line))]
        return " ".join(kernels or logged)
    if decision.startswith("if_forced:"):
        return " ".join((entry["attention"] or {}).get("if_forced", {}).get(decision.split(":", 1)[1], []))
    if decision == "error":
        return " ".join(f"{e['kind']}: {e['message']}" for e in entry["errors"])
    raise AssertionError(decision)


@pytest.mark.parametrize("seen", OBSERVED, ids=[f"{o.url.rsplit('/', 1)[1]}-{o.decision}" for o in OBSERVED])
def test_table_reproduces_the_report(seen):
    if seen.release is None:
        pytest.skip(f"{seen.url} does not name its vLLM release")
    if _table(seen.release, seen.table) is None:
        pytest.skip(f"vLLM {seen.release} is not tabulated (python -m tools.engine_oracle vllm {seen.release})")
    entry = _entry(seen)
    if seen.decision == "log":
        assert _logged(entry, seen.expected), (seen.url, seen.expected, entry["log"])
        return
    if seen.decision.startswith("accepts_forced:"):
        backend = seen.decision.split(":", 1)[1]
        assert (entry["attention"] or {}).get("if_forced", {}).get(backend) == [], (seen.url, backend)
        return
    decided = _decided(entry, seen.decision)
    if seen.decision == "error":
        assert "rejection" in decided and seen.expected.lower() in decided.lower(), (seen.url, decided)
    else:
        assert seen.expected.lower() in decided.lower(), (seen.url, seen.decision, decided)


def test_real_sm90_and_sm100_controls_are_counted_by_capability():
    """Issue 26 point 4: logs of real 9.0 and 10.0 machines as controls of the emulation itself."""
    by_capability = {c: {(o.url, o.expected) for o in CONTROLS if o.capability == c} for c in ("9.0", "10.0")}
    assert len(by_capability["9.0"]) >= 4 and len(by_capability["10.0"]) >= 4
    assert all(o.release is not None for o in CONTROLS)


# Tables written before the runner forgot what vLLM assigns onto its `vllm.envs` module between queries
# (inside/vllm_runner.py, _forget_envs_assignments) are listed here with the rerun that fixes them, as strict xfails:
# vLLM 0.12.0 sets `envs.VLLM_ATTENTION_BACKEND = "CUTLASS_MLA"` for an MLA model on 10.0, and every later 10.0 query
# of that process was refused as if the user had forced CUTLASS_MLA. 0.12.0's 10.0 controls were rerun on
# 2026-11-28 (18 entries), so none is left.
STALE_FORCED: dict[str, str] = {}


def _unforced_entries_refused_as_forced(table: dict) -> list[str]:
    """Entries of a non-MLA shape that forced no backend and were refused one (an MLA shape can be refused its
    release's own MLA default, as 0.12.0 refuses sparse MLA on 10.0)."""
    refused = []
    for entry in table["entries"]:
        forced = "attention=" in entry["grid"] or "VLLM_ATTENTION_BACKEND" in (entry.get("env") or {})
        forced = forced or entry["grid"].startswith("mla")
        messages = [error["message"] for error in entry["errors"]]
        if not forced and any(m.startswith("Selected backend") and "is not valid" in m for m in messages):
            refused.append(f"{entry['capability']} {entry['grid']}")
    return refused


@pytest.mark.parametrize("release", [
    pytest.param(path.stem, marks=pytest.mark.xfail(strict=True, reason=STALE_FORCED[path.stem]))
    if path.stem in STALE_FORCED else path.stem
    for path in sorted((DERIVED / "vllm").glob("*.json"))])
def test_no_entry_is_refused_for_a_backend_it_did_not_force(release):
    """vLLM's "Selected backend X is not valid for this configuration" answers a forced backend (or, for MLA, the
    release's own default); a GQA entry that forced none and got it read state a previous query left behind."""
    assert _unforced_entries_refused_as_forced(_table(release)) == []
