"""`sm120-doctor kernels MODEL`: the Triton kernels the engine will launch for a model on a GPU, with
their configs and shared memory against the limit; `--exact` compiles each one ahead of time."""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path
from typing import Any

from rich.table import Table

from doctor.commands.options import add_format_option, add_target_options, check_request, console
from doctor.errors import UsageError
from doctor.kernels.check import KernelCheck
from doctor.report import Report


def register(p: argparse.ArgumentParser) -> None:
    add_target_options(p)
    p.add_argument("--exact", action="store_true", help="compile each kernel ahead of time with Triton (CPU)")
    p.add_argument("--triton", metavar="VERSION", help="with --exact: the Triton to compile with (from PyPI)")
    add_format_option(p)


def run(args: argparse.Namespace) -> int:
    from doctor.check import run_check

    report = run_check(check_request(args))
    checks = list(report.analysis.kernels)
    if args.exact and checks:
        checks = exact_checks(report, checks, args.triton)
    if args.format == "json":
        print(json.dumps([c.to_dict() for c in checks], indent=2))
    else:
        _table(report, checks)
    return 1 if any(c.fits is False for c in checks) else 0


def exact_params(check: KernelCheck) -> dict[str, Any]:
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
    raise UsageError(f"no exact mode for kernel {check.kernel}")


def exact_checks(report: Report, checks: list[KernelCheck], triton_version: str | None) -> list[KernelCheck]:
    from doctor.engines.sglang.kernel_plan import TRITON_PINS
    from doctor.engines.versions import release, version_of
    from doctor.kernels import exact

    library = report.facts.library("sglang")
    version = version_of(library)
    if library is None or version is None:
        raise UsageError("--exact needs SGLang: install it or pass --engine sglang==VERSION")
    sglang_dir = Path(library.location) if library.location and not library.what_if else \
        exact.fetch_sglang(library.version)
    installed = report.facts.library("triton")
    if triton_version:
        site = exact.ensure_triton(triton_version)
    elif installed is not None and not installed.what_if:
        site = None
    else:
        wanted = installed.version if installed else next(p for floor, p in TRITON_PINS if release(version) >= floor)
        site = exact.ensure_triton(wanted)
    gpu = report.facts.gpus[0]
    cc = gpu.capability[0] * 10 + gpu.capability[1]
    jobs = [exact.Job(c.kernel, cc, exact_params(c)) for c in checks]
    results = _compile_with_progress(jobs, sglang_dir, site)
    out = []
    for check, result in zip(checks, results, strict=True):
        if "shared" not in result:
            raise UsageError(f"exact compile of {check.kernel} ({check.path}) failed: {result.get('error', '?')}")
        out.append(dataclasses.replace(check, bytes=int(result["shared"]), method="exact"))
    return out


def _compile_with_progress(jobs: list[Any], sglang_dir: Path, site: Path | None) -> list[dict[str, Any]]:
    """One compile process per core, a progress bar on stderr while they run (a terminal only), and the
    persistent result cache (kernel source hash, launch, Triton version, target)."""
    import sys

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from doctor.kernels import exact

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console(stderr=True), transient=True, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("compiling with Triton", total=None)
        return exact.compile_many(jobs, sglang_dir, site, cache_dir=exact.user_cache() / "smem-results",
                                  progress=lambda done, total: bar.update(task, completed=done, total=total))


def _table(report: Report, checks: list[KernelCheck]) -> None:
    gpu = report.facts.gpus[0] if report.facts.gpus else None
    table = Table(title=f"Kernels: {report.analysis.engine} {report.analysis.engine_version} on "
                        f"{gpu.name if gpu else '?'}, attention backend {report.analysis.attention_backend}",
                  title_justify="left")
    for column in ("kernel", "path", "shape", "config", "bytes", "limit", "verdict", "method"):
        table.add_column(column)
    for c in checks:
        table.add_row(c.kernel, c.path, ",".join(f"{k}={v}" for k, v in c.shape.items()),
                      ",".join(f"{k}={v}" for k, v in c.config.items()), str(c.bytes), str(c.limit),
                      c.verdict, c.method)
    console(width=160).print(table)
    for note in report.analysis.notes:
        print(f"note: {note}")
