"""Log lines that forum threads, Reddit posts and blogs quote for SM12x serving failures, each named by the rule
that states its cause and fix; the same lines from another engine or GPU are not claimed. The corpus
(index.toml) holds GitHub reports only, so these pages' lines live here (ledger entries cite the pages)."""

from __future__ import annotations

import pytest

from tests.diagnose.corpus import diagnose_on, fix_texts
from tests.diagnose.corpus import rules_named as claimed

# https://ai-navigate-news.com/articles/6e455fcd-c9cb-495d-a576-c1db5fde5ed8 (r/LocalLLaMA, 4x RTX PRO 6000,
# vLLM 0.17.1rc1, FlashInfer 0.6.6): the line as the post quotes it
TMA_WS = b"Failed to initialize cutlass TMA WS grouped gemm\n"
# reddit.sentinel-team.org snapshot of r/LocalLLaMA 1roqkw4 (vLLM 0.17.0, FlashInfer 0.6.5, RTX PRO 6000): the
# autotuner line in a vLLM worker log
TMA_WS_VLLM = (b"INFO 03-13 22:41:07 [api_server.py:1896] vLLM API server version 0.17.0\n"
               b"(Worker_PP0_TP0 pid=4121) [Autotuner]: Skipping tactic 3 due to failure while profiling: "
               b"[TensorRT-LLM][ERROR] Failed to initialize cutlass TMA WS grouped gemm. Error: Error Internal\n")
# https://hnshowcase.com/post/47310428/... (TensorRT-LLM's refusal on desktop Blackwell, as the post quotes it)
FP4_GEFORCE = b"RuntimeError: FP4 Gemm not supported before Blackwell, nor GeForce Blackwell\n"
# github.com/devnen/qwen3.6-windows-server docs/BLACKWELL.md: a cu126 PyTorch on an RTX 5090
NO_KERNEL_CU126 = (b"torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device "
                   b"(cudaErrorNoKernelImageForDevice)\n")
# https://blog.022025.xyz/news/48587865 (devashish.me: two vLLM containers on one DGX Spark), vLLM's full line
NO_CACHE_BLOCKS = (b"ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` "
                   b"when initializing the engine.\n")
SGLANG_NOT_ENOUGH = (b"RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. "
                     b"Current value: mem_fraction_static=0.8\n")
# https://al-engr.com/sglang-deepseek-spark-pivot.html (SGLang 0.5.12, DeepSeek V4 Flash, 2x DGX Spark): the
# post's error line after the launch it describes (the image tag states the release)
UNKNOWN_SF_SGLANG = (b"docker run --gpus all --network host lmsysorg/sglang:v0.5.12 python3 -m sglang.launch_server "
                     b"--model-path deepseek-ai/DeepSeek-V4-Flash --tp 2 --nnodes 2\n"
                     b"[2026-05-24 10:02:11 TP0] Load weight begin.\n"
                     b"RuntimeError: Unknown SF transformation\n")
UNKNOWN_SF_VLLM = (b"INFO 05-24 10:00:00 [api_server.py:1896] vLLM API server version 0.20.0\n"
                   b"INFO 05-24 10:00:01 [utils.py:326] non-default args: {'model': 'deepseek-ai/DeepSeek-V4-Flash'}\n"
                   b"RuntimeError: Unknown SF transformation\n")


run = diagnose_on


@pytest.mark.parametrize(("log", "profile", "rule", "fix"), [
    (TMA_WS, None, "MOE030", "marlin"),
    (TMA_WS, "rtx-pro-6000", "MOE030", "marlin"),
    (TMA_WS_VLLM, "rtx-pro-6000", "MOE030", "marlin"),
    (FP4_GEFORCE, "rtx-5090", "TRT003", ""),
    (NO_KERNEL_CU126, "rtx-5090", "TORCH001", "cu12"),
    (NO_CACHE_BLOCKS, None, "MEM001", "--gpu-memory-utilization"),
    (NO_CACHE_BLOCKS, "dgx-spark", "MEM001", "co-resident"),
    (SGLANG_NOT_ENOUGH, "rtx-5090", "MEM001", "--mem-fraction-static"),
    (UNKNOWN_SF_SGLANG, "dgx-spark", "DG001", ""),
    (UNKNOWN_SF_SGLANG, "rtx-pro-6000", "DG001", ""),
])
def test_the_quoted_line_is_named_first_with_its_fix(log, profile, rule, fix):
    diagnosis = run(log, profile)
    assert claimed(diagnosis) and claimed(diagnosis)[0] == rule, claimed(diagnosis)
    assert any(fix.lower() in t.lower() for t in fix_texts(diagnosis)), fix_texts(diagnosis)


def test_unknown_sf_in_a_vllm_log_is_not_sglangs_deepgemm_rule():
    assert "DG001" not in claimed(run(UNKNOWN_SF_VLLM, "dgx-spark"))


def test_unknown_sf_without_deepseek_v4_is_not_dg001s():
    """DG001's cause is DeepSeek-V4's wo_a scale setup: a bare line from another model is not claimed by it."""
    log = UNKNOWN_SF_SGLANG.replace(b"deepseek-ai/DeepSeek-V4-Flash", b"Qwen/Qwen3-235B-A22B-FP8")
    assert "DG001" not in claimed(run(log, "dgx-spark"))


@pytest.mark.parametrize("profile", ["h100-sxm-x8", "b200-x8"])
def test_unknown_sf_on_hopper_or_datacenter_blackwell_is_not_dg001s(profile):
    diagnosis = run(UNKNOWN_SF_SGLANG, profile)
    assert "DG001" not in claimed(diagnosis)
    assert any(r.rule == "DG001" for r in diagnosis.ruled_out)


def test_the_sglang_release_with_the_sm120_branch_is_not_dg001s():
    log = UNKNOWN_SF_SGLANG.replace(b"sglang:v0.5.12", b"sglang:v0.5.13")
    assert "DG001" not in claimed(run(log, "dgx-spark"))


# github.com/Sggin1/DGX-SPARK nvfp4-guide quotes FlashInfer's autotuner lines from a vLLM 0.18.1rc1 container; the
# "[TensorRT-LLM][ERROR]" prefix (FlashInfer bundles TensorRT-LLM's kernels) names no engine by itself
TMA_WS_TRT_PREFIX = (b"[Autotuner]: Skipping tactic 3 due to failure while profiling:\n"
                     b"[TensorRT-LLM][ERROR] Failed to initialize cutlass TMA WS grouped gemm\n")


def test_flashinfers_trtllm_prefixed_line_without_engine_lines_is_named():
    assert "MOE030" in claimed(run(TMA_WS_TRT_PREFIX, "rtx-pro-6000"))
