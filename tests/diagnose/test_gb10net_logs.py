"""The log lines DGX Spark users paste for unified-memory OOMs and multi-node RoCE failures, each named with its
fix; the same lines are not claimed for another GPU (their `context` needs GB10 in the log, --hardware or
--facts). Blog posts' lines live here: the corpus (index.toml) holds GitHub reports only."""

from __future__ import annotations

import pytest

from tests.diagnose.corpus import diagnose_on, fix_texts
from tests.diagnose.corpus import rules_named as claimed

# https://www.tobias-weiss.org/articles/ai/dgx-spark-vllm-oom-debugging/ (2x DGX Spark, vLLM 0.21.1rc1), dmesg
OOM = b"""NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY]
returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359
VLLM::Worker_TP invoked oom-killer: gfp_mask=0x102cc2(GFP_HIGHUSER)
oom_kill_process+0x1f8/0x3f0
sysmemAllocResources+0xa8/0x2a0 [nvidia]
VLLM::Worker_TP invoked oom-killer: gfp_mask=0x80dc0(GFP_KERNEL|__GFP_ZERO)
phys_mem_allocate+0x14c/0x230
"""
OOM_NAMED = (b"Two NVIDIA DGX Sparks (GB10 Grace Blackwell Superchip) running DeepSeek-V4-Flash via vLLM 0.21.1rc1.\n"
             + OOM)
# https://al-engr.com/minimax-sglang-debug.html (2x DGX Spark, SGLang 0.5.12, MiniMax M2.7 TP=2)
UNBALANCED = (b"RuntimeError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. "
              b"pre_model\n")
# https://github.com/luxingcom/aicad-nccl-optimization/issues/1 and eugr/spark-vllm-docker#252, as quoted
RING = b"ibv_modify_qp 110\nibv_reg_mr_iova2 ENOMEM\nCmaTotal: 0 kB\n"
RING_252 = b"ibv_modify_qp failed with 110 (Connection timed out)\n"
# vLLM's placement-group wait (gpustack/gpustack#5509's line, vLLM ray_utils.py), here on a Spark pair
PG_WAIT = (b"(EngineCore pid=84) INFO 06-07 18:13:55 [ray_utils.py:464] Waiting for creating a placement group of "
           b"specs for 150 seconds. specs=[{'GPU': 1.0}, {'GPU': 1.0}]. Check `ray status` and `ray list nodes` to "
           b"see if you have enough resources\n")


run = diagnose_on


@pytest.mark.parametrize(("log", "profile", "rule", "fix"), [
    (OOM_NAMED, None, "UMA010", "drop_caches"),
    (OOM, "dgx-spark", "UMA010", "drop_caches"),
    (UNBALANCED, None, "UMA011", "docker ps -a"),
    (UNBALANCED, "dgx-spark", "UMA011", "SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK"),
    (RING, "dgx-spark", "NCCL020", "NCCL_IB_HCA"),
    (RING_252, "dgx-spark", "NCCL020", "never two cables on the same port index"),
    (PG_WAIT, "dgx-spark", "CLU030", "VLLM_HOST_IP"),
])
def test_spark_log_is_named_with_its_fix(log, profile, rule, fix):
    diagnosis = run(log, profile)
    assert claimed(diagnosis)[0] == rule, claimed(diagnosis)
    assert any(fix.lower() in t.lower() for t in fix_texts(diagnosis)), fix_texts(diagnosis)


def test_both_causes_of_the_triangle_report_are_named():
    assert set(claimed(run(RING, "dgx-spark"))) >= {"NCCL020", "NCCL021"}


@pytest.mark.parametrize(("log", "profile", "rule"), [
    (OOM, None, "UMA010"),  # no GPU named: host RAM on a discrete machine is another story
    (OOM, "rtx-pro-6000", "UMA010"),
    (OOM, "h100-sxm-x8", "UMA010"),
    (RING_252, None, "NCCL020"),
    (RING_252, "h100-sxm-x8", "NCCL020"),  # a switched HGX fabric (NVIDIA/nccl#2013: NCCL_CROSS_NIC)
    (RING, "rtx-pro-6000", "NCCL021"),
    (PG_WAIT, "rtx-5090", "CLU030"),
])
def test_the_same_lines_on_another_gpu_are_not_claimed(log, profile, rule):
    assert rule not in claimed(run(log, profile))


def test_the_drivers_nv_err_no_memory_line_alone_is_not_an_oom():
    """Sparks log it in runs that start and serve (vllm#56824): only the OOM killer's line is the failure."""
    nvrm = b"NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY]\n"
    assert "UMA010" not in claimed(run(nvrm, "dgx-spark"))


def test_sample_tokens_timeout_needs_the_nccl_release_in_the_log():
    """The same watchdog line follows memory pressure on a Spark (eugr/spark-vllm-docker#321)."""
    timeout = b"TimeoutError: RPC call to sample_tokens timed out\n"
    assert "NCCL022" not in claimed(run(timeout, "dgx-spark"))
    assert claimed(run(b"vLLM is using nccl==2.28.9\n" + timeout, "dgx-spark"))[0] == "NCCL022"
    assert "NCCL022" not in claimed(run(b"vLLM is using nccl==2.30.4\n" + timeout, "dgx-spark"))


def test_no_error_rule_fires_on_the_spark_logs():
    for log in (OOM_NAMED, UNBALANCED, RING, RING_252):
        diagnosis = run(log, "dgx-spark")
        assert not [f.id for f in diagnosis.report.findings if f.severity == "error"]
