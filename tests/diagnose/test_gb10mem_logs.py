"""The kernel's global OOM-killer lines (`Out of memory: Killed process`, `oom-kill:constraint=CONSTRAINT_NONE`) on
a DGX Spark are the unified pool running out (UMA060, with its fix); the same lines from a discrete-GPU host, or a
container's own memory limit (`Memory cgroup out of memory`), are another cause and stay unclaimed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.diagnose.corpus import diagnose_on, fix_texts
from tests.diagnose.corpus import rules_named as claimed

LOGS = Path(__file__).parent / "logs"
# https://github.com/LMCache/LMCache/issues/4759 (comment 2026-08-27, 2x DGX Spark head node), as quoted
GB10_KILL = (LOGS / "lmcache-4759-gb10-global-oom-kill.log").read_bytes()
KILL_LINES = b"".join(line + b"\n" for line in GB10_KILL.splitlines() if b"00:39:44" in line)
# https://github.com/pcyin/tranX/issues/41 (2021, a discrete-GPU workstation: host RAM), dmesg as quoted
DISCRETE_KILL = (b"[2059991.491436] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0,"
                 b"global_oom,task_memcg=/user.slice,task=python3,pid=25315,uid=0\n"
                 b"[2059991.491542] Out of memory: Killed process 25315 (python3) total-vm:53312244kB, "
                 b"anon-rss:31451456kB, file-rss:74816kB, shmem-rss:12296kB, UID:0 pgtables:69068kB oom_score_adj:0\n")
# https://github.com/wtdcode/vllm-backport/issues/68 (2x RTX 3090, experts CPU-offloaded: host RAM), as quoted
OFFLOAD_KILL = (b"INFO  [int_wna16.py:409] Using MarlinExperts\n"
                b"Out of memory: Killed process (VLLM::Worker_TP)\n"
                b"  total-vm:231892748kB  anon-rss:1117884kB  shmem-rss:90272184kB\n"
                b"RuntimeError: Engine core initialization failed. Failed core proc(s): {'EngineCore': 1}\n")
# A container's --memory limit, not the pool: the cgroup OOM killer's wording (mm/oom_kill.c), on a Spark
CGROUP_KILL = (b"Memory cgroup out of memory: Killed process 4242 (VLLM::Worker_TP) total-vm:9737715264kB, "
               b"anon-rss:59118944kB, file-rss:0kB, shmem-rss:0kB\n")


@pytest.mark.parametrize(("log", "profile"), [
    (GB10_KILL, None),  # the report's own line names GB10
    (KILL_LINES, "dgx-spark"),  # the kernel lines alone, the machine stated
])
def test_global_oom_kill_on_a_spark_is_named_with_its_fix(log, profile):
    diagnosis = diagnose_on(log, profile)
    assert claimed(diagnosis)[0] == "UMA060", claimed(diagnosis)
    assert any("drop_caches" in t for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize(("log", "profile"), [
    (KILL_LINES, None),  # no GPU named: host RAM on any machine
    (KILL_LINES, "rtx-pro-6000"),  # the other SM12x part: discrete memory
    (KILL_LINES, "rtx-5090"),
    (KILL_LINES, "h100-sxm-x8"),
    (DISCRETE_KILL, None),
    (DISCRETE_KILL, "rtx-pro-6000"),
    (OFFLOAD_KILL, None),
    (OFFLOAD_KILL, "rtx-5090"),
    (CGROUP_KILL, "dgx-spark"),  # a container limit on a Spark: not the global pool
])
def test_the_same_kill_elsewhere_is_not_claimed(log, profile):
    assert "UMA060" not in claimed(diagnose_on(log, profile))


def test_the_whole_oom_report_on_a_spark_names_the_pool():
    """dmesg prints `invoked oom-killer` (UMA010's line) before the kill itself: both name the pool on GB10."""
    both = b"VLLM::Worker_TP invoked oom-killer: gfp_mask=0x102cc2(GFP_HIGHUSER)\n" + KILL_LINES
    assert {"UMA010", "UMA060"} <= set(claimed(diagnose_on(both, "dgx-spark")))
