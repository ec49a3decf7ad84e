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


def _release(version: str) -> tuple[int, ...]:
    return tuple(map(int, version.split(".")))


@pytest.mark.parametrize("version", knowledge.releases())
def test_glm47_fp8_fails_on_cutlass_in_014_to_0150_only(version):
    """GLM-4.7-FP8 (compressed-tensors, per-channel): vLLM's CUTLASS MoE from 0.14.0 (the oracle's
    allow_vllm_cutlass) to 0.15.0; before 0.14 the CUTLASS method needs capability exactly 9.0/10.0."""
    failing = (0, 14, 0) <= _release(version) < (0, 15, 1)
    result = analysis("zai-org/GLM-4.7-FP8", version)
    assert result.backends["moe"] == ("cutlass" if failing else "triton")
    assert ("VLLM002" in findings(build(PRO, "zai-org/GLM-4.7-FP8", (f"vllm=={version}",)))) is failing
    if not failing:
        moe = [k for k in result.kernels if k.kernel == "fused_moe"]
        assert moe and all(k.engine == "vllm" for k in moe)


@pytest.mark.parametrize("version", knowledge.releases())
def test_block_fp8_moe_never_takes_vllm_cutlass_on_sm120(version):
    """Fp8MoEMethod (quant_method fp8, 128x128 blocks) never passes allow_vllm_cutlass."""
    assert analysis("deepseek-ai/DeepSeek-V3", version).backends["moe"] == "triton"


@pytest.mark.parametrize(("scheme", "activation", "version", "cutlass"), [
    ("fp8-tensor", "float8-tensor-static", "0.15.0", True),
    ("fp8-tensor", "float8-tensor-dynamic", "0.15.0", False),  # kFp8Dynamic128Sym: CutlassExpertsFp8 refuses it
    ("fp8-tensor", "float8-tensor-dynamic", "0.14.0", True),  # 0.14's oracle takes any non-block scheme
    ("fp8-channel", "float8-token-dynamic", "0.13.0", False),
    ("fp8-channel", None, "0.14.0", False),  # weight-only FP8 is no W8A8 method
])
def test_compressed_tensors_fp8_moe_schemes(scheme, activation, version, cutlass):
    from packaging.version import Version

    from doctor.engines.vllm.backends import fp8_moe_cutlass_path
    from doctor.pipeline.facts import Quantization

    quant = Quantization(scheme=scheme, method="compressed-tensors", bits=8, activation=activation)
    assert (fp8_moe_cutlass_path(Version(version), quant) is not None) is cutlass


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
