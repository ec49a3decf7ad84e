"""Closed forms: published numbers, limits, and the no-triton/no-torch default path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from doctor.kernels import (
    SmemResult,
    decode_attention_smem,
    extend_attention_smem,
    fused_moe_smem,
    parse_arch,
    prefill_attention_smem,
    result,
    smem_limit,
)

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("cc", "limit"), [((12, 0), 101376), ((12, 1), 101376), ((9, 0), 232448),
                                           ((10, 0), 232448), ((8, 0), 166912), ((8, 6), 101376),
                                           ((8, 9), 101376), ((7, 5), 65536), ("sm120", 101376)])
def test_limits(cc, limit):
    assert smem_limit(cc) == limit


@pytest.mark.parametrize(("text", "cc"), [("sm120", (12, 0)), ("12.1", (12, 1)), ("sm_90a", (9, 0)),
                                          (100, (10, 0)), ("8.6", (8, 6))])
def test_parse_arch(text, cc):
    assert parse_arch(text) == cc


def test_parse_arch_rejects_garbage():
    with pytest.raises(ValueError):
        parse_arch("rtx5090")


def test_published_failures():
    # Kimi K2 absorbed-MLA extend on SGLang <= 0.5.8 (PR #14311) and the GLM-4.7-FP8 default
    assert extend_attention_smem((12, 0), 576, 512, 32, 64, 8, kv_group=8) == 106496
    assert fused_moe_smem((12, 0), "fp8_w8a8", 128, 256, 128, 32, 8, 4, per_channel=True) == 147456
    # MLA decode: 0.5.8 loads V (89088 B); from 0.5.10 V is K^T and only K is staged (63488 B);
    # both equal Triton 3.5.1's metadata.shared for that release's kernel
    assert decode_attention_smem((12, 0), 576, 512, 32, 16, 4, 2, revision=1) == 89088
    assert decode_attention_smem((12, 0), 576, 512, 32, 16, 4, 2, revision=2) == 63488
    assert prefill_attention_smem((12, 0), 128, 128, 8, dtype="fp32") == 131072
    assert prefill_attention_smem((12, 0), 256, 128, 8) == 163840


def test_fixes_fit_sm120():
    assert extend_attention_smem((12, 0), 576, 512, 32, 32, 8) == 71680
    assert fused_moe_smem((12, 0), "fp8_w8a8", 128, 256, 128, 32, 8, 3) == 98304
    assert fused_moe_smem((12, 0), "fp8_w8a8", 64, 128, 256, 64, 4, 2) == 49152  # 0.5.14 low-smem


def test_hopper_pipeline_keeps_all_stages():
    # wgmma keeps S buffers, cp.async S-1
    assert fused_moe_smem((9, 0), "fp8_w8a8", 128, 256, 128, 32, 8, 4) == 196608
    assert fused_moe_smem((12, 0), "fp8_w8a8", 128, 256, 128, 32, 8, 4) == 147456


def test_result_record():
    res = result("fused_moe", "sm120", 147456, "analytic")
    assert isinstance(res, SmemResult)
    assert res.to_dict() == {"kernel": "fused_moe", "arch": "sm120", "bytes": 147456, "limit": 101376,
                             "fits": False, "method": "analytic"}


def test_unknown_dtype_rejected():
    with pytest.raises(ValueError):
        fused_moe_smem((12, 0), "fp4", 64, 64, 64, 1, 4, 3)


def test_default_path_imports_no_torch_or_triton():
    code = ("import sys, json, argparse\n"
            "import doctor.kernels as k\n"
            "from doctor.commands import smem\n"
            "from doctor.engines.sglang import moe\n"
            "k.fused_moe_smem((12,0),'fp8_w8a8',128,256,128,32,8,4)\n"
            "k.generate_safe_moe_config((12,0),161,192,5120,'fp8_w8a8',per_channel=True)\n"
            "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in ('torch','triton'))))\n")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize(("call", "kwargs"), [
    (extend_attention_smem, {"cc": (12, 0), "lq": 128, "lv": 128, "block_m": 64, "block_n": 64, "num_warps": 4,
                             "num_stages": 2}),
    (prefill_attention_smem, {"cc": (12, 0), "head_dim": 128, "block": 128, "num_warps": 4, "num_stages": 2}),
    (decode_attention_smem, {"cc": (12, 0), "lk": 576, "lv": 512, "block_n": 32, "block_h": 16, "num_warps": 4,
                             "num_stages": 3}),
])
def test_stage_counts_no_engine_launches_are_refused(call, kwargs):
    with pytest.raises(ValueError, match="--exact"):
        call(**kwargs)


def test_fp8_dots_run_natively_on_sm120_from_triton_3_5_and_sm121_from_3_8():
    from doctor.kernels.fp8 import native_fp8_mma

    assert not native_fp8_mma((12, 0), (3, 4)) and native_fp8_mma((12, 0), (3, 5))
    assert not native_fp8_mma((12, 1), (3, 7)) and native_fp8_mma((12, 1), (3, 8))


# vLLM's MLA decode sources compiled ahead of time (doctor.engines.vllm.exact.mla_job):
# revision 3 is vLLM 0.33.0's kernel, revision 4 vLLM 0.19.0's; (triton, cc, lk, block_n, block_h, warps, stages,
# kv dtype) -> metadata.shared
DEQUANTISED_DECODE = [
    (3, "3.6.0", 120, 576, 32, 16, 4, 2, "fp8", 102400), (3, "3.6.0", 120, 576, 32, 16, 4, 1, "fp8", 83968),
    (3, "3.6.0", 120, 576, 16, 16, 4, 2, "fp8", 60416), (3, "3.6.0", 89, 576, 32, 16, 4, 2, "fp8", 102400),
    (3, "3.8.0", 121, 576, 32, 32, 4, 2, "fp8", 120832), (3, "3.5.1", 89, 288, 64, 16, 4, 2, "fp8", 93184),
    (3, "3.5.1", 120, 288, 32, 16, 4, 2, "bf16", 31744), (3, "3.6.0", 100, 576, 32, 16, 4, 2, "bf16", 63488),
    (4, "3.6.0", 120, 576, 32, 16, 4, 2, "fp8", 87040), (4, "3.6.0", 120, 576, 32, 16, 4, 1, "fp8", 52224),
    (4, "3.8.0", 100, 576, 16, 16, 4, 2, "fp8", 52736), (4, "3.8.0", 89, 288, 64, 16, 4, 2, "fp8", 78848),
]


@pytest.mark.parametrize(("rev", "triton", "cc", "lk", "bn", "bh", "warps", "stages", "kv", "measured"),
                         DEQUANTISED_DECODE)
def test_dequantising_decode_revisions_equal_their_compiles(rev, triton, cc, lk, bn, bh, warps, stages, kv, measured):
    lv = {576: 512, 288: 256}[lk]
    assert decode_attention_smem(cc, lk, lv, bn, bh, warps, stages, kv_dtype=kv, triton=triton,
                                 revision=rev) == measured


def test_block_scales_read_as_a_vector_add_their_conversion():
    """Measured on sm_120 with Triton 3.6.0: SGLang's fused_moe_kernel reads one b_scale when BLOCK_N <= group_n
    (73,728 B); vLLM's always reads a BLOCK_N vector and converts it into the accumulator's layout (74,240 B)."""
    args = ((12, 0), "fp8_w8a8", 64, 128, 128, 1, 4, 4)
    assert fused_moe_smem(*args, block_shape=[128, 128], triton="3.6.0") == 73728
    assert fused_moe_smem(*args, block_shape=[128, 128], triton="3.6.0", b_scale_vector=True) == 74240
