"""With no Triton installed, the vLLM kernel plan sizes every kernel for the Triton the release's torch pins (the
one `kernels --exact` compiles with), not the newest: the bytes below are those compiles (vLLM's own
triton_decode_attention.py and fused_moe.py, sm_120, 2026-11-27)."""

from __future__ import annotations

import pytest

from doctor.pipeline.analysis import analyze_all
from tests.rules.builders import build


def plan(version: str):
    [result] = analyze_all(build("rtx-pro-6000-x8", "deepseek-ai/DeepSeek-V3", (f"vllm=={version}",)),
                           ["--kv-cache-dtype", "fp8"])
    return result.kernels


@pytest.mark.parametrize(("version", "triton", "mla_decode"), [
    ("0.9.2", "3.3.1", 54272),  # fp8 dots upcast before Triton 3.5 on sm_120
    ("0.11.0", "3.4.0", 54272),
    ("0.15.1", "3.5.1", 53760),
    ("0.18.0", "3.6.0", 87040),
    ("0.33.0", "3.8.0", 102400),
])
def test_mla_decode_is_sized_for_the_pinned_triton(version, triton, mla_decode):
    [decode] = [k for k in plan(version) if k.kernel == "decode_attention"]
    assert decode.bytes == mla_decode, triton


def test_moe_defaults_follow_the_pinned_triton():
    assert [k.bytes for k in plan("0.33.0") if k.kernel == "fused_moe"] == [30720, 20480, 37376, 37376, 49664]
