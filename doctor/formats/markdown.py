"""Markdown for a bug report or a GitHub job summary (`--format markdown` of `check` and `diagnose`): what was
deployed, the finding that explains the failure, its fix, and a collapsed environment section. Everything that
leaves the machine goes through redact.py."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from doctor.findings import Finding, Fix
from doctor.formats.redact import redact_env, redact_text
from doctor.pipeline.conditions import NOT_KNOWN
from doctor.pipeline.facts import Facts
from doctor.pipeline.report import Report

MAX_CELL = 300


def render_check_markdown(report: Report) -> str:
    counts = report.counts()
    lines = [f"## sm120-doctor check: {_model(report.facts)} — {counts['error']} error(s), "
             f"{counts['warning']} warning(s)", ""]
    lines += deployment_table(report.facts, _engine_line(report), {})
    errors = [f for f in report.findings if f.severity == "error"]
    if errors:
        lines += ["", "### What fails", ""]
        for finding in errors:
            lines += finding_section(finding)
    others = [f for f in report.findings if f.severity != "error"]
    if others:
        lines += ["", "### Other findings", ""]
        lines += [f"- **{f.id}** ({f.severity}): {_inline(f.title)}" for f in others]
    lines += launch_section(report.launch)
    lines += environment_details(report.facts)
    return "\n".join(lines).rstrip() + "\n"


def finding_section(finding: Finding, heading: str = "####") -> list[str]:
    lines = [f"{heading} {finding.id} ({finding.severity}): {_inline(finding.title)}", "", redact_text(finding.message),
             ""]
    lines += fix_lines(finding.fixes)
    if finding.references:
        lines += ["", "Sources: " + ", ".join(finding.references[:4])]
    return [*lines, ""]


def fix_lines(fixes: Iterable[Fix]) -> list[str]:
    lines = []
    for fix in fixes:
        detail = _fix_detail(fix)
        tail = f" — `{detail}`" if detail else ""
        lines.append(f"- **Fix** ({fix.kind}, {fix.safety}): {_inline(fix.summary)}{tail}")
    return lines


def _fix_detail(fix: Fix) -> str:
    details = fix.details
    parts = [str(details[k]) for k in ("package", "command", "patch", "config") if details.get(k)]
    if details.get("flags"):
        parts.append(" ".join(str(f) for f in details["flags"]))
    parts += [f"{k}={v}" for k, v in (details.get("env") or {}).items()]
    return redact_text("; ".join(parts)).replace("`", "'")


def launch_section(launch: dict[str, Any] | None, title: str = "Launch command with the fixes") -> list[str]:
    if not launch or not launch.get("command"):
        return []
    return ["", f"### {title}", "", "```sh", redact_text(str(launch["command"])), "```"]


def deployment_table(facts: Facts, engine: str, sources: dict[str, str]) -> list[str]:
    rows = [("engine", engine, sources.get("engine", ""))]
    for first, last, gpu in _gpu_runs(facts)[:8]:
        label = f"GPU {first}" if first == last else f"GPUs {first}-{last}"
        count = "" if first == last else f"{last - first + 1}x "
        rows.append((label, f"{count}{gpu.name} (CC {gpu.compute_capability})",
                     sources.get(f"gpu {first}", sources.get("gpus", ""))))
    stated = facts.source.kind == "profile"  # a profile states no driver or WSL2: there they are --driver / --wsl
    if facts.driver.driver_version or facts.driver.cuda_driver_version:
        rows.append(("driver", _driver_text(facts), sources.get("driver", "--driver" if stated else "")))
    if facts.host.wsl:
        rows.append(("host", "WSL2", sources.get("host wsl", "--wsl" if stated else "")))
    for name in ("torch", "triton", "flashinfer-python", "nccl", "sgl-kernel", "transformers"):
        lib = facts.library(name)
        if lib is not None:
            rows.append((name, lib.version, sources.get(f"{name} version", "")))
    rows.append(("model", facts.model.id if facts.model else NOT_KNOWN,
                 sources.get("model", "") or (facts.model.derivation or "" if facts.model else "")))
    lines = ["| | | source |", "|---|---|---|"]
    lines += [f"| {k} | {_cell(v)} | {_cell(s)} |" for k, v, s in rows]
    return lines


def _driver_text(facts: Facts) -> str:
    return f"{facts.driver.driver_version or NOT_KNOWN} (CUDA {facts.driver.cuda_driver_version or NOT_KNOWN})"


def _gpu_runs(facts: Facts) -> list[tuple[int, int, Any]]:
    """Consecutive GPUs of one model as one row: (first index, last index, the GPU)."""
    runs: list[tuple[int, int, Any]] = []
    for gpu in facts.gpus:
        if runs and (runs[-1][2].name, runs[-1][2].compute_capability) == (gpu.name, gpu.compute_capability):
            runs[-1] = (runs[-1][0], gpu.index, runs[-1][2])
        else:
            runs.append((gpu.index, gpu.index, gpu))
    return runs


def environment_details(facts: Facts, extra: list[str] | None = None) -> list[str]:
    lines = ["", "<details><summary>Environment</summary>", "", "```"]
    lines.append(f"facts: {facts.source.kind} {facts.source.name or ''}".rstrip())
    for gpu in facts.gpus:
        memory = f", {gpu.memory_total_bytes / 2**30:.1f} GiB" if gpu.memory_total_bytes else ""
        lines.append(f"gpu {gpu.index}: {gpu.name}, CC {gpu.compute_capability}{memory}")
    if facts.driver.present:
        lines.append(f"driver: {_driver_text(facts)}")
    for name, lib in sorted(facts.libraries.items()):
        lines.append(f"{name}=={lib.version}" + (" (what-if)" if lib.what_if else ""))
    for name, value in sorted(redact_env(facts.env).items()):
        lines.append(f"{name}={value}")
    lines += extra or []
    lines += ["```", "", "</details>"]
    return [redact_text(line) if not line.startswith("```") else line for line in lines]


def _engine_line(report: Report) -> str:
    analysis = report.analysis
    if not analysis.engine:
        return "none analysed"
    unstated = next((e for e in report.releases_evaluated if e["engine"] == analysis.engine), None)
    if unstated is not None:
        releases = unstated["releases"]
        return (f"{analysis.engine}, release not stated: evaluated at {len(releases)} releases "
                f"({releases[0]}-{releases[-1]}), shown {unstated['shown']}")
    return f"{analysis.engine} {analysis.engine_version}"


def _model(facts: Facts) -> str:
    return facts.model.id if facts.model else "no model"


def _inline(text: str) -> str:
    return redact_text(text).replace("\n", " ")


def _cell(text: str) -> str:
    text = _inline(str(text)).replace("|", "\\|")
    return text if len(text) <= MAX_CELL else text[:MAX_CELL] + "…"
