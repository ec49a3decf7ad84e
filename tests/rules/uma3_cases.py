"""Positive and boundary cases for the uma3 rules (rules/uma_engines.toml): vLLM's start-up accounting on GB10
unified memory (UMA090, UMA091: log lines, GB10 only), the pip NCCL wheel across DGX Sparks (NCCL080) and GB10's
missing GPUDirect RDMA (NCCL081). test_rule_cases.py runs them with the rest."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import Case, a, build, lib
from tests.rules.log_line_cases import logged

SPARK, PRO, R5090, H100, B200 = "dgx-spark", "rtx-pro-6000", "rtx-5090", "h100-sxm-x8", "b200-x8"
QWEN36_NVFP4 = "tests/cases/models/qwen3.6-35b-a3b-nvfp4"
RAY = ("--tensor-parallel-size", "2", "--distributed-executor-backend", "ray")
NNODES = ("--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "0", "--master-addr", "192.168.100.1")
ONE_NODE = ("--tensor-parallel-size", "1")


def _log_rule_cases(rule: str, other: str) -> list[Case]:
    """A rule that explains a GB10 log line: its line on a Spark only."""
    return [
        logged(rule, True, "its line on dgx-spark", SPARK),
        logged(rule, False, "its line on rtx-pro-6000 (12.0, discrete memory)", PRO),
        logged(rule, False, "its line on rtx-5090 (12.0, discrete memory)", R5090),
        logged(rule, False, "its line on h100 (9.0)", H100),
        logged(rule, False, "its line on b200 (10.0)", B200),
        logged(rule, False, "check: no log", SPARK, shown=()),
        logged(rule, False, "another rule's line on dgx-spark", SPARK, shown=(other,)),
    ]


def nccl(version: str, profile: str = SPARK, env: dict[str, str] | None = None,
         engines: tuple[str, ...] = ("vllm==0.25.1",)) -> Callable[[], Facts]:
    return lambda: build(profile, QWEN36_NVFP4, engines, libs=(lib("nccl", version),), env=env)


UMA3_CASES = [
    *_log_rule_cases("UMA090", "UMA091"),
    *_log_rule_cases("UMA091", "UMA090"),
    *_log_rule_cases("NCCL081", "NCCL080"),
    # NCCL080: the pip wheel 2.28.9 (both reports) carrying collectives between Sparks
    a("NCCL080", True, "vllm 0.25.1 tp2 over ray, wheel 2.28.9", nccl("2.28.9"), *RAY),
    a("NCCL080", True, "vllm 0.25.1 tp2 --nnodes 2 (mp), wheel 2.28.9", nccl("2.28.9"), *NNODES),
    a("NCCL080", True, "sglang --nnodes 2, wheel 2.28.9", nccl("2.28.9", engines=("sglang==0.5.12",)),
      "--tp-size", "2", "--nnodes", "2", "--node-rank", "0", "--dist-init-addr", "192.168.100.1:5000"),
    a("NCCL080", True, "LD_PRELOAD of something else", nccl("2.28.9", env={"LD_PRELOAD": "libjemalloc.so.2"}),
      *RAY),
    a("NCCL080", False, "wheel 2.28.8 (not reported)", nccl("2.28.8"), *RAY),
    a("NCCL080", False, "wheel 2.29.7 (not reported)", nccl("2.29.7"), *RAY),
    a("NCCL080", False, "one spark: nothing crosses nodes", nccl("2.28.9"), *ONE_NODE),
    a("NCCL080", False, "system libnccl preloaded",
      nccl("2.28.9", env={"LD_PRELOAD": "/usr/lib/aarch64-linux-gnu/libnccl.so.2"}), *RAY),
    a("NCCL080", False, "two 5090 nodes over ray (12.0, no DGX OS)", nccl("2.28.9", profile=R5090), *RAY),
    a("NCCL080", False, "two pro 6000 nodes over ray (12.0)", nccl("2.28.9", profile=PRO), *RAY),
    a("NCCL080", False, "two h100 nodes (9.0)", nccl("2.28.9", profile=H100), *RAY),
    a("NCCL080", False, "two b200 nodes (10.0)", nccl("2.28.9", profile=B200), *RAY),
    a("NCCL080", False, "nccl wheel not known", lambda: build(SPARK, QWEN36_NVFP4, ("vllm==0.25.1",)), *RAY),
]


GLM5_NEXT = "tests/cases/models/glm5-next-standin"  # GLM-5.3-Flash's architecture, DSA indexer (index_topk)
LONG = ("--max-model-len", "262144")


def indexer(version: str = "vllm==0.29.0", profile: str = SPARK, model: str = GLM5_NEXT,
            env: dict[str, str] | None = None) -> Callable[[], Facts]:
    return lambda: build(profile, model, (version,), env=env)


UMA3_CASES += [
    # UMA092: a sparse-attention indexer's long prefill on GB10 with the 512 MiB logits budget
    a("UMA092", True, "glm5-next 262144 on a spark, vllm 0.29.0", indexer(), *LONG),
    a("UMA092", True, "vllm 0.19.0 (the budget variable's first release)", indexer("vllm==0.19.0"), *LONG),
    a("UMA092", True, "glm-5 (glm_moe_dsa) at 262144", indexer(model="tests/cases/models/glm-moe-dsa-standin"), *LONG),
    a("UMA092", True, "allocator conf without expandable segments",
      indexer(env={"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:512"}), *LONG),
    a("UMA092", False, "vllm 0.18.1: no budget variable, not established", indexer("vllm==0.18.1"), *LONG),
    a("UMA092", False, "budget set to 64", indexer(env={"VLLM_SPARSE_INDEXER_MAX_LOGITS_MB": "64"}), *LONG),
    a("UMA092", False, "expandable segments on",
      indexer(env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}), *LONG),
    a("UMA092", False, "131072: prompts stay near the 115K that worked", indexer(), "--max-model-len", "131072"),
    a("UMA092", False, "context not stated", indexer()),
    a("UMA092", False, "no indexer (qwen3.6 gated deltanet)", indexer(model=QWEN36_NVFP4), *LONG),
    a("UMA092", False, "pro 6000 (12.0, discrete memory)", indexer(profile=PRO), *LONG),
    a("UMA092", False, "5090 (12.0)", indexer(profile=R5090), *LONG),
    a("UMA092", False, "h100 (9.0)", indexer(profile=H100), *LONG),
    a("UMA092", False, "b200 (10.0)", indexer(profile=B200), *LONG),
    a("UMA092", False, "sglang on a spark (another engine's indexer)", indexer("sglang==0.5.12"), "--context-length",
      "262144"),
]


STALE_CONF = {"NCCL_IB_USE_INLINE": "1", "NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS": "1"}  # the image's /etc/nccl.conf
SGL_3_NODES = ("--tp-size", "3", "--nnodes", "3", "--node-rank", "0", "--dist-init-addr", "10.0.0.1:5000")


def nccl_conf(conf: dict[str, str], env: dict[str, str] | None = None, profile: str = SPARK,
              engine: str = "sglang==0.5.12") -> Callable[[], Facts]:
    def make() -> Facts:
        facts = build(profile, None, (engine,), env=env)
        return facts.replace(host=dataclasses.replace(facts.host, nccl_conf=dict(conf)))
    return make


UMA3_CASES += [
    # NCCL082: both IB settings at 1 (a stale /etc/nccl.conf, or the environment) for SGLang TP over Sparks
    a("NCCL082", True, "both from /etc/nccl.conf, sglang tp3 over 3 sparks", nccl_conf(STALE_CONF), *SGL_3_NODES),
    a("NCCL082", True, "both from the environment", nccl_conf({}, env=STALE_CONF), *SGL_3_NODES),
    a("NCCL082", True, "one from each", nccl_conf({"NCCL_IB_USE_INLINE": "1"},
                                                   env={"NCCL_IB_PREPOST_RECEIVE_WORK_REQUESTS": "1"}), *SGL_3_NODES),
    a("NCCL082", False, "the environment sets one to 0 over the file", nccl_conf(STALE_CONF,
                                                                                 env={"NCCL_IB_USE_INLINE": "0"}),
      *SGL_3_NODES),
    a("NCCL082", False, "only inline set (not what the report had)", nccl_conf({"NCCL_IB_USE_INLINE": "1"}),
      *SGL_3_NODES),
    a("NCCL082", False, "one spark: no IB traffic", nccl_conf(STALE_CONF), "--tp-size", "1"),
    a("NCCL082", False, "no nccl.conf", nccl_conf({}), *SGL_3_NODES),
    a("NCCL082", False, "vllm (another engine's warm-up, not reported)", nccl_conf(STALE_CONF, engine="vllm==0.25.1"),
      "--tensor-parallel-size", "3", "--distributed-executor-backend", "ray"),
    a("NCCL082", False, "pro 6000 nodes (12.0)", nccl_conf(STALE_CONF, profile=PRO), *SGL_3_NODES),
    a("NCCL082", False, "h100 nodes (9.0)", nccl_conf(STALE_CONF, profile=H100), *SGL_3_NODES),
    a("NCCL082", False, "b200 nodes (10.0)", nccl_conf(STALE_CONF, profile=B200), *SGL_3_NODES),
]
