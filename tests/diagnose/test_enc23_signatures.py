"""The signatures of rules/enc23.toml on the lines vLLM and the CUDA runtime print. FI140's misaligned address is
claimed only where the same log shows vLLM selecting FlashInfer's FP8 scaled-mm (vLLM's `logger.info_once("Selected
%s for %s", ...)` in model_executor/kernels/linear/__init__.py) or a coredump naming cuDNN's FP8 matmul kernel
(vllm#34948): on its own the line is any kernel's."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from tests.diagnose.corpus import empty_base

GB10 = b"(EngineCore pid=198) INFO 08-03 09:01:02 [cuda.py:101] GPU 0: NVIDIA GB10 (compute capability 12.1)\n"
H100 = b"GPU 0: NVIDIA H100 80GB HBM3\n"
BANNER = b"(APIServer pid=1) INFO 08-03 09:00:00 [utils.py:253] vLLM API server version 0.25.1\n"
SELECTED = (b"(EngineCore pid=198) INFO 08-03 09:01:40 [__init__.py:594] Selected FlashInferFP8ScaledMMLinearKernel "
            b"for ModelOptFp8LinearMethod\n")
MISALIGNED = (b"(EngineCore pid=198) ERROR 08-03 09:26:14 [core.py:1100] torch.AcceleratorError: CUDA error: "
              b"misaligned address\n")
COREDUMP = (b"CUDA Exception: Warp Misaligned Address\n"
            b"#0  0x0000e5a1 in cudnn_generated_fort_native_sm120_matMul_pointwise_fp8<<<(4,1,1),(128,1,1)>>> ()\n")


def claimed(log: bytes) -> list[str]:
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "test", {}, judge_on_log_only=True)
    return [e.rule for e in diagnosis.explanations]


def test_a_misaligned_address_alone_is_not_claimed():
    assert "FI140" not in claimed(BANNER + GB10 + MISALIGNED)


def test_beside_the_fp8_scaled_mm_selection_it_is_fi140s():
    assert claimed(BANNER + GB10 + SELECTED + MISALIGNED)[:1] == ["FI140"]


def test_a_coredump_naming_cudnns_fp8_matmul_is_fi140s():
    assert "FI140" in claimed(BANNER + GB10 + COREDUMP)


def test_not_on_a_hopper_log():
    assert "FI140" not in claimed(BANNER + H100 + SELECTED + MISALIGNED)


STUCK_334 = (b"## Update: the issue disappeared after a complete power cycle\n"
             b"Before the recovery, the DGX Spark GPU clock was stuck at approximately **702 MHz**, even during "
             b"inference.\n")
STUCK_55 = b"DGX Spark / GB10 can get stuck in a low-power state while reporting P0 and high utilization\n"


def test_a_gb10_clock_stuck_low_is_drv040s():
    assert claimed(STUCK_334)[:1] == ["DRV040"]
    assert "DRV040" in claimed(STUCK_55)


def test_a_stuck_clock_on_another_gpu_is_not_claimed():
    line = b"RTX 5090: after the crash the GPU clock was stuck at 765 MHz until the driver reloaded\n"
    assert "DRV040" not in claimed(line)


def test_a_low_idle_clock_is_not_claimed():
    assert "DRV040" not in claimed(b"GB10 idle: graphics clock 702 MHz, SM clock 702 MHz\n")


TRAIT = b"AttributeError: 'NoneType' object has no attribute '_trait'\n"
TMA_FRAME = b"  at copy_utils.tma_get_copy_fn -> cpasync.tma_partition\n"
RTX5060TI = b"GPU: NVIDIA GeForce RTX 5060 Ti (SM 12.0, compute capability 12.0)\n"


def test_flash_attn_4s_tma_store_line_is_attn020s_beside_its_frame():
    assert claimed(RTX5060TI + TRAIT + TMA_FRAME)[:1] == ["ATTN020"]
    assert "ATTN020" not in claimed(RTX5060TI + TRAIT)


def test_not_on_hopper():
    assert "ATTN020" not in claimed(H100 + TRAIT + TMA_FRAME)


PLAN = b"RuntimeError: Plan index 3 is invalid\n"
BMM_FRAME = (b'  File "/usr/local/lib/python3.12/dist-packages/flashinfer/gemm/gemm_base.py", line 6873, in bmm_fp8\n')
CUDNN_FAIL = (b"RuntimeError: execute(...) failed with message: err 715 != CUDA_SUCCESS :: "
              b"shimCuLaunchKernelEx(&config, func, kern...) at: err != CUDA_SUCCESS, and code: "
              b"CUDNN_STATUS_EXECUTION_FAILED\n")
GRAPH_FRAME = (b'  File "/usr/local/lib/python3.12/dist-packages/flashinfer/gemm/gemm_base.py", line 3264, in '
               b"build_cudnn_gemm_fp8_graph\n")


def test_a_cudnn_plan_index_refusal_in_bmm_fp8_is_fi140s():
    assert "FI140" in claimed(BANNER + GB10 + BMM_FRAME + PLAN)
    assert "FI140" not in claimed(BANNER + GB10 + PLAN)


def test_a_cudnn_fp8_execution_failure_is_fi140s():
    assert "FI140" in claimed(BANNER + GB10 + GRAPH_FRAME + CUDNN_FAIL)
    assert "FI140" not in claimed(BANNER + GB10 + CUDNN_FAIL)
