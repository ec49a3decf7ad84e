"""Rich console rendering of a ClusterReport. Computes nothing; only lays out what the report holds."""

from __future__ import annotations

from typing import Any

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from doctor.cluster.report import ClusterReport, NodeFinding
from doctor.formats.console import _finding_panel

GiB = 1 << 30


def render_cluster(report: ClusterReport, console: Console) -> None:
    view = report.view
    model = report.cluster.nodes[0].model
    console.print(Text.assemble(("sm120-doctor check", "bold"), f"  {model.id if model else 'no model'} on "
                                f"{view['node_count']} node(s) ({view['origin']})"))
    console.print(_nodes(report))
    if view["skew"]:
        console.print(_skew(view["skew"]))
    console.print(_network(view["network"]))
    plan = view.get("plan")
    if plan and plan.get("layouts"):
        console.print(_layouts(plan))
    for note in (plan or {}).get("notes", []):
        console.print(Text(f"note: {note}", style="dim"))
    console.print(_findings(report.findings))
    for launch in report.launches:
        console.print(_launch(launch))
    c = report.counts()
    console.print(Text(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info",
                       style="bold red" if c["error"] else "bold"))


def render_plan(report: ClusterReport, console: Console) -> None:
    """`plan` over several nodes: the nodes, the ranked layouts and the best one's launch per node."""
    plan = report.view["plan"]
    model = report.cluster.nodes[0].model
    console.print(Text.assemble(("sm120-doctor plan", "bold"), f"  {model.id if model else 'no model'} on "
                                f"{len(report.cluster.nodes)} node(s)"))
    console.print(_nodes(report))
    console.print(_layouts(plan))
    for note in plan.get("notes", []):
        console.print(Text(f"note: {note}", style="dim"))
    top = plan["requested"]
    console.print(Text(f"TP{top['tp']} PP{top['pp']} EP{top['ep']}:", style="bold"))
    for reason in top["reasons"]:
        console.print(f"  - {reason}")
    for launch in report.launches:
        console.print(_launch(launch))


def _nodes(report: ClusterReport) -> Table:
    table = Table(title="Nodes (node-rank order)", title_justify="left")
    for column in ("rank", "node", "GPUs", "model", "driver", "torch", "NCCL"):
        table.add_column(column)
    for rank, facts in enumerate(report.cluster.nodes):
        names = ", ".join(sorted({g.name for g in facts.gpus}))
        torch, nccl = facts.library("torch"), facts.library("nccl")
        table.add_row(str(rank), str(facts.node), str(len(facts.gpus)), names, facts.driver.driver_version or "-",
                      torch.version if torch else "-", nccl.version if nccl else "-")
    for problem in report.cluster.problems:
        table.add_row("-", problem.node, "-", Text(f"left out ({problem.kind}): {problem.detail}", style="red"),
                      "", "", "")
    return table


def _skew(skew: list[dict[str, Any]]) -> Table:
    table = Table(title="Differs between nodes", title_justify="left")
    table.add_column("what")
    table.add_column("values")
    for item in skew:
        table.add_row(item["what"], Text(item["summary"], style="red"))
    return table


def _network(network: dict[str, Any]) -> Text:
    lines = Text("Network\n", style="bold")
    for node in network["nodes"]:
        if not node["known"]:
            lines.append(f"  {node['node']}: no network facts\n", style="dim")
            continue
        speed = f"{node['gbps']:g} Gb/s" if node["gbps"] else "speed unknown"
        gdr = {True: ", GPUDirect RDMA ready", False: ", no GPUDirect RDMA", None: ""}[node["gpudirect_rdma"]]
        lines.append(f"  {node['node']}: {node['transport'].upper()} {speed}{gdr}; up: "
                     f"{', '.join(node['interfaces_up']) or 'none'}\n")
    return lines


def _layouts(plan: dict[str, Any]) -> Table:
    table = Table(title=f"Multi-node layouts, best first ({plan['engine']} {plan['engine_version']}; "
                        f"network: {plan['network']})", title_justify="left")
    for column in ("TP", "PP", "EP", "nodes", "weights/GPU", "KV tokens", "between nodes/token", "tokens/s cap",
                   "verdict"):
        table.add_column(column)
    for p in plan["layouts"]:
        inter = p["inter_node"]
        verdict = Text("fits", style="green") if p["fits"] else Text("does not fit", style="red")
        cap = inter.get("tokens_per_s_ceiling")
        table.add_row(str(p["tp"]), str(p["pp"]), str(p["ep"]), str(inter.get("nodes", "-")),
                      f"{p['weights_per_gpu_bytes'] / GiB:.2f} GiB", f"{p['kv_capacity_tokens']:,}",
                      f"{inter.get('total_bytes', 0):,} B", f"{cap:,}" if cap else "-", verdict)
    return table


def _findings(findings: tuple[NodeFinding, ...]) -> Group | Text:
    if not findings:
        return Text("No findings.", style="green")
    panels = []
    for item in findings:
        panel = _finding_panel(item.finding)
        if item.nodes:
            panel.title = f"{panel.title} [{', '.join(item.nodes)}]"
        panels.append(panel)
    return Group(*panels)


def _launch(launch: dict[str, Any]) -> Panel:
    layout = launch["layout"]
    body = Text()
    for node in launch["nodes"]:
        body.append(f"node {node['rank']} ({node['node']}):\n", style="bold")
        for command in node["commands"]:
            body.append(f"  {command}\n")
        for note in node["notes"]:
            body.append(f"  note: {note}\n", style="dim")
    for note in launch["notes"]:
        body.append(f"note: {note}\n", style="dim")
    title = (f"Launch per node ({launch['engine']} {launch['version']}, TP{layout['tp']} x PP{layout['pp']}"
             f" x EP{layout['ep']} on {layout['nodes']} node(s))")
    return Panel(body, title=title, title_align="left", border_style="green")
