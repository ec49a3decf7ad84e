"""SGLang over several nodes: every node runs the same `launch_server` with `--nnodes`, its own `--node-rank`
and the head's `--dist-init-addr`; `--tp-size` and `--pp-size` are the sizes over the whole deployment
(docs: https://docs.sglang.io/references/multi_node_deployment/multi_node.html).

The flags exist in every release the doctor knows: `sglang/srt/server_args.py` add_argument calls in 0.5.8
(`--dist-init-addr`, `--nnodes`, `--node-rank`, `--pp-size`) and `sglang/srt/arg_groups/fields/parallel.py`
fields in 0.5.23 (`dist_init_addr`, `nnodes`, `node_rank`, `pp_size`); tests/engines/sglang/test_multinode.py
checks them against the wheels of the boundary releases.
"""

from __future__ import annotations

from typing import Any

from doctor.engines.spi import Engine, EngineRun, Launch, LaunchCommand, MultiNode, NodeLaunch, command, flags_without

MULTINODE_FLAGS = ("--dist-init-addr", "--nnodes", "--node-rank", "--pp-size")
DIST_INIT_PORT = 20000  # the port SGLang's multi-node docs use
SERVER_ONLY_ON_HEAD = ("--host", "0.0.0.0")


def node_launches(engine: Engine, run: EngineRun, base: LaunchCommand, layout: MultiNode) -> list[NodeLaunch]:
    model = run.facts.model.id if run.facts.model else "MODEL"
    flags = flags_without(engine, base, model, ("tp", "pp", "ep"), ("--nnodes", "--node-rank", "--dist-init-addr",
                                                                     "--nccl-init-addr"))
    sizes = ["--tp-size", str(layout.tp)]
    if layout.pp > 1:
        sizes += ["--pp-size", str(layout.pp)]
    if layout.ep > 1:
        sizes += ["--ep-size", str(layout.ep)]
    out = []
    for node in layout.nodes:
        where = ["--nnodes", str(len(layout.nodes)), "--node-rank", str(node.rank),
                 "--dist-init-addr", f"{layout.head}:{DIST_INIT_PORT}"]
        serve = list(SERVER_ONLY_ON_HEAD) if node.rank == 0 and "--host" not in flags.items else []
        argv = [*engine.base_command(model), *sizes, *where, *flags.argv(), *serve]
        note = ("serves the API (--host 0.0.0.0)" if node.rank == 0
                else f"worker: joins {layout.head}:{DIST_INIT_PORT}; serves no API")
        out.append(NodeLaunch(node.name, node.rank, (command(base, argv),), (note,)))
    return out


def world_over_nodes(launch: Launch) -> dict[str, Any] | None:
    """What one node's launch says of the world it joins (`--nnodes` > 1): SGLang's check_server_args asserts
    `(tp_size * pp_size) % nnodes == 0` (server_args.py 0.5.1-0.5.18, arg_groups/validation_hook.py 0.5.19-0.5.23);
    tp and pp default to 1 there."""
    nnodes = int(launch.get("nnodes") or 1)
    if nnodes <= 1:
        return None
    tp, pp = int(launch.get("tp") or 1), int(launch.get("pp") or 1)
    return {"tp": tp, "pp": pp, "nnodes": nnodes, "splits": (tp * pp) % nnodes == 0}
