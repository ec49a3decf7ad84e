"""The lines users paste when two or more nodes (DGX Sparks over ConnectX-7, RTX PRO boxes) never form one vLLM or
SGLang world: each named with its fix, and the same line on one machine (or another GPU, where the cause differs)
left alone. Lines are quoted from the reports named beside them; where a report's excerpt lacks the launch line
that shows several nodes, the test says so and adds it in the engine's own format."""

from __future__ import annotations

import pytest

from tests.diagnose.corpus import diagnose_on, fix_texts
from tests.diagnose.corpus import rules_named as claimed

# spark-arena/recipe-registry#13: 2x DGX Spark, ghcr.io/spark-arena/dgx-vllm-eugr-nightly:latest (vLLM
# 0.20.1rc1.dev152), MiniMax-M2.7 AWQ TP=2 without --distributed-executor-backend; the worker on node 2
SEMLOCK = b"""FileNotFoundError: [Errno 2] No such file or directory
  File ".../multiprocessing/synchronize.py", line 115, in __setstate__
    self._semlock = _multiprocessing.SemLock._rebuild(*state)
Exception: WorkerProc initialization failed
resource_tracker: '/mp-d2pkm7jf': [Errno 2] No such file or directory
"""
# vLLM's ValueError as vllm/config/parallel.py (0.13.0-0.33.0) prints it, after the Ray head's connect line
WORLD = (b"(APIServer pid=1167) INFO 03-06 08:40:40 [worker.py:1821] Connected to Ray cluster.\n"
         b"(APIServer pid=1167) ValueError: World size (2) is larger than the number of available GPUs (1) in this "
         b"node. If this is intentional and you are using:\n- ray, set '--distributed-executor-backend ray'.\n"
         b"- multiprocessing, set '--nnodes' appropriately.\n")
WORLD_ALONE = (b"ValueError: World size (2) is larger than the number of available GPUs (1) in this node. If this is "
               b"intentional and you are using:\n")
# the line as vllm/config/parallel.py 0.11.1-0.12.x formats it for vllm#29447's deployment (2x GB200 with 4 GPUs each
# over Ray, vLLM 0.11.2, TP 8, no executor flag; the report attaches its log), after its `ray start` line
TP_OLD = (b"ray start --head --num-gpus 4\n"
          b"ValueError: Tensor parallel size (8) cannot be larger than the number of available GPUs (4).\n")
# eugr/spark-vllm-docker#335: 2x DGX Spark, no-Ray mode, DeepSeek-V4-Flash recipe; rank 1 never joins
STORE = b"""(Worker pid=213) ERROR 08-03 13:35:33 [multiproc_executor.py:912]   File
"/usr/local/lib/python3.12/dist-packages/torch/distributed/distributed_c10d.py",
line 1831, in init_process_group
(Worker pid=213) ERROR 08-03 13:35:33 [multiproc_executor.py:912]     store,
rank, world_size = next(rendezvous_iterator)
torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/2 clients joined.
"""
# vllm#16334: one node, --data-parallel-size 4 with --task embed (another cause: a DP engine that never started)
STORE_ONE_NODE = (b"torch.distributed.DistStoreError: Timed out after 601 seconds waiting for clients. 1/4 clients "
                  b"joined.\n")
# gpustack#1640: vLLM 0.7.2 on one worker against a Ray 2.43.0 head (RTX 4090 nodes)
RAY_MISMATCH = b"""RuntimeError: Version mismatch: The cluster was started with:
    Ray: 2.43.0
    Python: 3.11.10
This process on node 10.18.215.196 was started with:
    Ray: 2.44.1
    Python: 3.11.10
"""
# marin-community/marin#6940 (NCCL_SOCKET_IFNAME "=enp90s0np0") and NVIDIA/nccl#1837 (2.27.7, no such interface)
NO_IFACE = b"g5305cc:211:211 [0] NCCL WARN Bootstrap : no socket interface found\n"
NO_IFACE_2277 = (b"[trainer3]:twshared1016:1958:1958 [3] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth2\n"
                 b"[trainer0|0]:ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor "
                 b"AF_INET6(10)\n")
# sglang#3820: two nodes in containers; the report's NCCL line, and NCCL's own inter-node channel line (NET
# transport is used between nodes only) in its INFO format, which the excerpt cuts
CONNECT = (b"node5:236:236 [2] NCCL INFO Bootstrap : Using bond0:10.0.0.3<0>\n"
           b"NCCL WARN socketPollConnect: Connect to 10.0.0.4<56849> returned 113(No route to host) errno "
           b"115(Operation now in progress)\n")
# NCCL 2.28's INFO line while it retries (src/misc/socket.cc): the connection may still succeed
RETRYING = (b"spark:211:300 [0] NCCL INFO socketStartConnect: connect to 10.0.0.2<39913> returned Connection refused, "
            b"retrying (1/35) after sleep for 100 msec\n")
CONNECT_NET = CONNECT + b"node5:236:1500 [2] NCCL INFO Channel 00/0 : 10[2] -> 2[2] [receive] via NET/Socket/0\n"
# vllm#7074: two nodes over Ray, vLLM 0.5.3 (the excerpt's markdown bold removed)
GLOO = (b"(RayWorkerWrapper pid=1978, ip=10.41.0.8) [rank9]:[W ProcessGroupGloo.cpp:721] Warning: Unable to resolve "
        b"hostname to a (local) address. Using the loopback address as fallback. Manually set the network interface "
        b"to bind to with GLOO_SOCKET_IFNAME. (function operator())\n"
        b"(RayWorkerWrapper pid=1890, ip=10.41.0.8) [rank8]:[E ProcessGroupGloo.cpp:144] Gloo connectFullMesh failed "
        b"with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n")
# verl-project/verl#967: the connect line alone, no sign of several nodes
GLOO_ALONE = (b"RuntimeError: Gloo connectFullMesh failed with "
              b"[/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n")
# NVIDIA/nccl#426 (RoCE, fixed by NCCL_IB_GID_INDEX=3), a comment's line
COMPLETION_12 = (b"-worker-1:946:988 [0] transport/net_ib.cc:839 NCCL WARN NET/IB : Got completion with error 12, "
                 b"opcode 1, len 0, vendor err 129\n")
# MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#26 (2x GB10, one global index), with NCCL's INFO line for the variable
UNHANDLED_GID = (b"spark-506c:250:292 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 4.\n"
                 b"initialize_model_parallel -> init_model_parallel_group\n"
                 b"RuntimeError: NCCL error: unhandled system error\n")
UNHANDLED = b"RuntimeError: NCCL error: unhandled system error\n"
# Alibaba-NLP/DeepResearch#107 (GLOO_SOCKET_IFNAME=eth0 hard-coded), as the report quotes it
GLOO_NO_IFACE = b"Unable to find address for: eth0\n"
# eugr/spark-vllm-docker#227: Ray's autoscaler line for vLLM's node-anchored bundle
AUTOSCALER = (b"(EngineCore pid=630) [autoscaler] Error: No available node types can fulfill resource request "
              b"{'GPU': 1.0, 'node:192.168.50.192': 0.001}. Add suitable node types to this cluster to resolve this "
              b"issue.\n")


run = diagnose_on


@pytest.mark.parametrize(("log", "profile", "rule", "fix"), [
    (SEMLOCK, "dgx-spark", "CLU060", "--distributed-executor-backend"),
    (WORLD, None, "CLU060", "--distributed-executor-backend"),
    (WORLD_ALONE, "dgx-spark", "CLU060", "--nnodes"),
    (TP_OLD, None, "CLU060", "--distributed-executor-backend"),
    (STORE, "dgx-spark", "CLU062", "--master-addr"),
    (RAY_MISMATCH, None, "CLU063", "same image"),
    (NO_IFACE, None, "NCCL060", "NCCL_SOCKET_IFNAME"),
    (NO_IFACE_2277, None, "NCCL060", "ibdev2netdev"),
    (CONNECT_NET, None, "NCCL061", "NCCL_SOCKET_IFNAME"),
    (CONNECT, "dgx-spark", "NCCL061", "GLOO_SOCKET_IFNAME"),
    (GLOO, None, "NCCL062", "GLOO_SOCKET_IFNAME"),
    (GLOO_ALONE, "dgx-spark", "NCCL062", "GLOO_SOCKET_IFNAME"),
    (AUTOSCALER, "dgx-spark", "CLU030", "VLLM_HOST_IP"),
    (COMPLETION_12, "dgx-spark", "NCCL063", "show_gids"),
    (UNHANDLED_GID, None, "NCCL063", "show_gids"),
    (GLOO_NO_IFACE, None, "NCCL064", "GLOO_SOCKET_IFNAME"),
    (GLOO_NO_IFACE, "dgx-spark", "NCCL064", "docker inspect"),
])
def test_multinode_line_is_named_with_its_fix(log, profile, rule, fix):
    diagnosis = run(log, profile)
    assert claimed(diagnosis)[:1] == [rule], claimed(diagnosis)
    assert any(fix.lower() in t.lower() for t in fix_texts(diagnosis)), fix_texts(diagnosis)


@pytest.mark.parametrize(("log", "profile", "rule"), [
    (SEMLOCK, None, "CLU060"),  # a SemLock failure with no sign of a Spark: other multiprocessing causes
    (SEMLOCK, "rtx-pro-6000", "CLU060"),
    (WORLD_ALONE, None, "CLU060"),  # one machine with fewer GPUs than TP: the TP is too large (MEM003)
    (WORLD_ALONE, "rtx-5090", "CLU060"),
    (STORE, None, "CLU062"),
    (STORE_ONE_NODE, None, "CLU062"),
    (STORE_ONE_NODE, "rtx-pro-6000", "CLU062"),
    (CONNECT, None, "NCCL061"),
    (CONNECT, "h100-sxm-x8", "NCCL061"),
    (RETRYING, "dgx-spark", "NCCL061"),
    (GLOO_ALONE, None, "NCCL062"),
    (GLOO_ALONE, "rtx-pro-6000", "NCCL062"),
    (AUTOSCALER, "rtx-5090", "CLU030"),
    (COMPLETION_12, None, "NCCL063"),
    (COMPLETION_12, "h100-sxm-x8", "NCCL063"),  # an InfiniBand/switched fabric: other causes of the timeout
    (UNHANDLED, "dgx-spark", "NCCL063"),  # no sign of the variable: /dev/shm, the 7.0 kernels' ENOMEM, ...
    (UNHANDLED_GID, "rtx-pro-6000", "NCCL063"),
])
def test_the_same_line_without_several_nodes_is_not_claimed(log, profile, rule):
    assert rule not in claimed(run(log, profile))
