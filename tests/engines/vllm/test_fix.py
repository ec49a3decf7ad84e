"""`--fix` for vLLM: an smem-safe tuned table where vLLM reads it first (VLLM_TUNED_CONFIG_FOLDER) and a
launch script; the re-check with that folder no longer finds the overflow."""

from __future__ import annotations

import json

from doctor.engines.vllm.moe import ENV
from doctor.fix.actions import plan_fixes
from doctor.kernels import fused_moe_smem
from doctor.pipeline.check import CheckRequest, run_check

NAME = "E=256,N=512,device_name=NVIDIA_RTX_PRO_6000_Blackwell_Server_Edition,dtype=fp8_w8a8,block_shape=[128,128].json"


def dsv3_tp4(environ=None):
    return run_check(CheckRequest(model="deepseek-ai/DeepSeek-V3", hardware="rtx-pro-6000-x8",
                                  engines=("vllm==0.20.0",), engine_args=("--tensor-parallel-size", "4"),
                                  offline=True, environ=environ or {}))


def test_fix_writes_a_safe_table_named_as_vllm_looks_it_up(tmp_path):
    report = dsv3_tp4()
    assert "VLLM014" in {f.id for f in report.findings}
    actions = plan_fixes(report, unsafe=False, fix_dir=tmp_path)
    [table_action] = [a for a in actions if a.path is not None and a.path.name == NAME]
    assert table_action.rule_id == "VLLM014" and table_action.env == {ENV: str(tmp_path)}
    table = json.loads(table_action.new_bytes)
    assert all(fused_moe_smem((12, 0), "fp8_w8a8", e["BLOCK_SIZE_M"], e["BLOCK_SIZE_N"], e["BLOCK_SIZE_K"],
                              e["GROUP_SIZE_M"], e["num_warps"], e["num_stages"], block_shape=[128, 128]) <= 101376
               for e in table.values())
    assert any(a.path is not None and a.path.name == "env.sh" for a in actions)


def test_the_folder_clears_the_finding(tmp_path):
    report = dsv3_tp4()
    actions = plan_fixes(report, unsafe=False, fix_dir=tmp_path)
    [table_action] = [a for a in actions if a.path is not None and a.path.name == NAME]
    table_action.path.write_bytes(table_action.new_bytes)
    again = dsv3_tp4({ENV: str(tmp_path)})
    assert "VLLM014" not in {f.id for f in again.findings}
    [moe] = [k for k in again.analyses[0].kernels if k.kernel == "fused_moe"]
    assert moe.details["lookup_from"] == ENV and moe.fits
