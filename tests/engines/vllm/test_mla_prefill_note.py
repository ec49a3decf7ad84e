"""MLA prefill on 12.x per vLLM release (read from the wheels): never a Triton kernel; FlashInfer's ragged prefill
only in 0.10.0, whose gate `has_device_capability(100)` also holds on 12.x."""

from __future__ import annotations

from doctor.engines.vllm.mla_prefill import prefill_note
from doctor.pipeline.analysis import analyze_all
from tests.rules.builders import build


def test_010_gate_lets_flashinfer_or_cudnn_run_on_12x():
    assert "FlashInfer's ragged prefill (" in prefill_note("0.10.0", {}, True)
    assert "cuDNN" in prefill_note("0.10.0", {"VLLM_USE_CUDNN_PREFILL": "1"}, True)
    assert "FlashAttention 2 varlen (FlashInfer not installed)" in prefill_note("0.10.0", {}, False)
    assert "where FlashInfer is installed" in prefill_note("0.10.0")


def test_every_other_release_runs_flash_attention_2_and_cites_where():
    for version, where in (("0.9.2", "common.py:655"), ("0.11.0", "common.py:414"), ("0.15.1", "mla_attention.py:490"),
                           ("0.21.0", "selector.py:72"), ("0.33.0", "interface.py:482")):
        note = prefill_note(version, {"VLLM_USE_CUDNN_PREFILL": "1"}, True)
        assert "FlashAttention 2 varlen (vllm_flash_attn)" in note and where in note and "not a Triton" in note


def test_triton_mla_analysis_carries_the_note():
    [result] = analyze_all(build("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ("vllm==0.33.0",)), [])
    assert result.backends["attention"] == "TRITON_MLA"
    assert any(n.startswith("MLA prefill runs FlashAttention 2 varlen") and "interface.py:482" in n
               for n in result.notes)
