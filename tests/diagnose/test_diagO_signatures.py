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
