"""`--exact` for SGLang: each kernel check as a compile of SGLang's own kernel file (the installed package's, or
the release's wheel from PyPI) at the launch `doctor.kernels.exact_launch` builds for it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from doctor.engines.run import EngineRun, ExactJobs
from doctor.kernels import exact
from doctor.kernels.check import KernelCheck
from doctor.versions import release


def exact_params(check: KernelCheck) -> dict[str, Any]:
    """A check's launch parameters in exact_launch's vocabulary."""
    s, c = check.shape, check.config
    if check.kernel == "extend_attention":
        return {"lq": s["lq"], "lv": s["lv"], "block_m": c["block_m"], "block_n": c["block_n"],
                "num_warps": c["num_warps"], "num_stages": c["num_stages"], "kv_dtype": s["kv_dtype"],
                "kv_group": s["kv_group"]}
    if check.kernel == "decode_attention":
        return {"lk": s["lk"], "lv": s["lv"], "block_n": c["block_n"], "block_h": c["block_h"],
                "num_warps": c["num_warps"], "num_stages": c["num_stages"], "kv_dtype": s["kv_dtype"],
                "grouped": c["block_h"] > 1}
    if check.kernel == "prefill_attention":
        return {"head_dim": s["head_dim"], "block": c["block_m"], "num_warps": c["num_warps"],
                "num_stages": c["num_stages"], "dtype": s["dtype"]}
    if check.kernel == "fused_moe":  # the up GEMM: w13 is [E, 2N, K]
        return {"dtype": s["dtype"], "per_channel": s["per_channel"], "block_shape": s["block_shape"],
                "n": 2 * s["N"], "k": s["K"], "e": s["E"], "config": c}
    raise exact.ExactError(f"no exact mode for SGLang kernel {check.kernel}")


def source_dir(run: EngineRun) -> Path:
    """The installed sglang's site dir, or the release's wheel unpacked into the user cache."""
    return run.site or exact.fetch_sglang(run.library.version)


def exact_jobs(run: EngineRun, checks: Sequence[KernelCheck]) -> ExactJobs:
    from doctor.engines.sglang.kernel_plan import TRITON_PINS

    assert run.gpu is not None
    root = source_dir(run)
    cc = run.gpu.capability[0] * 10 + run.gpu.capability[1]
    jobs = tuple(exact.Job(c.kernel, cc, exact_params(c), source=str(exact.kernel_source(c.kernel, root)))
                 for c in checks)
    pin = next(pin for floor, pin in TRITON_PINS if release(run.version) >= floor)
    return ExactJobs(jobs, pin)
