"""How many nvcc processes a FlashInfer JIT build runs at once, against the host memory left for them (FI250,
FI251): `build.jit.*` for the rules.

FlashInfer's `run_ninja` passes ninja `-j N` only when MAX_JOBS is set to digits (flashinfer/jit/cpp_ext.py
`_get_num_workers`, 0.5.0-0.7.4 wheels); otherwise ninja picks its own default, `GuessParallelism()`: 2 for 0-1
processors, 3 for 2, else processors + 2 (ninja src/ninja.cc). Each nvcc of FlashInfer's SM120 CUTLASS FP4 modules
was reported at roughly 3-8 GiB (flashinfer-ai/flashinfer#3634, PR 3636): the low end is what every job surely
takes, so only jobs x 3 GiB over the memory available is read as running out.

The memory is this machine's MemAvailable when a live probe (or a snapshot, or the deployment's own statement) gave
it; a built-in profile states none, and then the view says the host was not measured. On unified memory (GB10)
the loaded weights sit in the same pool, so the plan's weights are taken off first."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from doctor.pipeline.facts import Facts

GiB = 1 << 30
NVCC_JOB_LOW_BYTES = 3 * GiB  # per nvcc job of the SM120 CUTLASS FP4 modules, low end of the reported range
NVCC_JOB_HIGH_BYTES = 8 * GiB  # high end


def ninja_default_jobs(processors: int) -> int:
    """ninja's own -j when none is given (GuessParallelism)."""
    if processors <= 1:
        return 2
    return 3 if processors == 2 else processors + 2


def max_jobs(env: Mapping[str, str]) -> int | None:
    """FlashInfer's cap: MAX_JOBS when it is all digits, else none. `-j 0` is no cap to ninja: read as none."""
    value = env.get("MAX_JOBS")
    if value is None or not value.isdigit() or int(value) == 0:
        return None
    return int(value)


def jit_view(facts: Facts, plan: Mapping[str, Any] | None) -> dict[str, Any]:
    """`build.jit`: the parallel nvcc jobs, the memory they have, and the low/high estimate of what they take.
    `exceeds_low` / `exceeds_high` are None when either side is unknown (host not measured, cores unknown)."""
    cap = max_jobs(facts.env)
    cpus = facts.host.cpu_count
    jobs = cap if cap is not None else (ninja_default_jobs(cpus) if cpus else None)
    available, weights = _available(facts, plan)
    view: dict[str, Any] = {"max_jobs": cap, "cpu_count": cpus, "jobs": jobs, "measured": available is not None,
                            "available_gib": _gib(available), "weights_taken_gib": _gib(weights)}
    if jobs is None:
        return {**view, "need_low_gib": None, "need_high_gib": None, "exceeds_low": None, "exceeds_high": None}
    low, high = jobs * NVCC_JOB_LOW_BYTES, jobs * NVCC_JOB_HIGH_BYTES
    return {**view, "need_low_gib": _gib(low), "need_high_gib": _gib(high),
            "exceeds_low": None if available is None else low > available,
            "exceeds_high": None if available is None else high > available}


def _available(facts: Facts, plan: Mapping[str, Any] | None) -> tuple[int | None, int | None]:
    """(memory the compile jobs have, the weights taken off it on unified memory)."""
    available = facts.host.memory_available_bytes
    if available is None:
        return None, None
    unified = bool(facts.gpus) and bool(facts.gpus[0].unified_memory)
    weights = ((plan or {}).get("requested") or {}).get("weights_per_gpu_bytes") if unified else None
    return (max(0, available - weights), weights) if weights else (available, None)


def _gib(value: int | None) -> float | None:
    return None if value is None else round(value / GiB, 1)
