"""The signature task spentC added (rules/spentC.toml's VLLM480) on the error vLLM 0.20.x raises, and a line
next to it that must stay unclaimed."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, fix_texts, profile_base, rules_named

# vllm 0.20.0-0.20.2 vllm/engine/arg_utils.py: the NotImplementedError create_engine_config raises
TURBOQUANT_HYBRID = (b"NotImplementedError: TurboQuant KV cache is not supported for hybrid (attention + Mamba) "
                     b"models. Boundary layer protection requires uniform attention layers.\n")
# the same engine's log line for a uniform-attention model (0.20.0's logger.info), not a failure
TURBOQUANT_SKIP = (b"INFO arg_utils.py TQ: skipping layers ['0', '1', '62', '63'] for boundary protection "
                   b"(num_layers=64)\n")


def test_turboquant_hybrid_refusal_is_vllm480():
    diagnosis = diagnose_text(TURBOQUANT_HYBRID, profile_base("rtx-pro-4500", "vllm==0.20.0"))
    assert "VLLM480" in rules_named(diagnosis)
    assert any("0.21.0" in t for t in fix_texts(diagnosis))


def test_turboquant_boundary_skip_line_is_not_vllm480():
    assert "VLLM480" not in rules_named(diagnose_text(TURBOQUANT_SKIP, profile_base("rtx-pro-4500", "vllm==0.20.0")))


# airelien.dev qwen36-27b-mtp-oom-fix-q2kxl (RTX 5090 Laptop 24 GB): the OOM line the post quotes, and the same
# OOM outside MTP drafting, which must stay unclaimed
MTP_DRAFT_OOM = (b"/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97: CUDA error CUDA error: out of memory current "
                 b"device: 0, in function ggml_cuda_graph_evaluate_and_capture ... "
                 b"common_speculative_state_mtp::draft\n")
LCPP = "llama.cpp==b9333"  # a stated build (the post states none; the signature reads no build)
PLAIN_GRAPH_OOM = (b"/src/llama.cpp/ggml/src/ggml-cuda/ggml-cuda.cu:97: CUDA error CUDA error: out of memory current "
                   b"device: 0, in function ggml_cuda_graph_evaluate_and_capture\n")


def test_mtp_draft_oom_is_lcpp261():
    diagnosis = diagnose_text(MTP_DRAFT_OOM, profile_base("rtx-5090-laptop", LCPP))
    assert "LCPP261" in rules_named(diagnosis)
    assert any("Q2_K_XL" in t for t in fix_texts(diagnosis))


def test_oom_lines_that_are_not_lcpp261():
    assert "LCPP261" not in rules_named(diagnose_text(PLAIN_GRAPH_OOM, profile_base("rtx-5090-laptop", LCPP)))
    assert "LCPP261" not in rules_named(diagnose_text(MTP_DRAFT_OOM, profile_base("h100-sxm-x8", LCPP)))


# airelien.dev lucebox-saga-08 (RTX 5090 Laptop, pods through HAMi): the line it quotes; HAMi's own line for an
# id that a GPU could have, and another program's uppercase "Illegal device ID", must stay unclaimed
HAMI_GARBAGE_ID = b"Illegal device id: -644371744\n"
HAMI_SMALL_ID = b"Illegal device id: 17\n"
SCSI_LINE = b"hai154x: Illegal device ID: 123 LUN: 0\n"


def test_hami_uninitialised_device_id_is_drv070():
    diagnosis = diagnose_text(HAMI_GARBAGE_ID, profile_base("rtx-5090-laptop"))
    assert "DRV070" in rules_named(diagnosis)
    assert any("#188" in t for t in fix_texts(diagnosis))


def test_lines_that_are_not_drv070():
    for line in (HAMI_SMALL_ID, SCSI_LINE):
        assert "DRV070" not in rules_named(diagnose_text(line, profile_base("rtx-5090-laptop")))
    assert "DRV070" not in rules_named(diagnose_text(HAMI_GARBAGE_ID, profile_base("h100-sxm-x8")))
