"""vLLM's TRITON_ATTN kernels against Triton: a sample of vLLM 0.33.0's own unified attention launches compiled again
ahead of time (CPU only, through the doctor's exact mode: doctor.engines.vllm.exact.unified_job) from the wheel with
the Triton its torch pins (3.8.0), for sm_120 and sm_121. The compile, the committed table and the doctor's closed
form agree to the byte; with an fp8 KV cache at head size 512 the 2D kernel needs more than SM12x's 101,376 B."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from doctor.engines.vllm import unified_attention as ua
from doctor.engines.vllm.exact import unified_job
from doctor.kernels.exact import compile_many
from doctor.kernels.unified_attention_smem import segments_reduce_smem, unified_attention_smem
from tests.wheels import download_wheel, triton_site

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
TABLE = Path(__file__).resolve().parents[3] / "fixtures" / "vllm" / "unified-attention-compiled.json"
RELEASE = "0.33.0"
OPS = ("vllm/v1/attention/ops/triton_unified_attention.py", "vllm/v1/attention/ops/triton_attention_helpers.py")
SAMPLE = ((64, 8, "bf16", 128), (64, 8, "fp8", 0), (128, 4, "bf16", 0), (512, 8, "fp8", 0), (256, 2, "bf16", 1024))


def _estimate(job: dict, triton: str) -> int:
    if job["kernel"] == "reduce":
        return segments_reduce_smem(job["cc"], job["head_size"], job["segments"], job["num_warps"], triton)
    return unified_attention_smem(job["cc"], job["head_size"], job["block_m"], job["tile"], job["num_warps"],
                                  job["num_stages"], job["kv"], job["kernel"] == "3d", job["window"],
                                  triton=triton, revision=ua.kernel_revision(RELEASE))


def _table(triton: str) -> dict[tuple, int]:
    table = json.loads(TABLE.read_text())
    run = next(r for r in table["runs"] if (r["release"], r["triton"]) == (RELEASE, triton))
    rows = [dict(zip(table["columns"], row, strict=True)) for row in run["rows"]]
    return {_key(r): r["shared"] for r in rows}


def _key(job: dict) -> tuple:
    if job["kernel"] == "reduce":
        return job["cc"], "reduce", job["head_size"], job["segments"]
    return (job["cc"], job["kernel"], job["head_size"], job["q_per_kv"], job["kv"], job["window"], job["tile"],
            bool(job.get("sinks")))


def test_unified_attention_compiles_equal_the_table_and_the_closed_form(tmp_path):
    triton = ua.pinned_triton(RELEASE)
    with zipfile.ZipFile(download_wheel("vllm", RELEASE)) as archive:
        for name in OPS:
            archive.extract(name, tmp_path)  # the modules are named after the path under vllm/
    source = tmp_path / OPS[0]
    jobs = [{"cc": cc, **launch} for cc in (120, 121) for hs, qpk, kv, window in SAMPLE
            for launch in ua.launches(RELEASE, hs, qpk, kv, window, (cc // 10, cc % 10))]
    compiled = compile_many([unified_job(source, job) for job in jobs], None, triton_site(triton),
                            cache_dir=tmp_path / "results")
    assert not [r for r in compiled if "error" in r], compiled
    results = [{"job": job, "shared": r["shared"]} for job, r in zip(jobs, compiled, strict=True)]
    table = _table(triton)
    for result in results:
        job, shared = result["job"], result["shared"]
        assert _estimate(job, triton) == shared, job
        assert table.get(_key(job), shared) == shared, job
    assert sum(_key(r["job"]) in table for r in results) >= len(results) // 2
    overflow = [r for r in results if r["job"]["head_size"] == 512 and r["job"]["kernel"] == "2d"]
    assert overflow and all(r["shared"] > 101376 for r in overflow)
