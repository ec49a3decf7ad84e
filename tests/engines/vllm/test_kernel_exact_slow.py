"""The vLLM kernel plan's shared memory against Triton: vLLM 0.33.0's own `fused_moe_kernel` compiled ahead of time for
sm_120 (CPU only, through the doctor's exact mode: doctor.engines.vllm.exact.moe_job) on the worst entry of every
SM12x table vLLM ships and on the release's default configs. The doctor's figure (doctor.kernels.fused_moe_smem with
vLLM's kernel form: block scales read as a BLOCK_N vector whatever the group size) equals `metadata.shared` on all
12 (Triton 3.6.0, and 3.8.0, the one its torch pins), and on 0.15.1's 7 with the Triton 3.5.1 it pins. Measured
beyond CI's boundary wheels the same way (2026-11-27): 0.10.0 with Triton 3.3.1, 4 of 4 (defaults; no SM12x tables
yet); 0.20.0 with 3.6.0, 10 of 10."""

from __future__ import annotations

import zipfile

import pytest

from doctor.engines.vllm import knowledge
from doctor.engines.vllm import moe as vllm_moe
from doctor.engines.vllm.exact import moe_job
from doctor.kernels import fused_moe_smem
from doctor.kernels.exact import compile_many
from tests.wheels import download_wheel, triton_site
from tools.vllm_facts.moe import FUSED_MOE, parse_config_name

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
RELEASE = "0.33.0"
TRITON = "3.6.0"
PAIRS = [("0.33.0", "3.6.0"), ("0.33.0", "3.8.0"), ("0.15.1", "3.5.1")]


def jobs(release: str = RELEASE) -> list[dict]:
    facts = knowledge.facts(release)
    out = []
    for name, table in sorted(facts["moe"]["sm12x_tables"].items()):
        parsed = parse_config_name(name)
        entries = [vllm_moe.launch_config(cfg) for cfg in table.values()]
        worst = max(entries, key=lambda c: size(c, parsed["dtype"], parsed["block_shape"]))
        out.append({**worst, "dtype": parsed["dtype"] or "bf16", "block_shape": parsed["block_shape"], "from": name})
    for M in (1, 64, 256, 4096):  # the release's own defaults (GLM-4.7-FP8 shape, fp8 per channel)
        config = vllm_moe.launch_config(vllm_moe.default_config(facts, M, 160, 192, 5120, 8, "fp8_w8a8", None))
        out.append({**config, "dtype": "fp8_w8a8", "block_shape": None, "per_channel": True, "from": f"default M={M}"})
    return out


def size(config: dict, dtype: str | None, block: list[int] | None, per_channel: bool = False,
         triton: str = TRITON) -> int:
    return fused_moe_smem((12, 0), dtype or "bf16", config["BLOCK_SIZE_M"], config["BLOCK_SIZE_N"],
                          config["BLOCK_SIZE_K"], config["GROUP_SIZE_M"], config["num_warps"], config["num_stages"],
                          per_channel=per_channel, block_shape=block, triton=triton, b_scale_vector=True)


@pytest.mark.parametrize(("release", "triton"), PAIRS)
def test_doctor_sizes_equal_an_sm120_compile_of_vllms_kernel(tmp_path, release, triton):
    site = triton_site(triton)
    with zipfile.ZipFile(download_wheel("vllm", release)) as archive:
        source = tmp_path / "fused_moe.py"
        source.write_bytes(archive.read(FUSED_MOE))
    todo = jobs(release)
    compiles = [moe_job(source, 120, {**job, "per_channel": bool(job.get("per_channel")), "top_k": 8}, job)
                for job in todo]
    results = compile_many(compiles, None, site, cache_dir=tmp_path / "results")
    compiled = [r.get("shared", r.get("error")) for r in results]
    rows = [(job["from"], size(job, job["dtype"], job["block_shape"], bool(job.get("per_channel")), triton), shared)
            for job, shared in zip(todo, compiled, strict=True)]
    for row in rows:
        print(row)
    assert [doctor for _, doctor, _ in rows] == [shared for _, _, shared in rows]
