"""Measurements from the lent GPU (H100, sm_90, Triton 3.6.0, 2026-11-22), recorded by
bench/device/aot_vs_launch.py and bench/device/extend_patch_equivalence.py: the closed forms must
keep agreeing with what real launches used, and the recorded runs must say what the README claims."""

import json
import re
from pathlib import Path

from doctor.kernels import extend_attention_smem, fused_moe_smem

RECORDS = Path(__file__).resolve().parents[2] / "fixtures" / "device"


def load(name):
    return json.loads((RECORDS / name).read_text())


def test_launched_extend_kernels_equal_aot_and_the_closed_form():
    run = load("h100-aot-vs-launch.json")
    cc = divmod(run["cc"], 10)
    assert run["device"].startswith("NVIDIA H100") and len(run["extend"]) == 9
    for row in run["extend"]:
        assert row["launched_shared"] == row["aot_shared"], row
        estimate = extend_attention_smem(cc, row["lq"], row["lv"], row["block_m"], row["block_n"], row["warps"], 1,
                                         kv_group=row["kv_group"])
        assert estimate == row["launched_shared"], (row, estimate)


def test_out_of_resources_required_equals_aot_and_the_closed_form():
    run = load("h100-aot-vs-launch.json")
    cc = divmod(run["cc"], 10)
    over = [r for r in run["moe"] if r["aot_shared"] > run["limit"]]
    assert over and all(not r["loaded"] for r in over)
    assert all(r["loaded"] for r in run["moe"] if r["aot_shared"] <= run["limit"])
    for row in run["moe"]:
        if not row["loaded"]:
            required = int(re.search(r"Required: (\d+)", row["error"]).group(1))
            assert required == row["aot_shared"] and str(run["limit"]) in row["error"]
        c = row["config"]
        assert fused_moe_smem(cc, row["dtype"], c["BLOCK_SIZE_M"], c["BLOCK_SIZE_N"], c["BLOCK_SIZE_K"],
                              c["GROUP_SIZE_M"], c["num_warps"], c["num_stages"],
                              per_channel=row["dtype"] != "bf16") == row["aot_shared"], row


def test_patched_extend_kernel_gives_the_same_output():
    run = load("h100-extend-patch-equivalence.json")
    for row in run["results"]:
        assert row["allclose_bf16"] and row["max_abs_patched_vs_unpatched"] <= 0.0078125, row  # 1 bf16 ulp at 1-2
    absorbed = run["results"][0]
    assert (absorbed["tiles_patched"], absorbed["shared_patched"]) == ([32, 32, 8], 71680)
