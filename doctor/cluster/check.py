"""`check` over several nodes as one deployment: every node checked as on its own but judged by the multi-node
plan, the cluster rules (rules/cluster.toml) over what differs between nodes and the network, and each node's
launch command per engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doctor.cluster.launches import node_launch_sets
from doctor.cluster.layouts import InterNode
from doctor.cluster.network import inter_node, network_view
from doctor.cluster.nodes import Cluster, load_cluster, profile_cluster
from doctor.cluster.plan import cluster_plan
from doctor.cluster.report import ClusterReport, NodeFinding, merge_node_findings
from doctor.cluster.view import cluster_view, launch_world
from doctor.engines import registry
from doctor.hardware.stated import NOTHING_STATED, HostWhatIf, apply_host_what_if
from doctor.launch import Launch, generic_option_flags, parse_launch
from doctor.pipeline.analysis import Analysis, analyze_all, memory_model_for
from doctor.pipeline.check import check_facts
from doctor.pipeline.context import build_context
from doctor.pipeline.rules import Rule, evaluate, load_rules
from doctor.pipeline.unversioned import at_shown_releases
from doctor.plan.planner import Plan

DEFAULT_RAY_TIMEOUT = 120.0


@dataclass(frozen=True)
class ClusterRequest:
    model: str | None = None
    facts_files: Sequence[Path] = ()
    hardware: str | None = None  # a built-in profile, repeated `nodes` times
    nodes: int = 1  # with `hardware` or one facts file: that many identical nodes
    ray_address: str | None = None  # "auto" or host:port of a running Ray cluster
    ray_timeout: float = DEFAULT_RAY_TIMEOUT
    engines: Sequence[str] = ()
    engine_args: Sequence[str] = ()
    options: Mapping[str, int] = field(default_factory=dict)  # --tp/--pp/--ep/--context-length, spelled per engine
    offline: bool = False
    environ: Mapping[str, str] = field(default_factory=dict)
    stated: HostWhatIf = NOTHING_STATED  # --driver / --wsl: what the user states of every node of the profile
    image: Any = None  # --image: the engine image every node runs (doctor.engines.images.ImageFacts)


def run_cluster_check(request: ClusterRequest) -> ClusterReport:
    rules = load_rules()  # first, so a broken knowledge base fails before any probing
    parse_launch(list(request.engine_args))
    cluster, unstated = gather_cluster_unstated(request)
    return check_cluster(cluster, list(request.engine_args), rules, dict(request.environ), request.offline,
                         options=request.options, unstated=unstated, image=request.image)


def gather_cluster_unstated(request: ClusterRequest) -> tuple[Cluster, dict[str, str]]:
    """The cluster as `gather_cluster` gathers it for the engines named with a release, and the engines named
    without one that the head node does not have installed (an installed one is checked at its own release,
    as `check` does on one machine)."""
    from doctor.pipeline.check import installed_instead

    versioned, named = registry.split_engine_specs(request.engines)
    cluster = gather_cluster(dataclasses.replace(request, engines=tuple(versioned)))
    return cluster, installed_instead(cluster.nodes[0], {name: "named" for name in named})[1]


def gather_cluster(request: ClusterRequest) -> Cluster:
    """The nodes' facts (files or Ray), with the `--engine` what-ifs and the model on every node."""
    from doctor.pipeline.gather import with_engines
    from doctor.probe.model import load_model

    if request.ray_address is not None:
        from doctor.cluster.ray_gather import gather_ray

        cluster = gather_ray(request.ray_address, request.ray_timeout)
    elif request.hardware is not None:
        from doctor.probe.env import probe_env

        # As `check --hardware` on one machine: the variables exported where the doctor runs are the launch's,
        # which a launcher hands every node (NCCL_IB_GID_INDEX, GLOO_SOCKET_IFNAME, VLLM_*).
        env = probe_env(request.environ)
        cluster = profile_cluster(request.hardware, request.nodes)
        cluster = cluster.replace_nodes([apply_host_what_if(f, request.stated).replace(env=env)
                                         for f in cluster.nodes])
    else:
        files = list(request.facts_files)
        cluster = load_cluster(files * request.nodes if len(files) == 1 else files)
    model = load_model(request.model, request.environ, offline=request.offline) if request.model else None
    nodes = [with_engines(f, list(request.engines)) for f in cluster.nodes]
    return cluster.replace_nodes([f.replace(model=model) if model else f for f in nodes])


def check_cluster(cluster: Cluster, argv: list[str], rules: list[Rule] | None = None,
                  environ: dict[str, str] | None = None, offline: bool = True,
                  options: Mapping[str, int] | None = None, unstated: Mapping[str, str] | None = None,
                  image: Any = None) -> ClusterReport:
    """The pure part: facts of every node already gathered → per-node reports, cluster findings, launches.
    `options`: the doctor's layout options, written into each engine's launch in its own spelling; `unstated`:
    engines named without a release, each node evaluated at every release as `check` does, planned at the
    release whose plan that check shows. `image`: the engine image every node runs, judged on each as `check
    --image` judges one machine."""
    rules = load_rules() if rules is None else rules
    environ = environ or {}
    network = network_view(cluster)
    net = inter_node(network)
    head = at_shown_releases(cluster.nodes[0], [e for e in map(registry.get, unstated or {}) if e], rules)[0]
    planned_by = {a.engine: _plan(cluster, a, [*generic_option_flags(dict(options or {})), *argv], net, environ,
                                  offline)
                  for a in analyze_all(head, argv, environ, options=options)}
    plans = {engine: summary for engine, (summary, _) in planned_by.items()}

    def plan_for(analysis: Analysis) -> dict[str, Any] | None:
        return plans.get(analysis.engine, analysis.plan)

    launch_file = {"image": image, "recipe": None} if image is not None else None
    reports = tuple(check_facts(node, argv, rules, environ, plan_for=plan_for, options=options, unstated=unstated,
                                launch_file=launch_file)
                    for node in cluster.nodes)
    planned, ranked = next(((p, r) for p, r in planned_by.values() if p and p.get("requested")), (None, ()))
    view = cluster_view(cluster, network, planned)
    launch = reports[0].analysis.run.launch if reports[0].analysis.run else \
        parse_launch([*generic_option_flags(dict(options or {})), *argv])
    context = {**build_context(head, reports[0].analysis, launch),
               "cluster": {**view, **launch_world(reports[0].analysis.tp, launch.get("pp"), cluster.gpus_per_node)}}
    own = [NodeFinding(f) for f in evaluate([r for r in rules if r.area == "cluster"], context)]
    findings = (*own, *merge_node_findings(cluster.names, reports))
    launches = tuple(node_launch_sets(cluster, reports[0], plans, planned))
    return ClusterReport(cluster, reports, view, findings, launches, layouts=ranked)


def _plan(cluster: Cluster, analysis: Analysis, argv: list[str], net: InterNode, environ: dict[str, str],
          offline: bool) -> tuple[dict[str, Any] | None, tuple[Plan, ...]]:
    """The multi-node plan by the analysed engine's own memory formula (the fallback formula, said in a note,
    when no engine is analysed), with its layouts ranked; an engine without one keeps its "no memory model"
    plan."""
    run = analysis.run
    if run is not None:
        engine = registry.get_for(run.library)
        memory, note, launch = engine.memory_model(run), engine.knowledge_note(run.version), run.launch
    else:
        memory, _, note = memory_model_for(cluster.nodes[0], argv)
        launch = parse_launch(argv) if memory is not None else Launch()
    if memory is None:
        return analysis.plan, ()
    return cluster_plan(cluster, memory, launch, net, environ, offline, note)
