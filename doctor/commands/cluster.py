"""`check` and `plan` over several nodes: several --facts files (one per node), or --ray [ADDRESS]."""

from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Any

from doctor.commands.options import console, engine_args, environment, host_what_if, image_engines, layout_options
from doctor.errors import UsageError


def is_cluster(args: argparse.Namespace) -> bool:
    return getattr(args, "ray", None) is not None or len(args.facts or []) > 1 or _nodes(args) > 1


def _nodes(args: argparse.Namespace) -> int:
    """--nodes N: N identical nodes of the one --hardware profile or --facts file (1 when not given)."""
    nodes = getattr(args, "nodes", None)
    if nodes is None:
        return 1
    if nodes < 1:
        raise UsageError("--nodes must be at least 1")
    if getattr(args, "ray", None) is not None:
        raise UsageError("--nodes goes with --hardware or one --facts file; --ray finds the nodes itself")
    if len(args.facts or []) > 1:
        raise UsageError("--nodes goes with one --facts file (several files already name one node each)")
    if args.hardware is None and not args.facts:
        raise UsageError("--nodes needs --hardware PROFILE or one --facts FILE to repeat")
    return nodes


def _ray_address(args: argparse.Namespace) -> str | None:
    address = getattr(args, "ray", None)
    if address is None:
        return None
    if address != "auto" and ":" not in address:
        raise UsageError(f"--ray {address}: expected `auto` or HOST:PORT of the Ray head (put MODEL before --ray)")
    if not 0 < args.ray_timeout <= 24 * 3600:
        raise UsageError("--ray-timeout must be between 0 and 86400 seconds")
    return address


def cluster_request(args: argparse.Namespace) -> Any:
    from doctor.cluster.check import ClusterRequest

    image, engines = None, list(args.engine or ())
    if getattr(args, "image", None):
        image, engines = image_engines(args.image, engines)
    return ClusterRequest(model=args.model, facts_files=tuple(args.facts or ()), hardware=args.hardware,
                          nodes=_nodes(args), ray_address=_ray_address(args),
                          ray_timeout=getattr(args, "ray_timeout", 120.0), engines=engines,
                          engine_args=engine_args(args), options=layout_options(args), offline=args.offline,
                          environ=environment(), stated=host_what_if(args), image=image)


def run_check(args: argparse.Namespace, settings: Any) -> int:
    from doctor.cluster.check import run_cluster_check

    if args.fix:
        raise UsageError("--fix works on one machine: run it on each node (the cluster check shows what each needs)")
    if args.format not in ("console", "json"):
        raise UsageError(f"--format {args.format} is for one machine; a cluster check writes console or json")
    report = run_cluster_check(cluster_request(args))
    document = json.dumps(report.to_dict(), indent=2)
    if args.output is not None:
        from doctor.output import write_text_atomic

        write_text_atomic(args.output, document + "\n")
    if args.format == "json":
        print(document)
    else:
        from doctor.cluster.console import render_cluster

        render_cluster(report, console(width=160))
    return 1 if report.worst_at_or_above(settings.fail_on) else 0


def run_plan(args: argparse.Namespace) -> int:
    """The multi-node plans of `plan` (--kv-cache-dtype and --context-length become launch flags)."""
    from doctor.cluster.check import check_cluster, gather_cluster_unstated

    request = cluster_request(args)  # --context-length is a layout option; --kv-cache-dtype is spelled alike
    value = getattr(args, "kv_cache_dtype", None)
    if value is not None:
        request = dataclasses.replace(request, engine_args=["--kv-cache-dtype", str(value), *request.engine_args])
    cluster, unstated = gather_cluster_unstated(request)
    report = check_cluster(cluster, list(request.engine_args), environ=dict(request.environ),
                           offline=request.offline, options=request.options, unstated=unstated)
    plan = report.view.get("plan")
    if not plan or not plan.get("layouts"):
        reason = ((plan or {}).get("error")
                  or "the engine has no memory model in the doctor (pass --engine NAME==VERSION)")
        raise UsageError(f"no multi-node plan: {reason}")
    if args.format == "json":
        from doctor.formats.document import dumps
        from doctor.formats.plan_document import plan_document

        model = report.cluster.nodes[0].model
        print(dumps(plan_document(model=model.id if model else None, nodes=report.cluster.nodes,
                                  engine=plan["engine"], engine_version=plan["engine_version"],
                                  weights_source=plan["weights_source"], notes=plan["notes"],
                                  plans=report.layouts, network=plan["network"], launches=report.launches)))
    else:
        from doctor.cluster.console import render_plan

        render_plan(report, console(width=160))
    return 0
