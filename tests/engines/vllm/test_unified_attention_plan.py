"""TRITON_ATTN's unified attention kernels in the vLLM kernel plan: the launches per release (read from the wheels'
triton_unified_attention.py and triton_attn.py) and the bytes the kernel library gives them."""

from __future__ import annotations

import pytest
from packaging.version import Version

from doctor.engines.vllm import knowledge
from doctor.engines.vllm import unified_attention as ua
from doctor.kernels.unified_attention_smem import segments_reduce_smem, unified_attention_smem
from doctor.pipeline.analysis import analyze_all
from tests.rules.builders import build, findings

PRO = "rtx-pro-6000-x8"


def analysis(model: str, version: str, *argv: str, profile: str = PRO):
    [result] = analyze_all(build(profile, model, (f"vllm=={version}",)), list(argv))
    return result


def _by_kernel(launches: list[dict]) -> dict[str, dict]:
    return {launch["kernel"]: launch for launch in launches if launch["kernel"] != "reduce"}


def test_tiles_and_block_m_follow_each_release():
    old = _by_kernel(ua.launches("0.10.0", 128, 8, "bf16"))
    assert (old["2d"]["tile"], old["3d"]["tile"], old["2d"]["block_m"]) == (16, 16, 16)
    assert ua.launches("0.10.0", 128, 32, "bf16") == []  # BLOCK_Q would be 0: no launch to size
    mid = _by_kernel(ua.launches("0.12.0", 256, 2, "bf16", window=1024))
    assert (mid["2d"]["tile"], mid["3d"]["tile"]) == (32, 16)  # no Gemma 3 rule before 0.13
    gemma = _by_kernel(ua.launches("0.13.0", 256, 2, "bf16", window=1024))
    assert (gemma["2d"]["tile"], gemma["3d"]["tile"]) == (32, 32)
    wide = _by_kernel(ua.launches("0.33.0", 128, 40, "fp8"))
    assert wide["2d"]["block_m"] == 64 and all(x["num_warps"] == 4 and x["num_stages"] == 3 for x in wide.values())


def test_64_segments_only_from_032_on_capability_12_0():
    def segments(version, cc):
        return [x["segments"] for x in ua.launches(version, 64, 8, "bf16", cc=cc) if x["kernel"] == "reduce"]

    assert segments("0.31.0", (12, 0)) == [16]
    assert segments("0.32.0", (12, 0)) == [16, 64]
    assert segments("0.33.0", (12, 1)) == [16]


def test_revision_and_pinned_triton():
    assert [ua.kernel_revision(v) for v in ("0.10.0", "0.11.0", "0.13.0", "0.14.0", "0.33.0")] == [0, 1, 1, 2, 2]
    assert ua.pinned_triton("0.33.0") == "3.8.0" and ua.pinned_triton("0.20.0") == "3.6.0"
    assert ua.pinned_triton("0.15.1") == "3.5.1" and ua.pinned_triton(Version("0.11.0")) == "3.4.0"


def test_gpt_oss_plan_sizes_every_unified_kernel_with_the_closed_form():
    result = analysis("openai/gpt-oss-120b", "0.33.0")
    assert result.backends["attention"] == "TRITON_ATTN"
    checks = [k for k in result.kernels if k.kernel == "unified_attention"]
    paths = {k.path for k in checks}
    assert paths == {"unified attention 2D", "unified attention 3D (split KV)", "reduce_segments"}
    windows = {k.shape.get("sliding_window") for k in checks if k.path != "reduce_segments"}
    assert windows == {0, 128}  # gpt-oss alternates full and 128-token sliding-window layers
    for k in checks:
        if k.path == "reduce_segments":
            assert k.bytes == segments_reduce_smem((12, 0), 64, k.config["NUM_SEGMENTS_PER_SEQ"], 4, "3.8.0")
            continue
        assert k.shape["head_size"] == 64 and k.shape["q_per_kv"] == 8 and k.shape["sinks"] is True
        assert k.bytes == unified_attention_smem((12, 0), 64, 16, k.config["TILE_SIZE"], 4, 3, "bf16",
                                                 k.path.startswith("unified attention 3D"),
                                                 k.shape["sliding_window"], triton="3.8.0", revision=2)
        assert k.fits and k.details["triton"] == "3.8.0"
    assert not any("unified attention" in note and "not sized" in note for note in result.notes)


@pytest.mark.parametrize("version", knowledge.releases())
def test_every_release_sizes_gpt_oss_unified_attention(version):
    checks = [k for k in analysis("openai/gpt-oss-120b", version).kernels if k.kernel == "unified_attention"]
    assert {k.path for k in checks} >= {"unified attention 2D", "unified attention 3D (split KV)"}
    assert all(k.bytes > 0 and k.fits for k in checks)


def test_fp8_kv_cache_is_sized_with_the_dequantised_copies():
    bf16 = analysis("openai/gpt-oss-120b", "0.33.0")
    fp8 = analysis("openai/gpt-oss-120b", "0.33.0", "--kv-cache-dtype", "fp8")
    if fp8.backends["attention"] != "TRITON_ATTN":
        pytest.skip(f"fp8 KV moves gpt-oss to {fp8.backends['attention']}")
    two_d = {a.shape["kv_dtype"]: a.bytes for a in (*bf16.kernels, *fp8.kernels)
             if a.path == "unified attention 2D" and a.shape["sliding_window"] == 0}
    assert two_d["fp8"] > two_d["bf16"]


def test_an_overflowing_unified_attention_launch_is_reported_by_krn001():
    """Head size 512 with an fp8 KV cache: the 2D kernel stages the dequantised K and V tiles (114,944 B with
    Triton 3.8.0 on sm_120, compiled from 0.33.0's wheel); KRN001 reports every kernel of the plan that overflows."""
    wide = build(PRO, "openai/gpt-oss-120b", ("vllm==0.33.0",), attention={"head_dim": 512, "v_head_dim": 512})
    [result] = analyze_all(wide, ["--kv-cache-dtype", "fp8"])
    over = [k for k in result.kernels if k.kernel == "unified_attention" and not k.fits]
    assert [(k.path, k.shape["sliding_window"], k.bytes) for k in over] == [("unified attention 2D", 0, 114944)]
    assert "KRN001" in findings(wide, "--kv-cache-dtype", "fp8")
    assert "KRN001" not in findings(build(PRO, "openai/gpt-oss-120b", ("vllm==0.33.0",)), "--kv-cache-dtype", "fp8")


def test_head_256_prefill_on_the_10x_family_is_launched_tuned_and_refused_not_guessed():
    tuned = _by_kernel(ua.launches("0.33.0", 256, 8, "bf16", cc=(10, 0)))["2d"]
    assert (tuned["block_m"], tuned["tile"], tuned["num_warps"], tuned["num_stages"]) == (32, 128, 8, 2)
    assert _by_kernel(ua.launches("0.23.0", 256, 8, "bf16", cc=(10, 0)))["2d"]["num_stages"] == 3
    assert _by_kernel(ua.launches("0.33.0", 256, 8, "bf16", cc=(12, 0)))["2d"]["num_stages"] == 3
    b200 = build("b200-x8", "openai/gpt-oss-120b", ("vllm==0.33.0",), attention={"head_dim": 256, "v_head_dim": 256})
    [result] = analyze_all(b200, [])
    assert not [k for k in result.kernels if k.path == "unified attention 2D"]
    assert any("unified attention 2D" in n and "num_stages=2" in n and "--exact" in n for n in result.notes)
    assert [k for k in result.kernels if k.path == "unified attention 3D (split KV)"]
