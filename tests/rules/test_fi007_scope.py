"""FI007's scope (issue 24): FlashInfer declares its cuDNN FP4 GEMM for SM120/121 and cuDNN decides at run time
whether a plan exists, so a cuDNN FP4 GEMM on SM12x is a warning (reported both failing and serving), never an
error; the CUTLASS FP4 GEMM, and a model that is not NVFP4, get nothing."""

from __future__ import annotations

from tests.rules.builders import build, findings

NVFP4 = "nvidia/Kimi-K2.5-NVFP4"


def test_cudnn_fp4_gemm_on_sm120_is_a_warning_not_an_error():
    found = findings(build("rtx-pro-6000-x8", NVFP4, ("sglang==0.5.9",)), "--fp4-gemm-backend", "flashinfer_cudnn")
    assert [f.severity for f in found["FI007"]] == ["warning"]


def test_cudnn_fp4_gemm_by_env_on_gb10_is_a_warning():
    facts = build("dgx-spark", NVFP4, ("sglang==0.5.23",), env={"SGLANG_FLASHINFER_FP4_GEMM_BACKEND": "cudnn"})
    assert [f.severity for f in findings(facts)["FI007"]] == ["warning"]


def test_cutlass_fp4_gemm_and_a_bf16_model_are_quiet():
    assert "FI007" not in findings(build("rtx-pro-6000-x8", NVFP4, ("sglang==0.5.9",)),
                                   "--fp4-gemm-backend", "flashinfer_cutlass")
    assert "FI007" not in findings(build("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", ("sglang==0.5.9",)),
                                   "--fp4-gemm-backend", "flashinfer_cudnn")


def test_a_datacenter_blackwell_is_out_of_scope():
    facts = build("b200-x8", NVFP4, ("sglang==0.5.9",))
    assert "FI007" not in findings(facts, "--fp4-gemm-backend", "flashinfer_cudnn")
