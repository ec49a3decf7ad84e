"""What an out-of-memory line's own numbers say (rules/oom.toml reads it as `log.oom`): torch's caching-allocator
message, vLLM's KV-cache and startup messages and llama.cpp's buffer failures print the request, the total, the
free memory and this process's use; the arithmetic on them separates memory held outside the process, the
process's own budget and fragmentation, and turns the engine's figures into the exact flag value."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import re2

from doctor.diagnose.logfacts import LogFacts
from doctor.pipeline.facts import Facts

GIB = 1 << 30
UNITS = {"bytes": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": GIB, "TiB": 1 << 40}
SIZE = r"([\d.]+) ?(bytes|B|KiB|MiB|GiB|TiB)"
# torch >= 2.1 (c10/cuda/CUDACachingAllocator.cpp): one line, its parts in this order
TORCH = {
    "request": re2.compile(r"Tried to allocate " + SIZE),
    "total": re2.compile(r"has a total capac(?:i)?ty of " + SIZE + r" of which " + SIZE + r" is free"),
    "own": re2.compile(r"this process has " + SIZE + r" memory in use"),
    "process": re2.compile(r"Process \d+ has " + SIZE + r" memory in use"),
    "allocated": re2.compile(r"Of the allocated memory " + SIZE + r" is allocated by PyTorch"),
    "unallocated": re2.compile(r"and " + SIZE + r" is reserved by PyTorch but unallocated"),
}
# torch before 2.1: "(GPU 0; 15.78 GiB total capacity; 14.56 GiB already allocated; 16.75 MiB free; 14.70 GiB
# reserved in total by PyTorch)"
TORCH_OLD = re2.compile(r"Tried to allocate " + SIZE + r" \(GPU \d+; " + SIZE + r" total capacity; " + SIZE +
                        r" already allocated; " + SIZE + r" free; " + SIZE + r" reserved in total by PyTorch")
VLLM_KV = re2.compile(r"max seq len \((\d+)\), \(?([\d.]+) GiB KV cache is needed, which is larger than the available "
                      r"KV cache memory \(([\d.]+) GiB\)(?:\. Based on the available memory, the estimated maximum "
                      r"model length is (\d+))?")
VLLM_V0_KV = re2.compile(r"The model's max seq len \((\d+)\) is larger than the maximum number of tokens that can be "
                         r"stored in KV cache \((\d+)\)")
VLLM_STARTUP = re2.compile(r"Free memory on device \S+ \(([\d.]+)/([\d.]+) GiB\) on startup is less than desired GPU "
                           r"memory utilization \(([\d.]+), ([\d.]+) GiB\)")
VLLM_SAMPLER = re2.compile(r"CUDA out of memory occurred when warming up sampler with (\d+)\b")  # wraps after N
OLLAMA_SYSTEM = re2.compile(r"model requires more system memory \(" + SIZE + r"\) than is available \(" + SIZE + r"\)")
LLAMA_ALLOC = re2.compile(r"allocating ([\d.]+) MiB on device (\d+): cudaMalloc failed: out of memory")
LLAMA_BUFFER = re2.compile(r"failed to allocate CUDA(\d+) buffer of size (\d+)")
# GB10's pool as CUDA reports it (119.70-121.69 GiB seen): no discrete GPU has a total in this range
UNIFIED_TOTAL_GIB = (119.0, 122.0)
OUTSIDE_FLOOR = GIB  # memory held elsewhere below this is the CUDA context's order: not a cause of its own
PHASES = ("sampler", "cuda_graph", "profile", "kv_cache", "weights",  # the innermost a traceback shows first
          "llama_compute", "llama_kv", "llama_weights")


def size(number: str, unit: str) -> int:
    return int(float(number) * UNITS[unit])


def gib(value: int | float) -> float:
    return round(value / GIB, 2)


def oom_view(hits: Sequence[Any], log_facts: LogFacts, facts: Facts) -> dict[str, Any]:
    """`log.oom` from the first out-of-memory line a signature matched; {} when none did."""
    for hit in sorted(hits, key=lambda h: h.line):
        view = _read_line(hit.text) or _read_line(" ".join([hit.text, *log_facts.oom_parts]))
        if view:
            view.update(_context(view, log_facts, facts))
            return {"oom": view}
    return {}


def _read_line(text: str) -> dict[str, Any]:
    for reader in (_torch, _torch_old, _vllm_kv, _vllm_v0_kv, _vllm_startup, _vllm_sampler, _ollama_system, _llama):
        view = reader(text)
        if view:
            return view
    return {}


def _torch(text: str) -> dict[str, Any]:
    found = {key: pattern.search(text) for key, pattern in TORCH.items()}
    request, total = found["request"], found["total"]
    if request is None or total is None:
        return {}
    view: dict[str, Any] = {"kind": "torch", "request": size(*request.groups()),
                            "total": size(total.group(1), total.group(2)), "free": size(total.group(3), total.group(4))}
    for key in ("allocated", "unallocated"):
        if found[key] is not None:
            view[key] = size(*found[key].groups())
    own = _own_use(text, found["own"])
    reserved = _reserved(text)
    # torch has printed "this process has 0 bytes memory in use" (NVML not reading the process) and, under WSL2,
    # "17179869184.00 GiB" (bytes printed as GiB): a use below what PyTorch reserved or above the total is not it
    if own is not None and (reserved is None or own >= reserved) and own <= view["total"]:
        view["own"] = own
    return view


def _own_use(text: str, own: Any) -> int | None:
    """This process's use: torch prints it as such without NVML, else one "Process N has" per process on the GPU;
    with one listed it is this one, with several the smallest that holds what PyTorch reserved."""
    if own is not None:
        return size(*own.groups())
    listed = [size(n, u) for n, u in re2.findall(TORCH["process"].pattern, text)]
    if len(listed) == 1:
        return listed[0]
    reserved = _reserved(text)
    fitting = sorted(use for use in listed if reserved is not None and use >= reserved)
    return fitting[0] if fitting and len(fitting) == 1 else None


def _reserved(text: str) -> int | None:
    allocated, unallocated = TORCH["allocated"].search(text), TORCH["unallocated"].search(text)
    if allocated is None or unallocated is None:
        return None
    return size(*allocated.groups()) + size(*unallocated.groups())


def _torch_old(text: str) -> dict[str, Any]:
    match = TORCH_OLD.search(text)
    if match is None:
        return {}
    g = match.groups()
    allocated, reserved = size(g[4], g[5]), size(g[8], g[9])
    return {"kind": "torch", "request": size(g[0], g[1]), "total": size(g[2], g[3]), "free": size(g[6], g[7]),
            "allocated": allocated, "unallocated": max(reserved - allocated, 0)}


def _vllm_kv(text: str) -> dict[str, Any]:
    match = VLLM_KV.search(text)
    if match is None:
        return {}
    max_len, needed, available, estimated = match.groups()
    view = {"kind": "vllm_kv", "max_model_len": int(max_len), "kv_needed_gib": float(needed),
            "kv_available_gib": float(available), "kv_short_gib": round(float(needed) - float(available), 2)}
    if estimated:
        view["fitting_len"] = int(estimated)
    return view


def _vllm_v0_kv(text: str) -> dict[str, Any]:
    match = VLLM_V0_KV.search(text)
    if match is None:
        return {}
    return {"kind": "vllm_kv", "max_model_len": int(match.group(1)), "fitting_len": int(match.group(2))}


def _vllm_startup(text: str) -> dict[str, Any]:
    match = VLLM_STARTUP.search(text)
    if match is None:
        return {}
    free, total, utilization, requested = (float(g) for g in match.groups())
    return {"kind": "vllm_startup", "free_gib": free, "total_gib": total, "utilization": utilization,
            "requested_gib": requested, "held_gib": round(total - free, 2), "short_gib": round(requested - free, 2),
            # the largest share that free memory meets, two decimals, rounded down as vLLM's flag takes it
            "fitting_utilization": math.floor(free / total * 100) / 100 if total else None}


def _vllm_sampler(text: str) -> dict[str, Any]:
    match = VLLM_SAMPLER.search(text)
    if match is None:
        return {}
    requests = int(match.group(1))
    return {"kind": "vllm_sampler", "requests": requests, "fewer_requests": max(requests // 2, 1)}


def _ollama_system(text: str) -> dict[str, Any]:
    match = OLLAMA_SYSTEM.search(text)
    if match is None:
        return {}
    g = match.groups()
    required, available = size(g[0], g[1]), size(g[2], g[3])
    return {"kind": "ollama_system", "required_gib": gib(required), "available_gib": gib(available),
            "short_gib": gib(max(required - available, 0))}


def _llama(text: str) -> dict[str, Any]:
    alloc = LLAMA_ALLOC.search(text)
    if alloc is not None:
        return {"kind": "llama", "request_mib": float(alloc.group(1)), "device": int(alloc.group(2)),
                "request_gib": round(float(alloc.group(1)) / 1024, 2)}
    buffer = LLAMA_BUFFER.search(text)
    if buffer is not None:
        return {"kind": "llama", "request_mib": round(int(buffer.group(2)) / (1 << 20), 2),
                "device": int(buffer.group(1)), "request_gib": gib(int(buffer.group(2)))}
    return {}


def _context(view: dict[str, Any], log_facts: LogFacts, facts: Facts) -> dict[str, Any]:
    extra: dict[str, Any] = {"phase": _phase(log_facts), "unified": _unified(view, facts)}
    if view["kind"] == "torch":
        extra.update(_torch_cause(view))
        for key in ("request", "total", "free", "own", "allocated", "unallocated", "outside", "shortfall"):
            if key in view or key in extra:
                extra[f"{key}_gib"] = gib(extra.get(key, view.get(key)))
    if view["kind"] == "vllm_kv":
        extra["raise_text"] = _raise_text(view, _gpu_total(facts))
    return extra


def _raise_text(view: dict[str, Any], total: int | None) -> str:
    """How much more of the GPU the KV cache needs, as a --gpu-memory-utilization step where the total is known."""
    short = view.get("kv_short_gib")
    if short is None:
        return "raise --gpu-memory-utilization"
    if not total:
        return (f"give the KV cache {short} GiB more: raise --gpu-memory-utilization by {short} GiB over the GPU's "
                "total (`--hardware` names it)")
    step = math.ceil(short * GIB / total * 100) / 100
    return f"give the KV cache {short} GiB more: raise --gpu-memory-utilization by {step} (of {gib(total)} GiB)"


def _torch_cause(view: dict[str, Any]) -> dict[str, Any]:
    """fragmentation: PyTorch's cache holds at least the request unused, in pieces; outside: other holders took
    at least what is missing (freeing them makes room); own: this process holds the rest of the GPU."""
    request, free, total = view["request"], view["free"], view["total"]
    shortfall = max(request - free, 0)
    out: dict[str, Any] = {"shortfall": shortfall}
    if "own" in view:
        out["outside"] = max(total - free - view["own"], 0)
    if request > total:
        out["cause"] = "exceeds_total"  # no share, process or cache of this GPU could hold it
    elif free >= request:
        out["cause"] = "not_short"  # a per-process limit or the driver refusing it, not a full GPU
    elif view.get("unallocated", 0) >= request:
        out["cause"] = "fragmentation"
    elif "outside" in out and out["outside"] >= max(shortfall, OUTSIDE_FLOOR):
        out["cause"] = "outside"
    elif "outside" in out:
        out["cause"] = "own"
    else:
        out["cause"] = "unknown"
    return out


def _phase(log_facts: LogFacts) -> str:
    seen = log_facts.memory_phases
    return next((phase for phase in PHASES if phase in seen), "unknown")


def _gpu_total(facts: Facts) -> int | None:
    return next((gpu.memory_total_bytes for gpu in facts.gpus if gpu.memory_total_bytes), None)


def _unified(view: dict[str, Any], facts: Facts) -> bool:
    """GB10's pool: a GPU of capability 12.1 stated (log or --hardware), or a total only GB10 reports and no GPU of
    another capability stated."""
    capabilities = {gpu.compute_capability for gpu in facts.gpus}
    if capabilities:
        return capabilities == {"12.1"} or any(gpu.unified_memory for gpu in facts.gpus)
    total = view.get("total") or (view.get("total_gib", 0) * GIB)
    return UNIFIED_TOTAL_GIB[0] * GIB <= total <= UNIFIED_TOTAL_GIB[1] * GIB
