"""Every shipped rule, at least one positive and one negative case, version boundaries on both sides."""

from __future__ import annotations

import dataclasses

import pytest

from doctor.pipeline.facts import Driver, Library, Source
from tests.rules.builders import RULES, a, build, decode_attention, findings, fused_moe, lib

PRO, R5090, SPARK, H100 = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark", "h100-sxm-x8"
WS4 = "rtx-pro-6000-ws-x4"
MO_NVFP4_BF16_SHARED = {"scheme": "nvfp4", "method": "modelopt", "quantized": ("routed_experts", "attention")}
GDN24 = {"linear_attention_layers": 24}  # a Gated DeltaNet hybrid's 24 linear-attention layers
W4A16_DENSE = {"quantized": ("routed_experts", "attention")}  # Kimi-K2.5 with its attention quantized too
UNKNOWN_QUANT = {"scheme": "exl3", "method": "exl3", "quantized": ("routed_experts", "attention")}
KIMI, DSV3, GLM = "moonshotai/Kimi-K2.5", "deepseek-ai/DeepSeek-V3", "zai-org/GLM-4.7-FP8"
SPARSE = {"sparse": True}  # DeepSeek-V3 with the V3.2 indexer (index_topk): no V3.2 config is bundled
GPTOSS, NVFP4, LLAMA = "openai/gpt-oss-120b", "nvidia/Kimi-K2.5-NVFP4", "meta-llama/Llama-3.1-8B-Instruct"
QWEN235_FP8 = "Qwen/Qwen3-235B-A22B-FP8"
GEMMA4 = "tests/knowngood/models/google--gemma-4-26B-A4B"
NVFP4_DSV3 = "tests/cases/models/deepseek-v3.1-nvfp4"
MTP = '{"method": "mtp", "num_speculative_tokens": 1}'


DSV32 = "tests/cases/models/deepseek-v3.2"
GLM5_NEXT, GLM_DSA = "tests/cases/models/glm5-next-standin", "tests/cases/models/glm-moe-dsa-standin"


def sg(version, model=KIMI, profile=PRO, **kw):
    return lambda: build(profile, model, (f"sglang=={version}",), **kw)


def vl(version, model=LLAMA, profile=PRO, **kw):
    return lambda: build(profile, model, (f"vllm=={version}",), **kw)


def installed_vllm(vllm_version, flashinfer_version, model=LLAMA, profile=PRO):
    """vLLM and flashinfer-python as a live probe finds them installed (not what-ifs)."""
    return lambda: build(profile, model, libs=(lib("vllm", vllm_version), lib("flashinfer-python", flashinfer_version)))


def trt(version, model, profile=PRO, **kw):
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",), **kw)


def trt_options(text):
    """`--extra_llm_api_options FILE` with this YAML, written once per text to the test cache."""
    import hashlib

    from tests.wheels import cache_root

    path = cache_root() / "trt-options" / f"{hashlib.sha256(text.encode()).hexdigest()[:12]}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return "--extra_llm_api_options", str(path)


def with_lib(*libs, profile=PRO, model=None, **kw):
    return lambda: build(profile, model, libs=libs, **kw)


def cuda_lib(sass, ptx, families=None):
    entry = {"path": "vllm/_C.abi3.so", "sass": sass, "ptx": ptx, "format": "elf", "modules": 1, "rdc_ptx": [],
             "size": 1, "error": None, "families": families or {}}
    return Library(name="vllm", version="0.10.0", details={"cuda_binaries": [entry]})


def gemm_families(gemm_archs):
    """_C with MoE routing built for sm_120 and the CUTLASS scaled-mm kernels built for `gemm_archs`."""
    return {"moe_routing": {"kernels": 4, "kernel_archs": [[["sm_90a", "sm_120"], None, 4]]},
            "cutlass_scaled_mm": {"kernels": 12, "kernel_archs": [[gemm_archs, None, 12]]}}


def vllm_moe(fits, source="file"):
    check = fused_moe(fits, source)
    details = {**check.details, "entries": 18, "lookup_from": "vLLM 0.20.0 wheel",
               "overflowing_batch_sizes": [] if fits else [16]}
    return dataclasses.replace(check, engine="vllm", details=details)


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


def llama_cpp(*archs, **details):
    return lib("llama.cpp", "0.3.16", cuda_library="/x/libggml-cuda.so", cuda_archs=list(archs), **details)


def lcpp(build_number, model="tiny"):
    return lambda: build(R5090, gguf(model), (f"llama.cpp=={build_number}",))


def lcpp_smem(build_number, smem_bytes):
    return lambda: build(R5090, gguf("tiny"), (f"llama.cpp=={build_number}",), gpus=smem(smem_bytes))


def lcpp_spark(build_number):
    return lambda: build(SPARK, gguf("tiny"), (f"llama.cpp=={build_number}",))


def with_os(facts, os_name):
    return facts.replace(host=dataclasses.replace(facts.host, os=os_name))


def lcpp_os(os_name, profile=R5090):
    return lambda: with_os(build(profile, gguf("tiny"), ("llama.cpp==10488",)), os_name)


def gguf(name):
    from tests.engines.llama_cpp.gguf_files import fixture

    return str(fixture(name))


def unread_config_facts(extra):
    """A Qwen3-MoE style config with `extra` fields, read by the doctor's own model reader."""
    from doctor.probe.model_config import parse_model

    config = {"architectures": ["Qwen3MoeForCausalLM"], "model_type": "qwen3_moe", "hidden_size": 2048,
              "num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
              "vocab_size": 151936, "intermediate_size": 6144, "moe_intermediate_size": 768, "num_experts": 128,
              "num_experts_per_tok": 8, "torch_dtype": "bfloat16", **extra}
    model = parse_model(config, None, model_id="test/unread", source="local", source_path=None)
    return build(PRO).replace(model=model)


HF_Q36 = "unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q3_K_S"  # a -hf GGUF with no file on disk: its tensor table is estimated


def memory(gib):
    return lambda gpus: tuple(dataclasses.replace(g, memory_total_bytes=int(gib * (1 << 30))) for g in gpus)


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
    a("DRV003", False, "driver cuda 12.8 torch 12.9: minor-version compatibility",
      with_lib(torch("2.9.1", "12.9"), driver="570.1", cuda_driver="12.8")),
    a("DRV003", True, "driver cuda 12.9 torch 13.0",
      with_lib(torch("2.11.0", "13.0"), driver="575.1", cuda_driver="12.9")),
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
    a("SGL119", True, "backend typo", sg("0.5.8"), "--attention-backend", "trtion"),
    a("SGL119", False, "valid backend", sg("0.5.8"), "--attention-backend", "triton"),
    a("SGL119", True, "choice from a later release", sg("0.5.8"), "--mm-attention-backend", "flashinfer_cudnn"),
    a("SGL120", True, "tp-size typo", sg("0.5.8"), "--tp-szie", "8"),
    a("SGL120", False, "flag far from every known one", sg("0.5.8"), "--host", "0.0.0.0"),
    a("KRN001", True, "decode overflows", sg("0.5.8"), kernels=(decode_attention(False),)),
    a("KRN001", False, "decode fits", sg("0.5.8"), kernels=(decode_attention(True),)),
    a("KRN001", False, "extend overflow has its own rule", sg("0.5.8")),
    a("SGL107", True, "trtllm_mla", sg("0.5.23"), "--attention-backend", "trtllm_mla"),
    a("SGL107", True, "prefill fa3", sg("0.5.23"), "--prefill-attention-backend", "fa3"),
    a("SGL107", False, "triton", sg("0.5.23"), "--attention-backend", "triton"),
    a("SGL107", False, "trtllm_mla on hopper", sg("0.5.23", profile=H100), "--attention-backend", "trtllm_mla"),
    a("SGL107", True, "trtllm_mha on 0.5.18: prefill SM100 only", sg("0.5.18", LLAMA), "--attention-backend",
      "trtllm_mha"),
    a("SGL107", False, "trtllm_mha on 0.5.19: fmha_v2 prefill on SM120", sg("0.5.19", LLAMA), "--attention-backend",
      "trtllm_mha"),
    a("SGL107", False, "decode trtllm_mha on 0.5.10: XQA", sg("0.5.10", LLAMA), "--decode-attention-backend",
      "trtllm_mha"),
    a("SGL107", True, "decode trtllm_mha on 0.5.9", sg("0.5.9", LLAMA), "--decode-attention-backend", "trtllm_mha"),
    a("SGL107", False, "trtllm_mha decode, triton prefill on 0.5.16", sg("0.5.16", LLAMA), "--attention-backend",
      "trtllm_mha", "--prefill-attention-backend", "triton"),
    a("SGL107", True, "prefill trtllm_mha on 0.5.16", sg("0.5.16", LLAMA), "--prefill-attention-backend",
      "trtllm_mha"),
    a("SGL108", True, "flashinfer_trtllm", sg("0.5.23", GLM), "--moe-runner-backend", "flashinfer_trtllm"),
    a("SGL108", False, "flashinfer_cutlass", sg("0.5.23", GLM), "--moe-runner-backend", "flashinfer_cutlass"),
    a("SGL109", True, "flashinfer_trtllm", sg("0.5.23", DSV3), "--fp8-gemm-backend", "flashinfer_trtllm"),
    a("SGL109", False, "triton", sg("0.5.23", DSV3), "--fp8-gemm-backend", "triton"),
    a("SGL110", True, "0.5.9 default", sg("0.5.9", GPTOSS)),
    a("SGL110", False, "0.5.10 default", sg("0.5.10", GPTOSS)),
    a("SGL110", True, "0.5.16 forced", sg("0.5.16", GPTOSS), "--moe-runner-backend", "flashinfer_mxfp4"),
    a("SGL110", False, "0.5.17 forced: FlashInfer CUTLASS on SM120", sg("0.5.17", GPTOSS), "--moe-runner-backend",
      "flashinfer_mxfp4"),
    a("SGL110", False, "hopper", sg("0.5.8", GPTOSS, H100)),
    a("SGL111", True, "0.5.14", sg("0.5.14"), "--disable-cuda-graph"),
    a("SGL111", False, "0.5.13", sg("0.5.13"), "--disable-cuda-graph"),
    a("SGL112", True, "0.5.23 max-bs", sg("0.5.23"), "--cuda-graph-max-bs", "8"),
    a("SGL112", True, "0.5.9 disable-piecewise", sg("0.5.9"), "--disable-piecewise-cuda-graph"),
    a("SGL112", False, "0.5.16 max-bs", sg("0.5.16"), "--cuda-graph-max-bs", "8"),
    a("SGL112", False, "0.5.10 disable-piecewise", sg("0.5.10"), "--disable-piecewise-cuda-graph"),
    a("SGL490", True, "0.5.23 underscore", sg("0.5.23"), "--mem_fraction_static", "0.8"),
    a("SGL490", True, "0.5.1 underscore with =", sg("0.5.1"), "--tp_size=8"),
    a("SGL490", False, "0.5.23 dashed", sg("0.5.23"), "--mem-fraction-static", "0.8"),
    a("SGL490", False, "vLLM accepts underscores", vl("0.24.0"), "--max_model_len", "8192"),
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
    a("SGL118", True, "nvfp4 auto on 0.5.12: cuDNN by SGLang's choice", sg("0.5.12", NVFP4)),
    a("SGL118", True, "nvfp4 auto on 0.5.10 on GB10", sg("0.5.10", NVFP4, SPARK), "--fp4-gemm-backend", "auto"),
    a("SGL118", True, "nvfp4 auto on 0.5.8: FlashInfer's own auto", sg("0.5.8", NVFP4)),
    a("SGL118", False, "nvfp4 cutlass", sg("0.5.12", NVFP4), "--fp4-gemm-backend", "flashinfer_cutlass"),
    a("SGL118", False, "0.5.9 defaults to flashinfer_cutlass", sg("0.5.9", NVFP4)),
    a("SGL118", False, "0.5.13 resolves auto to flashinfer_cutlass on SM12x", sg("0.5.13", NVFP4)),
    a("SGL118", False, "0.5.23 resolves auto to flashinfer_cutlass on SM12x", sg("0.5.23", NVFP4)),
    a("SGL118", False, "0.5.7 has no flag (env, cutlass when unset)", sg("0.5.7", NVFP4)),
    a("SGL118", False, "the env names the backend", sg("0.5.12", NVFP4,
      env={"SGLANG_FLASHINFER_FP4_GEMM_BACKEND": "cutlass"})),
    a("VLLM001", True, "0.9.1", vl("0.9.1")),
    a("VLLM001", False, "0.9.2", vl("0.9.2")),
    a("VLLM002", True, "0.15.0 fp8 moe", vl("0.15.0", GLM)),
    a("VLLM002", True, "0.14.0 fp8 moe", vl("0.14.0", GLM)),
    a("VLLM002", False, "0.13.0 fp8 moe: CUTLASS method needs capability exactly 9.0/10.0", vl("0.13.0", GLM)),
    a("VLLM002", False, "0.11.0 fp8 moe: Triton fused MoE", vl("0.11.0", GLM)),
    a("VLLM002", False, "0.15.1 fp8 moe", vl("0.15.1", GLM)),
    a("VLLM002", False, "0.15.0 dense bf16", vl("0.15.0", LLAMA)),
    a("VLLM002", False, "0.15.0 block fp8 (Fp8MoEMethod)", vl("0.15.0", DSV3)),
    a("VLLM002", False, "0.14.0 block fp8 (Fp8MoEMethod)", vl("0.14.0", DSV3)),
    a("VLLM002", False, "0.15.0 fp8 moe on hopper", vl("0.15.0", GLM, H100)),
    a("VLLM002", False, "0.15.0 per-tensor dynamic: CutlassExpertsFp8 refuses it",
      vl("0.15.0", GLM, quant={"scheme": "fp8-tensor", "activation": "float8-tensor-dynamic"})),
    a("VLLM002", True, "0.15.0 per-tensor static",
      vl("0.15.0", GLM, quant={"scheme": "fp8-tensor", "activation": "float8-tensor-static"})),
    a("VLLM002", False, "0.15.0 modelopt fp8 per-tensor", vl("0.15.0", GLM, quant={"method": "modelopt",
                                                                                  "scheme": "fp8-tensor"})),
    a("VLLM003", True, "0.15.0 nvfp4", vl("0.15.0", NVFP4)),
    a("VLLM003", False, "0.14.0 nvfp4", vl("0.14.0", NVFP4)),
    a("VLLM003", False, "0.15.1 nvfp4", vl("0.15.1", NVFP4)),
    a("VLLM004", True, "0.18.0 nvfp4", vl("0.18.0", NVFP4)),
    a("VLLM004", False, "0.19.0 nvfp4", vl("0.19.0", NVFP4)),
    a("VLLM005", True, "FLASHMLA flag", vl("0.20.0", DSV3), "--attention-backend", "FLASHMLA"),
    a("VLLM005", True, "CUTLASS_MLA env 0.14 reads it",
      vl("0.14.0", DSV3, env={"VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"})),
    a("VLLM005", True, "FLASHINFER_MLA env 0.11",
      vl("0.11.0", KIMI, env={"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"})),
    a("VLLM005", False, "CUTLASS_MLA env 0.15 ignores it",
      vl("0.15.0", DSV3, env={"VLLM_ATTENTION_BACKEND": "CUTLASS_MLA"})),
    a("VLLM005", False, "TRITON_MLA", vl("0.20.0", DSV3), "--attention-backend", "TRITON_MLA"),
    a("VLLM005", False, "gqa model", vl("0.20.0", LLAMA), "--attention-backend", "FLASHMLA"),
    a("VLLM005", False, "sparse MLA forced FLASHMLA: VLLM022's",
      vl("0.20.0", DSV3, attention=SPARSE), "--attention-backend", "FLASHMLA"),
    a("VLLM022", True, "sparse MLA 0.23.0", vl("0.23.0", DSV3, attention=SPARSE)),
    a("VLLM022", True, "sparse MLA 0.14.0 on GB10", vl("0.14.0", DSV3, profile="dgx-spark", attention=SPARSE)),
    a("VLLM022", False, "sparse MLA 0.24.0 has FLASHINFER_MLA_SPARSE_SM120", vl("0.24.0", DSV3, attention=SPARSE)),
    a("VLLM022", False, "dense MLA 0.23.0", vl("0.23.0", DSV3)),
    a("VLLM022", False, "sparse MLA 0.23.0 on H100", vl("0.23.0", DSV3, profile="h100-sxm-x8", attention=SPARSE)),
    a("VLLM006", True, "sinks flashinfer", vl("0.20.0", GPTOSS), "--attention-backend", "FLASHINFER"),
    a("VLLM006", True, "sinks FLASH_ATTN env 0.12",
      vl("0.12.0", GPTOSS, env={"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"})),
    a("VLLM006", False, "sinks FLASH_ATTN env 0.15 ignores it",
      vl("0.15.0", GPTOSS, env={"VLLM_ATTENTION_BACKEND": "FLASH_ATTN"})),
    a("VLLM006", False, "sinks triton", vl("0.20.0", GPTOSS), "--attention-backend", "TRITON_ATTN"),
    a("VLLM006", False, "no sinks flashinfer", vl("0.20.0", LLAMA), "--attention-backend", "FLASHINFER"),
    a("VLLM007", True, "fp8 kv FA", vl("0.20.0"), "--kv-cache-dtype", "fp8", "--attention-backend", "FLASH_ATTN"),
    a("VLLM007", False, "fp8 kv flashinfer", vl("0.20.0"), "--kv-cache-dtype", "fp8",
      "--attention-backend", "FLASHINFER"),
    a("VLLM008", True, "0.15.0", vl("0.15.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM008", False, "0.14.0", vl("0.14.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM009", True, "0.13.0", vl("0.13.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM009", False, "0.15.0", vl("0.15.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM009", False, "0.12.0 has no flag yet", vl("0.12.0", env={"VLLM_ATTENTION_BACKEND": "TRITON_ATTN"})),
    a("VLLM010", True, "0.14 reads it", vl("0.14.0", env={"VLLM_USE_TRTLLM_ATTENTION": "1"})),
    a("VLLM010", False, "0.15 ignores it", vl("0.15.0", env={"VLLM_USE_TRTLLM_ATTENTION": "1"})),
    a("VLLM010", False, "trtllm attention off", vl("0.14.0", env={"VLLM_USE_TRTLLM_ATTENTION": "0"})),
    a("VLLM011", True, "0.20 on 575", vl("0.20.0", driver="575.51.03")),
    a("VLLM011", False, "0.19 on 575", vl("0.19.0", driver="575.51.03")),
    a("VLLM011", False, "0.20 on 580", vl("0.20.0", driver="580.65.06")),
    a("VLLM011", False, "installed 0.20 beside a cu129 torch (vLLM's CUDA 12.9 build)",
      with_lib(lib("vllm", "0.20.0"), torch("2.11.0", "12.9"), driver="575.51.03")),
    a("VLLM011", True, "installed 0.20 beside a cu130 torch",
      with_lib(lib("vllm", "0.20.0"), torch("2.11.0", "13.0"), driver="575.51.03")),
    a("VLLM011", False, "0.20.0+cu129", with_lib(lib("vllm", "0.20.0+cu129"), driver="575.51.03")),
    a("VLLM012", True, "0.15 ignores VLLM_USE_TRTLLM_ATTENTION",
      vl("0.15.0", env={"VLLM_USE_TRTLLM_ATTENTION": "1"})),
    a("VLLM012", False, "0.14 reads it", vl("0.14.0", env={"VLLM_USE_TRTLLM_ATTENTION": "1"})),
    a("VLLM013", True, "misspelt flag", vl("0.15.1"), "--tensor-paralel-size", "8"),
    a("VLLM013", True, "flag before it existed", vl("0.12.0"), "--attention-backend", "TRITON_ATTN"),
    a("VLLM013", False, "valid flags", vl("0.15.1"), "--tensor-parallel-size", "8", "--enforce-eager"),
    a("VLLM014", True, "DSV3 TP4: shipped 0.20 table", vl("0.20.0", DSV3), "--tensor-parallel-size", "4"),
    a("VLLM014", False, "DSV3 TP4 on 0.19: no table", vl("0.19.0", DSV3), "--tensor-parallel-size", "4"),
    a("VLLM014", True, "file overflows", vl("0.20.0", GLM), kernels=(vllm_moe(False),)),
    a("VLLM014", False, "file fits", vl("0.20.0", GLM), kernels=(vllm_moe(True),)),
    a("VLLM014", False, "sglang kernel", vl("0.20.0", GLM), kernels=(fused_moe(False, "file"),)),
    a("VLLM015", True, "default overflows", vl("0.20.0", GLM), kernels=(vllm_moe(False, "default"),)),
    a("VLLM015", False, "default fits", vl("0.20.0", GLM), kernels=(vllm_moe(True, "default"),)),
    a("FI001", True, "cubin 0.6.11, no jit cache", with_lib(lib("flashinfer-cubin", "0.6.11"))),
    a("FI001", True, "cubin 0.6.12, no jit cache", with_lib(lib("flashinfer-cubin", "0.6.12"))),
    a("FI001", False, "cubin and jit cache", with_lib(lib("flashinfer-cubin", "0.6.12"),
                                                    lib("flashinfer-jit-cache", "0.6.12+cu130"))),
    a("FI001", False, "hopper", with_lib(lib("flashinfer-cubin", "0.6.11"), profile=H100)),
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
    a("TRT001", True, "moe_config.backend TRTLLM", trt("1.2.1", GPTOSS),
      *trt_options("moe_config:\n  backend: TRTLLM\n")),
    a("TRT001", False, "moe_config.backend CUTLASS", trt("1.2.1", GPTOSS),
      *trt_options("moe_config:\n  backend: CUTLASS\n")),
    a("TRT001", False, "AUTO resolves to CUTLASS on SM120", trt("1.2.1", GPTOSS),
      *trt_options("moe_config:\n  backend: AUTO\n")),
    a("TRT001", False, "TRTLLM on an H100", trt("1.2.1", GPTOSS, profile=H100),
      *trt_options("moe_config:\n  backend: TRTLLM\n")),
    a("TRT002", True, "1.1.0 fp8 block", with_lib(lib("tensorrt-llm", "1.1.0"), model=DSV3)),
    a("TRT002", False, "1.2.0 fp8 block", with_lib(lib("tensorrt-llm", "1.2.0"), model=DSV3)),
    a("TRT003", True, "0.19.0", with_lib(lib("tensorrt-llm", "0.19.0"))),
    a("TRT003", False, "0.20.0", with_lib(lib("tensorrt-llm", "0.20.0"))),
    a("TRT004", True, "spark", with_lib(lib("tensorrt-llm", "1.2.1"), profile=SPARK)),
    a("TRT004", False, "pro 6000", with_lib(lib("tensorrt-llm", "1.2.1"))),
    a("TRT005", True, "--moe_backend is no trtllm-serve flag", trt("1.2.1", GPTOSS), "--moe_backend", "CUTLASS"),
    a("TRT005", True, "--backend bogus", trt("1.2.1", LLAMA), "--backend", "bogus"),
    a("TRT005", False, "--tp_size 8 --backend pytorch", trt("1.2.1", LLAMA), "--tp_size", "8", "--backend", "pytorch"),
    a("TRT006", True, "moe backend typo", trt("1.2.1", GPTOSS), *trt_options("moe_config:\n  backend: CUTLAS\n")),
    a("TRT006", True, "fraction 1.5", trt("1.2.1", LLAMA),
      *trt_options("kv_cache_config:\n  free_gpu_memory_fraction: 1.5\n")),
    a("TRT006", False, "fraction 0.8", trt("1.2.1", LLAMA),
      *trt_options("kv_cache_config:\n  free_gpu_memory_fraction: 0.8\n")),
    a("TRT007", True, "AUTO on 1.0.0", trt("1.0.0", GPTOSS), *trt_options("moe_config:\n  backend: AUTO\n")),
    a("TRT007", False, "AUTO on 1.2.1", trt("1.2.1", GPTOSS), *trt_options("moe_config:\n  backend: AUTO\n")),
    # TRT-LLM pads MXFP4 experts before sharding (2880 at TP4 -> 768 a rank): TP8 EP1 loads
    a("TRT008", False, "gpt-oss TP8 EP1 (MXFP4 padded)", trt("1.2.1", GPTOSS), "--tp_size", "8"),
    a("TRT008", True, "gpt-oss TP3 does not divide 64 heads", trt("1.2.1", GPTOSS), "--tp_size", "3"),
    a("TRT008", False, "gpt-oss TP8 EP8", trt("1.2.1", GPTOSS), "--tp_size", "8", "--ep_size", "8"),
    a("TRT009", True, "GLM-4.7 BF16 on one GPU", trt("1.2.1", "zai-org/GLM-4.7"), "--tp_size", "1"),
    a("TRT009", False, "Llama 8B on one GPU", trt("1.2.1", LLAMA), "--tp_size", "1"),
    a("TRT009", True, "MiniMax-M2.5-NVFP4 on a Spark: 6.61 GiB short, past 4.2 % of its 125.17 GiB",
      trt("1.2.1", "nvidia/MiniMax-M2.5-NVFP4", "dgx-spark"), "--tp_size", "1"),
    a("TRT009", False, "the same on a 123.5 GiB pool: 4.80 GiB short, inside 4.2 % (5.26 GiB): borderline",
      trt("1.2.1", "nvidia/MiniMax-M2.5-NVFP4", "dgx-spark", gpus=memory(123.5)), "--tp_size", "1"),
    a("TRT010", True, "Llama 8B 128k on a 5090", trt("1.2.1", LLAMA, profile=R5090), "--max_seq_len", "131072",
      *trt_options("max_batch_size: 8\n")),
    a("TRT010", False, "Llama 8B 8k on a 5090", trt("1.2.1", LLAMA, profile=R5090), "--max_seq_len", "8192"),
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
    a("LCPP003", False, "head_dim 256, -fa off", with_lib(llama_cpp("sm_120a"), model=LLAMA,
                                                         attention={"head_dim": 256}), "-fa", "off"),
    a("LCPP004", True, "compute_86 PTX only", with_lib(llama_cpp("sm_86", "compute_86"))),
    a("LCPP004", False, "sm_120a", with_lib(llama_cpp("sm_120a"))),
    a("LCPP005", True, "spark, 120a only", with_lib(llama_cpp("sm_89", "sm_120a"), profile=SPARK)),
    a("LCPP005", False, "spark, 120a and 121a", with_lib(llama_cpp("sm_120a", "sm_121a"), profile=SPARK)),
    a("LCPP005", False, "pro 6000, 120a only", with_lib(llama_cpp("sm_120a"))),
    a("LCPP006", True, "built by CUDA 12.4, no PTX", with_lib(llama_cpp("sm_86", toolkit="12.4.131"))),
    a("LCPP006", False, "built by CUDA 12.8", with_lib(llama_cpp("sm_120a", toolkit="12.8.93"))),
    a("LCPP007", True, "--no-mmap (gone in b11312)", lambda: build(R5090, gguf("tiny")), "--no-mmap"),
    a("LCPP007", True, "-fa maybe", lambda: build(R5090, gguf("tiny")), "-fa", "maybe"),
    a("LCPP007", False, "-ngl 99 -fa on", lambda: build(R5090, gguf("tiny")), "-ngl", "99", "-fa", "on"),
    # flag tables per release (doctor/data/llama_cpp/flag_tables.json): each boundary from both sides and between
    a("LCPP007", False, "bare -fa at b6301 (a switch then)", lcpp(6301), "-fa"),
    a("LCPP007", True, "-fa on at b6301 ('on' is a stray word)", lcpp(6301), "-fa", "on"),
    a("LCPP007", True, "bare -fa at b6431 (needs a value)", lcpp(6431), "-fa"),
    a("LCPP007", False, "-fa on at b6431", lcpp(6431), "-fa", "on"),
    a("LCPP007", False, "bare -fa at b6400 (between b6301 and b6431)", lcpp(6400), "-fa"),
    a("LCPP011", True, "bare -fa at b6400 (between b6301 and b6431)", lcpp(6400), "-fa"),
    a("LCPP011", False, "bare -fa at b6301", lcpp(6301), "-fa"),
    a("LCPP011", False, "-fa on at b6431", lcpp(6431), "-fa", "on"),
    a("LCPP011", True, "-fa on at b6400 (a stray 'on' at b6301)", lcpp(6400), "-fa", "on"),
    a("LCPP007", False, "-fa on at b6400", lcpp(6400), "-fa", "on"),
    a("LCPP007", False, "--no-mmap --flash-attn at b5000 (the issue's case)", lcpp(5000), "--no-mmap", "--flash-attn"),
    a("LCPP007", False, "--no-mmap at b10867", lcpp(10867), "--no-mmap"),
    a("LCPP007", True, "--no-mmap at b10878 (gone)", lcpp(10878), "--no-mmap"),
    a("LCPP007", False, "--no-mmap at b10872 (between b10867 and b10878)", lcpp(10872), "--no-mmap"),
    a("LCPP011", True, "--no-mmap at b10872 (between b10867 and b10878)", lcpp(10872), "--no-mmap"),
    a("LCPP007", True, "--load-mode mmap at b10103 (not yet)", lcpp(10103), "--load-mode", "mmap"),
    a("LCPP011", True, "--load-mode mmap at b10105 (between b10103 and b10108)", lcpp(10105), "--load-mode", "mmap"),
    a("LCPP007", False, "--load-mode mmap at b10108", lcpp(10108), "--load-mode", "mmap"),
    a("LCPP007", True, "--load-mode auto at b10362 (no auto yet)", lcpp(10362), "--load-mode", "auto"),
    a("LCPP007", False, "--load-mode auto at b10380", lcpp(10380), "--load-mode", "auto"),
    a("LCPP007", True, "-ngl all at b7347 (an int then)", lcpp(7347), "-ngl", "all"),
    a("LCPP007", False, "-ngl 99 at b7347", lcpp(7347), "-ngl", "99"),
    a("LCPP011", True, "-ngl all at b7500 (between b7347 and b7698)", lcpp(7500), "-ngl", "all"),
    a("LCPP007", False, "-ngl all at b7698", lcpp(7698), "-ngl", "all"),
    a("LCPP007", False, "--no-mmap at b99999 (newer than the data)", lcpp(99999), "--no-mmap"),
    a("LCPP011", True, "--no-mmap at b99999 (newer than the data)", lcpp(99999), "--no-mmap"),
    a("LCPP011", False, "-ngl 99 -fa on at b99999", lcpp(99999), "-ngl", "99", "-fa", "on"),
    a("LCPP008", True, "q8_0 V cache, -fa off", lambda: build(R5090, gguf("tiny")), "-ctv", "q8_0", "-fa", "off"),
    a("LCPP008", False, "q8_0 V cache, -fa auto", lambda: build(R5090, gguf("tiny")), "-ctv", "q8_0"),
    a("LCPP040", True, "smpbo 0x100000001 at b11434", lcpp_smem(11434, 4294967297)),
    a("LCPP040", True, "smpbo 0x100000001, build unknown (llama-cpp-python)", lambda: build(
        R5090, libs=(llama_cpp("sm_120a"),), gpus=smem(4294967297))),
    a("LCPP040", False, "smpbo 0x100000001 at b11435 (newer than the source read)", lcpp_smem(11435, 4294967297)),
    a("LCPP040", False, "smpbo 101376", lcpp_smem(11434, 101376)),
    a("LCPP040", False, "smpbo 102400 (the SM's own size)", lcpp_smem(11434, 102400)),
    a("LCPP040", True, "smpbo 102401", lcpp_smem(11434, 102401)),
    a("LCPP040", False, "smpbo 0 (HW002 only)", lcpp_smem(11434, 0)),
    a("LCPP040", False, "smpbo 0x100000001, no llama.cpp", lambda: build(R5090, gpus=smem(4294967297))),
    a("LCPP040", False, "smpbo 0x100000001 under vLLM", lambda: build(R5090, LLAMA, ("vllm==0.24.0",),
                                                                       gpus=smem(4294967297))),
    a("LCPP041", True, "spark, b10362 default (mmap)", lcpp_spark(10362)),
    a("LCPP041", False, "spark, b10380 default (load-mode auto: off on an iGPU)", lcpp_spark(10380)),
    a("LCPP041", False, "spark, b10370 default (between the samples)", lcpp_spark(10370)),
    a("LCPP041", False, "spark, b7100 --no-mmap", lcpp_spark(7100), "--no-mmap"),
    a("LCPP041", True, "spark, b10800 --load-mode mmap", lcpp_spark(10800), "--load-mode", "mmap"),
    a("LCPP041", True, "spark, b10800 -lm mmap+mlock", lcpp_spark(10800), "-lm", "mmap+mlock"),
    a("LCPP041", False, "spark, b10800 --load-mode none", lcpp_spark(10800), "--load-mode", "none"),
    a("LCPP041", True, "spark, b7800 --mmap", lcpp_spark(7800), "--mmap"),
    a("LCPP041", False, "5090, b7100 default (discrete)", lcpp(7100)),
    a("LCPP041", False, "spark, build unknown", lambda: build(SPARK, libs=(llama_cpp("sm_121a"),))),
    a("LCPP042", True, "5090 under Windows", lcpp_os("Windows")),
    a("LCPP042", True, "spark-class (12.1) under Windows", lcpp_os("Windows", SPARK)),
    a("LCPP042", False, "5090 under Linux", lcpp_os("Linux")),
    a("LCPP042", False, "H100 under Windows", lcpp_os("Windows", H100)),
    a("LCPP042", False, "5090 under Windows, vLLM", lambda: with_os(build(R5090, LLAMA, ("vllm==0.24.0",)), "Windows")),
    a("LCPP043", True, "IQ3_S GGUF at b11434 on a 5090", lcpp(11434, "iq3s")),
    a("LCPP043", True, "IQ3_S GGUF at b10678 on a spark", lambda: build(SPARK, gguf("iq3s"), ("llama.cpp==10678",))),
    a("LCPP043", False, "IQ3_S GGUF at b11435 (newer than the source read)", lcpp(11435, "iq3s")),
    a("LCPP043", False, "Q4_K GGUF at b11434", lcpp(11434)),
    a("LCPP043", False, "IQ3_S GGUF on an H100", lambda: build(H100, gguf("iq3s"), ("llama.cpp==11434",))),
    a("LCPP009", True, "-ngl 99 on a 1.5 GiB GPU", lambda: build(R5090, gguf("moe"), gpus=memory(1.5)), "-ngl", "99"),
    a("LCPP009", False, "--n-cpu-moe 6 on a 1.5 GiB GPU", lambda: build(R5090, gguf("moe"), gpus=memory(1.5)),
      "--n-cpu-moe", "6"),
    a("LCPP080", True, "-hf estimate, -ngl 99, short by less than 10 % of the weights",
      lambda: build("rtx-5080", HF_Q36, ("llama.cpp==11434",)), "-c", "24576", "-np", "1", "-ngl", "99"),
    a("LCPP080", False, "-hf estimate, -ngl 99, short by more (LCPP009's)",
      lambda: build("rtx-5080", HF_Q36, ("llama.cpp==11434",)), "-c", "262144", "-np", "1", "-ngl", "99"),
    a("LCPP080", True, "-hf estimate, -ngl 99, fits by less than its error (kaiwu#10: OOM at 4K on a 5080)",
      lambda: build("rtx-5080", HF_Q36, ("llama.cpp==11434",)), "-c", "4096", "-np", "1", "-ngl", "99"),
    a("LCPP080", False, "-hf estimate, -ngl 99, fits by more than its error",
      lambda: build("rtx-5090", HF_Q36, ("llama.cpp==11434",)), "-c", "4096", "-np", "1", "-ngl", "99"),
    a("LCPP080", False, "-hf estimate, -ngl auto (LCPP010's)", lambda: build("rtx-5080", HF_Q36, ("llama.cpp==11434",)),
      "-c", "24576", "-np", "1"),
    a("LCPP009", True, "-hf estimate, -ngl 99, short by more than the estimate's error",
      lambda: build("rtx-5080", HF_Q36, ("llama.cpp==11434",)), "-c", "262144", "-np", "1", "-ngl", "99"),
    a("LCPP009", False, "-hf estimate, -ngl 99, short by less than its error (LCPP080's)",
      lambda: build("rtx-5080", HF_Q36, ("llama.cpp==11434",)), "-c", "24576", "-np", "1", "-ngl", "99"),
    a("LCPP010", True, "auto on a 1.5 GiB GPU", lambda: build(R5090, gguf("moe"), gpus=memory(1.5))),
    a("LCPP010", False, "auto on a 5090", lambda: build(R5090, gguf("moe"))),
    a("TOPO001", True, "tp8 pcie", sg("0.5.23")),
    a("TOPO001", False, "explicit flag", sg("0.5.23"), "--disable-custom-all-reduce"),
    a("TOPO001", False, "tp2", sg("0.5.23"), "--tp-size", "2"),
    a("TOPO001", False, "nvlink", sg("0.5.23", profile=H100)),
    a("TOPO001", False, "tp4 on a one-GPU GB10 profile: no GPU pairs to judge (heldout3 F30)",
      sg("0.5.23", profile="dgx-spark"), "--tp-size", "4"),
    a("TOPO001", False, "tp8 on a two-GPU profile: the layout does not fit the machine", sg("0.5.23",
      profile="rtx-pro-6000-x2"), "--tp-size", "8"),
    a("TOPO001", True, "tp4 on the four-GPU workstation", sg("0.5.23", profile="rtx-pro-6000-ws-x4"),
      "--tp-size", "4"),
    a("TOPO002", True, "tp8 across sockets", sg("0.5.23")),
    a("TOPO002", False, "pp given", sg("0.5.23"), "--tp-size", "4", "--pp-size", "2"),
    a("TOPO002", False, "two gpus", sg("0.5.23", profile="rtx-5090-x2")),
    a("TOPO003", True, "p2p unsupported", sg("0.5.23", topology=no_p2p)),
    a("TOPO003", False, "p2p unknown", sg("0.5.23")),
    a("BIN001", True, "sm_90 only", with_lib(cuda_lib(["sm_90"], []))),
    a("BIN001", False, "family build", with_lib(cuda_lib(["sm_120f"], []))),
    a("BIN002", True, "compute_80 PTX only", with_lib(cuda_lib(["sm_80"], ["compute_80"]))),
    a("BIN002", False, "native", with_lib(cuda_lib(["sm_80", "sm_120"], ["compute_80"]))),
    a("BIN003", True, "scaled_mm for sm_90a/sm_100a only", with_lib(cuda_lib(
        ["sm_90a", "sm_100a", "sm_120"], [], gemm_families(["sm_90a", "sm_100a"])))),
    a("BIN003", False, "scaled_mm with sm_120", with_lib(cuda_lib(
        ["sm_90a", "sm_120"], [], gemm_families(["sm_90a", "sm_120"])))),
    a("MEM002", True, "128k context on a 5090", sg("0.5.8", LLAMA, "rtx-5090"), "--context-length", "131072"),
    a("MEM002", False, "8k context on a 5090", sg("0.5.8", LLAMA, "rtx-5090"), "--context-length", "8192"),
    a("MEM001", True, "GLM-4.7 BF16 on 8x96 GB", sg("0.5.8", "zai-org/GLM-4.7")),
    a("MEM001", False, "GLM-4.7-FP8 on 8x96 GB", sg("0.5.8", GLM)),
    a("MEM003", True, "TP7 does not divide 96 heads", sg("0.5.8", GLM), "--tp-size", "7"),
    a("MEM003", False, "TP8", sg("0.5.8", GLM), "--tp-size", "8"),
    # an unknown quantization is sized at the model dtype, an upper bound: a warning, never MEM001
    a("MEM020", True, "unknown quant sized as BF16", sg("0.5.8", "zai-org/GLM-4.7", quant=UNKNOWN_QUANT)),
    a("MEM001", False, "unknown quant sized as BF16", sg("0.5.8", "zai-org/GLM-4.7", quant=UNKNOWN_QUANT)),
    a("MEM020", False, "unknown quant, measured checkpoint size", sg("0.5.8", KIMI, quant=UNKNOWN_QUANT)),
    a("MEM020", False, "known FP8", sg("0.5.8", GLM)),
    # MXFP4 experts: vLLM and SGLang round the per-rank intermediate up (720 -> 768 at TP4)
    a("MEM003", False, "gpt-oss TP4 on vLLM 0.33.0", vl("0.33.0", GPTOSS), "--tensor-parallel-size", "4"),
    a("MEM003", False, "gpt-oss TP8 on vLLM 0.11.0", vl("0.11.0", GPTOSS), "--tensor-parallel-size", "8"),
    a("MEM003", False, "gpt-oss TP4 on SGLang 0.5.8", sg("0.5.8", GPTOSS), "--tp-size", "4"),
    a("MEM003", True, "gpt-oss TP3 on vLLM (64 heads)", vl("0.33.0", GPTOSS), "--tensor-parallel-size", "3"),
    # FP8 block [128, 128] experts are not padded: 1536 / 8 = 192 is refused (validate_fp8_block_shape), / 4 is not
    a("MEM003", True, "Qwen3-235B FP8 TP8 on vLLM 0.25.0", vl("0.25.0", "Qwen/Qwen3-235B-A22B-FP8"),
      "--tensor-parallel-size", "8"),
    a("MEM003", False, "Qwen3-235B FP8 TP4 on vLLM 0.25.0", vl("0.25.0", "Qwen/Qwen3-235B-A22B-FP8"),
      "--tensor-parallel-size", "4"),
    # from 0.29.0 vLLM refines the block scales to gcd(128, 128, 192, 4096) = 64 (refine_fp8_moe_block_shape)
    a("MEM003", True, "Qwen3-235B FP8 TP8 on vLLM 0.28.0", vl("0.28.0", "Qwen/Qwen3-235B-A22B-FP8"),
      "--tensor-parallel-size", "8"),
    a("MEM003", False, "Qwen3-235B FP8 TP8 on vLLM 0.29.0", vl("0.29.0", "Qwen/Qwen3-235B-A22B-FP8"),
      "--tensor-parallel-size", "8"),
    a("MEM003", True, "Qwen3-235B FP8 TP8 on SGLang 0.5.8", sg("0.5.8", "Qwen/Qwen3-235B-A22B-FP8"), "--tp-size", "8"),
    a("MEM004", True, "Kimi K2.5 INT4 TP8: KV pool near zero", sg("0.5.8")),
    a("MEM004", False, "Llama 8B on 8x96 GB", sg("0.5.8", LLAMA)),
    # issue 14: builds, torch builds, wheels, communication, MoE/attention backends, checkpoints
    a("SGL109", True, "0.5.8 auto on block fp8, DeepGEMM off",
      sg("0.5.8", DSV3, env={"SGLANG_ENABLE_JIT_DEEPGEMM": "0"})),
    a("SGL109", True, "0.5.8 auto on block fp8 on GB10", sg("0.5.8", DSV3, SPARK)),
    a("SGL109", False, "0.5.8 auto on block fp8 on 12.0: DeepGEMM first (DG002)", sg("0.5.8", DSV3)),
    a("SGL109", False, "0.5.10 auto on block fp8", sg("0.5.10", DSV3)),
    a("SGL109", False, "per-channel fp8 forced", sg("0.5.23", GLM), "--fp8-gemm-backend", "flashinfer_trtllm"),
    a("SGL110", True, "0.5.5 default", sg("0.5.5", GPTOSS)),
    a("SGL110", False, "0.5.4 default is triton_kernel", sg("0.5.4", GPTOSS)),
    a("BLD001", True, "hopper list on 5090", with_lib(profile=R5090, env={"TORCH_CUDA_ARCH_LIST": "8.0;9.0"})),
    a("BLD001", True, "120a list on spark", with_lib(profile=SPARK, env={"CMAKE_CUDA_ARCHITECTURES": "120a-real"})),
    a("BLD001", False, "list with 12.0", with_lib(profile=R5090, env={"TORCH_CUDA_ARCH_LIST": "9.0;12.0"})),
    a("BLD001", False, "ptx of 9.0 jits", with_lib(profile=R5090, env={"TORCH_CUDA_ARCH_LIST": "9.0+PTX"})),
    a("BLD003", True, "9.0+PTX only", with_lib(profile=R5090, env={"TORCH_CUDA_ARCH_LIST": "8.0 8.9 9.0+PTX"})),
    a("BLD003", False, "with 12.0", with_lib(profile=R5090, env={"TORCH_CUDA_ARCH_LIST": "9.0+PTX 12.0"})),
    a("BLD002", True, "plain 120", with_lib(profile=R5090, env={"CMAKE_CUDA_ARCHITECTURES": "86;120"})),
    a("BLD002", True, "native on spark", with_lib(profile=SPARK, env={"CMAKE_CUDA_ARCHITECTURES": "native"})),
    a("BLD002", False, "120a-real", with_lib(profile=R5090, env={"CMAKE_CUDA_ARCHITECTURES": "86;120a-real"})),
    a("BLD002", False, "flashinfer 12.0f", with_lib(profile=R5090, env={"FLASHINFER_CUDA_ARCH_LIST": "12.0f"})),
    a("WHL001", True, "sgl-kernel 0.3.5 on 5090", with_lib(lib("sgl-kernel", "0.3.5"), profile=R5090)),
    a("WHL001", False, "sgl-kernel 0.3.9 on 5090", with_lib(lib("sgl-kernel", "0.3.9"), profile=R5090)),
    a("WHL001", False, "sgl-kernel 0.3.5 on hopper", with_lib(lib("sgl-kernel", "0.3.5"), profile=H100)),
    a("PYT001", True, "+cpu", with_lib(lib("torch", "2.9.1+cpu"), profile=SPARK)),
    a("PYT001", True, "pypi aarch64 2.9.1 wheel", with_lib(lib("torch", "2.9.1"), profile=SPARK)),
    a("PYT001", False, "pypi aarch64 2.11.0 wheel", with_lib(lib("torch", "2.11.0"), profile=SPARK)),
    a("PYT001", False, "+cu130", with_lib(lib("torch", "2.9.1+cu130"), profile=SPARK)),
    a("TORCH001", True, "+cu126 from the version", with_lib(lib("torch", "2.7.0+cu126"))),
    a("TORCH001", True, "pypi 2.7.0 wheel is cu126", with_lib(lib("torch", "2.7.0"))),
    a("TORCH001", False, "pypi 2.8.0 wheel", with_lib(lib("torch", "2.8.0"))),
    a("COMM001", True, "nccl 2.25.1 on 2x5090", with_lib(lib("nccl", "2.25.1"), profile="rtx-5090-x2")),
    a("COMM001", False, "nccl 2.26.2", with_lib(lib("nccl", "2.26.2"), profile="rtx-5090-x2")),
    a("COMM001", False, "one gpu", with_lib(lib("nccl", "2.25.1"), profile=R5090)),
    a("COMM002", True, "translated iommu tp4", with_lib(profile="rtx-pro-6000-ws-x4", iommu="translated")),
    a("COMM002", False, "passthrough", with_lib(profile="rtx-pro-6000-ws-x4", iommu="passthrough")),
    a("COMM002", False, "single gpu", with_lib(profile=R5090, iommu="translated")),
    a("COMM010", True, "nccl 2.26.2 on 2x5090", with_lib(lib("nccl", "2.26.2"), profile="rtx-5090-x2")),
    a("COMM010", True, "nccl 2.26.5 on 2x5090 sglang", with_lib(lib("nccl", "2.26.5"), profile="rtx-5090-x2",
                                                          engines=("sglang==0.5.2",))),
    a("COMM010", False, "nccl 2.27.3", with_lib(lib("nccl", "2.27.3"), profile="rtx-5090-x2")),
    a("COMM010", False, "nccl 2.25.1 is COMM001", with_lib(lib("nccl", "2.25.1"), profile="rtx-5090-x2")),
    a("COMM010", False, "one gpu", with_lib(lib("nccl", "2.26.2"), profile=R5090)),
    a("COMM010", False, "hopper", with_lib(lib("nccl", "2.26.2"), profile="h100-sxm-x8")),
    a("COMM010", False, "vllm has VLLM019", with_lib(lib("nccl", "2.26.2"), profile="rtx-5090-x2",
                                                     engines=("vllm==0.10.0",))),
    a("MOE001", True, "nvfp4 ep", vl("0.15.1", NVFP4), "--enable-expert-parallel", "--tensor-parallel-size", "8"),
    a("MOE001", False, "nvfp4 tp", vl("0.15.1", NVFP4), "--tensor-parallel-size", "8"),
    a("MOE001", False, "fp8 ep", vl("0.15.1", GLM), "--enable-expert-parallel", "--tensor-parallel-size", "8"),
    a("MOE002", True, "0.5.4 default", sg("0.5.4", GPTOSS)),
    a("MOE002", False, "0.5.10 default", sg("0.5.10", GPTOSS)),
    a("MOE002", False, "hopper", sg("0.5.4", GPTOSS, H100)),
    a("MOE003", True, "mega moe", vl("0.33.0", DSV3), "--moe-backend", "deep_gemm_mega_moe"),
    a("MOE003", True, "trtllm linear", vl("0.33.0", DSV3), "--linear-backend", "flashinfer_trtllm"),
    a("MOE003", False, "marlin", vl("0.33.0", DSV3), "--moe-backend", "marlin"),
    a("MOE004", True, "0.24 block fp8", vl("0.24.0", DSV3)),
    a("MOE004", False, "0.25 block fp8", vl("0.25.0", DSV3)),
    a("MOE004", False, "deep gemm off", vl("0.24.0", DSV3, env={"VLLM_USE_DEEP_GEMM": "0"})),
    a("ATTN001", True, "fp8 kv default backend, 0.20.0 pins flashinfer 0.6.8.post1", vl("0.20.0"),
      "--kv-cache-dtype", "fp8"),
    a("ATTN001", True, "fp8 kv flashinfer", vl("0.20.0"), "--kv-cache-dtype", "fp8",
      "--attention-backend", "FLASHINFER"),
    a("ATTN001", True, "0.20.2 (last release of the report's era)", vl("0.20.2"), "--kv-cache-dtype", "fp8"),
    a("ATTN001", True, "5090 is capability 12.0 too", vl("0.20.0", profile=R5090), "--kv-cache-dtype", "fp8"),
    a("ATTN001", True, "installed vLLM 0.20.0 with installed flashinfer 0.6.8.post1", installed_vllm(
        "0.20.0", "0.6.8.post1"), "--kv-cache-dtype", "fp8"),
    a("ATTN001", False, "installed vLLM 0.20.0 with flashinfer 0.6.11 installed over the pin", installed_vllm(
        "0.20.0", "0.6.11"), "--kv-cache-dtype", "fp8"),
    a("ATTN001", False, "0.19.1 pins flashinfer 0.6.6", vl("0.19.1"), "--kv-cache-dtype", "fp8"),
    a("ATTN001", False, "0.21.0: same pin, after the fix discussion", vl("0.21.0"), "--kv-cache-dtype", "fp8"),
    a("ATTN001", False, "0.27.1 (flashinfer 0.6.16.post3)", vl("0.27.1"), "--kv-cache-dtype", "fp8"),
    a("ATTN001", False, "dgx spark 12.1 not in the report", vl("0.20.0", profile=SPARK), "--kv-cache-dtype", "fp8"),
    a("ATTN001", False, "hopper", vl("0.20.0", profile=H100), "--kv-cache-dtype", "fp8",
      "--attention-backend", "FLASHINFER"),
    a("ATTN001", False, "fp8 kv triton", vl("0.20.0"), "--kv-cache-dtype", "fp8", "--attention-backend", "TRITON_ATTN"),
    a("ATTN001", False, "eager", vl("0.20.0"), "--kv-cache-dtype", "fp8", "--enforce-eager"),
    a("ATTN001", False, "bf16 kv", vl("0.20.0")),
    a("ATTN001", False, "mla model", vl("0.20.0", KIMI), "--kv-cache-dtype", "fp8"),
    a("ATTN010", True, "0.27.1 (the #54225 release, flashinfer 0.6.16.post3)", vl("0.27.1"), "--kv-cache-dtype", "fp8"),
    a("ATTN010", True, "flashinfer 0.6.16.post3 installed beside vLLM 0.27.1", installed_vllm("0.27.1", "0.6.16.post3"),
      "--kv-cache-dtype", "fp8"),
    a("ATTN010", False, "0.6.16.post3 on dgx spark (12.1): not what #54225 established (ATTN011)",
      vl("0.27.1", profile=SPARK), "--kv-cache-dtype", "fp8"),
    a("ATTN010", False, "flashinfer 0.6.17 installed beside 0.27.1 (ATTN011)",
      installed_vllm("0.27.1", "0.6.17"), "--kv-cache-dtype", "fp8"),
    a("ATTN010", False, "flashinfer 0.6.15.post1 installed beside 0.27.1 (ATTN011)",
      installed_vllm("0.27.1", "0.6.15.post1"), "--kv-cache-dtype", "fp8"),
    a("ATTN010", False, "0.21.0 (ATTN011)", vl("0.21.0"), "--kv-cache-dtype", "fp8"),
    a("ATTN011", True, "0.21.0", vl("0.21.0"), "--kv-cache-dtype", "fp8"),
    a("ATTN011", True, "dgx spark 0.20.0", vl("0.20.0", profile=SPARK), "--kv-cache-dtype", "fp8"),
    a("ATTN011", True, "dgx spark 0.27.1 (flashinfer 0.6.16.post3 on 12.1)", vl("0.27.1", profile=SPARK),
      "--kv-cache-dtype", "fp8"),
    a("ATTN011", True, "0.19.1", vl("0.19.1"), "--kv-cache-dtype", "fp8"),
    a("ATTN011", True, "flashinfer 0.6.11 installed over 0.20.0's pin", installed_vllm("0.20.0", "0.6.11"),
      "--kv-cache-dtype", "fp8"),
    a("ATTN011", True, "flashinfer 0.6.8.post1 with vLLM 0.21.0", installed_vllm("0.21.0", "0.6.8.post1"),
      "--kv-cache-dtype", "fp8"),
    a("ATTN011", False, "the #41651 combination is ATTN001", vl("0.20.0"), "--kv-cache-dtype", "fp8"),
    a("ATTN011", False, "the #54225 combination is ATTN010", vl("0.27.1"), "--kv-cache-dtype", "fp8"),
    a("ATTN011", False, "triton", vl("0.21.0"), "--kv-cache-dtype", "fp8", "--attention-backend", "TRITON_ATTN"),
    a("ATTN011", False, "eager", vl("0.21.0"), "--kv-cache-dtype", "fp8", "--enforce-eager"),
    a("ATTN011", False, "bf16 kv", vl("0.21.0")),
    a("ATTN011", False, "hopper", vl("0.21.0", profile=H100), "--kv-cache-dtype", "fp8",
      "--attention-backend", "FLASHINFER"),
    a("ATTN010", False, "the established case is ATTN001", vl("0.20.0"), "--kv-cache-dtype", "fp8"),
    a("ATTN010", False, "triton", vl("0.27.1"), "--kv-cache-dtype", "fp8", "--attention-backend", "TRITON_ATTN"),
    a("ATTN010", False, "eager", vl("0.27.1"), "--kv-cache-dtype", "fp8", "--enforce-eager"),
    a("ATTN010", False, "bf16 kv", vl("0.27.1")),
    a("ATTN010", False, "hopper", vl("0.27.1", profile=H100), "--kv-cache-dtype", "fp8",
      "--attention-backend", "FLASHINFER"),
    a("ATTN002", True, "per-channel fp8", vl("0.25.0", GLM)),
    a("ATTN002", False, "kernel disabled",
      vl("0.25.0", GLM, env={"VLLM_DISABLED_KERNELS": "FlashInferFP8ScaledMMLinearKernel"})),
    a("ATTN002", False, "0.14", vl("0.14.0", GLM)),
    a("CKPT001", True, "modelopt bf16 shared experts, TP1 x PP8, 0.5.20",
      sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "1", "--pp-size", "8"),
    a("CKPT001", False, "0.5.21: ModelOpt answers can_fuse_shared_expert",
      sg("0.5.21", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "1", "--pp-size", "8"),
    a("CKPT001", True, "GLM-4.x fuses in 0.5.23 too", sg("0.5.23", "zai-org/GLM-4.7", quant=MO_NVFP4_BF16_SHARED),
      "--tp-size", "1", "--pp-size", "8"),
    a("CKPT001", False, "TP 8 starts (PR #40628): MOE010", sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED),
      "--tp-size", "8"),
    a("CKPT001", False, "EP turns fusion off", sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED),
      "--tp-size", "1", "--pp-size", "8", "--ep-size", "2"),
    a("CKPT001", False, "flag given", sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "1",
      "--pp-size", "8", "--disable-shared-experts-fusion"),
    a("CKPT001", False, "all quantized", sg("0.5.20", DSV3, quant={**MO_NVFP4_BF16_SHARED, "quantized": (
        "routed_experts", "shared_experts")}), "--tp-size", "1", "--pp-size", "8"),
    a("CKPT001", False, "kimi 384 experts not fused", sg("0.5.20", NVFP4, quant={"quantized": ("routed_experts",)}),
      "--tp-size", "1", "--pp-size", "8"),
    a("CKPT001", False, "compressed-tensors: not established (MOE010)", sg("0.5.20", DSV3, quant={
        **MO_NVFP4_BF16_SHARED, "method": "compressed-tensors"}), "--tp-size", "1", "--pp-size", "8"),
    a("CKPT001", True, "TP 8 on 0.5.15.post1 (InferenceX #2335)", sg("0.5.15.post1", DSV3, quant=MO_NVFP4_BF16_SHARED),
      "--tp-size", "8"),
    a("CKPT001", False, "TP 8 on 0.5.16: MOE010", sg("0.5.16", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "8"),
    a("CKPT001", False, "TP 8 on 0.5.15: MOE010", sg("0.5.15", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "8"),
    a("MOE010", True, "TP 8, 0.5.20", sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "8"),
    a("MOE010", False, "TP 8 on 0.5.15.post1 is CKPT001", sg("0.5.15.post1", DSV3, quant=MO_NVFP4_BF16_SHARED),
      "--tp-size", "8"),
    a("MOE010", True, "compressed-tensors TP 1", sg("0.5.20", DSV3, quant={
        **MO_NVFP4_BF16_SHARED, "method": "compressed-tensors"}), "--tp-size", "1", "--pp-size", "8"),
    a("MOE010", False, "TP 1 modelopt is CKPT001", sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED),
      "--tp-size", "1", "--pp-size", "8"),
    a("MOE010", False, "TP 8, 0.5.21 (fusion off)", sg("0.5.21", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "8"),
    a("MOE010", False, "flag given", sg("0.5.20", DSV3, quant=MO_NVFP4_BF16_SHARED), "--tp-size", "8",
      "--disable-shared-experts-fusion"),
    a("ATTN003", True, "hybrid gdn on spark, triton", sg("0.5.9", LLAMA, SPARK, attention=GDN24),
      "--attention-backend", "triton"),
    a("ATTN003", False, "hybrid gdn on spark, default flashinfer", sg("0.5.9", LLAMA, SPARK, attention=GDN24)),
    a("ATTN003", False, "graphs off", sg("0.5.9", LLAMA, SPARK, attention=GDN24), "--attention-backend", "triton",
      "--disable-cuda-graph"),
    a("ATTN003", False, "on a 5090 (12.0)", sg("0.5.9", LLAMA, R5090, attention=GDN24),
      "--attention-backend", "triton"),
    a("ATTN003", False, "no linear layers", sg("0.5.9", LLAMA, SPARK), "--attention-backend", "triton"),
    a("ATTN004", True, "nvfp4 kv", vl("0.25.0", NVFP4), "--kv-cache-dtype", "nvfp4"),
    a("ATTN004", True, "0.20.0: first release with the dtype", vl("0.20.0", NVFP4), "--kv-cache-dtype", "nvfp4"),
    a("ATTN004", True, "0.31.0: last release without the FA2 path", vl("0.31.0", NVFP4), "--kv-cache-dtype", "nvfp4"),
    a("ATTN004", False, "0.32.0 reads nvfp4 through FA2 on family 120", vl("0.32.0", NVFP4),
      "--kv-cache-dtype", "nvfp4"),
    a("ATTN004", True, "0.33.0 nvfp4_4over6 still refused on SM12x", vl("0.33.0", NVFP4),
      "--kv-cache-dtype", "nvfp4_4over6"),
    a("ATTN004", False, "hopper", vl("0.25.0", NVFP4, H100), "--kv-cache-dtype", "nvfp4"),
    a("ATTN004", False, "nvfp4_ds_mla is the sparse-MLA layout, not FlashInfer's FP4 KV", vl("0.30.0", NVFP4),
      "--kv-cache-dtype", "nvfp4_ds_mla"),
    a("ATTN004", False, "fp8 kv", vl("0.25.0", NVFP4), "--kv-cache-dtype", "fp8"),
    a("VLLM016", True, "fa3 forced on 0.14", vl("0.14.0", env={"VLLM_FLASH_ATTN_VERSION": "3"})),
    a("VLLM016", False, "fa2 on 0.14", vl("0.14.0", env={"VLLM_FLASH_ATTN_VERSION": "2"})),
    a("VLLM016", False, "fa3 on hopper", vl("0.14.0", profile=H100, env={"VLLM_FLASH_ATTN_VERSION": "3"})),
    a("VLLM016", False, "not read from 0.15", vl("0.17.0", env={"VLLM_FLASH_ATTN_VERSION": "3"})),
    a("VLLM017", True, "machete for int4 dense layers on 0.9.2", vl("0.9.2", KIMI, quant=W4A16_DENSE)),
    a("VLLM017", False, "machete refused from 0.10.0", vl("0.10.0", KIMI, quant=W4A16_DENSE)),
    a("VLLM017", False, "machete disabled", vl("0.9.2", KIMI, quant=W4A16_DENSE,
                                                env={"VLLM_DISABLED_KERNELS": "MacheteLinearKernel"})),
    a("VLLM017", False, "experts only quantized", vl("0.9.2", KIMI)),
    a("VLLM017", False, "hopper", vl("0.9.2", KIMI, profile=H100, quant=W4A16_DENSE)),
    a("VLLM018", True, "TRITON_MLA decode, fp8 KV, 0.33", vl("0.33.0", KIMI), "--kv-cache-dtype", "fp8"),
    a("VLLM018", False, "bf16 KV", vl("0.33.0", KIMI)),
    a("VLLM018", False, "0.19 dequantises K and V apart (87,040 B)", vl("0.19.0", KIMI), "--kv-cache-dtype", "fp8"),
    a("VLLM019", True, "0.10.0 brings NCCL 2.26.2, TP 8", vl("0.10.0")),
    a("VLLM019", False, "0.11.0 brings NCCL 2.27.3", vl("0.11.0")),
    a("VLLM019", False, "one GPU", vl("0.10.0", profile=R5090)),
    a("VLLM019", False, "TP 1", vl("0.10.0"), "--tensor-parallel-size", "1"),
    a("VLLM020", True, "TP 2, driver P2P check, translated IOMMU", vl("0.15.1", profile=WS4, iommu="translated"),
      "--tensor-parallel-size", "2"),
    a("VLLM020", False, "TP 4 on PCIe: custom all-reduce off", vl("0.15.1", profile=WS4, iommu="translated")),
    a("VLLM020", False, "real peer-write check", vl("0.15.1", profile=WS4, iommu="translated",
                                                    env={"VLLM_SKIP_P2P_CHECK": "0"}), "--tensor-parallel-size", "2"),
    a("VLLM020", False, "0.10.0 tests peer writes by default", vl("0.10.0", profile=WS4, iommu="translated"),
      "--tensor-parallel-size", "2"),
    a("VLLM020", False, "passthrough IOMMU", vl("0.15.1", profile=WS4, iommu="passthrough"),
      "--tensor-parallel-size", "2"),
    a("VLLM020", False, "flag given", vl("0.15.1", profile=WS4, iommu="translated"), "--tensor-parallel-size", "2",
      "--disable-custom-all-reduce"),
    a("VLLM021", True, "NCCL_P2P_DISABLE with custom all-reduce at TP 2",
      vl("0.33.0", profile=WS4, env={"NCCL_P2P_DISABLE": "1"}), "--tensor-parallel-size", "2"),
    a("VLLM021", False, "custom all-reduce disabled too", vl("0.33.0", profile=WS4, env={"NCCL_P2P_DISABLE": "1"}),
      "--tensor-parallel-size", "2", "--disable-custom-all-reduce"),
    a("VLLM021", False, "GeForce pair: no P2P, no custom all-reduce",
      vl("0.33.0", profile="rtx-5090-x2", env={"NCCL_P2P_DISABLE": "1"})),
    a("VLLM021", False, "NCCL P2P on", vl("0.33.0", profile=WS4), "--tensor-parallel-size", "2"),
    a("MODEL001", True, "an unknown sizing field", lambda: unread_config_facts({"num_kv_shared_layers": 20})),
    a("MODEL001", True, "every other layer MoE", lambda: unread_config_facts({"decoder_sparse_step": 2})),
    a("MODEL001", False, "known fields only", lambda: unread_config_facts({"decoder_sparse_step": 1})),
    a("CKPT002", True, "dsa topk flashinfer", sg("0.5.23", DSV3), "--dsa-topk-backend", "flashinfer"),
    a("CKPT002", False, "hopper", sg("0.5.23", DSV3, H100), "--dsa-topk-backend", "flashinfer"),
    a("SGL140", True, "dsv3.2 auto kv 0.5.20", sg("0.5.20", DSV32)),
    a("SGL140", True, "dsv3.2 auto kv 0.5.18 on spark", sg("0.5.18", DSV32, SPARK)),
    a("SGL140", True, "dsv3.2 bf16 kv: decode still trtllm", sg("0.5.23", DSV32), "--kv-cache-dtype", "bf16"),
    a("SGL140", True, "glm5-next 0.5.20 on spark", sg("0.5.20", GLM5_NEXT, SPARK)),
    a("SGL140", True, "glm-moe-dsa bf16 kv", sg("0.5.21", GLM_DSA), "--kv-cache-dtype", "bf16"),
    a("SGL140", True, "decode named, prefill left to fp8 default", sg("0.5.20", DSV32),
      "--dsa-decode-backend", "tilelang"),
    a("SGL140", False, "both backends named", sg("0.5.20", DSV32), "--dsa-prefill-backend", "tilelang",
      "--dsa-decode-backend", "tilelang", "--kv-cache-dtype", "bf16"),
    a("SGL140", False, "bf16 kv, decode named (prefill flashmla_sparse)", sg("0.5.20", DSV32),
      "--kv-cache-dtype", "bf16", "--dsa-decode-backend", "tilelang"),
    a("SGL140", False, "glm-moe-dsa fp8 kv: flashinfer_sparse_mla", sg("0.5.20", GLM_DSA)),
    a("SGL140", False, "glm5-next 0.5.19 (not a DSA arch there)", sg("0.5.19", GLM5_NEXT)),
    a("SGL140", False, "dsv3.2 0.5.17 (not read)", sg("0.5.17", DSV32)),
    a("SGL140", False, "dsv3 dense mla", sg("0.5.20", DSV3)),
    a("SGL140", False, "hisparse", sg("0.5.20", DSV32), "--enable-hisparse"),
    a("SGL140", False, "dsv3.2 on b200", sg("0.5.20", DSV32, "b200-x8")),
    # derived from vLLM's own selection on an emulated device (doctor/data/derived/vllm)
    a("DSP001", True, "FlashInfer TRT-LLM FP8 MoE forced on 12.0", vl("0.33.0", DSV3), "--moe-backend",
      "flashinfer_trtllm"),
    a("DSP001", True, "the same on 12.1", vl("0.33.0", DSV3, SPARK), "--moe-backend", "flashinfer_trtllm"),
    a("DSP001", False, "Triton MoE forced: builds", vl("0.33.0", DSV3), "--moe-backend", "triton"),
    a("DSP001", False, "no override", vl("0.33.0", DSV3)),
    a("DSP001", True, "NVFP4 KV cache on 12.0 (0.25)", vl("0.25.0", profile="rtx-5090"), "--kv-cache-dtype", "nvfp4"),
    a("DSP001", False, "FP8 KV cache on 12.0 (0.25)", vl("0.25.0", profile="rtx-5090"), "--kv-cache-dtype", "fp8"),
    a("DSP002", True, "FlashMLA forced on 12.0: Hopper only", vl("0.33.0", DSV3), "--attention-backend", "FLASHMLA"),
    a("DSP002", False, "FlashMLA forced on 9.0", vl("0.33.0", DSV3, H100), "--attention-backend", "FLASHMLA"),
    a("DSP002", False, "TRITON_MLA forced on 12.0", vl("0.33.0", DSV3), "--attention-backend", "TRITON_MLA"),
    a("DSP003", True, "MXFP4 experts on Marlin on 12.0", vl("0.33.0", GPTOSS)),
    a("DSP003", True, "and on 12.1", vl("0.33.0", GPTOSS, SPARK)),
    a("DSP003", False, "MXFP4 on 10.0: native kernels", vl("0.33.0", GPTOSS, "b200-x8")),
    a("DSP003", False, "BF16 experts on 12.0", vl("0.33.0", "Qwen/Qwen3-30B-A3B")),
    a("DSP004", True, "block-FP8 MoE on DeepGEMM without sm120 sources (0.24)", vl("0.24.0", QWEN235_FP8)),
    a("DSP004", True, "and on 12.1", vl("0.24.0", QWEN235_FP8, SPARK)),
    a("DSP004", False, "0.33 ships sm120 DeepGEMM sources", vl("0.33.0", QWEN235_FP8)),
    a("DSP004", False, "DeepGEMM off", vl("0.24.0", QWEN235_FP8, env={"VLLM_USE_DEEP_GEMM": "0"})),
    a("DSP004", False, "a separately installed deep_gemm is imported before the vendored copy",
      lambda: vl("0.24.0", QWEN235_FP8)().replace(
          libraries={**vl("0.24.0", QWEN235_FP8)().libraries, "deep-gemm": lib("deep-gemm", "2.3.0")})),
    a("DSP004", False, "Hopper: sm90 sources", vl("0.24.0", DSV3, H100)),
    a("DSP009", True, "INT4 MLA experts: not in the grid", vl("0.33.0", KIMI)),
    a("DSP009", True, "a release without a table (no 0.8.x table: 0.9.2 is the first with sm_120 code)", vl("0.8.5")),
    a("DSP009", False, "Llama BF16 on 0.33: derived", vl("0.33.0")),
    a("DSP002", True, "Gemma 4 (full-attention head size 512) with FLASH_ATTN forced on 12.0", vl("0.33.0", GEMMA4),
      "--attention-backend", "FLASH_ATTN"),
    a("DSP002", False, "the same on 9.0: vLLM admits FLASH_ATTN there", vl("0.33.0", GEMMA4, H100),
      "--attention-backend", "FLASH_ATTN"),
    a("DSP002", False, "Gemma 4 served text-only (mm-prefix attention off): not derived", vl("0.28.0", GEMMA4),
      "--attention-backend", "FLASHINFER", "--language-model-only"),
    a("DSP002", False, "Gemma 4 with TRITON_ATTN forced on 12.0", vl("0.33.0", GEMMA4), "--attention-backend",
      "TRITON_ATTN"),
    # MTP drafters (tools/engine_oracle/grid.py new_shapes): their own entries, keyed shape class + drafter
    a("DSP041", True, "DeepSeek-V3's MTP drafter on DeepGEMM without sm120 sources (0.27.1)", vl("0.27.1", DSV3),
      "--speculative-config", '{"method": "mtp", "num_speculative_tokens": 1}'),
    a("DSP041", True, "and on 12.1", vl("0.27.1", DSV3, SPARK), "--speculative-config", MTP),
    a("DSP041", False, "0.28.0 ships sm120 DeepGEMM sources", vl("0.28.0", DSV3), "--speculative-config", MTP),
    a("DSP041", False, "no speculative config: the target's is DSP004", vl("0.27.1", DSV3)),
    a("DSP041", False, "Hopper: no drafter entry on the controls", vl("0.27.1", DSV3, H100), "--speculative-config",
      '{"method": "mtp", "num_speculative_tokens": 1}'),
    a("DSP041", False, "NVFP4 drafter: FlashInfer CUTLASS", vl("0.27.1", NVFP4_DSV3), "--speculative-config", MTP),
    a("DSP049", True, "a dense model's MTP drafter: no drafter entry", vl("0.33.0"), "--speculative-config",
      '{"method": "mtp", "num_speculative_tokens": 1}'),
    a("DSP049", True, "a model-specific MTP method name: the grid asks method mtp", vl("0.33.0", DSV3),
      "--speculative-config", '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'),
    a("DSP049", False, "DeepSeek-V3's MTP drafter on 0.33: derived", vl("0.33.0", DSV3), "--speculative-config",
      '{"method": "mtp", "num_speculative_tokens": 1}'),
    a("DSP049", False, "no speculative config", vl("0.33.0", DSV3)),
]


def _area_error_cases():
    """The issue-25 error rules whose bounds tests/rules/test_error_boundaries.py sweeps: their cases run here too
    (the rest of tests/rules/area_cases.py needs engine-parsed flags and runs in test_area_rules.py)."""
    from tests.rules.area_cases import AREA_CASES

    swept = ("TPK001", "VLLM031", "VLLM040", "DRV004", "P2P001", "MOE020", "MOE021", "MOE022", "VLLM050", "CLU020",
             "CLU021")
    return [c for c in AREA_CASES if c.rule in swept]


CASES += _area_error_cases()


def _derived_sglang_cases():
    from tests.rules.derived_sglang_cases import DERIVED_SGLANG_CASES

    return DERIVED_SGLANG_CASES


CASES += _derived_sglang_cases()


def _sgl_trt_cases():
    from tests.rules.sgl_trt_cases import SGL_TRT_CASES

    return SGL_TRT_CASES


CASES += _sgl_trt_cases()


def _vllm_2026_cases():
    """The rules of rules/vllm_2026.toml (tests/rules/vllm_2026_cases.py)."""
    from tests.rules.vllm_2026_cases import VLLM_2026_CASES

    return VLLM_2026_CASES


CASES += _vllm_2026_cases()


def _know_vllm_cases():
    """The rules of rules/vllm_know.toml (tests/rules/know_vllm_cases.py)."""
    from tests.rules.know_vllm_cases import KNOW_VLLM_CASES

    return KNOW_VLLM_CASES


CASES += _know_vllm_cases()


def _image_cases():
    """Container images and build recipes (rules/images.toml, BLD010-BLD014): tests/rules/image_cases.py."""
    from tests.rules.image_cases import IMAGE_CASES

    return IMAGE_CASES


CASES += _image_cases()


def _know_sgl_cases():
    """SGLang / TensorRT-LLM / NCCL 2026 reports (rules/sglang_sm12x_2026.toml): tests/rules/know_sgl_cases.py."""
    from tests.rules.know_sgl_cases import KNOW_SGL_CASES

    return KNOW_SGL_CASES


CASES += _know_sgl_cases()


def _know_sparse_cases():
    """Sparse MLA, DSA indexers, sparse-model MoE kernels (rules/sparse_mla.toml, sparse_moe.toml)."""
    from tests.rules.know_sparse_cases import KNOW_SPARSE_CASES

    return KNOW_SPARSE_CASES


CASES += _know_sparse_cases()


def _log_line_cases():
    """The rules that explain a log line only (rules/log_lines.toml): tests/rules/log_line_cases.py."""
    from tests.rules.log_line_cases import LOG_LINE_CASES

    return LOG_LINE_CASES


CASES += _log_line_cases()


def _log_line_diag3_cases():
    """rules/log_lines_2026.toml and TPK001 read from a log: tests/rules/log_line_cases_diag3.py."""
    from tests.rules.log_line_cases_diag3 import LOG_LINE_DIAG3_CASES

    return LOG_LINE_DIAG3_CASES


CASES += _log_line_diag3_cases()


def _log_line_enc4_cases():
    """rules/enc4_lines.toml read from a log: tests/rules/log_line_cases_enc4.py."""
    from tests.rules.log_line_cases_enc4 import LOG_LINE_ENC4_CASES

    return LOG_LINE_ENC4_CASES


CASES += _log_line_enc4_cases()


def _arch_gate_cases():
    """The arch-gate family read from a log (rules/arch_gates.toml): tests/rules/arch_gate_cases.py."""
    from tests.rules.arch_gate_cases import ARCH_GATE_CASES

    return ARCH_GATE_CASES


CASES += _arch_gate_cases()


def _know_gb10net_cases():
    """GB10 unified memory and Spark cluster rules on one node (UMA010, NCCL021): tests/rules/know_gb10net_cases.py."""
    from tests.rules.know_gb10net_cases import KNOW_GB10NET_CASES

    return KNOW_GB10NET_CASES


CASES += _know_gb10net_cases()


def _know_fi3_cases():
    """FlashInfer GDN prefill, TensorRT-LLM 1.3 rc, CuTe DSL (rules/know_fi3.toml): tests/rules/know_fi3_cases.py."""
    from tests.rules.know_fi3_cases import KNOW_FI3_CASES

    return KNOW_FI3_CASES


CASES += _know_fi3_cases()


def _enc23_cases():
    """The spent held-out samples 1-3's classes (rules/enc23.toml): tests/rules/enc23_cases.py."""
    from tests.rules.enc23_cases import ENC23_CASES

    return ENC23_CASES


CASES += _enc23_cases()


def _gb10mem_cases():
    """GB10's global OOM-killer lines (rules/uma_pressure.toml, UMA060): tests/rules/gb10mem_cases.py."""
    from tests.rules.gb10mem_cases import GB10MEM_CASES

    return GB10MEM_CASES


CASES += _gb10mem_cases()


def _uma3_cases():
    """vLLM's GB10 start-up accounting and NCCL across Sparks (rules/uma_engines.toml): tests/rules/uma3_cases.py."""
    from tests.rules.uma3_cases import UMA3_CASES

    return UMA3_CASES


CASES += _uma3_cases()


def _nvfp4out_cases():
    """Wrong-output rules (rules/wrong_output.toml, nvfp4out): tests/rules/nvfp4out_cases.py."""
    from tests.rules.nvfp4out_cases import NVFP4OUT_CASES

    return NVFP4OUT_CASES


CASES += _nvfp4out_cases()


def _lcpp2_cases():
    """Local runtimes (rules/local_runtimes.toml, know-lcpp2): tests/rules/lcpp2_cases.py."""
    from tests.rules.lcpp2_cases import LCPP2_CASES

    return LCPP2_CASES


CASES += _lcpp2_cases()


def _know_engines_cases():
    """vLLM / SGLang / TensorRT-LLM 2026 reports (rules/know_engines.toml): tests/rules/know_engines_cases.py."""
    from tests.rules.know_engines_cases import KNOW_ENGINES_CASES

    return KNOW_ENGINES_CASES


CASES += _know_engines_cases()


def _know_vllm2_cases():
    """vLLM 2026 reports, second sweep (rules/vllm_know2.toml): tests/rules/know_vllm2_cases.py."""
    from tests.rules.know_vllm2_cases import KNOW_VLLM2_CASES

    return KNOW_VLLM2_CASES


CASES += _know_vllm2_cases()


def _know_vllm4_cases():
    """vLLM 2026 reports, fourth sweep (rules/vllm_know4.toml): tests/rules/know_vllm4_cases.py."""
    from tests.rules.know_vllm4_cases import KNOW_VLLM4_CASES

    return KNOW_VLLM4_CASES


CASES += _know_vllm4_cases()

def _know_sgl2_cases():
    """SGLang 2026 tracker sweep (rules/sglang_know2.toml, know-sgl2): tests/rules/know_sgl2_cases.py."""
    from tests.rules.know_sgl2_cases import KNOW_SGL2_CASES

    return KNOW_SGL2_CASES


CASES += _know_sgl2_cases()


def _know_mamba_cases():
    """Hybrid models' state blocks (rules/hybrid_state.toml, know-mamba): tests/rules/know_mamba_cases.py."""
    from tests.rules.know_mamba_cases import KNOW_MAMBA_CASES

    return KNOW_MAMBA_CASES


CASES += _know_mamba_cases()


def _know_spark3_cases():
    """DGX Spark community images and cluster rules (know-spark3): tests/rules/know_spark3_cases.py."""
    from tests.rules.know_spark3_cases import KNOW_SPARK3_CASES

    return KNOW_SPARK3_CASES


CASES += _know_spark3_cases()

def _know_dep_cases():
    """Dependency drift, unknown architectures, import clashes (DSP050-DSP056): tests/rules/know_dep_cases.py."""
    from tests.rules.know_dep_cases import KNOW_DEP_CASES

    return KNOW_DEP_CASES


CASES += _know_dep_cases()


def _encode_rest_cases():
    """Rules for the ledger's not-encoded reports (rules/encode_rest.toml): tests/rules/encode_rest_cases.py."""
    from tests.rules.encode_rest_cases import ENCODE_REST_CASES

    return ENCODE_REST_CASES


CASES += _encode_rest_cases()


def _arch_cases():
    """The model is newer than the engine (ARCH001-ARCH004): tests/rules/arch_cases.py."""
    from tests.rules.arch_cases import ARCH_CASES

    return ARCH_CASES


CASES += _arch_cases()


def _loader_cases():
    """Checkpoints the engine's loader cannot read (CKPT010-CKPT013): tests/rules/loader_cases.py."""
    from tests.rules.loader_cases import LOADER_CASES

    return LOADER_CASES


CASES += _loader_cases()


def _multinode_cases():
    """Multi-node launches and their log lines (rules/multinode_launch.toml, nccl_multinode.toml)."""
    from tests.rules.multinode_cases import MULTINODE_CASES

    return MULTINODE_CASES


CASES += _multinode_cases()


def _spec_decode_cases():
    """Speculative-decoding log lines (rules/spec_decode.toml): tests/rules/spec_decode_cases.py."""
    from tests.rules.spec_decode_cases import SPEC_DECODE_CASES

    return SPEC_DECODE_CASES


CASES += _spec_decode_cases()


def _oom_cases():
    """Out-of-memory lines read by their numbers (rules/oom.toml): tests/rules/oom_cases.py."""
    from tests.rules.oom_cases import OOM_CASES

    return OOM_CASES


CASES += _oom_cases()


def _oom_startmem_cases():
    """vLLM's CUDA-graph capture OOM where the profiler did not reserve the pool (rules/oom_startmem.toml)."""
    from tests.rules.oom_startmem_cases import OOM_STARTMEM_CASES

    return OOM_STARTMEM_CASES


CASES += _oom_startmem_cases()

def _lmstudio_cases():
    """LM Studio's load dialog (rules/lmstudio.toml): tests/rules/lmstudio_cases.py."""
    from tests.rules.lmstudio_cases import LMSTUDIO_CASES

    return LMSTUDIO_CASES


CASES += _lmstudio_cases()


def _fixpr_lcpp_cases():
    """Merged llama.cpp / Ollama / TensorRT-LLM fixes for SM12x (rules/fixpr_lcpp.toml): fixpr_lcpp_cases.py."""
    from tests.rules.fixpr_lcpp_cases import FIXPR_LCPP_CASES

    return FIXPR_LCPP_CASES


CASES += _fixpr_lcpp_cases()


def _fixpr_vllm_cases():
    """vLLM's SM12x fix PRs as versioned rules (rules/fixpr_vllm.toml): tests/rules/fixpr_vllm_cases.py."""
    from tests.rules.fixpr_vllm_cases import FIXPR_VLLM_CASES

    return FIXPR_VLLM_CASES


CASES += _fixpr_vllm_cases()


def _enc6_cases():
    """The spent sixth held-out sample's classes (rules/enc6.toml): tests/rules/enc6_cases.py."""
    from tests.rules.enc6_cases import ENC6_CASES

    return ENC6_CASES


CASES += _enc6_cases()


def _force_vllm_cases():
    """vLLM environment variables that force a MoE backend SM12x lacks (rules/force_vllm.toml):
    tests/rules/force_vllm_cases.py."""
    from tests.rules.force_vllm_cases import FORCE_VLLM_CASES

    return FORCE_VLLM_CASES


CASES += _force_vllm_cases()


def _fixpr_sgl_cases():
    """SGLang / FlashInfer SM12x fix PRs (rules/sglang_fixpr.toml): tests/rules/fixpr_sgl_cases.py."""
    from tests.rules.fixpr_sgl_cases import FIXPR_SGL_CASES

    return FIXPR_SGL_CASES


CASES += _fixpr_sgl_cases()


def _parser_log_cases():
    """PARSE020/PARSE021 read from a log (rules/parsers.toml): tests/rules/parser_cases.py."""
    from tests.rules.parser_cases import PARSER_LOG_CASES

    return PARSER_LOG_CASES


CASES += _parser_log_cases()


def _qshape_cases():
    """QNT001-QNT023: quantized-kernel shape constraints (rules/quant_shapes.toml, tests/rules/qshape_cases.py)."""
    from tests.rules.qshape_cases import QSHAPE_CASES

    return QSHAPE_CASES


CASES += _qshape_cases()


def _fixpr2_cases():
    """vLLM / SGLang / FlashInfer SM12x fixes and gates, second round (rules/sglang_fixpr2.toml): fixpr2_cases.py."""
    from tests.rules.fixpr2_cases import FIXPR2_CASES

    return FIXPR2_CASES


CASES += _fixpr2_cases()


def _fixpr3_cases():
    """Merged llama.cpp fixes for failures on SM12x, task fixpr3 (rules/fixpr3.toml): tests/rules/fixpr3_cases.py."""
    from tests.rules.fixpr3_cases import FIXPR3_CASES

    return FIXPR3_CASES


CASES += _fixpr3_cases()


def _enc5_cases():
    """The fifth held-out sample's classes, task enc5 (rules/spent_heldout5.toml): tests/rules/enc5_cases.py."""
    from tests.rules.enc5_cases import ENC5_CASES

    return ENC5_CASES


CASES += _enc5_cases()


def _sweep9_cases():
    """Backend gates new SGLang releases add for DeepSeek-V4 (rules/sweep9.toml): tests/rules/sweep9_cases.py."""
    from tests.rules.sweep9_cases import SWEEP9_CASES

    return SWEEP9_CASES


CASES += _sweep9_cases()


def _sweep10_cases():
    """Ray missing beside vLLM, FlashInfer's FP4 JIT parallelism (rules/sweep10.toml): tests/rules/sweep10_cases.py."""
    from tests.rules.sweep10_cases import SWEEP10_CASES

    return SWEEP10_CASES


CASES += _sweep10_cases()


def _heldout7_cases():
    """The seventh held-out sample's classes (rules/heldout7.toml): tests/rules/heldout7_cases.py."""
    from tests.rules.heldout7_cases import HELDOUT7_CASES

    return HELDOUT7_CASES


CASES += _heldout7_cases()


def _famarch_cases():
    """Picked kernel families against the release's wheel (rules/famarch.toml): tests/rules/famarch_cases.py."""
    from tests.rules.famarch_cases import FAMARCH_CASES

    return FAMARCH_CASES


CASES += _famarch_cases()


def _diaggen_cases():
    """Generic diagnose classes (rules/diaggen.toml): tests/rules/diaggen_cases.py."""
    from tests.rules.diaggen_cases import DIAGGEN_CASES

    return DIAGGEN_CASES


CASES += _diaggen_cases()


def _enc8a_cases():
    """The eighth held-out sample's classes (rules/enc8a.toml): tests/rules/enc8a_cases.py."""
    from tests.rules.enc8a_cases import ENC8A_CASES

    return ENC8A_CASES


CASES += _enc8a_cases()


def _enc8b_cases():
    """The eighth held-out sample's rows F12-F22 (rules/enc8b.toml): tests/rules/enc8b_cases.py."""
    from tests.rules.enc8b_cases import ENC8B_CASES

    return ENC8B_CASES


CASES += _enc8b_cases()


def _trust12_cases():
    """FlashInfer's FP4 JIT build the doctor cannot judge (rules/trust12.toml): tests/rules/trust12_cases.py."""
    from tests.rules.trust12_cases import TRUST12_CASES

    return TRUST12_CASES


CASES += _trust12_cases()


def _trust13_cases():
    """VLLM004 re-scoped to an info (the NaN fix of 0.19 is in the build): tests/rules/trust13_cases.py."""
    from tests.rules.trust13_cases import TRUST13_CASES

    return TRUST13_CASES


CASES += _trust13_cases()


def _pincheck_cases():
    """Engine-pin consistency (rules/pin_check.toml, task pincheck): tests/rules/pincheck_cases.py."""
    from tests.rules.pincheck_cases import PINCHECK_CASES

    return PINCHECK_CASES


CASES += _pincheck_cases()


def _spenta_cases():
    """The ninth held-out sample's rules (rules/spentA.toml): tests/rules/spentA_cases.py."""
    from tests.rules.spentA_cases import SPENTA_CASES

    return SPENTA_CASES


CASES += _spenta_cases()


def _spentB_cases():
    """The spent tenth held-out sample's expressible rows (rules/spentB.toml): tests/rules/spentB_cases.py."""
    from tests.rules.spentB_cases import SPENTB_CASES

    return SPENTB_CASES


CASES += _spentB_cases()


def _spentC_cases():
    """The spent eleventh held-out sample's expressible rows (rules/spentC.toml): tests/rules/spentC_cases.py."""
    from tests.rules.spentC_cases import SPENTC_CASES

    return SPENTC_CASES


CASES += _spentC_cases()


def _sweepG_cases():
    """The GSP firmware timing out, read from a kernel log (rules/sweepG.toml): tests/rules/sweepG_cases.py."""
    from tests.rules.sweepG_cases import SWEEPG_CASES

    return SWEEPG_CASES


CASES += _sweepG_cases()

def _deepen_cases():
    """Ledger reports read further (rules/deepen.toml): tests/rules/deepen_cases.py."""
    from tests.rules.deepen_cases import DEEPEN_CASES

    return DEEPEN_CASES


CASES += _deepen_cases()

def _deepen2_cases():
    """Ledger reports read further, second pass (rules/deepen2.toml): tests/rules/deepen2_cases.py."""
    from tests.rules.deepen2_cases import DEEPEN2_CASES

    return DEEPEN2_CASES


CASES += _deepen2_cases()

def _sweepF_cases():
    """vLLM's lockstep FlashInfer autotune on multi-node GB10 (rules/sweepF.toml): tests/rules/sweepF_cases.py."""
    from tests.rules.sweepF_cases import SWEEPF_CASES

    return SWEEPF_CASES


CASES += _sweepF_cases()


def _sweepH_cases():
    """A hybrid model's block longer than the context under prefix caching (rules/sweepH.toml): sweepH_cases.py."""
    from tests.rules.sweepH_cases import SWEEPH_CASES

    return SWEEPH_CASES


CASES += _sweepH_cases()

def _scope13_cases():
    """The TMA gather/scatter ptxas lines (rules/scope13.toml): tests/rules/scope13_cases.py."""
    from tests.rules.scope13_cases import SCOPE13_CASES

    return SCOPE13_CASES


CASES += _scope13_cases()


def _gapV_cases():
    """Rules from the ledger's not-encoded vLLM reports (rules/gapV.toml): tests/rules/gapV_cases.py."""
    from tests.rules.gapV_cases import GAPV_CASES

    return GAPV_CASES


CASES += _gapV_cases()


def _gapO_cases():
    """Non-vLLM ledger entries with a cause and a fix (rules/gapO.toml): tests/rules/gapO_cases.py."""
    from tests.rules.gapO_cases import GAPO_CASES

    return GAPO_CASES


CASES += _gapO_cases()


def _gapV2_cases():
    """gapV2's encodings of the ledger's not-encoded vLLM reports (rules/gapV2.toml): tests/rules/gapV2_cases.py."""
    from tests.rules.gapV2_cases import GAPV2_CASES

    return GAPV2_CASES


CASES += _gapV2_cases()


def _gapO2_cases():
    """Non-vLLM ledger entries researched with look-ups (rules/gapO2.toml): tests/rules/gapO2_cases.py."""
    from tests.rules.gapO2_cases import GAPO2_CASES

    return GAPO2_CASES


CASES += _gapO2_cases()


def _minev_cases():
    """Log-line encodings of the mineV task's ledger entries (rules/mineV.toml): tests/rules/mineV_cases.py."""
    from tests.rules.mineV_cases import MINEV_CASES

    return MINEV_CASES


CASES += _minev_cases()


def _gap15_cases():
    """The spent held-out samples' misses encoded by gap15 (rules/gap15.toml): tests/rules/gap15_cases.py."""
    from tests.rules.gap15_cases import GAP15_CASES

    return GAP15_CASES


CASES += _gap15_cases()


def _mineP_cases():
    """Rules from forum and blog reports (rules/mineP.toml): tests/rules/mineP_cases.py."""
    from tests.rules.mineP_cases import MINEP_CASES

    return MINEP_CASES


CASES += _mineP_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_rule_case(case):
    found = findings(case.facts(), *case.args, kernels=case.kernels,
                     launch_file=case.launch_file() if case.launch_file else None)
    assert (case.rule in found) is case.fires, sorted(found)


def test_every_rule_has_a_positive_and_a_negative_case():
    """Cluster rules have their cases in tests/cluster/cases.py (several nodes' facts)."""
    from tests.cluster.cases import CLUSTER_CASES
    from tests.rules.area_cases import AREA_CASES

    cases = [*CASES, *CLUSTER_CASES, *(c for c in AREA_CASES if c not in CASES)]
    ids = {r.id for r in RULES}
    positive = {c.rule for c in cases if c.fires}
    negative = {c.rule for c in cases if not c.fires}
    assert ids - positive == set(), "rules without a positive case"
    assert ids - negative == set(), "rules without a negative case"
    assert {c.rule for c in cases} <= ids, "cases for rules that do not exist"
