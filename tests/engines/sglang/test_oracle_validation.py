"""The SGLang derived tables against what real machines did: public reports that state SGLang's choice on a
real GPU (its message, its server arguments, or the report's own account of the kernel it ran), each checked
against the table of the same release, shape class and capability. `release` is what the report states;
`table` is the tabulated release the line is checked against. They differ only where the report names no
tabulated release (a post release, a main build on a release's wheel set, no release at all): such lines are
checked and reported, but counted apart from the same-release lines (COUNTED below)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from doctor.engines.derived_tables import table, tabulated


@dataclass(frozen=True)
class Observed:
    url: str
    release: str | None  # as the report states it; None: it does not say
    table: str  # the tabulated release checked
    gpu: str
    capability: str
    model: str
    grid: str  # the grid entry of the same shape class, KV dtype and flags
    decision: str  # rejection | server_arg:<field> | linear:<kernel key>
    expected: str  # the message's head, the field's value or the kernel function
    evidence: str  # the report's words


OBSERVED = [
    Observed("https://github.com/sgl-project/sglang/issues/9140", None, "0.5.9", "RTX 5090", "12.0",
             "any model, --attention-backend trtllm_mha", "gqa-h128-dense:bf16+attn=trtllm_mha", "rejection",
             "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different backend.",
             "ValueError: TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different "
             "backend. (August 2025: the release is not stated; SGLang 0.5.9 still says it)"),
    Observed("https://github.com/sgl-project/sglang/pull/31959", "main (July 2026)", "0.5.16",
             "RTX PRO 6000 Blackwell Server", "12.0", "Qwen/Qwen3.5-27B, --attention-backend trtllm_mha",
             "gqa-h128-dense:bf16+attn=trtllm_mha", "rejection",
             "TRTLLM MHA backend for prefill is only supported on Blackwell GPUs (SM100).",
             "SGLang main of July 2026 with torch 2.11.0+cu130 and FlashInfer 0.6.14 (the 0.5.16 wheel set)"),
    Observed("https://github.com/sgl-project/sglang/issues/18870", "0.5.8.post1", "0.5.8",
             "8x RTX PRO 6000 Blackwell Server", "12.0", "MiniMax-M2.5 (block FP8 MoE, GQA head size 128), TP=8",
             "gqa-h128-moe:fp8-block", "linear:w8a8_block_fp8_linear",
             "deepgemm_w8a8_block_fp8_linear_with_fallback",
             "| FP8 GEMM | DeepGemm (default) | FAIL | `RuntimeError: Assertion error (kernel_runtime.hpp:45): "
             "exit_code == 0` |"),
    Observed("https://github.com/AlexGS74/glm47-nvfp4-sm120/blob/2a4692d12f1ddd4a3feb290f8c15251f33912c87/docs/"
             "glm47-fp8-recipes.md#benchmark-sglang-nvfp4-no-mtp-march-4-2026", "0.5.9", "0.5.9",
             "RTX PRO 6000 Blackwell Max-Q", "12.0",
             "Salyut1/GLM-4.7-NVFP4, --quantization modelopt_fp4 --moe-runner-backend flashinfer_cutlass "
             "--attention-backend flashinfer (scripts/serve_glm47_nvfp4_sglang.sh @ 3fd24e3)",
             "gqa-h128-moe:nvfp4+moe=flashinfer_cutlass", "server_arg:moe_runner_backend", "flashinfer_cutlass",
             "SGLang 0.5.9, flashinfer 0.6.3, flashinfer_cutlass MoE, cuda graphs (max-bs=16) ... Stable up to c=8"),
    Observed("https://github.com/sgl-project/sglang/issues/24633", "0.5.10", "0.5.10",
             "RTX PRO 6000 Blackwell Server", "12.0", "deepseek-ai/DeepSeek-V3, TP=8, --attention-backend trtllm_mla",
             "mla-moe:native+attn=trtllm_mla", "server_arg:attention_backend", "trtllm_mla",
             "SGLang 0.5.10 routes MLA prefill/context through the TRTLLM MLA prefill path, which calls FlashInfer's "
             "TllmGenFmhaRunner and fails immediately with Unsupported architecture (the argument is accepted; the "
             "kernel fails at run time, outside the emulation)"),
]
COUNTED = [o for o in OBSERVED if o.release == o.table]


def _entry(seen: Observed) -> dict:
    return next(e for e in table("sglang", seen.table)["entries"]
                if e["capability"] == seen.capability and e["grid"] == seen.grid)


def _rejections(entry: dict) -> list[str]:
    return [e["message"].strip() for e in entry["errors"] if e["kind"] == "rejection"]


@pytest.mark.parametrize("seen", OBSERVED, ids=[f"{o.url.rsplit('/', 1)[1]}-{o.decision}" for o in OBSERVED])
def test_table_reproduces_the_report(seen):
    if seen.table not in tabulated("sglang"):
        pytest.skip(f"SGLang {seen.table} is not tabulated (python -m tools.engine_oracle sglang {seen.table})")
    entry = _entry(seen)
    if seen.decision == "rejection":
        assert any(m.startswith(seen.expected) for m in _rejections(entry)), (seen.url, entry["errors"])
    elif seen.decision.startswith("server_arg:"):  # the value SGLang kept, and nothing it refused
        assert entry["server_args"][seen.decision.split(":", 1)[1]] == seen.expected, seen.url
        assert _rejections(entry) == [], (seen.url, entry["errors"])
    elif seen.decision.startswith("linear:"):
        key = seen.decision.split(":", 1)[1]
        assert {g["kernels"].get(key) for g in entry["linear"] if key in g["kernels"]} == {seen.expected}, seen.url
    else:
        raise AssertionError(seen.decision)


def test_same_release_lines_are_counted_apart_from_nearest_release_lines():
    """A line checked against another release's table is reported, never counted as reproduced."""
    assert all(o.release == o.table for o in COUNTED)
    assert {o.url for o in OBSERVED if o not in COUNTED} == {
        "https://github.com/sgl-project/sglang/issues/9140", "https://github.com/sgl-project/sglang/pull/31959",
        "https://github.com/sgl-project/sglang/issues/18870"}
