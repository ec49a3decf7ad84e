"""The fifth held-out sample's log lines (rules/spent_heldout5.toml, task enc5): each claimed where its cause
holds, with the fix, and left alone just outside (the other SM12x part, another library's line, a GPU fault)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diagnose.corpus import diagnose_on, fix_texts
from tests.diagnose.corpus import rules_named as claimed

PAGES = Path(__file__).parent / "page_logs"
# https://hermes-agent-benchmarks.dba.wtf/war-stories (DGX Spark, Qwen3.6-27B-FP8 in vLLM images)
HERMES = (PAGES / "hermes-war-stories-qwen36-27b-fp8-spark.log").read_bytes()
# vLLM's CUTLASS_CHECK as TORCH_CHECK prints it (csrc/cutlass_extensions/common.hpp)
RUN_FAILED = (b"RuntimeError: cutlass_gemm_caller, /workspace/csrc/quantization/w8a8/cutlass/c3x/"
              b"cutlass_gemm_caller.cuh:61, Error Internal\n")
# https://github.com/vllm-project/vllm/issues/47990: can_implement refusing N = 576 (VLLM112's line, not a launch)
CAN_IMPLEMENT = (b"RuntimeError: cutlass_gemm_caller, /workspace/csrc/quantization/w8a8/cutlass/c3x/"
                 b"cutlass_gemm_caller.cuh:52, Invalid status\n")


@pytest.mark.parametrize("log", [HERMES, RUN_FAILED])
def test_a_cutlass_launch_failure_on_gb10_is_the_sm120_only_build(log):
    diagnosis = diagnose_on(log, "dgx-spark")
    assert "VLLM320" in claimed(diagnosis)
    assert any("TORCH_CUDA_ARCH_LIST=12.1a" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)
    assert any("VLLM_DISABLED_KERNELS" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize("profile", ["rtx-5090", "rtx-pro-6000", "h100-sxm-x8", "b200-x8"])
def test_not_on_a_gpu_that_runs_sm120a_code_or_is_not_sm12x(profile):
    assert "VLLM320" not in claimed(diagnose_on(RUN_FAILED, profile))


def test_not_on_can_implements_refusal():
    assert "VLLM320" not in claimed(diagnose_on(CAN_IMPLEMENT, "dgx-spark"))


def test_the_retold_transformers_refusal_is_dsp057s_with_the_release_that_knows_qwen3_5():
    diagnosis = diagnose_on(b"ValueError: model_type qwen3_5 not recognized\n", "dgx-spark")
    assert claimed(diagnosis)[0] == "DSP057", claimed(diagnosis)
    assert any("transformers>=5.2.0" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize("line", [
    b"TypeError: DSparkProposer.propose() got an unexpected keyword argument 'req_ids'\n",
    b"TypeError: EagleProposer.propose() got an unexpected keyword argument 'num_rejected_tokens_gpu'\n",
])
def test_a_proposer_refusing_the_runners_keyword_is_a_mixed_install(line):
    diagnosis = diagnose_on(line, "dgx-spark")
    assert claimed(diagnosis)[0] == "VLLM321", claimed(diagnosis)
    assert any("overlay" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


def test_another_unexpected_keyword_is_not_the_proposers():
    line = b"TypeError: LLM.generate() got an unexpected keyword argument 'prompt_token_ids'\n"
    assert "VLLM321" not in claimed(diagnose_on(line, "dgx-spark"))


@pytest.mark.parametrize("line", [
    b"Problem loading model with error 3221225501\n",
    b"Error: llama runner process has terminated: exit status 0xc000001d\n",
    b"Illegal instruction (core dumped)\n",
])
def test_an_illegal_cpu_instruction_is_a_binary_built_for_another_cpu(line):
    diagnosis = diagnose_on(line, "rtx-5060")
    assert claimed(diagnosis)[0] == "LCPP200", claimed(diagnosis)
    assert any("GGML_CPU_ALL_VARIANTS" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize("line", [
    b"CUDA error: an illegal instruction was encountered\n",
    b"torch.AcceleratorError: CUDA error: an illegal instruction was encountered\n"
    b"Illegal instruction (core dumped)\n",
])
def test_the_gpus_illegal_instruction_is_not_the_cpus(line):
    assert "LCPP200" not in claimed(diagnose_on(line, "dgx-spark"))


def test_dll_not_found_names_the_cuda_runtime():
    diagnosis = diagnose_on(b"Model Load Failed\nexited with code 3221225781\n", "rtx-5070-ti")
    assert claimed(diagnosis)[0] == "LCPP201", claimed(diagnosis)
    assert any("cudart" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


def test_nemoclaw_provider_line_names_the_probe():
    diagnosis = diagnose_on(b"Requested provider 'ollama' is not available in this environment.\n", "dgx-spark")
    assert claimed(diagnosis)[0] == "VLLM322", claimed(diagnosis)


TELEMETRY = (b"  vLLM install failed: Could not read valid GPU memory telemetry for Qwen3.6 35B-A3B NVFP4 with "
             b"nvidia-smi. Verify NVIDIA driver access and GPU health, then resume onboarding.\n")


def test_nemoclaw_telemetry_refusal_on_unified_memory():
    diagnosis = diagnose_on(TELEMETRY, "dgx-spark")
    assert claimed(diagnosis)[0] == "VLLM323", claimed(diagnosis)
    assert any("#10131" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize("profile", ["rtx-5090", "rtx-pro-6000"])
def test_nemoclaw_telemetry_refusal_on_a_discrete_gpu_is_another_cause(profile):
    assert "VLLM323" not in claimed(diagnose_on(TELEMETRY, profile))


@pytest.mark.parametrize("line", [
    b"ValueError: invalid literal for int() with base 10: '[N/A]'\n",
    b"RuntimeError: invalid NVIDIA numeric field on row 1\n",
    b'  File "/opt/app/gpu.py", line 40, in total\n    info = pynvml.nvmlDeviceGetMemoryInfo(handle)\n'
    b"pynvml.NVMLError_NotSupported: Not Supported\n",
])
def test_a_tool_parsing_nvml_memory_on_gb10(line):
    diagnosis = diagnose_on(line, "dgx-spark")
    assert claimed(diagnosis)[0] == "UMA150", claimed(diagnosis)
    assert any("mem_get_info" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize("profile", ["rtx-5090", "rtx-pro-6000", "h100-sxm-x8"])
def test_the_same_parse_error_on_a_discrete_gpu_is_not_unified_memory(profile):
    assert "UMA150" not in claimed(diagnose_on(b"ValueError: invalid literal for int() with base 10: '[N/A]'\n",
                                               profile))


NGRAM_FRAME = ('  File "/sgl-workspace/sglang/python/sglang/srt/speculative/ngram_worker.py", line 250, in '
               'forward_batch_generation\n')
IMA = "torch.AcceleratorError: CUDA error: an illegal memory access was encountered\n"


def test_an_ima_under_the_ngram_worker_is_the_padded_replay():
    diagnosis = diagnose_on((NGRAM_FRAME + IMA).encode(), "rtx-pro-6000")
    assert claimed(diagnosis)[0] == "SGL460", claimed(diagnosis)
    assert any("24401" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


def test_an_ima_elsewhere_is_not_the_ngram_replay():
    eagle = '  File "/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py", line 300, in verify\n'
    assert "SGL460" not in claimed(diagnose_on((eagle + IMA).encode(), "rtx-pro-6000"))
    assert "SGL460" not in claimed(diagnose_on(IMA.encode(), "rtx-pro-6000"))
