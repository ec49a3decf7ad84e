"""GB10 unified memory as vLLM accounts for it (UMA090: the profiling assertion; UMA091: a negative or short KV
budget), the pip NCCL wheel across DGX Sparks (NCCL080) and GB10's missing GPUDirect RDMA (NCCL081), each on the
log lines the reports quote. The same lines from a discrete GPU (another cause) stay unclaimed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diagnose.corpus import diagnose_on, diagnose_text, fix_texts, profile_base
from tests.diagnose.corpus import rules_named as claimed

LOGS = Path(__file__).parent / "logs"
PAGES = Path(__file__).parent / "page_logs"  # outside index.toml's corpus: pages, and lines it cannot hold
# https://github.com/vllm-project/vllm/issues/56830 (2026-09-14): the report's GB10 environment and its assertion
ASSERT_56830 = (LOGS / "vllm-56830-gb10-memory-profiling-assert.log").read_bytes()
# https://github.com/vllm-project/vllm/issues/35920 (2026-03-03, DGX Spark): the description as written
ASSERT_35920 = (LOGS / "vllm-35920-spark-uma-concurrent-profiling.log").read_bytes()
# the assertion alone, as torch/vLLM print it on one line (vllm#33358 quotes it on an Intel XPU)
XPU_ASSERT = (b"(EngineCore_DP0 pid=418) ERROR 01-29 15:38:21 [core.py:946] AssertionError: Error in memory "
              b"profiling. Initial free memory 30.3 GiB, current free memory 30.3 GiB. This happens when other "
              b"processes sharing the same container release GPU memory while vLLM is profiling during "
              b"initialization. To fix this, ensure consistent GPU memory allocation or isolate vLLM in its own "
              b"container.\n")
# https://github.com/modelscope/ms-swift/issues/3241 (Ascend 910B: vLLM 0.7's wording, in bytes)
NPU_ASSERT = (b"[rank0]: AssertionError: Error in memory profiling. Initial free memory 58247258112, current free "
              b"memory 58247516160. This happens when the NPU memory was not properly cleaned up before "
              b"initializing the vLLM instance.\n")
# https://github.com/guardkit/guardkit/blob/703734eee2aec9ba5591dd7eedf8aabeb0291c4a/docs/reviews/graphiti-nemotron/run_1.md
# (host promaxgb10, NGC vLLM 0.13.0 at --gpu-memory-utilization 0.05): the docker log, trimmed to its vLLM lines
NEGATIVE_KV = (PAGES / "guardkit-nemotron-gb10-negative-kv.log").read_bytes()
KV_LINES = b"".join(line + b"\n" for line in NEGATIVE_KV.splitlines() if b"EngineCore_DP0" in line)
# https://github.com/vllm-project/vllm/issues/42354 (comment of 2026-07-23): 2x DGX Spark, pip NCCL 2.28.9
WATCHDOG = (LOGS / "vllm-42354-spark-pip-nccl-watchdog.log").read_bytes()
WATCHDOG_LINE = (b"[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12590, "
                 b"OpType=_ALLGATHER_BASE, NumelIn=1404928, NumelOut=2809856, Timeout(ms)=600000) ran for 600060 "
                 b"milliseconds before timing out.\n")
# https://forums.developer.nvidia.com/t/enabling-gpu-direct-rdma-for-dgx-spark-clustering/352051
PEERMEM_SPARK = (PAGES / "nvidia-forum-352051-spark-peermem.log").read_bytes()
# https://github.com/NVIDIA/gpu-operator/issues/2868 (GB300: the module's symbols disagree with the OFED stack)
PEERMEM_GB300 = (PAGES / "gpu-operator-2868-gb300-peermem.log").read_bytes()


@pytest.mark.parametrize(("log", "profile"), [
    (ASSERT_56830, None),  # the report names its GB10
    (ASSERT_35920, None),  # "DGX Spark" in the environment
    (XPU_ASSERT, "dgx-spark"),  # the line alone, the machine stated
])
def test_profiling_assertion_on_a_spark_names_unified_memory_and_the_kv_bytes_flag(log, profile):
    diagnosis = diagnose_on(log, profile)
    assert claimed(diagnosis)[0] == "UMA090", claimed(diagnosis)
    assert any("--kv-cache-memory-bytes" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize(("log", "profile"), [
    (XPU_ASSERT, None),
    (XPU_ASSERT, "rtx-pro-6000"),  # the other SM12x part: discrete memory, a co-tenant freed it
    (XPU_ASSERT, "rtx-5090"),
    (XPU_ASSERT, "h100-sxm-x8"),
    (NPU_ASSERT, None),
])
def test_profiling_assertion_elsewhere_is_not_claimed(log, profile):
    assert "UMA090" not in claimed(diagnose_on(log, profile))


@pytest.mark.parametrize(("log", "profile"), [
    (NEGATIVE_KV, None),  # the host name is the only GB10 in the log
    (KV_LINES, "dgx-spark"),
])
def test_negative_kv_budget_on_a_spark_names_the_accounting_and_its_fix(log, profile):
    diagnosis = diagnose_on(log, profile)
    assert "UMA091" in claimed(diagnosis), claimed(diagnosis)
    fixes = [f.summary for e in diagnosis.explanations if e.rule == "UMA091" for f in e.fixes]
    assert any("--kv-cache-memory-bytes" in t for t in fixes), fixes


@pytest.mark.parametrize("profile", [None, "rtx-pro-6000", "rtx-5090", "h100-sxm-x8", "b200-x8"])
def test_negative_kv_budget_on_a_discrete_gpu_is_not_claimed(profile):
    assert "UMA091" not in claimed(diagnose_on(KV_LINES, profile))


def test_pip_nccl_watchdog_on_a_spark_names_the_system_nccl():
    diagnosis = diagnose_text(WATCHDOG, profile_base("dgx-spark", "nccl==2.28.9"))
    assert claimed(diagnosis)[0] == "NCCL080", claimed(diagnosis)
    assert any("/usr/lib/aarch64-linux-gnu/libnccl.so.2" in t for t in fix_texts(diagnosis))


@pytest.mark.parametrize(("log", "profile", "engines"), [
    (WATCHDOG, "dgx-spark", ("nccl==2.30.4",)),  # another NCCL release: not what the reports established
    (WATCHDOG, "dgx-spark", ("nccl==2.28.8",)),
    (WATCHDOG_LINE, "rtx-pro-6000", ("nccl==2.28.9",)),  # no DGX OS, no GB10
    (WATCHDOG_LINE, "h100-sxm-x8", ("nccl==2.28.9",)),
    (WATCHDOG_LINE, None, ()),
])
def test_the_same_watchdog_elsewhere_is_not_claimed(log, profile, engines):
    base = profile_base(profile, *engines) if profile else None
    assert "NCCL080" not in claimed(diagnose_text(log, base))


def test_peermem_failure_on_a_spark_is_named_as_expected():
    diagnosis = diagnose_on(PEERMEM_SPARK)
    assert claimed(diagnosis)[0] == "NCCL081", claimed(diagnosis)


@pytest.mark.parametrize(("log", "profile"), [
    (PEERMEM_GB300, None),  # GB300: a symbol-version mismatch with the OFED stack, another cause
    (PEERMEM_GB300, "b200-x8"),
    (PEERMEM_GB300, "rtx-pro-6000"),
])
def test_peermem_failure_elsewhere_is_not_claimed(log, profile):
    assert "NCCL081" not in claimed(diagnose_on(log, profile))
