"""Signatures for non-vLLM reports whose quoted line `diagnose` did not name (task diagO): each checked on the
report's own line, and on the closest log that must not match (another GPU, another cause, another engine)."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

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
        log = b"docker run --gpus all %s python3 -m sglang.launch_server --model-path Qwen/Qwen3-VL-8B-Instruct\n" % image
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
