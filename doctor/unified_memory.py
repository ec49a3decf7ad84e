"""GB10 (DGX Spark) unified memory as the engines see it at startup: one pool shared with the host.

CUDA reports the pool's total as about 121.7 GiB on a 128 GB Spark (vLLM logs `Free memory on device cuda:0
(67.92/121.69 GiB)`, NVIDIA-AI-Blueprints/video-search-and-summarization#1743; `121.63 GiB unified`,
MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark#4), not the 128 GiB of the spec sheet, and "free" is what the host
has not handed out: the page cache, other containers and the OS count as used. vLLM refuses to start when
free < gpu_memory_utilization x total (its release's default share when the flag is unset: 0.9 up to 0.19.x,
0.92 from 0.20.0, read from the wheels); "free" is MemAvailable from 0.12.0 (`MemorySnapshot` on GB10 reads
`psutil.virtual_memory().available`) and cudaMemGetInfo's free, without the reclaimable page cache, before it.
`uma.*` for the rules: the pool, what this machine has available (live probe: /proc/meminfo MemAvailable), and
what the engine will ask for.

How much of the pool an idle Spark leaves free varies by machine: one headless Spark with the page cache dropped
reported 101.3-102.2 GiB at boot (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#47: 0.87 never started), while
NVIDIA's DGX Spark playbooks serve with vLLM's defaults (0.9 in 0.11.1; 0.92, 111.95 GiB, in 0.20.1) and a Spark
benchmark ran 0.87; so the doctor judges the request only against the live MemAvailable (UMA001), never against
a typical figure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from doctor.launch import flag_pairs
from doctor.pipeline.facts import Facts

GiB = 1 << 30
GB10_POOL_BYTES = int(121.69 * GiB)  # cudaMemGetInfo total on a 128 GB DGX Spark (see the module docstring); a
# what-if profile's pool, not a live machine's
VLLM_DEFAULT_UTILIZATION = 0.9  # vLLM's --gpu-memory-utilization default before 0.20.0, when no release is known


def uma_view(facts: Facts, engine: str | None, launch_values: dict[str, Any],
             default_utilization: float | None = None, args: Sequence[str] = (),
             plan: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """None off unified memory; else the pool, what is available now (when probed) and vLLM's request, at the
    launch's --gpu-memory-utilization or the release's default (`default_utilization`), and whether the launch
    spans nodes (a GB10 machine has one GPU: a larger TP/PP world is several machines)."""
    if not facts.gpus or not facts.gpus[0].unified_memory:
        return None
    available = facts.host.memory_available_bytes
    # A probed Spark carries its own total (MemTotal, gather.py): units differ (119.70 GiB on a December 2025 log).
    pool = facts.gpus[0].memory_total_bytes or GB10_POOL_BYTES
    view: dict[str, Any] = {"pool_bytes": pool, "pool_gib": round(pool / GiB, 2),
                            "available_bytes": available,
                            "available_gib": round(available / GiB, 2) if available is not None else None,
                            "launch_spans_nodes": launch_spans_nodes(launch_values, args)}
    weights = ((plan or {}).get("requested") or {}).get("weights_per_gpu_bytes")
    if weights:  # the checkpoint's share of this node, read through the page cache into the same pool
        view.update(weights_gib=round(weights / GiB, 2),
                    weights_exceed_available=None if available is None else weights > available)
    if engine == "vllm":
        explicit = launch_values.get("gpu_memory_utilization")
        fraction = float(explicit or default_utilization or VLLM_DEFAULT_UTILIZATION)
        requested = int(fraction * pool)
        view.update(utilization=fraction, utilization_is_default=not explicit, requested_bytes=requested,
                    requested_gib=round(requested / GiB, 2), host_share_gib=round((pool - requested) / GiB, 1),
                    short=None if available is None else requested > available)
    return view


def launch_spans_nodes(launch_values: dict[str, Any], args: Sequence[str]) -> bool | None:
    """--nnodes above 1 (any engine; vLLM's multiprocessing multi-node too), a node rank or
    rendezvous address, or vLLM's Ray executor (which places ranks on every node of the Ray cluster)."""
    nnodes = launch_values.get("nnodes")
    if isinstance(nnodes, int) and nnodes > 1:
        return True
    if not args:
        return None  # no launch stated (a bare check, or a log that shows none): not known either way
    for flag, value in flag_pairs(list(args)):
        name = flag.replace("_", "-")
        if name == "--nnodes" and (value or "").isdigit() and int(value or 0) > 1:
            return True
        if name in ("--node-rank", "--dist-init-addr", "--nccl-init-addr", "--master-addr") and value:
            return True
        if name == "--distributed-executor-backend" and value == "ray":
            return True
    return False
