"""Facts files with many GPUs, for the scale benchmark (bench/bench_scale.py) and its regression test:
the built-in rtx-pro-6000-x8 profile widened to N GPUs with a full pairwise topology, as
`nvidia-smi topo -m` records one host (PIX pairs, NODE inside a NUMA node, SYS across sockets)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

GPUS_PER_NUMA_NODE = 8


def scaled_facts(gpus: int, shape: str = "mesh") -> dict[str, Any]:
    """`mesh`: every pair recorded; `hosts`: only the pairs inside each 8-GPU host."""
    text = (resources.files("doctor.hardware") / "profiles" / "rtx-pro-6000-x8.json").read_text(encoding="utf-8")
    data = json.loads(text)
    template = data["gpus"][0]
    data["source"] = {"kind": "snapshot", "name": f"synthetic {gpus}-GPU host", "notes": [], "references": []}
    data["host"]["numa_nodes"] = max(1, gpus // GPUS_PER_NUMA_NODE)
    data["gpus"] = [{**template, "index": i, "cuda_index": i, "numa_node": i // GPUS_PER_NUMA_NODE}
                    for i in range(gpus)]
    data["topology"] = [{"a": a, "b": b, "kind": _kind(a, b), "p2p_read": None, "p2p_write": None,
                         "p2p_atomics": None, "p2p_nvlink": False}
                        for a in range(gpus) for b in range(a + 1, gpus)
                        if shape == "mesh" or a // GPUS_PER_NUMA_NODE == b // GPUS_PER_NUMA_NODE]
    return data


def _kind(a: int, b: int) -> str:
    if a // 2 == b // 2:
        return "PIX"
    return "NODE" if a // GPUS_PER_NUMA_NODE == b // GPUS_PER_NUMA_NODE else "SYS"


def write_scaled_facts(gpus: int, path: Path, shape: str = "mesh") -> Path:
    path.write_text(json.dumps(scaled_facts(gpus, shape)), encoding="utf-8")
    return path
