"""`sm120-doctor kernels MODEL --engine vllm==0.33.0 --exact` end to end: the command fetches nothing it already
has (the cached wheel and Triton 3.8.0, the one 0.33.0's torch pins, seeded into an empty user cache), compiles
vLLM's own kernels from the wheel on the CPU, and the bytes equal the closed form's on every row: TRITON_ATTN's
unified attention for gpt-oss-120b (full and sliding-window layers, with sinks), TRITON_MLA's decode kernel with an
fp8 KV cache (102,400 B, over SM12x's 101,376) and the fused-MoE defaults for DeepSeek-V3."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from tests.wheels import download_wheel, triton_site

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
RELEASE, TRITON = "0.33.0", "3.8.0"


@pytest.fixture
def user_cache(tmp_path, monkeypatch):
    wheel = download_wheel("vllm", RELEASE)
    (tmp_path / "vllm" / RELEASE / "wheel").mkdir(parents=True)
    (tmp_path / "vllm" / RELEASE / "wheel" / wheel.name).symlink_to(wheel)
    (tmp_path / f"triton-{TRITON}").symlink_to(triton_site(TRITON))
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    return tmp_path


def _kernels(capsys, model: str, *extra: str, exact: bool) -> list[dict]:
    argv = ["kernels", model, "--hardware", "rtx-pro-6000-x8", "--engine", f"vllm=={RELEASE}", "--offline",
            "--format", "json", *(["--exact"] if exact else []), *extra]
    code = main(argv)
    rows = json.loads(capsys.readouterr().out)["kernels"]
    assert code == (1 if any(r["fits"] is False for r in rows) else 0)
    return rows


def test_gpt_oss_unified_attention_compiles_to_the_closed_form(user_cache, capsys):
    closed = _kernels(capsys, "openai/gpt-oss-120b", exact=False)
    compiled = _kernels(capsys, "openai/gpt-oss-120b", exact=True)
    print([(r["path"], r["bytes"]) for r in compiled])
    assert [r["method"] for r in compiled] == ["exact"] * len(closed)
    assert [r["bytes"] for r in compiled] == [r["bytes"] for r in closed] == [11520, 6784, 1024, 1024, 15616, 8832]
    assert [r["kernel"] for r in compiled] == ["unified_attention"] * 6
    assert list((user_cache / "smem-results" / f"triton-{TRITON}").glob("*.json"))  # the persistent cache


def test_fp8_mla_decode_and_moe_defaults_compile_to_the_closed_form(user_cache, capsys):
    extra = ("--", "--kv-cache-dtype", "fp8")
    closed = _kernels(capsys, "deepseek-ai/DeepSeek-V3", *extra, exact=False)
    compiled = _kernels(capsys, "deepseek-ai/DeepSeek-V3", *extra, exact=True)
    print([(r["path"], r["bytes"]) for r in compiled])
    assert [r["method"] for r in compiled] == ["exact"] * len(closed)
    assert [r["bytes"] for r in compiled] == [r["bytes"] for r in closed]
    mla = compiled[0]
    assert (mla["kernel"], mla["shape"]["kv_dtype"], mla["bytes"], mla["fits"]) == ("decode_attention", "fp8", 102400,
                                                                                      False)
    assert [r["kernel"] for r in compiled[1:]] == ["fused_moe"] * 5
