"""TensorRT-LLM over several nodes: one MPI world of tp x pp ranks, started once from the head. `mpirun` starts
every rank (over ssh on the other nodes) through `trtllm-llmapi-launch`, which runs `trtllm-serve` as the LLM API's
MPI session; `--tp_size` and `--pp_size` are over the whole world (NVIDIA/TensorRT-LLM
examples/llm-api/llm_mgmn_trtllm_serve.sh does the same with `srun --mpi=pmix` on Slurm:
https://github.com/NVIDIA/TensorRT-LLM/blob/main/examples/llm-api/llm_mgmn_trtllm_serve.sh)."""

from __future__ import annotations

from doctor.cluster.node_commands import MultiNode, NodeLaunch, command, flags_without
from doctor.engines.base import Engine
from doctor.engines.run import EngineRun, LaunchCommand

LAUNCHER = "trtllm-llmapi-launch"


def node_launches(engine: Engine, run: EngineRun, base: LaunchCommand, layout: MultiNode) -> list[NodeLaunch]:
    model = run.facts.model.id if run.facts.model else "MODEL"
    flags = flags_without(engine, base, model, ("tp", "pp", "ep"), ("--host",))
    world = layout.tp * layout.pp
    per_node = world // len(layout.nodes)
    sizes = ["--tp_size", str(layout.tp), "--pp_size", str(layout.pp)]
    if layout.ep > 1:
        sizes += ["--ep_size", str(layout.ep)]
    hosts = ",".join(f"{node.address}:{per_node}" for node in layout.nodes)
    serve = [*engine.base_command(model), *sizes, *flags.argv(), "--host", "0.0.0.0"]
    mpirun = ["mpirun", "-H", hosts, "-np", str(world), LAUNCHER, *serve]
    slurm = (f"on Slurm instead: srun -N {len(layout.nodes)} --ntasks-per-node={per_node} --mpi=pmix "
             f"{LAUNCHER} {' '.join(serve)}")
    head = NodeLaunch(layout.nodes[0].name, 0, (command(base, mpirun),),
                      (f"starts all {world} ranks ({per_node} per node) and serves the API", slurm))
    workers = [NodeLaunch(node.name, node.rank, (),
                          (f"nothing to start: mpirun on {layout.head} starts this node's {per_node} ranks over "
                           "ssh; it needs passwordless ssh from the head and TensorRT-LLM at the same path",))
               for node in layout.nodes[1:]]
    return [head, *workers]
