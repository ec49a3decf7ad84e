"""Positive and boundary cases for the multi-node rules on one node's facts (CLU061, NCCL063) and the rules that
explain a multi-node log line only (CLU062-CLU064, NCCL060-NCCL062, NCCL064). CLU060 reads the cluster (several nodes'
facts) and has its cases in tests/cluster/cases.py. test_rule_cases.py runs these with the rest."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib
from tests.rules.log_line_cases import OTHER, SM12X, logged

SPARK, PRO = "dgx-spark", "rtx-pro-6000"
WORKER = ("--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "1", "--headless")
HEAD = ("--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "0")
MASTER = ("--master-addr", "192.168.177.11", "--master-port", "29501")
LOG_ONLY = ("CLU062", "CLU063", "CLU064", "NCCL060", "NCCL061", "NCCL062", "NCCL064")


def gid_node(profile: str = SPARK, nccl: str | None = "2.28.9", env: dict[str, str] | None = None
             ) -> Callable[[], Facts]:
    libs = (lib("nccl", nccl),) if nccl else ()
    return lambda: build(profile, engines=("vllm==0.21.0",), libs=libs,
                         env={"NCCL_IB_GID_INDEX": "3"} if env is None else env)


def vllm_node(version: str = "0.20.0", profile: str = SPARK) -> Callable[[], Facts]:
    return lambda: build(profile, engines=(f"vllm=={version}",))


MULTINODE_CASES = [
    # CLU061: vLLM's mp executor over nodes, a node of rank >= 1 without --master-addr (default 127.0.0.1)
    a("CLU061", True, "worker spark, no --master-addr", vllm_node(), *WORKER),
    a("CLU061", True, "vllm 0.11.1 (the first with --nnodes)", vllm_node("0.11.1"), *WORKER),
    a("CLU061", True, "vllm 0.33.0 on a PRO 6000 node", vllm_node("0.33.0", PRO), *WORKER),
    a("CLU061", True, "rank 2 of 4, short flags", vllm_node(), "-tp", "4", "-n", "4", "-r", "2", "--headless"),
    a("CLU061", False, "with --master-addr", vllm_node(), *WORKER, *MASTER),
    a("CLU061", False, "with --master-addr=", vllm_node(), *WORKER, "--master-addr=192.168.177.11"),
    a("CLU061", False, "node rank 0 (hosts the store)", vllm_node(), *HEAD),
    a("CLU061", False, "--nnodes 1", vllm_node(), "--nnodes", "1", "--node-rank", "0"),
    a("CLU061", False, "flags from a --config file", vllm_node(), *WORKER, "--config", "serve.yaml"),
    a("CLU061", False, "vllm 0.11.0 (no --nnodes)", vllm_node("0.11.0"), *WORKER),
    a("CLU061", False, "sglang, not vllm", lambda: build(SPARK, engines=("sglang==0.5.12",)),
      "--tp-size", "2", "--nnodes", "2", "--node-rank", "1"),
    # NCCL063: a fixed NCCL_IB_GID_INDEX on a GB10 node, NCCL 2.21+ (which picks the RoCE v2 IPv4 GID itself)
    a("NCCL063", True, "spark, nccl 2.28.9, index 3", gid_node()),
    a("NCCL063", True, "spark, nccl 2.21.5 (auto selection begins)", gid_node(nccl="2.21.5")),
    a("NCCL063", True, "spark, nccl not stated", gid_node(nccl=None)),
    a("NCCL063", False, "spark, variable unset", gid_node(env={})),
    a("NCCL063", False, "spark, nccl 2.20.5 (default index 0, no auto)", gid_node(nccl="2.20.5")),
    a("NCCL063", False, "pro 6000 (12.0) node", gid_node(profile=PRO)),
    a("NCCL063", False, "h100 node", gid_node(profile="h100-sxm-x8")),
    # the log-only rules: their own line on any GPU (the signatures carry the multi-node scope), silent in check
    *(logged(rule, True, f"its line on {profile}", profile) for rule in LOG_ONLY for profile in (*SM12X, *OTHER)),
    *(logged(rule, False, "check: no log", SPARK, shown=()) for rule in LOG_ONLY),
    *(logged(rule, False, "another rule's line", SPARK, shown=("NCCL020",)) for rule in LOG_ONLY),
]
