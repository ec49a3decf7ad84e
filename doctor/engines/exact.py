"""`--exact`, engine-agnostic: the analysed engine turns its kernel checks into compile jobs of its own kernel
sources (Engine.exact_jobs), the jobs compile in worker processes with the Triton asked for, installed or the
release's pin (doctor.kernels.exact.compile_many: one process per core, the persistent result cache), and each
check gets the compiled bytes with method "exact"."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from doctor.engines.run import EngineRun
from doctor.kernels import exact
from doctor.kernels.check import KernelCheck

Progress = Callable[[int, int], None]


def triton_site(run: EngineRun, asked: str | None, pinned: str) -> Path | None:
    """The Triton to compile with: `asked` (from PyPI), else the installed one (None: this interpreter's),
    else the version a what-if names, else the release's pin; the last three from a private install."""
    if asked:
        return exact.ensure_triton(asked)
    installed = run.facts.library("triton")
    if installed is not None and not installed.what_if:
        return None
    return exact.ensure_triton(installed.version if installed else pinned)


def exact_checks(run: EngineRun, checks: Sequence[KernelCheck], triton: str | None = None,
                 progress: Progress | None = None) -> list[KernelCheck]:
    """`checks` with their bytes compiled; raises ExactError (one line) when the engine has no exact mode, a
    source cannot be had or a kernel does not compile."""
    from doctor.engines.registry import get_for

    engine = get_for(run.library)
    planned = engine.exact_jobs(run, checks)
    if planned is None:
        raise exact.ExactError(f"--exact: the doctor cannot compile {engine.display_name}'s kernels ahead of time")
    site = triton_site(run, triton, planned.triton)
    results = exact.compile_many(planned.jobs, None, site, cache_dir=exact.user_cache() / "smem-results",
                                 progress=progress)
    out = []
    for check, result in zip(checks, results, strict=True):
        if "shared" not in result:
            error = str(result.get("error", "?")).strip().splitlines()[-1:] or ["?"]
            raise exact.ExactError(f"exact compile of {check.kernel} ({check.path}) failed: {error[0]}")
        out.append(dataclasses.replace(check, bytes=int(result["shared"]), method="exact"))
    return out
