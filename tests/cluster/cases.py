"""Table of cluster rule cases: several nodes' facts (built from profiles), the launch flags, and whether
the rule fires. tests/rules/test_rule_cases.py counts them toward every rule's positive and negative case."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from doctor.cluster.check import check_cluster
from doctor.cluster.nodes import Cluster, NodeProblem, make_cluster
from doctor.pipeline.facts import Facts, Library, Network, Nic, RdmaPort
from tests.rules.builders import build

PRO, KIMI = "rtx-pro-6000-x8", "moonshotai/Kimi-K2-Instruct"
ETH = (Nic("eth0", "up", 100_000, 9000, "0000:41:00.0"),)
IB = (RdmaPort("mlx5_0", 1, "InfiniBand", "4: ACTIVE", "400 Gb/sec (4X NDR)"),)


def node(name: str, torch: str = "2.9.1", nccl: str = "2.27.3", network: Network | None = None,
         gpus: Callable | None = None, engines: tuple[str, ...] = ("sglang==0.5.23",)) -> Facts:
    facts = build(PRO, KIMI, engines, gpus=gpus)
    libs = {"torch": Library("torch", torch, details={"cuda_version": "12.8"}), "nccl": Library("nccl", nccl)}
    return facts.replace(node=name, network=network, libraries={**facts.libraries, **libs})


def tcp(**settings: str) -> Network:
    return Network(address=None, nics=ETH, settings=dict(settings))


def rdma(peermem: bool | None = True) -> Network:
    return Network(nics=ETH, rdma=IB, peermem=peermem, nvidia_open_module=False if peermem is False else None)


def pair(a: Facts, b: Facts, problems: tuple[NodeProblem, ...] = ()) -> Callable[[], Cluster]:
    return lambda: make_cluster([a, b], ["a", "b"], "test", problems)


def rtx5090(gpus):
    return tuple(dataclasses.replace(g, name="NVIDIA GeForce RTX 5090") for g in gpus)


@dataclass(frozen=True)
class ClusterCase:
    rule: str
    fires: bool
    why: str
    cluster: Callable[[], Cluster]
    args: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.rule}-{'fires' if self.fires else 'quiet'}-{self.why}".replace(" ", "_")


def c(rule: str, fires: bool, why: str, cluster: Callable[[], Cluster], *args: str) -> ClusterCase:
    return ClusterCase(rule, fires, why, cluster, args)


def cluster_findings(case: ClusterCase) -> set[str]:
    report = check_cluster(case.cluster(), list(case.args))
    return {f.finding.id for f in report.findings}


SPARK, QWEN36 = "dgx-spark", "tests/cases/models/qwen3.6-35b-a3b-nvfp4"
GiB = 1 << 30
SPARK_ETH = (Nic("enp1s0f0np0", "up", 200_000, 9000, "0000:01:00.0"),)


def spark_roce(ports: int, **settings: str) -> Network:
    """A DGX Spark's ConnectX-7: each cabled QSFP port shows as two active RoCE devices (the twin PCIe functions)."""
    names = ["rocep1s0f0", "roceP2p1s0f0", "rocep1s0f1", "roceP2p1s0f1"][:ports]
    rdma = tuple(RdmaPort(n, 1, "Ethernet", "4: ACTIVE", "200 Gb/sec (4X HDR)") for n in names)
    return Network(nics=SPARK_ETH, rdma=rdma, peermem=None, nvidia_open_module=True, settings=dict(settings))


def spark(name: str, available_gib: float | None = 100.0, network: Network | None = None,
          engines: tuple[str, ...] = ("sglang==0.5.12",), env: dict[str, str] | None = None,
          profile: str = SPARK) -> Facts:
    facts = build(profile, QWEN36, engines, env=env)
    available = None if available_gib is None else int(available_gib * GiB)
    return facts.replace(node=name, network=network,
                         host=dataclasses.replace(facts.host, memory_available_bytes=available))


def spark_nccl(name: str, nccl: str) -> Facts:
    facts = spark(name, engines=("vllm==0.21.0",))
    return facts.replace(libraries={**facts.libraries, "nccl": Library("nccl", nccl)})


def vllm_spark(name: str, version: str = "0.20.0") -> Facts:
    return spark(name, engines=(f"vllm=={version}",))


def spark_port1(**settings: str) -> Network:
    """A Spark cabled on its second QSFP port: the port-1 RoCE twins are the active ones."""
    rdma = (RdmaPort("rocep1s0f0", 1, "Ethernet", "1: DOWN", "200 Gb/sec (4X HDR)"),
            RdmaPort("roceP2p1s0f0", 1, "Ethernet", "1: DOWN", "200 Gb/sec (4X HDR)"),
            RdmaPort("rocep1s0f1", 1, "Ethernet", "4: ACTIVE", "200 Gb/sec (4X HDR)"),
            RdmaPort("roceP2p1s0f1", 1, "Ethernet", "4: ACTIVE", "200 Gb/sec (4X HDR)"))
    return Network(nics=SPARK_ETH, rdma=rdma, peermem=None, nvidia_open_module=True, settings=dict(settings))


def sparks(*nodes: Facts) -> Callable[[], Cluster]:
    return lambda: make_cluster(list(nodes), [f"s{i}" for i in range(len(nodes))], "test")


CLUSTER_CASES = [
    c("CLU001", True, "torch skew", pair(node("a"), node("b", torch="2.8.0"))),
    c("CLU001", False, "same versions", pair(node("a"), node("b"))),
    c("CLU002", True, "gpu model skew", pair(node("a"), node("b", gpus=rtx5090))),
    c("CLU002", False, "same model", pair(node("a"), node("b"))),
    c("CLU003", True, "gpu count skew", pair(node("a"), node("b", gpus=lambda g: g[:4]))),
    c("CLU003", False, "same count", pair(node("a"), node("b"))),
    c("CLU004", True, "ifname selects nothing", pair(node("a", network=tcp(NCCL_SOCKET_IFNAME="ib")),
                                                     node("b", network=tcp(NCCL_SOCKET_IFNAME="ib")))),
    c("CLU004", False, "ifname selects eth0", pair(node("a", network=tcp(NCCL_SOCKET_IFNAME="eth")),
                                                   node("b", network=tcp(NCCL_SOCKET_IFNAME="eth")))),
    c("CLU005", True, "ifname differs", pair(node("a", network=tcp(NCCL_SOCKET_IFNAME="eth")),
                                             node("b", network=tcp(NCCL_SOCKET_IFNAME="=eth0")))),
    c("CLU005", False, "ifname same", pair(node("a", network=tcp(NCCL_SOCKET_IFNAME="eth")),
                                           node("b", network=tcp(NCCL_SOCKET_IFNAME="eth")))),
    c("CLU006", True, "tp16 over tcp", pair(node("a", network=tcp()), node("b", network=tcp())), "--tp-size", "16"),
    c("CLU006", False, "tp16 over rdma", pair(node("a", network=rdma()), node("b", network=rdma())),
      "--tp-size", "16"),
    c("CLU006", False, "tp16 network unknown", pair(node("a"), node("b")), "--tp-size", "16"),
    c("CLU006", False, "tp8 pp2 over tcp", pair(node("a", network=tcp()), node("b", network=tcp())),
      "--tp-size", "8", "--pp-size", "2"),
    c("CLU007", True, "rdma without peermem", pair(node("a", network=rdma(False)), node("b", network=rdma(False))),
      "--tp-size", "8", "--pp-size", "2"),
    c("CLU007", False, "dgx spark: no GPUDirect RDMA to load",
      sparks(spark("a", network=rdma(False)), spark("b", network=rdma(False))), "--tp-size", "2"),
    c("CLU007", False, "rdma with peermem", pair(node("a", network=rdma()), node("b", network=rdma())),
      "--tp-size", "8", "--pp-size", "2"),
    c("CLU008", True, "a node died", pair(node("a"), node("b"), (NodeProblem("c", "died", "node died"),))),
    c("CLU008", False, "every node answered", pair(node("a"), node("b"))),
    c("CLU009", True, "a node without gpus", lambda: make_cluster([node("a"), node("b"), node("c").replace(gpus=())],
                                                                  ["a", "b", "c"], "test")),
    c("CLU009", False, "every node has gpus", pair(node("a"), node("b"))),
    c("CLU010", True, "no network facts", pair(node("a"), node("b"))),
    c("CLU010", False, "network known", pair(node("a", network=tcp()), node("b", network=tcp()))),
    # UMA011: SGLang's TP memory balance check across GB10 nodes (MemAvailable per node)
    c("UMA011", True, "sglang tp2 over 2 sparks, one holds 33 GiB", sparks(spark("a", 100), spark("b", 67)),
      "--tp-size", "2"),
    c("UMA011", True, "sglang 0.5.6 (ValueError) tp2",
      sparks(spark("a", 100, engines=("sglang==0.5.6",)), spark("b", 80, engines=("sglang==0.5.6",))),
      "--tp-size", "2"),
    c("UMA011", False, "within 10%: 100 and 91 GiB", sparks(spark("a", 100), spark("b", 91)), "--tp-size", "2"),
    c("UMA011", False, "tp1 pp2: no TP group across nodes", sparks(spark("a", 100), spark("b", 67)),
      "--tp-size", "1", "--pp-size", "2"),
    c("UMA011", False, "vllm, not sglang",
      sparks(spark("a", 100, engines=("vllm==0.21.0",)), spark("b", 67, engines=("vllm==0.21.0",))),
      "--tensor-parallel-size", "2"),
    c("UMA011", False, "check turned off (0.5.7+)", sparks(
        spark("a", 100, env={"SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK": "0"}),
        spark("b", 67, env={"SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK": "0"})), "--tp-size", "2"),
    c("UMA011", False, "MemAvailable not probed", sparks(spark("a", None), spark("b", None)), "--tp-size", "2"),
    c("UMA011", False, "two 5090 nodes (not unified)", sparks(spark("a", 100, profile="rtx-5090"),
                                                             spark("b", 67, profile="rtx-5090")), "--tp-size", "2"),
    # NCCL020: three or more GB10 nodes, cables to several peers (more than two active RoCE ports), no NCCL_IB_HCA
    c("NCCL020", True, "3 sparks in a ring, HCA unset", sparks(*(spark(n, network=spark_roce(4)) for n in "abc")),
      "--tp-size", "3"),
    c("NCCL020", True, "4 sparks in a ring, HCA unset on one", sparks(
        *(spark(n, network=spark_roce(4, NCCL_IB_HCA="rocep1s0f0")) for n in "abc"), spark("d", network=spark_roce(4))),
      "--tp-size", "4"),
    c("NCCL020", False, "3 sparks, HCA pinned", sparks(
        *(spark(n, network=spark_roce(4, NCCL_IB_HCA="rocep1s0f0,roceP2p1s0f0")) for n in "abc")), "--tp-size", "3"),
    c("NCCL020", False, "3 sparks, one cable each (two twin ports)", sparks(
        *(spark(n, network=spark_roce(2)) for n in "abc")), "--tp-size", "3"),
    c("NCCL020", False, "2 sparks, both ports cabled", sparks(*(spark(n, network=spark_roce(4)) for n in "ab")),
      "--tp-size", "2"),
    c("NCCL020", False, "3 pro 6000 nodes (12.0)", sparks(
        *(spark(n, network=spark_roce(4), profile="rtx-pro-6000") for n in "abc")), "--tp-size", "3"),
    c("NCCL020", False, "3 sparks, network unknown", sparks(*(spark(n) for n in "abc")), "--tp-size", "3"),
    # NCCL023: TP or EP across GB10 nodes with CUDA graphs and NCCL 2.28.x-2.30.3
    c("NCCL023", True, "tp2 over 2 sparks, nccl 2.28.9", sparks(spark_nccl("a", "2.28.9"), spark_nccl("b", "2.28.9")),
      "--tensor-parallel-size", "2"),
    c("NCCL023", False, "nccl 2.30.4", sparks(spark_nccl("a", "2.30.4"), spark_nccl("b", "2.30.4")),
      "--tensor-parallel-size", "2"),
    c("NCCL023", False, "pp2: no collective across the nodes", sparks(spark_nccl("a", "2.28.9"),
                                                                      spark_nccl("b", "2.28.9")),
      "--tensor-parallel-size", "1", "--pipeline-parallel-size", "2"),
    c("NCCL023", False, "--enforce-eager", sparks(spark_nccl("a", "2.28.9"), spark_nccl("b", "2.28.9")),
      "--tensor-parallel-size", "2", "--enforce-eager"),
    # CLU060: vLLM 0.11.1+ with a world larger than one node's GPUs and neither the Ray executor nor --nnodes
    c("CLU060", True, "vllm 0.20.0 tp2 over 2 sparks", sparks(vllm_spark("a"), vllm_spark("b")),
      "--tensor-parallel-size", "2"),
    c("CLU060", True, "vllm 0.11.1 pp2 over 2 sparks", sparks(vllm_spark("a", "0.11.1"), vllm_spark("b", "0.11.1")),
      "--tensor-parallel-size", "1", "--pipeline-parallel-size", "2"),
    c("CLU060", True, "vllm 0.33.0 tp16 over 2 pro 6000 x8 nodes", pair(node("a", engines=("vllm==0.33.0",)),
                                                                          node("b", engines=("vllm==0.33.0",))),
      "--tensor-parallel-size", "16"),
    c("CLU060", True, "explicit mp executor without --nnodes", sparks(vllm_spark("a"), vllm_spark("b")),
      "--tensor-parallel-size", "2", "--distributed-executor-backend", "mp"),
    c("CLU060", False, "vllm 0.11.0 falls back to ray", sparks(vllm_spark("a", "0.11.0"), vllm_spark("b", "0.11.0")),
      "--tensor-parallel-size", "2"),
    c("CLU060", False, "--distributed-executor-backend ray", sparks(vllm_spark("a"), vllm_spark("b")),
      "--tensor-parallel-size", "2", "--distributed-executor-backend", "ray"),
    c("CLU060", False, "mp multi-node --nnodes 2", sparks(vllm_spark("a"), vllm_spark("b")),
      "--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "0", "--master-addr", "10.0.0.1"),
    c("CLU060", False, "tp1: fits one spark", sparks(vllm_spark("a"), vllm_spark("b")), "--tensor-parallel-size", "1"),
    c("CLU060", False, "tp8 fits one pro 6000 x8 node", pair(node("a", engines=("vllm==0.33.0",)),
                                                             node("b", engines=("vllm==0.33.0",))),
      "--tensor-parallel-size", "8"),
    c("CLU060", False, "flags from a --config file", sparks(vllm_spark("a"), vllm_spark("b")),
      "--tensor-parallel-size", "2", "--config", "serve.yaml"),
    # NCCL065: NCCL_IB_HCA names none of a node's active RDMA ports
    c("NCCL065", True, "worker on port 1, head's port-0 names", sparks(
        spark("a", network=spark_roce(2, NCCL_IB_HCA="rocep1s0f0,roceP2p1s0f0")),
        spark("b", network=spark_port1(NCCL_IB_HCA="rocep1s0f0,roceP2p1s0f0"))), "--tp-size", "2"),
    c("NCCL065", True, "exact names of down ports", sparks(
        spark("a", network=spark_port1(NCCL_IB_HCA="=rocep1s0f0")), spark("b", network=spark_port1())),
      "--tp-size", "2"),
    c("NCCL065", False, "each node its own active ports", sparks(
        spark("a", network=spark_roce(2, NCCL_IB_HCA="rocep1s0f0,roceP2p1s0f0")),
        spark("b", network=spark_port1(NCCL_IB_HCA="rocep1s0f1,roceP2p1s0f1"))), "--tp-size", "2"),
    c("NCCL065", False, "a prefix that covers both ports", sparks(
        spark("a", network=spark_port1(NCCL_IB_HCA="roce")), spark("b", network=spark_port1(NCCL_IB_HCA="roce"))),
      "--tp-size", "2"),
    c("NCCL065", False, "excluding the down ports", sparks(
        spark("a", network=spark_port1(NCCL_IB_HCA="^rocep1s0f0,roceP2p1s0f0")), spark("b", network=spark_port1())),
      "--tp-size", "2"),
    c("NCCL065", False, "port number of the active device", sparks(
        spark("a", network=spark_port1(NCCL_IB_HCA="rocep1s0f1:1")), spark("b", network=spark_port1())),
      "--tp-size", "2"),
    c("NCCL065", False, "IB disabled", sparks(
        spark("a", network=spark_port1(NCCL_IB_HCA="rocep1s0f0", NCCL_IB_DISABLE="1")),
        spark("b", network=spark_port1())), "--tp-size", "2"),
    c("NCCL065", False, "HCA unset", sparks(spark("a", network=spark_port1()), spark("b", network=spark_port1())),
      "--tp-size", "2"),
    c("CLU060", False, "sglang tp2 over 2 sparks", sparks(spark("a"), spark("b")), "--tp-size", "2"),
    # NCCL161 (rules/spentB.toml): NCCL 2.30.4's NVLS path hangs MoE weight loading across Sparks (nccl#2167)
    c("NCCL161", True, "2 sparks, vllm tp2 + ep, nccl 2.30.4",
      sparks(spark_nccl("a", "2.30.4"), spark_nccl("b", "2.30.4")), "--tensor-parallel-size", "2",
      "--enable-expert-parallel"),
    c("NCCL161", True, "8 sparks, tp8", sparks(*(spark_nccl(n, "2.30.4") for n in "abcdefgh")),
      "--tensor-parallel-size", "8"),
    c("NCCL161", False, "nccl 2.30.3", sparks(spark_nccl("a", "2.30.3"), spark_nccl("b", "2.30.3")),
      "--tensor-parallel-size", "2"),
    c("NCCL161", False, "nccl 2.30.5", sparks(spark_nccl("a", "2.30.5"), spark_nccl("b", "2.30.5")),
      "--tensor-parallel-size", "2"),
    c("NCCL161", False, "the launch names ray: NCCL160 on each node says it",
      sparks(spark_nccl("a", "2.30.4"), spark_nccl("b", "2.30.4")),
      "--tensor-parallel-size", "2", "--distributed-executor-backend", "ray"),
    c("NCCL161", False, "NCCL_NVLS_ENABLE=0", sparks(*(
        spark_nccl(n, "2.30.4").replace(env={"NCCL_NVLS_ENABLE": "0"}) for n in "ab")), "--tensor-parallel-size", "2"),
    c("NCCL161", False, "two RTX PRO 6000 nodes (12.0), nccl 2.30.4", pair(node("a", nccl="2.30.4"),
                                                                      node("b", nccl="2.30.4")), "--tp-size", "2"),
]
