"""`sm120-doctor kernels MODEL`: the Triton kernels the engine will launch for a model on a GPU, with
their configs and shared memory against the limit; `--exact` compiles each one ahead of time."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from rich.table import Table

from doctor.commands.options import add_format_option, add_target_options, check_request, console
from doctor.errors import UsageError
from doctor.kernels.check import KernelCheck
from doctor.pipeline.report import Report


def register(p: argparse.ArgumentParser) -> None:
    add_target_options(p)
    p.add_argument("--exact", action="store_true", help="compile each kernel ahead of time with Triton (CPU)")
    p.add_argument("--triton", metavar="VERSION", help="with --exact: the Triton to compile with (from PyPI)")
    add_format_option(p)


def run(args: argparse.Namespace) -> int:
    from doctor.pipeline.check import run_check

    report = run_check(check_request(args))
    checks = list(report.analysis.kernels)
    if args.exact and checks:
        checks = exact_checks(report, checks, args.triton)
    if args.format == "json":
        from doctor.formats.document import dumps

        print(dumps(kernels_document(report, checks, exact=bool(args.exact and checks))))
    else:
        _table(report, checks)
    return 1 if any(c.fits is False for c in checks) else 0


def kernels_document(report: Report, checks: list[KernelCheck], exact: bool) -> dict[str, Any]:
    """schema/kernels.schema.json: what was analysed (engine, GPU, attention backend) and each kernel."""
    from doctor.formats.document import document

    gpu = report.facts.gpus[0] if report.facts.gpus else None
    analysis = report.analysis
    return document(model=report.facts.model.id if report.facts.model else None, engine=analysis.engine,
                    engine_version=analysis.engine_version, gpu=gpu.name if gpu else None,
                    compute_capability=gpu.compute_capability if gpu else None,
                    attention_backend=analysis.attention_backend, exact=exact,
                    kernels=[c.to_dict() for c in checks], notes=list(analysis.notes))


def exact_checks(report: Report, checks: list[KernelCheck], triton_version: str | None) -> list[KernelCheck]:
    """The analysed engine's kernels compiled ahead of time (doctor.engines.exact); a failure is one line."""
    from doctor.engines.exact import exact_checks as compile_checks
    from doctor.kernels.exact import ExactError

    run = report.analysis.run
    if run is None or run.gpu is None:
        raise UsageError("--exact needs an engine and a GPU: install one or pass --engine NAME==VERSION "
                         "and --hardware PROFILE")
    try:
        return _with_progress(lambda progress: compile_checks(run, checks, triton_version, progress))
    except ExactError as exc:
        raise UsageError(str(exc)) from None


def _with_progress(work: Callable[[Callable[[int, int], None]], list[KernelCheck]]) -> list[KernelCheck]:
    """A progress bar on stderr (a terminal only) while `work` compiles, one process per core."""
    import sys

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console(stderr=True), transient=True, disable=not sys.stderr.isatty()) as bar:
        task = bar.add_task("compiling with Triton", total=None)
        return work(lambda done, total: bar.update(task, completed=done, total=total))


def _table(report: Report, checks: list[KernelCheck]) -> None:
    gpu = report.facts.gpus[0] if report.facts.gpus else None
    on = gpu.name if gpu else "a GPU not known"
    table = Table(title=f"Kernels: {report.analysis.engine} {report.analysis.engine_version} on {on}, "
                        f"attention backend {report.analysis.attention_backend}",
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
