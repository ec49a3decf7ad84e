"""Rich console rendering of a Report. Computes nothing; only lays out what the report holds."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from doctor.findings import Finding
from doctor.pipeline.analysis import Analysis
from doctor.pipeline.conditions import NOT_KNOWN
from doctor.pipeline.facts import Facts
from doctor.pipeline.report import Report

STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
GiB = 1 << 30
MAX_MATRIX_GPUS = 16  # wider than a terminal beyond this; larger machines get link counts instead


def render_console(report: Report, console: Console) -> None:
    facts = report.facts
    console.print(_header(facts))
    if facts.gpus:
        console.print(_gpu_table(facts))
    if len(facts.gpus) > 1 and facts.topology:
        console.print(_topology_matrix(facts) if len(facts.gpus) <= MAX_MATRIX_GPUS else _topology_counts(facts))
    console.print(_libraries(facts))
    if facts.model is not None:
        console.print(_model(facts))
    for analysis in report.analyses:
        if analysis.kernels:
            console.print(_kernels(analysis))
        if analysis.plan and analysis.plan.get("requested"):
            console.print(_plan(analysis.plan))
        for note in analysis.notes:
            console.print(Text(f"note: {note}", style="dim"))
    console.print(_findings(report))
    for launch in report.launches:
        console.print(_launch(launch))
    console.print(_summary(report))


def _header(facts: Facts) -> Text:
    src = facts.source
    where = {"live": "live probe of this machine", "profile": f"built-in hardware profile {src.name}",
             "snapshot": f"facts snapshot {src.name or ''}"}.get(src.kind, src.kind)
    text = Text.assemble(("sm120-doctor", "bold"), f"  facts from {where}")
    if not facts.driver.present and src.kind == "live":
        text.append(f"\nno NVIDIA driver: {facts.driver.error}", style="yellow")
    for note in src.notes:
        text.append(f"\n  {note}", style="dim")
    return text


def _gpu_table(facts: Facts) -> Table:
    """One row per group of identical GPUs (an 8-GPU box is one line, not eight)."""
    table = Table(title="GPUs", title_justify="left")
    for column in ("GPUs", "CUDA", "name", "CC", "SMs", "memory", "smem/block", "PCIe", "NUMA"):
        table.add_column(column)
    groups: dict[tuple, list] = {}
    for g in facts.gpus:
        pcie = f"gen{g.pcie.gen_current} x{g.pcie.width_current}" if g.pcie and g.pcie.gen_current else "-"
        memory = f"{g.memory_total_bytes / GiB:.1f} GiB" if g.memory_total_bytes else "n/a"
        if g.unified_memory:
            memory += " (unified)"
        smem = f"{g.smem_per_block_optin} B ({g.smem_source})" if g.smem_per_block_optin else "unknown"
        key = (g.name, g.compute_capability, _opt(g.sm_count), memory, smem, pcie)
        groups.setdefault(key, []).append(g)
    for (name, cc, sms, memory, smem, pcie), members in groups.items():
        table.add_row(_ids(g.index for g in members), _ids(g.cuda_index for g in members), name, cc, sms,
                      memory, smem, pcie, _ids(g.numa_node for g in members))
    return table


def _ids(values: object) -> str:
    items = list(values)  # type: ignore[call-overload]
    if all(v is None for v in items):
        return "-"
    unique = sorted({v for v in items if v is not None})
    if len(unique) > 2 and unique == list(range(unique[0], unique[-1] + 1)):
        return f"{unique[0]}-{unique[-1]}"
    return ",".join(str(v) for v in unique)


def _topology_matrix(facts: Facts) -> Table:
    table = Table(title="Topology (like nvidia-smi topo -m)", title_justify="left")
    table.add_column("")
    for g in facts.gpus:
        table.add_column(f"GPU{g.index}")
    for a in facts.gpus:
        cells = []
        for b in facts.gpus:
            link = facts.link(a.index, b.index)
            cells.append("X" if a.index == b.index else (link.kind if link else "?"))
        table.add_row(f"GPU{a.index}", *cells)
    return table


def _topology_counts(facts: Facts) -> Text:
    counts: dict[str, int] = {}
    for link in facts.topology:
        counts[link.kind] = counts.get(link.kind, 0) + 1
    pairs = len(facts.gpus) * (len(facts.gpus) - 1) // 2
    listed = ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
    return Text(f"Topology: {len(facts.topology)} of {pairs} GPU pairs recorded ({listed}); the matrix is shown "
                f"up to {MAX_MATRIX_GPUS} GPUs")


def _libraries(facts: Facts) -> Text:
    if not facts.libraries:
        return Text("libraries: none of the tracked packages is installed", style="dim")
    parts = []
    for name, lib in sorted(facts.libraries.items()):
        label = f"{name} {lib.version}" + (" (what-if)" if lib.what_if else "")
        cuda = lib.details.get("cuda_version")
        if cuda:
            label += f" +cu{cuda}"
        parts.append(label)
    return Text("libraries: " + ", ".join(parts))


def _model(facts: Facts) -> Text:
    m = facts.model
    assert m is not None
    att = m.attention
    attention = f"{att.kind.upper()} {att.num_heads} heads"
    if att.kind == "mla":
        attention += f", kv_lora_rank {att.kv_lora_rank}, rope {att.qk_rope_head_dim}"
    else:
        attention += f", {att.num_kv_heads} kv heads, head_dim {att.head_dim}"
    moe = f", MoE {m.moe.routed_experts} experts top-{m.moe.top_k}" if m.moe else ""
    source = m.source + (" (reconstructed config)" if m.reconstructed else "")
    text = Text(f"model: {m.id} [{source}] {m.architecture}, {m.num_layers} layers, {attention}{moe}, "
                f"quantization {m.quantization.scheme}")
    if m.derivation:
        text.append(f"\n  {m.derivation}", style="yellow")
    return text


def _kernels(analysis: Analysis) -> Table:
    table = Table(title=f"Kernels ({analysis.engine} {analysis.engine_version}, "
                        f"attention backend {analysis.attention_backend})", title_justify="left")
    for column in ("kernel", "path", "shape", "config", "bytes", "limit", "verdict"):
        table.add_column(column)
    for k in analysis.kernels:
        shape = ",".join(f"{key}={v}" for key, v in k.shape.items())
        config = ",".join(f"{key}={v}" for key, v in k.config.items())
        verdict = Text(k.verdict, style={True: "green", False: "bold red", None: "yellow"}[k.fits])
        limit = NOT_KNOWN if k.limit is None else str(k.limit)
        table.add_row(k.kernel, k.path, shape, config, str(k.bytes), limit, verdict)
    return table


def _plan(plan: dict) -> Text:
    """Memory plan: the requested layout's verdict and, when it differs, the best layout that fits."""
    req, best = plan["requested"], plan.get("best")
    estimated = ", estimated" if any(str(n).startswith("estimated:") for n in plan.get("notes") or ()) else ""
    text = Text(f"memory plan ({plan.get('engine')} {plan.get('engine_version')}{estimated}): ", style="bold")
    text.append(_plan_line(req))
    if req.get("devices"):  # engines that place tensors per device say where each byte goes
        text.append("".join(f"\n  {reason}" for reason in req["reasons"]), style="dim")
    if best and best.get("flags") != req.get("flags"):
        text.append("\n  best that fits: ")
        text.append(_plan_line(best))
        text.append("\n  flags: " + " ".join(best["flags"]), style="dim")
    elif not best:
        text.append("\n  no layout of these GPUs holds the weights plus a KV cache (`sm120-doctor plan` for detail)",
                    style="red")
    return text


def _plan_line(p: dict) -> str:
    verdict = "fits" if p["fits"] else "does NOT fit"
    if p.get("borderline"):
        verdict += " (borderline)"
    layout = p.get("layout") or f"TP{p['tp']} PP{p['pp']} EP{p['ep']}"
    return (f"{layout}: weights {p['weights_per_gpu_bytes'] / GiB:.2f} GiB/GPU of "
            f"{p['gpu_memory_bytes'] / GiB:.2f}, KV {p['kv_capacity_tokens']:,} tokens "
            f"({p['kv_bytes_per_token']:,} B/token, {p['kv_cache_dtype']}), {verdict}")


def _findings(report: Report) -> Group | Text:
    if not report.findings:
        return Text("No findings.", style="green")
    panels = []
    for finding in report.findings:
        panels.append(_finding_panel(finding))
    return Group(*panels)


def _finding_panel(finding: Finding) -> Panel:
    body = Text(finding.message + "\n")
    for fix in finding.fixes:
        body.append(f"\n  fix ({fix.kind}, {fix.safety}): {fix.summary}")
        for key, value in fix.details.items():
            shown = " ".join(value) if isinstance(value, list) else value
            if isinstance(value, dict):
                shown = " ".join(f"{k}={v}" for k, v in value.items())
            body.append(f"\n      {key}: {shown}", style="dim")
    body.append(f"\n\n  run `sm120-doctor explain {finding.id}`", style="dim")
    title = f"{finding.severity.upper()} {finding.id}: {finding.title}"
    if finding.engines:
        title += f" [{', '.join(finding.engines)}]"
    return Panel(body, title=title, title_align="left", border_style=STYLE[finding.severity])


def _launch(launch: dict) -> Panel:
    body = Text(launch["command"], style="bold")
    for note in launch.get("notes", []):
        body.append(f"\n  note: {note}", style="dim")
    for name, text in launch.get("files", {}).items():  # files the command names (an options YAML)
        body.append(f"\n{name}:\n", style="bold")
        body.append(text.rstrip("\n"))
    applied = ", ".join(launch.get("applied") or ["none"])
    title = f"Launch command ({launch['engine']} {launch['version']}, fixes from: {applied})"
    return Panel(body, title=title, title_align="left", border_style="green")


def _summary(report: Report) -> Text:
    c = report.counts()
    return Text(f"{c['error']} error(s), {c['warning']} warning(s), {c['info']} info",
                style="bold red" if c["error"] else "bold")


def _opt(value: object) -> str:
    return "-" if value is None else str(value)
