"""Exact mode against real SGLang wheels: the published SM120 crashes reproduce on the CPU."""

from __future__ import annotations

import os

import pytest

from doctor.kernels.exact import ExactError, Job, compile_many, exact_smem, kernel_source

pytestmark = [pytest.mark.wheel, pytest.mark.slow]

KIMI = {"lq": 576, "lv": 512, "block_m": 32, "block_n": 64, "num_warps": 8, "num_stages": 1, "kv_group": 8}
GLM = {"dtype": "fp8_w8a8", "per_channel": True, "n": 384, "k": 5120, "e": 161,
       "config": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 32,
                  "num_warps": 8, "num_stages": 4}}


@pytest.mark.parametrize("wheel", ["sglang_058", "sglang_0523"])
def test_published_failures_reproduce(request, wheel, triton351, smem_cache):
    src = request.getfixturevalue(wheel)
    assert exact_smem("extend_attention", src, 120, triton351, smem_cache, **KIMI) == 106496
    assert exact_smem("fused_moe", src, 120, triton351, smem_cache, **GLM) == 147456
    down = dict(GLM, n=5120, k=192, down=True)
    assert exact_smem("fused_moe", src, 120, triton351, smem_cache, **down) == 147456


def test_fast_mode_equals_full_compile(sglang_058, triton351, tmp_path, monkeypatch):
    """Stopping after LLIR reads the same metadata.shared as a full compile through ptxas."""
    jobs = [Job("extend_attention", 120, KIMI), Job("fused_moe", 120, GLM),
            Job("decode_attention", 120, {"lk": 576, "lv": 512, "block_n": 32, "block_h": 16,
                                          "num_warps": 4, "num_stages": 2})]
    fast = compile_many(jobs, sglang_058, triton351, cache_dir=tmp_path / "fast")
    monkeypatch.setenv("SM120_DOCTOR_FULL_COMPILE", "1")
    full = compile_many(jobs, sglang_058, triton351, cache_dir=tmp_path / "full")
    assert [r["shared"] for r in fast] == [r["shared"] for r in full] == [106496, 147456, 89088]


def test_sm120_fixes_and_other_kernels(sglang_058, triton351, smem_cache):
    fixed = dict(KIMI, block_n=32)
    assert exact_smem("extend_attention", sglang_058, 120, triton351, smem_cache, **fixed) == 71680
    vision = {"head_dim": 256, "block": 128, "num_warps": 8}
    assert exact_smem("prefill_attention", sglang_058, 120, triton351, smem_cache, **vision) == 163840
    fp32 = {"head_dim": 128, "block": 128, "num_warps": 8, "dtype": "fp32"}
    assert exact_smem("prefill_attention", sglang_058, 120, triton351, smem_cache, **fp32) == 131072


def test_kernel_files_per_layout(sglang_058, sglang_0523):
    assert "srt/layers/attention/triton_ops" in str(kernel_source("extend_attention", sglang_058))
    assert "kernels/ops/attention" in str(kernel_source("extend_attention", sglang_0523))
    assert "kernels/ops/moe" in str(kernel_source("fused_moe", sglang_0523))
    with pytest.raises(ExactError):
        kernel_source("fused_moe", os.devnull)


def test_compile_error_is_reported_not_raised(sglang_058, triton351, tmp_path):
    bad = dict(KIMI, block_n=16, kv_dtype="fp8")  # fp8 dot with K=16 is rejected by Triton
    res = compile_many([Job("extend_attention", 120, bad)], sglang_058, triton351, cache_dir=tmp_path)
    assert "error" in res[0] and "K >= 32" in res[0]["error"]
    with pytest.raises(ExactError):
        exact_smem("extend_attention", sglang_058, 120, triton351, tmp_path, **bad)


@pytest.mark.parametrize(("cc", "tile"), [(120, (16, 32, 64, 8, 4)), (90, (128, 64, 64, 4, 3)),
                                         (89, (64, 256, 128, 8, 4))])
def test_int4_w4a16_closed_form(cc, tile, sglang_058, triton351, smem_cache):
    """int4_w4a16 runs `fused_moe_kernel_gptq_awq`; its closed form equals the compile."""
    from doctor.kernels import fused_moe_smem

    bm, bn, bk, warps, stages = tile
    config = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk, "GROUP_SIZE_M": 1,
              "num_warps": warps, "num_stages": stages}
    params = {"dtype": "int4_w4a16", "block_shape": [0, 128], "config": config, "n": 1024, "k": 2048}
    shared = exact_smem("fused_moe", sglang_058, cc, triton351, smem_cache, **params)
    assert fused_moe_smem(cc, "int4_w4a16", bm, bn, bk, 1, warps, stages) == shared


TMA_DOWN = {"dtype": "fp8_w8a8", "n": 4096, "k": 2048, "e": 64, "per_channel": False, "block_shape": [128, 128],
            "down": True, "tma": "down",
            "config": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1, "num_warps": 4,
                       "num_stages": 3}}
W8A16_BK32 = {"dtype": "int8_w8a16", "n": 1536, "k": 2048, "e": 128, "block_shape": [0, 64], "down": False,
              "has_zp": True,
              "config": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 1, "num_warps": 8,
                         "num_stages": 3}}


@pytest.mark.parametrize("newest", [False, True], ids=["triton-3.5.1", "triton-newest"])
@pytest.mark.parametrize(("cc", "params"), [(100, TMA_DOWN), (121, TMA_DOWN), (120, TMA_DOWN), (120, W8A16_BK32),
                                            (86, W8A16_BK32)])
def test_barrier_sharing_and_register_dequant_follow_the_triton_release(request, newest, cc, params, sglang_0523,
                                                                        smem_cache):
    """Both sides of two version-dependent rules: whether A's and B's TMA loads share barriers on the mma.sync
    path (sm_100 from 3.6 keeps its own), and whether an int8 BLOCK_K 32 tile read 8 per thread is dequantised
    in registers (before 3.7) or through shared memory."""
    from doctor.kernels.estimate import analytic
    from doctor.kernels.exact import triton_version

    site = request.getfixturevalue("triton_newest" if newest else "triton351")
    shared = exact_smem("fused_moe", sglang_0523, cc, site, smem_cache, **params)
    assert analytic("fused_moe", cc, params, triton=triton_version(site)) == shared
