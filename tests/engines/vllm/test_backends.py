"""Backends and kernels vLLM picks on SM12x, per release (from the wheel data)."""

from __future__ import annotations

import pytest

from doctor.engines.vllm import knowledge
from doctor.pipeline.analysis import analyze_all
from tests.rules.builders import build, findings

PRO = "rtx-pro-6000-x8"


def analysis(model: str, version: str, *argv: str, profile: str = PRO, env: dict | None = None):
    [result] = analyze_all(build(profile, model, (f"vllm=={version}",), env=env), list(argv))
    return result


@pytest.mark.parametrize("version", knowledge.releases())
def test_glm47_fp8_fails_on_cutlass_before_0151_and_runs_triton_from_it(version):
    """The field reports' GLM-4.7-FP8: the cutlass_scaled_mm failure before 0.15.1, not from 0.15.1."""
    before = version in [r for r in knowledge.releases() if tuple(map(int, r.split("."))) < (0, 15, 1)]
    result = analysis("zai-org/GLM-4.7-FP8", version)
    assert result.backends["moe"] == ("cutlass" if before else "triton")
    assert ("VLLM002" in findings(build(PRO, "zai-org/GLM-4.7-FP8", (f"vllm=={version}",)))) is before
    if not before:
        moe = [k for k in result.kernels if k.kernel == "fused_moe"]
        assert moe and all(k.engine == "vllm" for k in moe)


@pytest.mark.parametrize("version", knowledge.releases())
def test_default_attention_on_sm120(version):
    assert analysis("moonshotai/Kimi-K2.5", version).backends["attention"] == "TRITON_MLA"
    assert analysis("openai/gpt-oss-120b", version).backends["attention"] == "TRITON_ATTN"
    assert analysis("meta-llama/Llama-3.1-8B-Instruct", version).backends["attention"] == "FLASH_ATTN"


def test_fp8_kv_cache_moves_the_default_off_flash_attention():
    result = analysis("meta-llama/Llama-3.1-8B-Instruct", "0.20.0", "--kv-cache-dtype", "fp8")
    assert result.backends["attention"] == "FLASHINFER"


def test_forced_backend_that_cannot_run_says_why():
    result = analysis("moonshotai/Kimi-K2.5", "0.20.0", "--attention-backend", "FLASHMLA")
    assert result.backends["attention"] == "FLASHMLA"
    assert any("supports_compute_capability(12.0) is False" in n for n in result.notes)


def test_env_backend_counts_only_where_the_release_reads_it():
    forced = {"VLLM_ATTENTION_BACKEND": "FLASHINFER_MLA"}
    assert analysis("moonshotai/Kimi-K2.5", "0.14.0", env=forced).backend_sources["attention"] == \
        "VLLM_ATTENTION_BACKEND"
    assert analysis("moonshotai/Kimi-K2.5", "0.15.0", env=forced).backends["attention"] == "TRITON_MLA"


def test_mla_decode_kernel_is_sized_for_the_gpu():
    [decode] = [k for k in analysis("moonshotai/Kimi-K2.5", "0.15.1").kernels if k.kernel == "decode_attention"]
    assert decode.shape["lk"] == 576 and decode.limit == 101376 and decode.bytes > 0


def test_moe_default_config_comes_from_the_release_function():
    kernels = [k for k in analysis("zai-org/GLM-4.7-FP8", "0.33.0").kernels if k.kernel == "fused_moe"]
    assert kernels and {k.details["source"] for k in kernels} <= {"default", "file"}
    assert all("get_default_config" in k.details.get("default_from", "get_default_config") for k in kernels)
