"""`sm120-doctor plan MODEL`: memory and parallelism plans for a model on a machine, best first."""

from __future__ import annotations

import argparse
import os
from typing import Any

from rich.table import Table
from rich.text import Text

from doctor.commands.options import add_format_option, add_target_options, console, facts_file
from doctor.errors import UsageError
from doctor.plan.kv import KV_DTYPES
from doctor.plan.planner import Plan

GiB = 1 << 30
SHOWN = 12


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("Rank the TP x PP x EP layouts of MODEL on a machine: weights on the fullest GPU, the KV "
                     "cache the engine's memory formula leaves, tokens and concurrent requests, the "
                     "communication path, and the launch flags.")
    add_target_options(p, tp_help="only this tensor-parallel size first (default: rank all layouts)", cluster=True)
    p.add_argument("--pp", type=int, help="pipeline-parallel size of the requested layout")
    p.add_argument("--ep", type=int, help="expert-parallel size of the requested layout (EP divides TP)")
    p.add_argument("--kv-cache-dtype", choices=sorted(KV_DTYPES), help="KV cache dtype (default: auto)")
    p.add_argument("--mem-fraction-static", type=float, help="SGLang: override its default for the GPU size")
    p.add_argument("--context-length", type=int, help="request length for concurrency (default: the model's)")
    p.add_argument("--page-size", type=int, help="KV page size (default 1)")
    p.add_argument("--speculative", action="store_true", help="count MTP/nextn draft layers and their reserve")
    add_format_option(p)


def _check_args(args: argparse.Namespace) -> None:
    for name in ("tp", "pp", "ep", "context_length", "page_size"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
    fraction = args.mem_fraction_static
    if fraction is not None and not 0 < fraction <= 1:
        raise UsageError("--mem-fraction-static must be in (0, 1]")


def _memory_argv(args: argparse.Namespace) -> list[str]:
    """The memory flags of this command as launch flags, for the engine's memory model to read."""
    argv = []
    for name in ("mem_fraction_static", "page_size"):
        value = getattr(args, name)
        if value is not None:
            argv += [f"--{name.replace('_', '-')}", str(value)]
    return argv


def run(args: argparse.Namespace) -> int:
    from doctor.engines import registry
    from doctor.engines.registry import split_engine_specs
    from doctor.formats.document import dumps
    from doctor.formats.plan_document import plan_document
    from doctor.pipeline.analysis import memory_model_for
    from doctor.pipeline.check import installed_instead
    from doctor.pipeline.gather import gather_facts
    from doctor.pipeline.rules import load_rules
    from doctor.pipeline.unversioned import at_shown_releases
    from doctor.plan.advice import no_fit_advice
    from doctor.plan.planner import PlanRequest, make_plans
    from doctor.plan.summary import source_for

    _check_args(args)
    from doctor.commands import cluster

    if cluster.is_cluster(args):
        return cluster.run_plan(args)
    environ = dict(os.environ)
    versioned, named = split_engine_specs(args.engine)
    facts = gather_facts(environ=environ, hardware=args.hardware, facts_file=facts_file(args), engines=versioned,
                         model=args.model, offline=args.offline)
    assert facts.model is not None
    unstated = installed_instead(facts, {name: "named" for name in named})[1]
    facts, unstated_notes = at_shown_releases(facts, [e for e in map(registry.get, unstated) if e], load_rules())
    memory, engine_name, note = memory_model_for(facts, _memory_argv(args))
    if memory is None:
        raise UsageError(f"{engine_name} has no memory model in the doctor yet: no plan for it (pass --engine "
                         "with an engine that has one, e.g. sglang==VERSION)")
    request = PlanRequest(memory=memory, tp=args.tp, pp=args.pp, ep=args.ep, kv_cache_dtype=args.kv_cache_dtype,
                          context_length=args.context_length, speculative=args.speculative)
    source = source_for(facts, environ, args.offline)
    plans = make_plans(facts, facts.model, request, source)
    notes = unstated_notes + ([note] if note else []) + list(source.notes)
    if facts.model.reconstructed:
        notes.append(f"{facts.model.id}: the bundled config is reconstructed, not a copy of the published file")
    fits = any(p.fits for p in plans)
    advice = no_fit_advice(facts, facts.model, request, source, plans[0]) if plans and not fits else None
    document = plan_document(model=facts.model.id, nodes=[facts], engine=memory.engine,
                             engine_version=memory.version, weights_source=source.kind, notes=notes, plans=plans,
                             advice=advice)
    if args.format == "json":
        print(dumps(document))
    else:
        _render(document, plans)
        for line in (advice or {}).get("lines", []):
            console(width=140).print(Text(f"  no fit: {line}", style="yellow"))
    return 0


def _render(document: dict[str, Any], plans: list[Plan]) -> None:
    out = console(width=140)
    hardware = document["nodes"][0]["hardware"]
    where = f"  {document['model']} on {hardware}, {document['engine']} {document['engine_version']}"
    out.print(Text.assemble(("sm120-doctor plan", "bold"), where))
    for note in document["notes"]:
        out.print(Text(f"  {note}", style="dim"))
    table = Table(title="Layouts, best first", title_justify="left")
    for column in ("TP", "PP", "EP", "GPUs", "weights/GPU", "KV/token", "KV tokens", "requests", "verdict"):
        table.add_column(column)
    for plan in plans[:SHOWN]:
        verdict = Text("fits", style="green") if plan.fits else Text("does not fit", style="red")
        if plan.borderline:
            verdict.append(" (borderline)", style="yellow")
        table.add_row(str(plan.tp), str(plan.pp), str(plan.ep), str(plan.tp * plan.pp),
                      f"{plan.weights_per_gpu_bytes / GiB:.2f} GiB", f"{plan.kv_bytes_per_token:,} B",
                      f"{plan.kv_capacity_tokens:,}", str(plan.max_concurrent_requests), verdict)
    out.print(table)
    if len(plans) > SHOWN:
        out.print(Text(f"  {len(plans) - SHOWN} more layouts in --format json", style="dim"))
    top = plans[0]
    out.print(Text(f"TP{top.tp} PP{top.pp} EP{top.ep}:", style="bold"))
    for reason in top.reasons:
        out.print(f"  - {reason}")
    out.print(Text("  flags: " + " ".join(top.flags), style="bold" if top.fits else "dim"))
