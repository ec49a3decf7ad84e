"""The SGLang derived tables (doctor/data/derived/sglang, `python -m tools.engine_oracle sglang RELEASE`):
complete over the grid, honest about what the emulation reached, and in agreement with what is known
independently of the emulation: the choices read from the same releases' wheels (doctor/engines/sglang/
defaults.py, each function citing the wheel file) and SGLang's own messages in public reports from SM120
machines."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.derived_tables import table, tabulated
from doctor.engines.sglang import defaults
from tools.engine_oracle import sglang_grid

RELEASES = tabulated("sglang")
# What `_dispatch_explicit_backend` (sglang/srt/layers/quantization/fp8_utils.py, 0.5.7 on) runs for each
# `--fp8-gemm-backend` value: the block-FP8 linear function a layer holds.
GEMM_FUNCTION = {"flashinfer_trtllm": "flashinfer_gemm_w8a8_block_fp8_linear_with_fallback",
                 "triton": "triton_w8a8_block_fp8_linear", "cutlass": "cutlass_w8a8_block_fp8_linear_with_fallback"}


def entry(release: str, capability: str, grid: str) -> dict:
    return next(e for e in table("sglang", release)["entries"] if e["capability"] == capability and e["grid"] == grid)


def built(e: dict) -> bool:
    """The model's skeleton was built (the release's model construction is reachable by the emulation)."""
    return bool(e["linear"] or e["moe"])


def test_tables_exist_for_the_releases_most_reports_are_on():
    assert {"0.5.9", "0.5.23"} <= set(RELEASES)


@pytest.mark.parametrize("release", RELEASES)
def test_a_table_covers_its_grid_and_names_its_inputs(release):
    data = table("sglang", release)
    assert (data["engine"], data["release"]) == ("sglang", release)
    assert data["pinned"]["distributions"]["sglang"] == release
    assert data["pinned"]["driver"] and data["crashes"] == []
    for capability in ("12.0", "12.1"):
        asked = {e["grid"] for e in data["entries"] if e["capability"] == capability}
        assert asked == {q.id for q in sglang_grid.queries()}, capability
    for capability in ("9.0", "10.0"):
        asked = {e["grid"] for e in data["entries"] if e["capability"] == capability}
        assert asked == {q.id for q in sglang_grid.queries(control=True)}, capability


@pytest.mark.parametrize("release", RELEASES)
def test_only_what_sglang_raises_on_purpose_is_a_rejection(release):
    for e in table("sglang", release)["entries"]:
        for error in e["errors"]:
            if error["kind"] == "rejection":
                assert error["stage"] in ("server_args", "model_config", "build"), (e["grid"], error)
                assert error["type"] in ("ValueError", "AssertionError", "RuntimeError", "NotImplementedError")
                assert "meta" not in error["message"] and "libcuda" not in error["message"]


@pytest.mark.parametrize("release", RELEASES)
def test_the_gpt_oss_moe_runner_is_the_one_read_from_the_wheel(release):
    """Two derivations of one choice: SGLang's own `__post_init__` on an emulated 12.0 and 12.1, and the
    runner read from the release's wheel source (defaults.default_mxfp4_moe_runner)."""
    expected = defaults.default_mxfp4_moe_runner(Version(release), 12)
    for capability in ("12.0", "12.1"):
        chosen = entry(release, capability, "gqa-h64-swa-sinks-moe:native")["server_args"]["moe_runner_backend"]
        assert chosen == expected, (release, capability)


@pytest.mark.parametrize("release", RELEASES)
def test_block_fp8_gemm_without_deep_gemm_is_the_one_read_from_the_wheel(release):
    """With SGLang's JIT DeepGEMM off, `--fp8-gemm-backend auto` resolves to what defaults.py read from the
    wheel's fp8_utils.py; the tables show the function the layers hold."""
    e = entry(release, "12.0", "gqa-h128-dense:fp8-block+env=SGLANG_ENABLE_JIT_DEEPGEMM=0")
    if not built(e):
        pytest.skip(f"SGLang {release}'s model construction is not reached by the emulation")
    # 0.5.3 reads SGL_ENABLE_JIT_DEEPGEMM, not the grid's SGLANG_ENABLE_JIT_DEEPGEMM: DeepGEMM stays on there
    functions = {**GEMM_FUNCTION, "deep_gemm": "deepgemm_w8a8_block_fp8_linear_with_fallback"}
    expected = functions[defaults.default_fp8_gemm_backend(Version(release), (12, 0),
                                                           {"SGLANG_ENABLE_JIT_DEEPGEMM": "0"})]
    assert {group["kernels"].get("w8a8_block_fp8_linear") for group in e["linear"]} == {expected}


@pytest.mark.parametrize("release", RELEASES)
def test_block_fp8_gemm_with_deep_gemm_on_is_the_one_read_from_the_wheel(release):
    """With SGLang's defaults on 12.0: `_dispatch_auto_backend` tries DeepGEMM first where `deep_gemm` imports
    (sgl-kernel 0.3.21 ships it: 0.5.8, 0.5.9), then what defaults.py read. sglang#18870 (0.5.8.post1, 8x RTX PRO
    6000, MiniMax-M2.5 FP8): 'FP8 GEMM | DeepGemm (default) | FAIL'."""
    functions = {**GEMM_FUNCTION, "deep_gemm": "deepgemm_w8a8_block_fp8_linear_with_fallback"}
    for grid in ("gqa-h128-moe:fp8-block", "mla-moe:native"):
        e = entry(release, "12.0", grid)
        if not built(e):
            pytest.skip(f"SGLang {release}'s model construction is not reached by the emulation")
        expected = functions[defaults.default_fp8_gemm_backend(Version(release), (12, 0))]
        assert {g["kernels"].get("w8a8_block_fp8_linear") for g in e["linear"]
                if g["method"] == "Fp8LinearMethod"} == {expected}, grid


# SGLang's own words in public reports from SM12x machines, and the table entry that must say the same.
PUBLIC_MESSAGES = [
    # sglang#9140, RTX 5090 (sm_120a): --attention-backend trtllm_mha refused
    ("https://github.com/sgl-project/sglang/issues/9140", "0.5.9", "12.0", "gqa-h128-dense:bf16+attn=trtllm_mha",
     "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different backend."),
    # sglang PR #31959, RTX PRO 6000 Server, SGLang main of July 2026 with torch 2.11.0+cu130 and FlashInfer
    # 0.6.14 (the 0.5.16 wheel set): `sglang serve --model Qwen/Qwen3.5-27B --attention-backend trtllm_mha`
    ("https://github.com/sgl-project/sglang/pull/31959", "0.5.16", "12.0", "gqa-h128-dense:bf16+attn=trtllm_mha",
     "TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100)."),
]


@pytest.mark.parametrize("url, release, capability, grid, message", PUBLIC_MESSAGES)
def test_the_tables_say_what_sglang_said_on_real_machines(url, release, capability, grid, message):
    errors = entry(release, capability, grid)["errors"]
    assert any(e["kind"] == "rejection" and e["message"].strip().startswith(message) for e in errors), url


def test_the_control_devices_keep_their_own_choices():
    """The emulation is not stuck on SM12x answers: on 10.0 SGLang 0.5.23 takes its SM100 paths (TRT-LLM MLA
    and the FlashInfer TRT-LLM MoE for DeepSeek-V3, TRT-LLM MHA for Llama), on 12.0 Triton MLA and FlashInfer."""
    b200 = entry("0.5.23", "10.0", "mla-moe:native")["server_args"]
    assert (b200["attention_backend"], b200["moe_runner_backend"]) == ("trtllm_mla", "flashinfer_trtllm")
    assert entry("0.5.23", "10.0", "gqa-h128-dense:bf16")["server_args"]["attention_backend"] == "trtllm_mha"
    assert entry("0.5.23", "12.0", "mla-moe:native")["server_args"]["attention_backend"] == "triton"
    assert entry("0.5.23", "12.0", "gqa-h128-dense:bf16")["server_args"]["attention_backend"] == "flashinfer"
