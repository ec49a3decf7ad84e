"""vLLM over several nodes with its Ray executor: a Ray cluster over the nodes (`ray start --head` on the head,
`ray start --address` on the others, each with the environment the engine needs, since Ray's workers inherit
the raylet's), then one `vllm serve` on the head with `--distributed-executor-backend ray`; the tensor- and
pipeline-parallel sizes are over the whole deployment (docs: https://docs.vllm.ai/en/stable/serving/
parallelism_scaling.html, "Multi-node deployment"; examples/online_serving/run_cluster.sh).

Every release the doctor knows has the flags: `vllm/engine/arg_utils.py` defines `--distributed-executor-backend`
and `--pipeline-parallel-size` from 0.8.5 to 0.33.0, and `vllm/config/parallel.py` lists "ray" among
`DistributedExecutorBackend`; tests/engines/vllm/test_multinode.py checks them against the wheels. vLLM has no
EP size: `--enable-expert-parallel` runs the MoE layers with EP = TP x DP.
"""

from __future__ import annotations

import ipaddress

from doctor.cluster.node_commands import MultiNode, NodeLaunch, command, flags_without
from doctor.engines.base import Engine
from doctor.engines.run import EngineRun, LaunchCommand

MULTINODE_FLAGS = ("--distributed-executor-backend", "--pipeline-parallel-size")
RAY_PORT = 6379  # Ray's default GCS port, as vLLM's run_cluster.sh uses it


def node_launches(engine: Engine, run: EngineRun, base: LaunchCommand, layout: MultiNode) -> list[NodeLaunch]:
    model = run.facts.model.id if run.facts.model else "MODEL"
    flags = flags_without(engine, base, model, ("tp", "pp", "ep"),
                          ("--distributed-executor-backend", "--enable-expert-parallel", "-tp", "-pp"))
    sizes = ["--tensor-parallel-size", str(layout.tp), "--pipeline-parallel-size", str(layout.pp),
             "--distributed-executor-backend", "ray"]
    notes = []
    if layout.ep > 1:
        sizes.append("--enable-expert-parallel")
        if layout.ep != layout.tp:
            notes.append(f"vLLM has no EP size: --enable-expert-parallel gives EP {layout.tp} (TP x DP), "
                         f"not the EP {layout.ep} planned")
    out = []
    for node in layout.nodes:
        env = {**base.env, **({"VLLM_HOST_IP": node.address} if _is_ip(node.address) else {})}
        if node.rank == 0:
            steps = (command(base, ["ray", "start", "--head", f"--port={RAY_PORT}"], env),
                     command(base, [*engine.base_command(model), *sizes, *flags.argv()], env))
            note = f"head: start Ray, wait for the {len(layout.nodes) - 1} worker(s) to join (`ray status`), then serve"
        else:
            steps = (command(base, ["ray", "start", f"--address={layout.head}:{RAY_PORT}", "--block"], env),)
            note = f"worker: joins the Ray cluster at {layout.head}:{RAY_PORT}; vLLM places its ranks here"
        unknown_ip = () if _is_ip(node.address) else (f"set VLLM_HOST_IP to {node.name}'s IP address (each node "
                                                       f"its own; the facts do not record it)",)
        out.append(NodeLaunch(node.name, node.rank, steps, (note, *notes, *unknown_ip)))
    return out


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
