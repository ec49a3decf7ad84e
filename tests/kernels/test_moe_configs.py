"""Tuned-config JSONs: copied H100 files overflow on sm120; generated files fit (by compiling)."""

from __future__ import annotations

import json

import pytest

from doctor.engines.sglang import moe
from doctor.kernels import check_moe_config_file, generate_safe_moe_config, moe_tuned, smem_limit
from doctor.kernels.exact import Job, compile_many

pytestmark = pytest.mark.wheel

H100_FP8 = "E=64,N=1280,device_name=NVIDIA_H100_80GB_HBM3,dtype=fp8_w8a8.json"


def _shipped(root, name):
    hits = sorted(moe.package_config_dir(root, "0.5.8").glob(f"configs/triton_*/{name}"))
    assert hits, name
    return hits[-1]


def test_h100_file_checked_entry_by_entry(sglang_058):
    path = _shipped(sglang_058, H100_FP8)
    rows = check_moe_config_file(path, (12, 0), "fp8_w8a8")
    assert [r.M for r in rows] == sorted(int(k) for k in json.loads(path.read_text()))
    assert all(r.fits == (r.bytes <= 101376) for r in rows)
    assert all(r.fits for r in check_moe_config_file(path, (9, 0), "fp8_w8a8"))
    assert any(not r.fits for r in rows)  # the reason people crash after copying H100 files


def test_shipped_maxq_glm_file_fits_sm120(sglang_058):
    name = moe.config_file_name(161, 192, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
                                "fp8_w8a8", per_channel=True)
    rows = check_moe_config_file(_shipped(sglang_058, name), (12, 0), "fp8_w8a8", per_channel=True)
    assert rows and all(r.fits for r in rows)


def test_generated_table_shape_and_heuristic():
    table = generate_safe_moe_config((12, 0), 161, 192, 5120, "fp8_w8a8", per_channel=True)
    assert list(table) == [str(m) for m in moe_tuned.TUNED_BATCH_SIZES]
    small, large = table["1"], table["4096"]
    assert small["BLOCK_SIZE_M"] == 16 and large["BLOCK_SIZE_M"] == 128
    assert large["BLOCK_SIZE_N"] * large["BLOCK_SIZE_K"] > small["BLOCK_SIZE_N"] * 64
    assert all(c["num_stages"] >= 2 for c in table.values())
    h100 = generate_safe_moe_config((9, 0), 161, 192, 5120, "fp8_w8a8", per_channel=True)
    assert h100["4096"]["num_stages"] > large["num_stages"]  # more smem, deeper pipeline


@pytest.mark.slow
def test_glm_safe_table_fits_by_exact_compile(sglang_058, triton351, smem_cache):
    """GLM-4.7-FP8 at TP8 (E=161, N=192, K=5120, fp8 per-channel): both GEMMs of every entry."""
    table = generate_safe_moe_config((12, 0), 161, 192, 5120, "fp8_w8a8", per_channel=True)
    configs = {json.dumps(c, sort_keys=True): c for c in table.values()}
    jobs = []
    for config in configs.values():
        common = {"dtype": "fp8_w8a8", "per_channel": True, "e": 161, "config": config}
        jobs += [Job("fused_moe", 120, {**common, "n": 384, "k": 5120}),
                 Job("fused_moe", 120, {**common, "n": 5120, "k": 192, "down": True})]
    results = compile_many(jobs, sglang_058, triton351, workers=2, cache_dir=smem_cache)
    for job, res in zip(jobs, results, strict=True):
        assert "shared" in res, res
        assert res["shared"] <= smem_limit((12, 0)), (job.params, res)
