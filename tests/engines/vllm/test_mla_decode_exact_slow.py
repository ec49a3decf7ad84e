"""vLLM's TRITON_MLA decode kernel against Triton: vLLM 0.33.0's own `_fwd_grouped_kernel_stage1` compiled ahead
of time (CPU only) for SM12x at the tiles vLLM launches, through the doctor's exact mode (doctor.engines.vllm.exact).
With an fp8 KV cache it needs 102,400 B, over SM12x's 101,376 (VLLM018); the doctor's figure for that kernel source
(revision 3) equals the compile."""

from __future__ import annotations

import zipfile

import pytest
from packaging.version import Version

from doctor.engines.vllm.exact import mla_job
from doctor.engines.vllm.kernel_plan import DECODE_TILES, decode_kernel_revision
from doctor.kernels import decode_attention_smem
from doctor.kernels.exact import compile_many
from tests.wheels import download_wheel, triton_site

pytestmark = [pytest.mark.slow, pytest.mark.wheel]
RELEASE, TRITON = "0.33.0", "3.6.0"
DECODE = "vllm/v1/attention/ops/triton_decode_attention.py"


def test_fp8_mla_decode_overflows_sm12x_and_the_doctor_says_so_to_the_byte(tmp_path):
    with zipfile.ZipFile(download_wheel("vllm", RELEASE)) as archive:
        source = tmp_path / "triton_decode_attention.py"
        source.write_bytes(archive.read(DECODE))
    cases = [(cc, kv) for cc in (120, 121) for kv in ("fp8", "bf16")]
    jobs = [mla_job(source, cc, {"lk": 576, "lv": 512, "kv_dtype": kv}, DECODE_TILES) for cc, kv in cases]
    results = compile_many(jobs, None, triton_site(TRITON), cache_dir=tmp_path / "results")
    compiled = [r.get("shared", r.get("error")) for r in results]
    revision = decode_kernel_revision(Version(RELEASE))
    t = DECODE_TILES
    doctor = [decode_attention_smem(cc, 576, 512, t["block_n"], t["block_h"], t["num_warps"], t["num_stages"],
                                    kv_dtype=kv, triton=TRITON, revision=revision) for cc, kv in cases]
    assert compiled == doctor == [102400, 63488, 102400, 63488]
