"""The signatures of rules/spentA.toml (the ninth held-out sample) and FI002's torch fix, on the lines the reports
quote: vllm#48848 / PR #51493 (Gemma 4 MoE MTP on the V1 runner), llama.cpp#23233 (MTP drafting with an image),
chunkhound#176 (a Windows TDR bugcheck), vllm#41403 (FlashInfer on a cu128 torch)."""

from __future__ import annotations

from tests.diagnose.corpus import claimed, diagnose_text
from tests.diagnose.corpus import profile_base as profile

ONE_LINE = "RuntimeError: a and b must have same reduction dim, but got [s47, 3840] X [5632, 1024]\n"
BARE = "RuntimeError: a and b must have same reduction dim, but got [32, 4096] X [2048, 1024]\n"
ASSERT = "/ggml/src/ggml-cpu/ops.cpp:4745: GGML_ASSERT(i01 >= 0 && i01 < ne01) failed\n"
TDR = "VIDEO_TDR_FAILURE (nvlddmkm.sys)\n"
FI_LINE = "Failed to get device capability: SM 12.x requires CUDA >= 12.9.\n"



def test_the_drafters_shapes_name_vllm440_alone():
    assert claimed(ONE_LINE)[:1] == ["VLLM440"]


def test_the_bare_shape_error_needs_gemma_or_vllm():
    assert claimed(BARE) == []
    assert claimed(BARE, profile("rtx-pro-6000", "vllm==0.25.1"))[:1] == ["VLLM440"]
    assert claimed("gemma4_mtp.py\n" + BARE)[:1] == ["VLLM440"]


def test_get_rows_assert_is_lcpp221_with_llama_cpp_named():
    assert claimed(ASSERT, profile("rtx-5060-ti-16gb", "llama.cpp==9198"))[:1] == ["LCPP221"]
    assert claimed("srv  process_chun: processing image...\n" + ASSERT)[:1] == ["LCPP221"]


def test_get_rows_assert_alone_is_not_claimed():
    assert claimed(ASSERT) == []


def test_tdr_on_blackwell_is_drv050_and_not_on_hopper():
    assert claimed(TDR, profile("rtx-5070-ti"))[:1] == ["DRV050"]
    assert "DRV050" not in claimed(TDR, profile("h100-sxm-x8"))


def test_fi002_names_the_cu129_torch_fix():
    diagnosis = diagnose_text(FI_LINE, profile("rtx-5060-ti-16gb", "vllm==0.25.1"))
    first = diagnosis.explanations[0]
    assert first.rule == "FI002"
    assert any("cu129" in (fix.summary or "") for fix in first.fixes)
