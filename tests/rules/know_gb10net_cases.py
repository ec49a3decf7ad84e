"""Positive and boundary cases for the know-gb10net rules on one node (UMA010, NCCL021); the cluster rules
(UMA011, NCCL020) have theirs in tests/cluster/cases.py. test_rule_cases.py runs them with the rest."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

SPARK, PRO, R5090 = "dgx-spark", "rtx-pro-6000", "rtx-5090"
QWEN36_NVFP4 = "tests/cases/models/qwen3.6-35b-a3b-nvfp4"  # about 21 GiB of weights at TP1
GiB = 1 << 30


def host(profile: str = SPARK, model: str | None = QWEN36_NVFP4, engines: tuple[str, ...] = ("vllm==0.21.0",),
         **fields: object) -> Callable[[], Facts]:
    def make() -> Facts:
        facts = build(profile, model, engines)
        return facts.replace(host=dataclasses.replace(facts.host, **fields))
    return make


RAY = ("--tensor-parallel-size", "2", "--distributed-executor-backend", "ray")


def nccl(version: str, engines: tuple[str, ...] = ("vllm==0.21.0",), profile: str = SPARK) -> Callable[[], Facts]:
    return lambda: build(profile, QWEN36_NVFP4, engines, libs=(lib("nccl", version),))


KNOW_GB10NET_CASES = [
    # UMA010: this node's share of the weights against MemAvailable on GB10
    a("UMA010", True, "spark: 21 GiB of weights, 8 GiB available", host(memory_available_bytes=8 * GiB)),
    a("UMA010", True, "spark sglang: 21 GiB of weights, 8 GiB available",
      host(engines=("sglang==0.5.12",), memory_available_bytes=8 * GiB)),
    a("UMA010", True, "spark tp2 over ray: 11 GiB per node, 8 GiB available", host(memory_available_bytes=8 * GiB),
      "--tensor-parallel-size", "2", "--distributed-executor-backend", "ray"),
    a("UMA010", False, "spark: 60 GiB available", host(memory_available_bytes=60 * GiB)),
    a("UMA010", False, "spark profile: MemAvailable not probed", host()),
    a("UMA010", False, "pro 6000 (12.0, not unified) with 8 GiB host RAM available",
      host(PRO, memory_available_bytes=8 * GiB)),
    a("UMA010", False, "5090 with 8 GiB host RAM available", host(R5090, memory_available_bytes=8 * GiB)),
    # NCCL021: the 7.0 kernel builds the reports name, on GB10
    a("NCCL021", True, "spark on 7.0.0-1019-nvidia", host(kernel="7.0.0-1019-nvidia")),
    a("NCCL021", True, "spark on HWE 7.0.0-31-generic", host(kernel="7.0.0-31-generic")),
    a("NCCL021", False, "spark on 6.17.0-1032-nvidia (the fix)", host(kernel="6.17.0-1032-nvidia")),
    a("NCCL021", False, "spark on 7.0.0-30-generic (works in the report)", host(kernel="7.0.0-30-generic")),
    a("NCCL021", False, "spark on 7.0.0-1020-nvidia (not reported)", host(kernel="7.0.0-1020-nvidia")),
    a("NCCL021", False, "spark on 7.0.0-310-generic", host(kernel="7.0.0-310-generic")),
    a("NCCL021", False, "pro 6000 (12.0) on 7.0.0-1019", host(PRO, kernel="7.0.0-1019-nvidia")),
    a("NCCL021", False, "spark, kernel unknown (profile)", host()),
    # NCCL022: a launch over several GB10 nodes, CUDA graphs on, NCCL 2.28.x-2.30.3
    a("NCCL022", True, "vllm tp2 over ray, nccl 2.28.9", nccl("2.28.9"), *RAY),
    a("NCCL022", True, "vllm --nnodes 2 (mp), nccl 2.30.3", nccl("2.30.3"), "--tensor-parallel-size", "2",
      "--nnodes", "2", "--node-rank", "0"),
    a("NCCL022", True, "sglang --nnodes 2, nccl 2.28.9", nccl("2.28.9", ("sglang==0.5.12",)), "--tp-size", "2",
      "--nnodes", "2", "--node-rank", "1", "--dist-init-addr", "10.0.0.1:5000"),
    a("NCCL022", False, "nccl 2.30.4 (the fix)", nccl("2.30.4"), *RAY),
    a("NCCL022", False, "nccl 2.27.7 (not reported)", nccl("2.27.7"), *RAY),
    a("NCCL022", False, "--enforce-eager", nccl("2.28.9"), *RAY, "--enforce-eager"),
    a("NCCL022", False, "sglang --disable-cuda-graph", nccl("2.28.9", ("sglang==0.5.12",)), "--tp-size", "2",
      "--nnodes", "2", "--node-rank", "0", "--disable-cuda-graph"),
    a("NCCL022", False, "one node (mp executor)", nccl("2.28.9"), "--tensor-parallel-size", "2",
      "--distributed-executor-backend", "mp"),
    a("NCCL022", False, "two 5090 nodes over ray (12.0)", nccl("2.28.9", profile=R5090), *RAY),
    a("NCCL022", False, "nccl not known", host(), *RAY),
]


def shm(size: int | None, profile: str = "rtx-5090-x4") -> Callable[[], Facts]:
    return host(profile, None, ("vllm==0.21.0",), dev_shm_bytes=size)


MiB = 1 << 20
KNOW_GB10NET_CASES += [
    a("NCCL024", True, "4x 5090 TP4 in a container with 64 MiB /dev/shm", shm(64 * MiB), "--tensor-parallel-size", "4"),
    a("NCCL024", True, "2x pro 6000 TP2, 32 MiB", shm(32 * MiB, "rtx-pro-6000-x2"), "--tensor-parallel-size", "2"),
    a("NCCL024", False, "--shm-size=1g", shm(1024 * MiB), "--tensor-parallel-size", "4"),
    a("NCCL024", False, "65 MiB: just above the default", shm(65 * MiB), "--tensor-parallel-size", "4"),
    a("NCCL024", False, "no size limit (host tmpfs)", shm(None), "--tensor-parallel-size", "4"),
    a("NCCL024", False, "TP1 on one of the GPUs", shm(64 * MiB), "--tensor-parallel-size", "1"),
    a("NCCL024", False, "one GPU", shm(64 * MiB, "rtx-5090"), "--tensor-parallel-size", "1"),
    a("NCCL024", False, "no GPU on this machine (a CPU container)",
      lambda: shm(64 * MiB)().replace(gpus=(), topology=())),
]


def ray_env(env: dict[str, str] | None = None, profile: str = SPARK,
            engines: tuple[str, ...] = ("vllm==0.19.1",)) -> Callable[[], Facts]:
    return lambda: build(profile, QWEN36_NVFP4, engines, env=env)


KNOW_GB10NET_CASES += [
    a("CLU030", True, "spark vllm ray tp2, VLLM_HOST_IP unset", ray_env(), *RAY),
    a("CLU030", True, "spark vllm --distributed-executor-backend=ray", ray_env(), "--tensor-parallel-size", "2",
      "--distributed-executor-backend=ray"),
    a("CLU030", False, "VLLM_HOST_IP set", ray_env({"VLLM_HOST_IP": "192.168.100.10"}), *RAY),
    a("CLU030", False, "mp executor (--nnodes)", ray_env(), "--tensor-parallel-size", "2", "--nnodes", "2",
      "--node-rank", "0"),
    a("CLU030", False, "5090 (12.0) over ray", ray_env(profile=R5090), *RAY),
    a("CLU030", False, "sglang on spark", ray_env(engines=("sglang==0.5.12",)), "--tp-size", "2"),
]
