"""Every shipped rule, at least one positive and one negative case, version boundaries on both sides."""

from __future__ import annotations

import dataclasses

import pytest

from doctor.facts import Driver, Library, Source
from tests.rules.builders import RULES, a, build, decode_attention, findings, fused_moe, lib

PRO, R5090, SPARK, H100 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8"
KIMI, DSV3, GLM = "moonshotai/Kimi-K2.5", "deepseek-ai/DeepSeek-V3", "zai-org/GLM-4.7-FP8"
GPTOSS, NVFP4, LLAMA = "openai/gpt-oss-120b", "nvidia/Kimi-K2.5-NVFP4", "meta-llama/Llama-3.1-8B-Instruct"


def sg(version, model=KIMI, profile=PRO, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


def vl(version, model=LLAMA, profile=PRO, **kw):
    return lambda: build(profile, model, (f"vllm=={version}",), **kw)


def with_lib(*libs, profile=PRO, model=None, **kw):
    return lambda: build(profile, model, libs=libs, **kw)


def cuda_lib(sass, ptx):
    entry = {"path": "vllm/_C.abi3.so", "sass": sass, "ptx": ptx, "format": "elf", "modules": 1, "rdc_ptx": [],
             "size": 1, "error": None}
    return Library(name="vllm", version="0.10.0", details={"cuda_binaries": [entry]})


def smem(value):
    return lambda gpus: tuple(dataclasses.replace(g, smem_per_block_optin=value, smem_source="torch") for g in gpus)


def mixed(gpus):
    return (gpus[0], dataclasses.replace(gpus[1], name="NVIDIA GeForce RTX 5090"), *gpus[2:])


def no_p2p(links):
    return tuple(dataclasses.replace(link, p2p_read=False) if i == 0 else link for i, link in enumerate(links))


def live_without_driver():
    return build(R5090).replace(source=Source(kind="live"), gpus=(), topology=(),
                                driver=Driver(present=False, error="NVML Shared Library Not Found"))


def ordered(order):
    return lambda: build(PRO, gpus=mixed).replace(driver=Driver(present=True, cuda_device_order=order))


def torch(version, cuda="12.8", archs=None):
    details = {"cuda_version": cuda, **({"arch_list": archs} if archs is not None else {})}
    return lib("torch", version, **details)


def llama_cpp(*archs):
    return lib("llama.cpp", "0.3.16", cuda_library="/x/libggml-cuda.so", cuda_archs=list(archs))


CASES = [
    a("HW001", True, "live no driver", live_without_driver),
    a("HW001", False, "profile", lambda: build(R5090)),
    a("HW002", True, "runtime smem differs", lambda: build(PRO, gpus=smem(99000))),
    a("HW002", False, "runtime smem equals table", lambda: build(PRO, gpus=smem(101376))),
    a("HW003", True, "mixed", lambda: build(PRO, gpus=mixed)),
    a("HW003", False, "identical", lambda: build(PRO)),
    a("HW004", True, "mixed fastest first", ordered("FASTEST_FIRST")),
    a("HW004", False, "mixed pci order", ordered("PCI_BUS_ID")),
    a("DRV001", True, "565", lambda: build(PRO, driver="565.57.01")),
    a("DRV001", False, "570.26", lambda: build(PRO, driver="570.26")),
    a("DRV002", True, "cu130 on 575", with_lib(torch("2.11.0", "13.0"), driver="575.51.03")),
    a("DRV002", False, "cu130 on 580", with_lib(torch("2.11.0", "13.0"), driver="580.65.06")),
    a("DRV002", False, "cu128 on 575", with_lib(torch("2.9.1", "12.8"), driver="575.51.03")),
    a("DRV003", True, "driver cuda 12.8 torch 13.0",
      with_lib(torch("2.11.0", "13.0"), driver="575.1", cuda_driver="12.8")),
    a("DRV003", False, "driver cuda 13.0 torch 13.0",
      with_lib(torch("2.11.0", "13.0"), driver="580.1", cuda_driver="13.0")),
    a("TORCH001", True, "cu126", with_lib(torch("2.7.0", "12.6"))),
    a("TORCH001", False, "cu128", with_lib(torch("2.7.0", "12.8"))),
    a("TORCH002", True, "2.6.0", with_lib(torch("2.6.0", "12.8"))),
    a("TORCH002", False, "2.7.0", with_lib(torch("2.7.0", "12.8"))),
    a("TORCH003", True, "spark sm_120 only", with_lib(torch("2.9.1", "12.8", ["sm_90", "sm_120"]), profile=SPARK)),
    a("TORCH003", False, "spark sm_121", with_lib(torch("2.9.1", "12.8", ["sm_120", "sm_121"]), profile=SPARK)),
    a("TORCH003", False, "pro 6000", with_lib(torch("2.9.1", "12.8", ["sm_90", "sm_120"]))),
    a("SGL101", True, "0.5.8", sg("0.5.8")),
    a("SGL101", False, "0.5.9", sg("0.5.9")),
    a("SGL102", True, "default overflows", sg("0.5.8", GLM), kernels=(fused_moe(False),)),
    a("SGL102", False, "default fits", sg("0.5.14", GLM), kernels=(fused_moe(True),)),
    a("SGL102", False, "file overflows", sg("0.5.8", GLM), kernels=(fused_moe(False, "file"),)),
    a("SGL103", True, "file overflows", sg("0.5.8", GLM), kernels=(fused_moe(False, "file"),)),
    a("SGL103", False, "default overflows", sg("0.5.8", GLM), kernels=(fused_moe(False),)),
    a("SGL104", True, "default fits on sm120", sg("0.5.14", GLM), kernels=(fused_moe(True),)),
    a("SGL104", False, "file fits", sg("0.5.14", GLM), kernels=(fused_moe(True, "file"),)),
    a("SGL104", False, "hopper", sg("0.5.14", GLM, H100), kernels=(fused_moe(True, limit=232448),)),
    a("SGL105", True, "0.5.11 triton 3.6", sg("0.5.11", GLM), kernels=(fused_moe(True, triton_dir="triton_3_6_0"),)),
    a("SGL105", False, "0.5.12 scans all", sg("0.5.12", GLM), kernels=(fused_moe(True, triton_dir="triton_3_6_0"),)),
    a("SGL105", False, "0.5.11 triton 3.5.1", sg("0.5.11", GLM), kernels=(fused_moe(True),)),
    a("SGL106", True, "vision head_dim 256", sg("0.5.8", vision_head_dim=256)),
    a("SGL106", True, "vision head_dim 256 on 0.5.23", sg("0.5.23", vision_head_dim=256)),
    a("SGL106", False, "vision head_dim 72", sg("0.5.8")),
    a("SGL106", False, "sdpa", sg("0.5.8", vision_head_dim=256), "--mm-attention-backend", "sdpa"),
    a("SGL106", False, "hopper fa3", sg("0.5.8", profile=H100, vision_head_dim=256)),
    a("KRN001", True, "decode overflows", sg("0.5.8"), kernels=(decode_attention(False),)),
    a("KRN001", False, "decode fits", sg("0.5.8"), kernels=(decode_attention(True),)),
    a("KRN001", False, "extend overflow has its own rule", sg("0.5.8")),
    a("SGL107", True, "trtllm_mla", sg("0.5.23"), "--attention-backend", "trtllm_mla"),
    a("SGL107", True, "prefill fa3", sg("0.5.23"), "--prefill-attention-backend", "fa3"),
    a("SGL107", False, "triton", sg("0.5.23"), "--attention-backend", "triton"),
    a("SGL107", False, "trtllm_mla on hopper", sg("0.5.23", profile=H100), "--attention-backend", "trtllm_mla"),
    a("SGL108", True, "flashinfer_trtllm", sg("0.5.23", GLM), "--moe-runner-backend", "flashinfer_trtllm"),
    a("SGL108", False, "flashinfer_cutlass", sg("0.5.23", GLM), "--moe-runner-backend", "flashinfer_cutlass"),
    a("SGL109", True, "flashinfer_trtllm", sg("0.5.23", GLM), "--fp8-gemm-backend", "flashinfer_trtllm"),
    a("SGL109", False, "triton", sg("0.5.23", GLM), "--fp8-gemm-backend", "triton"),
    a("SGL110", True, "0.5.9 default", sg("0.5.9", GPTOSS)),
    a("SGL110", False, "0.5.10 default", sg("0.5.10", GPTOSS)),
    a("SGL110", True, "0.5.17 forced", sg("0.5.17", GPTOSS), "--moe-runner-backend", "flashinfer_mxfp4"),
    a("SGL110", False, "0.5.18 forced", sg("0.5.18", GPTOSS), "--moe-runner-backend", "flashinfer_mxfp4"),
    a("SGL110", False, "hopper", sg("0.5.8", GPTOSS, H100)),
    a("SGL111", True, "0.5.14", sg("0.5.14"), "--disable-cuda-graph"),
    a("SGL111", False, "0.5.13", sg("0.5.13"), "--disable-cuda-graph"),
    a("SGL112", True, "0.5.23 max-bs", sg("0.5.23"), "--cuda-graph-max-bs", "8"),
    a("SGL112", True, "0.5.9 disable-piecewise", sg("0.5.9"), "--disable-piecewise-cuda-graph"),
    a("SGL112", False, "0.5.16 max-bs", sg("0.5.16"), "--cuda-graph-max-bs", "8"),
    a("SGL112", False, "0.5.10 disable-piecewise", sg("0.5.10"), "--disable-piecewise-cuda-graph"),
    a("SGL113", True, "0.5.14 max-bs", sg("0.5.14"), "--cuda-graph-max-bs", "8"),
    a("SGL113", False, "0.5.13 max-bs", sg("0.5.13"), "--cuda-graph-max-bs", "8"),
    a("SGL114", True, "--pp", sg("0.5.8"), "--pp", "2"),
    a("SGL114", False, "--pp-size", sg("0.5.8"), "--pp-size", "2"),
    a("SGL115", True, "0.5.9 torch 2.9.1 cudnn 9.10", lambda: build(
        PRO, KIMI, ("sglang==0.5.9",), libs=(torch("2.9.1"), lib("cudnn", "9.10.2.21")))),
    a("SGL115", False, "cudnn 9.15", lambda: build(
        PRO, KIMI, ("sglang==0.5.9",), libs=(torch("2.9.1"), lib("cudnn", "9.15.0")))),
    a("SGL115", False, "0.5.10", lambda: build(
        PRO, KIMI, ("sglang==0.5.10",), libs=(torch("2.9.1"), lib("cudnn", "9.10.2")))),
    a("SGL115", False, "text only", lambda: build(
        PRO, LLAMA, ("sglang==0.5.9",), libs=(torch("2.9.1"), lib("cudnn", "9.10.2")))),
    a("SGL115", False, "escape set", lambda: build(PRO, KIMI, ("sglang==0.5.9",), libs=(
        torch("2.9.1"), lib("cudnn", "9.10.2")), env={"SGLANG_DISABLE_CUDNN_CHECK": "1"})),
    a("SGL116", True, "0.5.10", sg("0.5.10", env={"SGLANG_DISABLE_CUDNN_CHECK": "1"})),
    a("SGL116", True, "0.5.6", sg("0.5.6", env={"SGLANG_DISABLE_CUDNN_CHECK": "1"})),
    a("SGL116", False, "0.5.9", sg("0.5.9", env={"SGLANG_DISABLE_CUDNN_CHECK": "1"})),
    a("SGL116", False, "0.5.7", sg("0.5.7", env={"SGLANG_DISABLE_CUDNN_CHECK": "1"})),
    a("SGL117", True, "nvfp4 fp8 kv 0.5.11", sg("0.5.11", NVFP4)),
    a("SGL117", False, "nvfp4 fp8 kv 0.5.12", sg("0.5.12", NVFP4)),
    a("SGL117", True, "flag fp8 kv", sg("0.5.8"), "--kv-cache-dtype", "fp8_e4m3"),
    a("SGL117", False, "bf16 kv", sg("0.5.8")),
    a("SGL118", True, "nvfp4 auto", sg("0.5.23", NVFP4)),
    a("SGL118", False, "nvfp4 cutlass", sg("0.5.23", NVFP4), "--fp4-gemm-backend", "flashinfer_cutlass"),
    a("VLLM001", True, "0.9.1", vl("0.9.1")),
    a("VLLM001", False, "0.9.2", vl("0.9.2")),
    a("VLLM002", True, "0.15.0 fp8 moe", vl("0.15.0", GLM)),
    a("VLLM002", False, "0.15.1 fp8 moe", vl("0.15.1", GLM)),
    a("VLLM002", False, "0.15.0 dense bf16", vl("0.15.0", LLAMA)),
    a("VLLM003", True, "0.15.0 nvfp4", vl("0.15.0", NVFP4)),
    a("VLLM003", False, "0.14.0 nvfp4", vl("0.14.0", NVFP4)),
    a("VLLM003", False, "0.15.1 nvfp4", vl("0.15.1", NVFP4)),
    a("VLLM004", True, "0.18.0 nvfp4", vl("0.18.0", NVFP4)),
    a("VLLM004", False, "0.19.0 nvfp4", vl("0.19.0", NVFP4)),
    a("VLLM005", True, "FLASHMLA flag", vl("0.20.0", DSV3), "--attention-backend", "FLASHMLA"),
    a("VLLM005", True, "CUTLASS_MLA env", vl("0.17.0", DSV3, env={"VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"})),
    a("VLLM005", False, "TRITON_MLA", vl("0.20.0", DSV3), "--attention-backend", "TRITON_MLA"),
    a("VLLM005", False, "gqa model", vl("0.20.0", LLAMA), "--attention-backend", "FLASHMLA"),
    a("VLLM006", True, "sinks flashinfer", vl("0.20.0", GPTOSS), "--attention-backend", "FLASHINFER"),
    a("VLLM006", False, "sinks triton", vl("0.20.0", GPTOSS), "--attention-backend", "TRITON_ATTN"),
    a("VLLM006", False, "no sinks flashinfer", vl("0.20.0", LLAMA), "--attention-backend", "FLASHINFER"),
    a("VLLM007", True, "fp8 kv FA", vl("0.20.0"), "--kv-cache-dtype", "fp8", "--attention-backend", "FLASH_ATTN"),
    a("VLLM007", False, "fp8 kv flashinfer", vl("0.20.0"), "--kv-cache-dtype", "fp8",
      "--attention-backend", "FLASHINFER"),
    a("VLLM008", True, "0.26.0", vl("0.26.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM008", False, "0.25.0", vl("0.25.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM009", True, "0.25.0", vl("0.25.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM009", False, "0.26.0", vl("0.26.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM009", False, "0.17.0", vl("0.17.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM010", True, "trtllm attention on", vl("0.20.0", env={"VLLM_USE_TRTLLM_ATTENTION": "1"})),
    a("VLLM010", False, "trtllm attention off", vl("0.20.0", env={"VLLM_USE_TRTLLM_ATTENTION": "0"})),
    a("VLLM011", True, "0.20 on 575", vl("0.20.0", driver="575.51.03")),
    a("VLLM011", False, "0.19 on 575", vl("0.19.0", driver="575.51.03")),
    a("VLLM011", False, "0.20 on 580", vl("0.20.0", driver="580.65.06")),
    a("FI001", True, "cubin 0.6.11", with_lib(lib("flashinfer-cubin", "0.6.11"))),
    a("FI001", False, "cubin 0.6.12", with_lib(lib("flashinfer-cubin", "0.6.12"))),
    a("FI002", True, "0.6.7 nvcc 12.8", with_lib(lib("flashinfer-python", "0.6.7"), lib("nvcc", "12.8.93"))),
    a("FI002", False, "0.6.7 nvcc 12.9", with_lib(lib("flashinfer-python", "0.6.7"), lib("nvcc", "12.9.86"))),
    a("FI002", False, "0.6.6 nvcc 12.8", with_lib(lib("flashinfer-python", "0.6.6"), lib("nvcc", "12.8.93"))),
    a("FI002", False, "jit cache", with_lib(lib("flashinfer-python", "0.6.7"), lib("nvcc", "12.8.93"),
                                         lib("flashinfer-jit-cache", "0.6.7"))),
    a("FI003", True, "no nvcc", with_lib(lib("flashinfer-python", "0.6.7"))),
    a("FI003", False, "nvcc", with_lib(lib("flashinfer-python", "0.6.7"), lib("nvcc", "13.0.88"))),
    a("FI004", True, "0.5.3 fp8 block", with_lib(lib("flashinfer-python", "0.5.3"), model=DSV3)),
    a("FI004", False, "0.6.0 fp8 block", with_lib(lib("flashinfer-python", "0.6.0"), model=DSV3)),
    a("FI005", True, "spark jit cache", with_lib(lib("flashinfer-jit-cache", "0.6.8"), profile=SPARK)),
    a("FI005", False, "spark arch list set", with_lib(lib("flashinfer-jit-cache", "0.6.8"), profile=SPARK,
                                                     env={"FLASHINFER_CUDA_ARCH_LIST": "12.1a"})),
    a("FI005", False, "pro 6000", with_lib(lib("flashinfer-jit-cache", "0.6.8"))),
    a("FI006", True, "0.3.0", with_lib(lib("flashinfer-python", "0.3.0"))),
    a("FI006", False, "0.3.1", with_lib(lib("flashinfer-python", "0.3.1"))),
    a("FI007", True, "cudnn flag", sg("0.5.23", NVFP4), "--fp4-gemm-backend", "flashinfer_cudnn"),
    a("FI007", True, "cudnn env", sg("0.5.23", NVFP4, env={"SGLANG_FLASHINFER_FP4_GEMM_BACKEND": "cudnn"})),
    a("FI007", False, "cutlass", sg("0.5.23", NVFP4), "--fp4-gemm-backend", "flashinfer_cutlass"),
    a("TRT001", True, "TRTLLM", with_lib(lib("tensorrt-llm", "1.2.1")), "--moe_backend", "TRTLLM"),
    a("TRT001", False, "CUTLASS", with_lib(lib("tensorrt-llm", "1.2.1")), "--moe_backend", "CUTLASS"),
    a("TRT002", True, "1.1.0 fp8 block", with_lib(lib("tensorrt-llm", "1.1.0"), model=DSV3)),
    a("TRT002", False, "1.2.0 fp8 block", with_lib(lib("tensorrt-llm", "1.2.0"), model=DSV3)),
    a("TRT003", True, "0.19.0", with_lib(lib("tensorrt-llm", "0.19.0"))),
    a("TRT003", False, "0.20.0", with_lib(lib("tensorrt-llm", "0.20.0"))),
    a("TRT004", True, "spark", with_lib(lib("tensorrt-llm", "1.2.1"), profile=SPARK)),
    a("TRT004", False, "pro 6000", with_lib(lib("tensorrt-llm", "1.2.1"))),
    a("TRI001", True, "3.2.0", with_lib(lib("triton", "3.2.0"))),
    a("TRI001", False, "3.3.0", with_lib(lib("triton", "3.3.0"))),
    a("TRI002", True, "spark 3.5.1", with_lib(lib("triton", "3.5.1"), profile=SPARK)),
    a("TRI002", False, "spark 3.6.0", with_lib(lib("triton", "3.6.0"), profile=SPARK)),
    a("TRI002", False, "spark ptxas set", with_lib(lib("triton", "3.5.1"), profile=SPARK,
                                                  env={"TRITON_PTXAS_PATH": "/usr/local/cuda/bin/ptxas"})),
    a("TRI002", False, "pro 6000 3.5.1", with_lib(lib("triton", "3.5.1"))),
    a("CUT001", True, "4.5.0", with_lib(lib("nvidia-cutlass-dsl", "4.5.0"))),
    a("CUT001", False, "4.5.1", with_lib(lib("nvidia-cutlass-dsl", "4.5.1"))),
    a("CUT002", True, "spark 4.1.0", with_lib(lib("nvidia-cutlass-dsl", "4.1.0"), profile=SPARK)),
    a("CUT002", False, "spark 4.2.0", with_lib(lib("nvidia-cutlass-dsl", "4.2.0"), profile=SPARK)),
    a("LCPP001", True, "plain sm_120", with_lib(llama_cpp("sm_86", "sm_120"))),
    a("LCPP001", False, "sm_120a", with_lib(llama_cpp("sm_86", "sm_120a"))),
    a("LCPP002", True, "sm_86 only", with_lib(llama_cpp("sm_86"))),
    a("LCPP002", False, "ptx", with_lib(llama_cpp("sm_86", "compute_86"))),
    a("LCPP003", True, "head_dim 256", with_lib(llama_cpp("sm_120a"), model=LLAMA, attention={"head_dim": 256})),
    a("LCPP003", False, "head_dim 128", with_lib(llama_cpp("sm_120a"), model=LLAMA)),
    a("TOPO001", True, "tp8 pcie", sg("0.5.23")),
    a("TOPO001", False, "explicit flag", sg("0.5.23"), "--disable-custom-all-reduce"),
    a("TOPO001", False, "tp2", sg("0.5.23"), "--tp-size", "2"),
    a("TOPO001", False, "nvlink", sg("0.5.23", profile=H100)),
    a("TOPO002", True, "tp8 across sockets", sg("0.5.23")),
    a("TOPO002", False, "pp given", sg("0.5.23"), "--tp-size", "4", "--pp-size", "2"),
    a("TOPO002", False, "two gpus", sg("0.5.23", profile="rtx-5090-x2")),
    a("TOPO003", True, "p2p unsupported", sg("0.5.23", topology=no_p2p)),
    a("TOPO003", False, "p2p unknown", sg("0.5.23")),
    a("BIN001", True, "sm_90 only", with_lib(cuda_lib(["sm_90"], []))),
    a("BIN001", False, "family build", with_lib(cuda_lib(["sm_120f"], []))),
    a("BIN002", True, "compute_80 PTX only", with_lib(cuda_lib(["sm_80"], ["compute_80"]))),
    a("BIN002", False, "native", with_lib(cuda_lib(["sm_80", "sm_120"], ["compute_80"]))),
    a("MEM002", True, "128k context on a 5090", sg("0.5.8", LLAMA, "rtx-5090"), "--context-length", "131072"),
    a("MEM002", False, "8k context on a 5090", sg("0.5.8", LLAMA, "rtx-5090"), "--context-length", "8192"),
    a("MEM001", True, "GLM-4.7 BF16 on 8x96 GB", sg("0.5.8", "zai-org/GLM-4.7")),
    a("MEM001", False, "GLM-4.7-FP8 on 8x96 GB", sg("0.5.8", GLM)),
    a("MEM003", True, "TP7 does not divide 96 heads", sg("0.5.8", GLM), "--tp-size", "7"),
    a("MEM003", False, "TP8", sg("0.5.8", GLM), "--tp-size", "8"),
    a("MEM004", True, "Kimi K2.5 INT4 TP8: KV pool near zero", sg("0.5.8")),
    a("MEM004", False, "Llama 8B on 8x96 GB", sg("0.5.8", LLAMA)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case):
    found = findings(case.facts(), *case.args, kernels=case.kernels)
    assert (case.rule in found) is case.fires, sorted(found)


def test_every_rule_has_a_positive_and_a_negative_case():
    ids = {r.id for r in RULES}
    positive = {c.rule for c in CASES if c.fires}
    negative = {c.rule for c in CASES if not c.fires}
    assert ids - positive == set(), "rules without a positive case"
    assert ids - negative == set(), "rules without a negative case"
    assert {c.rule for c in CASES} <= ids, "cases for rules that do not exist"
