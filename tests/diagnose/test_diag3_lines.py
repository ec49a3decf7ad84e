"""The log-line rules of rules/log_lines_2026.toml on the text users paste: each names its line, and stays off the
same text from another GPU, with another cause in the log, or beside a release that does not have the bound."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, profile_base, rules_named

DEEPGEMM = b"RuntimeError: Assertion error (csrc/apis/attention.hpp:211): Unsupported architecture\n"
DEEPGEMM_GEMM = b"RuntimeError: Assertion error (/sgl-workspace/DeepGEMM/csrc/apis/gemm.hpp:122): " \
                b"Unsupported architecture or scaling factor types\n"
CUBLAS = b"RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasLtMatmulAlgoGetHeuristic(" \
         b" ltHandle, computeDesc.descriptor(), Adesc.descriptor(), Bdesc.descriptor())`\n"
SCALED_MM = b'  File "/app/quant.py", line 41, in forward\n    return torch._scaled_mm(x, w, scale_a=sa, scale_b=sb)\n'
ARCH_120 = b'  File "/venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py", line 2092, in ' \
           b'_get_cuda_arch_flags\n    raise ValueError(f"Unknown CUDA arch ({arch}) or GPU not supported")\n' \
           b"ValueError: Unknown CUDA arch (12.0) or GPU not supported\n"
ARCH_121 = b"ValueError: Unknown CUDA arch (12.1a) or GPU not supported\n"
ARCH_89 = b"ValueError: Unknown CUDA arch (8.9) or GPU not supported\n"
NVCC_121 = b"nvcc fatal   : Unsupported gpu architecture 'compute_121a'\n"
NVCC_90 = b"nvcc fatal   : Unsupported gpu architecture 'compute_90a'\n"
XID_79 = b"NVRM: Xid (PCI:0000:06:00): 79, GPU has fallen off the bus.\n"
XID_13 = b"NVRM: Xid (PCI:0000:01:00): 13, pid=1234, name=python3, Graphics Exception: ESR 0x514730=0x20\n"


def run(log: bytes, profile: str | None = None, *engines: str):
    return diagnose_text(log, profile_base(profile, *engines) if profile else None)


def claimed(log: bytes, profile: str | None = None, *engines: str) -> list[str]:
    return rules_named(run(log, profile, *engines))


def test_deepgemm_arch_assertion_is_named_on_sm12x_and_not_on_other_gpus():
    assert claimed(DEEPGEMM)[0] == "KRN030"
    assert claimed(DEEPGEMM_GEMM)[0] == "KRN030"
    assert claimed(DEEPGEMM, "rtx-5090")[0] == "KRN030"
    assert claimed(DEEPGEMM, "dgx-spark")[0] == "KRN030"
    for other in ("h100-sxm-x8", "b200-x8"):
        assert "KRN030" not in claimed(DEEPGEMM, other)


def test_an_engine_rule_with_the_release_ranks_before_the_line_rule():
    vllm_frame = b'  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/attention/backends/mla/indexer.py", ' \
                 b'line 310, in forward\n'
    named = claimed(vllm_frame + DEEPGEMM)
    assert named[0] == "DG010" and "KRN030" in named


def test_cublas_not_supported_needs_fp8_in_the_log():
    assert claimed(CUBLAS + SCALED_MM)[0] == "KRN031"
    assert claimed(CUBLAS + SCALED_MM, "rtx-pro-5000")[0] == "KRN031"
    assert "KRN031" not in claimed(CUBLAS)  # a BF16 GEMM refused by cuBLAS: no FP8, another cause
    for other in ("h100-sxm-x8", "b200-x8"):
        assert "KRN031" not in claimed(CUBLAS + SCALED_MM, other)


def test_cpp_extension_arch_rejection_follows_the_torch_release():
    assert claimed(ARCH_120)[0] == "BLD030"
    assert claimed(ARCH_120, "rtx-5090", "torch==2.6.0")[0] == "BLD030"
    assert "BLD030" not in claimed(ARCH_120, "rtx-5090", "torch==2.7.0")
    assert claimed(ARCH_121, "dgx-spark", "torch==2.7.1")[0] == "BLD031"
    assert "BLD031" not in claimed(ARCH_121, "dgx-spark", "torch==2.8.0")
    assert not {"BLD030", "BLD031"} & set(claimed(ARCH_89))  # an Ada arch: not an SM12x target


def test_bare_nvcc_refusal_of_an_sm12x_target_only():
    assert claimed(NVCC_121)[0] == "BLD032"
    assert "BLD032" not in claimed(NVCC_90)


def test_xid_79_on_sm12x_but_not_other_gpus_or_other_xids():
    assert claimed(XID_79)[0] == "DRV030"
    assert claimed(XID_79, "rtx-pro-6000")[0] == "DRV030"
    for other in ("h100-sxm-x8", "b200-x8"):
        assert "DRV030" not in claimed(XID_79, other)
    assert "DRV030" not in claimed(XID_13, "rtx-5090")


def test_lmcache_frame_takes_no_kernel_image_from_torch():
    log = b"torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n" \
          b'  File "/usr/local/lib/python3.12/dist-packages/lmcache/v1/gpu_connector.py", line 318, in to_gpu\n' \
          b"    lmc_ops.multi_layer_kv_transfer(\n"
    named = claimed(log, "rtx-5090")
    assert named[0] == "TPK001" and "TORCH001" not in named
    bare = b"torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n"
    assert claimed(bare, "rtx-5090")[0] == "TORCH001"


SHARED_OBJECT = b"CUDA error: shared object initialization failed\n  current device: 0, in function launch_fattn at "


def test_a_windows_log_is_read_as_windows_whatever_the_profile_says():
    """LCPP042 is Windows-only: a drive-letter path, an .exe/.dll/.pyd or a win_amd64 wheel states the host OS."""
    windows = SHARED_OBJECT + b"D:\\a\\llama.cpp\\llama.cpp\\ggml\\src\\ggml-cuda\\fattn-common.cuh:1428\n"
    linux = SHARED_OBJECT + b"/home/u/llama.cpp/ggml/src/ggml-cuda/fattn-common.cuh:1428\n"
    assert claimed(windows, "rtx-5090")[0] == "LCPP042"
    assert "LCPP042" not in claimed(linux, "rtx-5090")  # the profile's Linux stands: ruled out
    dll = SHARED_OBJECT + b"ggml-cuda.cu:88\n00007FFB635CD35A ggml-cuda.dll!ggml_cuda_error\n"
    assert claimed(dll, "rtx-5090")[0] == "LCPP042"
    assert run(windows, "rtx-5090").deployment.facts.host.os == "Windows"


def test_a_wsl_log_stays_linux_under_windows():
    log = b"Linux version 6.6.87.2-microsoft-standard-WSL2 (root@host)\n" \
          b"loading C:\\Users\\me\\models\\qwen.gguf\n"
    facts = run(log, "rtx-5090").deployment.facts
    assert facts.host.wsl is True and facts.host.os != "Windows"


TRITON_OOM = b"RuntimeError: Triton Error [CUDA]: out of memory\n"


def test_triton_out_of_memory_is_headroom_on_sm12x_only():
    assert claimed(TRITON_OOM)[0] == "TRI025"
    assert claimed(TRITON_OOM, "dgx-spark")[0] == "TRI025"
    for other in ("h100-sxm-x8", "b200-x8"):
        assert "TRI025" not in claimed(TRITON_OOM, other)
    other_error = b"RuntimeError: Triton Error [CUDA]: an illegal memory access was encountered\n"
    assert "TRI025" not in claimed(other_error)


NVRTC = b"RuntimeError: nvrtc: error: invalid value for --gpu-architecture (-arch)\n"


def test_an_old_nvrtc_on_sm12x_but_not_on_the_gpus_of_the_older_reports():
    assert claimed(NVRTC)[0] == "KRN032"
    assert claimed(NVRTC, "rtx-5070-ti")[0] == "KRN032"
    for other in ("h100-sxm-x8", "b200-x8"):
        assert "KRN032" not in claimed(NVRTC, other)


def _watchdog(seq: int) -> bytes:
    return (b"GPU 0: NVIDIA GeForce RTX 5090\n[rank0]:[E103 21:38:08.812271514 ProcessGroupNCCL.cpp:683] [Rank 0] "
            b"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=ALLREDUCE, NumelIn=1, "
            b"NumelOut=1, Timeout(ms)=600000) ran for 600086 milliseconds before timing out.\n" % seq)


def test_an_early_nccl_watchdog_timeout_on_sm120_names_the_p2p_path():
    assert claimed(_watchdog(1))[0] == "NCCL040"
    assert "NCCL040" not in claimed(_watchdog(16172))  # deep into a run: other causes
    assert "NCCL040" not in claimed(_watchdog(1).replace(b"GeForce RTX 5090", b"H100 80GB HBM3"))
    assert "NCCL040" not in claimed(_watchdog(1).replace(b"GPU 0: NVIDIA GeForce RTX 5090\n", b""))


TOO_OLD = b"torch/cuda/__init__.py:182: UserWarning: CUDA initialization: The NVIDIA driver on your system is " \
          b"too old (found version %d). Please update your GPU driver by downloading and installing a new version\n"


def test_torchs_driver_too_old_reads_the_drivers_cuda_and_confirms_drv003():
    log = TOO_OLD % 12080 + b"[pip3] torch==2.9.0+cu130\n"
    diagnosis = run(log, "rtx-5090")
    assert diagnosis.deployment.facts.driver.cuda_driver_version == "12.8"
    first = diagnosis.explanations[0]
    assert first.rule == "DRV003" and first.status == "confirmed"
    assert claimed(TOO_OLD % 12080)[0] == "DRV003"  # nothing else stated: on the line alone
    assert "DRV003" not in claimed(TOO_OLD % 12080 + b"[pip3] torch==2.9.0+cu128\n", "rtx-5090")  # same major
    assert "DRV003" not in claimed(TOO_OLD % 11040)  # a CUDA 11 driver: not this rule's line


def test_an_nvcc_builds_own_ptxas_refusing_sm121a_is_bld032():
    banner = b"Cuda compilation tools, release 12.8, V12.8.93\n"
    ptxas = b"ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'\n"
    assert claimed(banner + ptxas, "dgx-spark")[0] == "BLD032"
    assert claimed(ptxas)[0] == "TRI002"  # no toolkit banner: Triton's bundled ptxas


def test_exec_format_error_is_an_amd64_image_on_gb10_only():
    line = b"exec /bin/sh: exec format error\n"
    assert claimed(line, "dgx-spark")[0] == "IMG006"
    assert "IMG006" not in claimed(line, "rtx-5090")  # an x86 host: an arm64 image fails the same way
    assert "IMG006" not in claimed(line)
