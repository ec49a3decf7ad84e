"""GB10 (DGX Spark) unified memory as the engines see it at startup: one pool shared with the host.

CUDA reports the pool's total as about 121.7 GiB on a 128 GB Spark (vLLM logs `Free memory on device cuda:0
(67.92/121.69 GiB)`, NVIDIA-AI-Blueprints/video-search-and-summarization#1743; `121.63 GiB unified`,
MiaAI-Lab/DeepSeek-v4-Flash-One-DGX-Spark#4), not the 128 GiB of the spec sheet, and "free" is what the host
has not handed out: the page cache, other containers and the OS count as used. vLLM refuses to start when
free < gpu_memory_utilization x total. `uma.*` for the rules: the pool, what this machine has available (live
probe: /proc/meminfo MemAvailable), and what the engine will ask for."""

from __future__ import annotations

from typing import Any

from doctor.pipeline.facts import Facts

GiB = 1 << 30
GB10_POOL_BYTES = int(121.69 * GiB)  # cudaMemGetInfo total on a 128 GB DGX Spark (see the module docstring)
VLLM_DEFAULT_UTILIZATION = 0.9  # vLLM's --gpu-memory-utilization default


def uma_view(facts: Facts, engine: str | None, launch_values: dict[str, Any]) -> dict[str, Any] | None:
    """None off unified memory; else the pool, what is available now (when probed) and vLLM's request."""
    if not facts.gpus or not facts.gpus[0].unified_memory:
        return None
    available = facts.host.memory_available_bytes
    view: dict[str, Any] = {"pool_bytes": GB10_POOL_BYTES, "pool_gib": round(GB10_POOL_BYTES / GiB, 2),
                            "available_bytes": available,
                            "available_gib": round(available / GiB, 2) if available is not None else None}
    if engine == "vllm":
        fraction = float(launch_values.get("gpu_memory_utilization") or VLLM_DEFAULT_UTILIZATION)
        requested = int(fraction * GB10_POOL_BYTES)
        view.update(utilization=fraction, requested_bytes=requested, requested_gib=round(requested / GiB, 2),
                    short=None if available is None else requested > available)
    return view
