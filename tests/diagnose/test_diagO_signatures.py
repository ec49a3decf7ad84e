"""Signatures for non-vLLM reports whose quoted line `diagnose` did not name (task diagO): each checked on the
report's own line, and on the closest log that must not match (another GPU, another cause, another engine)."""

from __future__ import annotations

from pathlib import Path

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

PAGES = Path(__file__).parent / "page_logs"  # outside index.toml's corpus (GitHub reports only): pages

# dgx-spark-playbooks#68 (heldout12 F31d) and sglang#12134: the ValueError as quoted, nothing else of the log
PHI4 = b"ValueError: No processor registered for architecture: ['Phi4MMForCausalLM'].\n"
QWEN3VL = b"ValueError: No processor registered for architecture: ['Qwen3VLForConditionalGeneration'].\n"
# a nightly image without torchcodec: MiMo-V2's processor import fails for another reason than FA3
TORCHCODEC = (b"[2026-09-20 10:00:01] Ignore import error when loading sglang.srt.multimodal.processors.mimo_v2: "
              b"No module named 'torchcodec'\n")


def test_sgl184_bare_processor_line_on_a_spark():
    for line in (PHI4, QWEN3VL):
        for engines in ((), ("sglang==0.5.3.post3",)):
            diagnosis = diagnose_text(line, profile_base("dgx-spark", *engines))
            assert rules_named(diagnosis)[:1] == ["SGL184"]
            assert any("nvcr.io/nvidia/sglang:26.02-py3" in t for t in fix_texts(diagnosis))


def test_sgl184_bare_line_needs_a_spark():
    for profile in ("rtx-5090", "rtx-pro-6000"):
        assert "SGL184" not in rules_named(diagnose_text(PHI4, profile_base(profile, "sglang==0.5.3.post3")))
    assert "SGL184" not in rules_named(diagnose_text(PHI4))


def test_sgl184_not_for_a_torchcodec_import_failure():
    diagnosis = diagnose_text(TORCHCODEC + b"ValueError: No processor registered for architecture: "
                              b"['MiMoV2ForCausalLM'].\n", profile_base("dgx-spark"))
    assert "SGL184" not in rules_named(diagnosis)
    assert "SGL184" in [r.rule for r in diagnosis.ruled_out]


def test_sgl184_ruled_out_by_another_image():
    for image in (b"nvcr.io/nvidia/sglang:26.02-py3", b"lmsysorg/sglang:nightly-dev-cu13-20260920"):
        log = (b"docker run --gpus all %s python3 -m sglang.launch_server "
               b"--model-path Qwen/Qwen3-VL-8B-Instruct\n" % image)
        diagnosis = diagnose_text(log + QWEN3VL, profile_base("dgx-spark"))
        assert "SGL184" not in rules_named(diagnosis)
        assert "SGL184" in [r.rule for r in diagnosis.ruled_out]


# sglang#40286 (0.5.20, DGX Spark): SGLang's DSA attention resolved to trtllm, then trtllm-gen refuses SM12x
TLLMGEN = (b"tvm.error.InternalError: Error in function 'TllmGenFmhaRunner' at "
           b"/workspace/include/flashinfer/trtllm/fmha/fmhaRunner.cuh:37: Unsupported architecture\n")
DSA = (b"[2026-09-19 09:12:40] Use dsa attention backend for DeepSeek with DSA.\n"
       b"[2026-09-19 09:12:40] Set DSA backends for fp8_e4m3 KV Cache: prefill=trtllm, decode=trtllm.\n")
# 0.5.10's MLA prefill on trtllm_mla (sglang#24633): no DSA line, the backend the user chose
MLA = (b"[2026-05-07 10:00:00] server_args=ServerArgs(model_path='deepseek-ai/DeepSeek-R1-0528', "
       b"attention_backend='trtllm_mla', tp_size=8)\n")


def test_sgl140_needs_the_dsa_lines():
    for profile in ("dgx-spark", "rtx-pro-6000"):
        diagnosis = diagnose_text(DSA + TLLMGEN, profile_base(profile))
        assert rules_named(diagnosis)[0] == "SGL140"
        assert "SGL107" in [r.rule for r in diagnosis.ruled_out]
        assert any("tilelang" in t for t in fix_texts(diagnosis))
    for log in (TLLMGEN, MLA + TLLMGEN):
        named = rules_named(diagnose_text(log, profile_base("rtx-pro-6000")))
        assert named[0] == "SGL107" and "SGL140" not in named


def test_sgl140_release_range():
    # the rule reads 0.5.18-0.5.23; a release outside it is ruled out, whatever the log's DSA lines
    for version, named in (("0.5.20", True), ("0.5.24", False)):
        diagnosis = diagnose_text(DSA + TLLMGEN, profile_base("dgx-spark", f"sglang=={version}"))
        assert ("SGL140" in rules_named(diagnosis)) == named, version


# flashinfer#2122 (SGLang's flashinfer_mxfp4 on an RTX PRO 6000, GPT-OSS-120B: K = 90 scale columns)
SHUFFLE = (b'  File "/usr/local/lib/python3.12/dist-packages/flashinfer/utils.py", line 758, in '
           b"get_shuffle_matrix_sf_a_row_indices\n    assert K % 4 == 0\n           ^^^^^^^^^^\nAssertionError\n")
SGLANG_MXFP4 = (b"[2025-11-20 09:41:02] Detected SM100 and MXFP4 quantization format for GPT-OSS model, enabling "
                b"FlashInfer MXFP4 MOE kernel.\n")
VLLM_FRAME = (b'(Worker_TP0 pid=2375) ERROR 06-26 14:02:10 [multiproc_executor.py:870]   File "/usr/local/lib/'
              b'python3.12/dist-packages/vllm/model_executor/layers/fused_moe/oracle/mxfp4.py", line 346, in '
              b"convert_to_mxfp4_moe_kernel_format\n")


def test_sgl110_shuffle_assert_on_sm12x():
    for profile in ("rtx-pro-6000", "rtx-5090"):
        for log in (SHUFFLE, SGLANG_MXFP4 + SHUFFLE):
            assert rules_named(diagnose_text(log, profile_base(profile)))[:1] == ["SGL110"]
    assert rules_named(diagnose_text(SHUFFLE, profile_base("rtx-pro-6000", "sglang==0.5.5")))[:1] == ["SGL110"]


def test_sgl110_shuffle_assert_boundaries():
    # SM100 and Hopper: the SM100 runner is the right one there; 0.5.17 runs FlashInfer's CUTLASS MXFP4 on SM12x
    for base in (profile_base("b200-x8"), profile_base("h100-sxm-x8"), profile_base("rtx-pro-6000", "sglang==0.5.17")):
        diagnosis = diagnose_text(SGLANG_MXFP4 + SHUFFLE, base)
        assert "SGL110" not in rules_named(diagnosis)
        assert "SGL110" in [r.rule for r in diagnosis.ruled_out]
    # the frame without the K % 4 assert (vllm#46879's M % 128), and the K % 4 assert in vLLM's log
    other = SHUFFLE.replace(b"assert K % 4 == 0", b"assert M % 128 == 0")
    assert "SGL110" not in rules_named(diagnose_text(other, profile_base("rtx-pro-6000")))
    assert "SGL110" not in rules_named(diagnose_text(VLLM_FRAME + SHUFFLE, profile_base("rtx-pro-6000")))


# llama.cpp#25060 / PR #27215: the value the driver handed ggml-cuda, as the reports quote it; the capability table's
# 101376 B of a --hardware profile must not rule LCPP040 out
SMPBO = (b"ggml_cuda_compute_forward: SOFT_MAX failed (Requested 1152 bytes of shared memory, but max is 0 bytes; "
         b"sharedMemPerBlockOptin read as 4294967297)\n")
SMPBO_HEX = (b"On an RTX 5080 (SM120) with driver 595.84 / CUDA 13.3, `prop.sharedMemPerBlockOptin` was observed to "
             b"come back as exactly `0x100000001` (4294967297) during `ggml_cuda_init()`\n"
             b"CUDA error: invalid argument\n")
# llama.cpp#25095: the same abort on an RTX 3060 with a sane value (no smpbo quoted)
SOFTMAX_3060 = (b"0.11.348.030 E ggml_cuda_compute_forward: SOFT_MAX failed\n"
                b"0.11.348.725 E CUDA error: invalid argument\n"
                b"0.11.348.728 E   current device: 0, in function ggml_cuda_compute_forward at "
                b"/home/lf/codes/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:3163\n")


def _gpu_line(name: str, cc: str) -> bytes:
    return (b"ggml_cuda_init: found 1 CUDA devices:\n  Device 0: %s, compute capability %s, VMM: yes\n"
            % (name.encode(), cc.encode()))


def test_lcpp040_reads_the_logged_smpbo_over_the_profile_table():
    for log in (SMPBO, SMPBO_HEX):
        for profile in ("rtx-5090", "rtx-5080"):
            diagnosis = diagnose_text(log, profile_base(profile))
            assert rules_named(diagnosis)[0] == "LCPP040"
            gpus = diagnosis.deployment.facts.gpus
            assert gpus and all(g.smem_per_block_optin == 4294967297 and g.smem_source == "log" for g in gpus)


def test_lcpp040_boundaries():
    # a sane value (nothing quoted) keeps the table's 101376 B: LCPP040 stays ruled out
    diagnosis = diagnose_text(_gpu_line("NVIDIA GeForce RTX 5090", "12.0") + SOFTMAX_3060)
    assert "LCPP040" not in rules_named(diagnosis)
    # another capability, and the first build with the clamp
    for log in (_gpu_line("NVIDIA GeForce RTX 3060", "8.6") + SMPBO,
                _gpu_line("NVIDIA GeForce RTX 5090", "12.0") + b"build: 11435 (0123abc)\n" + SMPBO):
        diagnosis = diagnose_text(log)
        assert "LCPP040" not in rules_named(diagnosis)
        assert "LCPP040" in [r.rule for r in diagnosis.ruled_out]
    assert "LCPP040" in rules_named(diagnose_text(_gpu_line("NVIDIA GeForce RTX 5090", "12.0")
                                                  + b"build: 11434 (0123abc)\n" + SMPBO))


# al-engr.com sglang-deepseek-spark-pivot (SGLang 0.5.12, DeepSeek V4 Flash, two DGX Sparks): DeepGEMM's layout
# assert in an SGLang traceback that does not name the model
UNKNOWN_SF = b"RuntimeError: Assertion error (csrc/apis/layout.hpp:60): Unknown SF transformation\n"
SGLANG_FRAME = (b'  File "/sgl-workspace/sglang/python/sglang/srt/model_loader/loader.py", line 702, in load_model\n'
                b"    quant_method.process_weights_after_loading(module)\n")
VLLM_FRAME_DG = (b'(EngineCore_DP0 pid=311)   File "/usr/local/lib/python3.12/dist-packages/vllm/model_executor/'
                 b'layers/quantization/utils/fp8_utils.py", line 1204, in process_weights_after_loading\n')


def test_dg001_unknown_sf_in_an_sglang_log():
    diagnosis = diagnose_text(SGLANG_FRAME + UNKNOWN_SF, profile_base("dgx-spark", "sglang==0.5.12"))
    assert rules_named(diagnosis)[0] == "DG001"
    # 0.5.13 keeps DeepSeek-V4 off DeepGEMM on SM12x; 0.5.9 on SM120 is DG002's block-FP8 default
    assert "DG001" in [r.rule for r in diagnose_text(SGLANG_FRAME + UNKNOWN_SF,
                                                     profile_base("dgx-spark", "sglang==0.5.13")).ruled_out]
    named = rules_named(diagnose_text(SGLANG_FRAME + UNKNOWN_SF, profile_base("rtx-pro-6000", "sglang==0.5.9")))
    assert named[0] == "DG002" and "DG001" not in named


def test_dg001_page_log():
    # https://al-engr.com/sglang-deepseek-spark-pivot.html: the image, flags and assert; the model is a local path
    log = (PAGES / "al-engr-sglang-0512-spark-deepgemm-unknown-sf.log").read_bytes()
    diagnosis = diagnose_text(log, profile_base("dgx-spark"))
    assert rules_named(diagnosis)[0] == "DG001"
    assert any("sglang>=0.5.13" in t for t in fix_texts(diagnosis))


def test_dg001_not_in_a_vllm_log():
    named = rules_named(diagnose_text(VLLM_FRAME_DG + UNKNOWN_SF, profile_base("rtx-pro-6000", "vllm==0.27.1")))
    assert "DG001" not in named and "DG002" not in named


# TensorRT-LLM#18039's title quotes the assert without its ' in context part.' (attentionOp.cpp); an L40 (SM89)
# hits the same assert (no MLA FMHA below Hopper) and is not TRT032's SM12x case
FMHA_TITLE = (b"DeepSeek-V4-Flash NVFP4 baseline aborts in AttentionOp on RTX PRO 6000 Blackwell: Deepseek should be "
              b"supported by fmha\n")
FMHA_L40 = (b"GPU 0: NVIDIA L40S\n[TensorRT-LLM][ERROR] Assertion failed: Deepseek should be supported by fmha in "
            b"context part. (/src/tensorrt_llm/cpp/tensorrt_llm/common/attentionOp.cpp:3097)\n")


def test_trt032_title_form():
    base = profile_base("rtx-pro-6000-ws-x4", "tensorrt-llm==1.3.0rc24")
    assert rules_named(diagnose_text(FMHA_TITLE, base))[:1] == ["TRT032"]
    assert "TRT032" not in rules_named(diagnose_text(FMHA_L40))
