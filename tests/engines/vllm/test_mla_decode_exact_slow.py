"""vLLM's TRITON_MLA decode kernel against Triton: vLLM 0.33.0's own `_fwd_grouped_kernel_stage1` compiled ahead
of time (CPU only) for SM12x at the tiles vLLM launches. With an fp8 KV cache it needs 102,400 B, over SM12x's
101,376 (VLLM018); the doctor's figure for that kernel source (revision 3) equals the compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from packaging.version import Version

from doctor.engines.vllm.kernel_plan import DECODE_TILES, decode_kernel_revision
from doctor.kernels import decode_attention_smem
from tests.wheels import download_wheel, triton_site

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
WORKER = Path(__file__).with_name("mla_decode_compile_worker.py")
RELEASE, TRITON = "0.33.0", "3.6.0"
DECODE = "vllm/v1/attention/ops/triton_decode_attention.py"


def test_fp8_mla_decode_overflows_sm12x_and_the_doctor_says_so_to_the_byte(tmp_path):
    with zipfile.ZipFile(download_wheel("vllm", RELEASE)) as archive:
        source = tmp_path / "triton_decode_attention.py"
        source.write_bytes(archive.read(DECODE))
    jobs = [{**DECODE_TILES, "cc": cc, "kv_dtype": kv, "lk": 576, "lv": 512}
            for cc in (120, 121) for kv in ("fp8", "bf16")]
    env = {**os.environ, "PYTHONPATH": str(triton_site(TRITON)), "TRITON_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, str(WORKER), str(source), json.dumps(jobs)], capture_output=True,
                          text=True, env=env, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    compiled = json.loads(done.stdout.strip().splitlines()[-1])
    revision = decode_kernel_revision(Version(RELEASE))
    doctor = [decode_attention_smem(job["cc"], 576, 512, job["block_n"], job["block_h"], job["num_warps"],
                                    job["num_stages"], kv_dtype=job["kv_dtype"], triton=TRITON, revision=revision)
              for job in jobs]
    assert compiled == doctor == [102400, 63488, 102400, 63488]
