"""What `--fix` would change, before anything is written: one Action per file, with its safety and why.

Safe actions write only new files the user owns (an engine's tuned-config files, env.sh, a launch script);
unsafe actions patch installed packages (only with `--unsafe-fixes`); manual fixes are listed, never run.
Every patch is reached from the rule that calls for it: a finding's `patch` fix, or an engine patch whose
`rule_id` is the finding's."""

from __future__ import annotations

import dataclasses
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from packaging.version import Version

from doctor.findings import Action, Finding, Safety
from doctor.fix.journal import FixError
from doctor.output import read_regular_bytes, utf8_bytes
from doctor.pipeline.report import Report

if TYPE_CHECKING:
    from doctor.engines.base import Engine
    from doctor.fix.patches import Patch

SKIP_UNSAFE = "unsafe: edits an installed package; pass --unsafe-fixes"


def plan_fixes(report: Report, unsafe: bool, fix_dir: Path | None = None) -> list[Action]:
    from doctor.engines import registry

    engine = registry.get(report.analysis.engine) if report.analysis.engine else None
    actions: list[Action] = []
    if fix_dir is not None:
        if engine is not None and report.analysis.run is not None:
            run, kernels = report.analysis.run, report.analysis.kernels
            actions += _owned_by_findings(report, engine.config_files(run, kernels, fix_dir, _of_run(report, engine)))
        actions += _launch_script_action(report, fix_dir, with_env_file=any(a.env for a in actions))
    patches = engine.patches() if engine is not None else {}
    seen: set[str] = set()
    for finding in report.findings:
        for patch_id in _patches_called_for(finding, patches):
            if f"patch:{patch_id}" not in seen:
                seen.add(f"patch:{patch_id}")
                actions.append(_patch_action(report, finding.id, patch_id, patches, unsafe))
        for fix in finding.fixes:
            key = f"{fix.kind}:{fix.summary}"
            if fix.kind == "patch" or key in seen:
                continue
            seen.add(key)
            if fix.safety is Safety.MANUAL or fix.kind in ("upgrade", "manual"):
                actions.append(Action(finding.id, Safety.MANUAL, fix.summary, skipped="manual: run it yourself"))
    return actions


def _of_run(report: Report, engine: Engine) -> tuple[Finding, ...]:
    """The findings of the engine's own run (a merged report tags those not every run gave)."""
    return tuple(f for f in report.findings if not f.engines or engine.name in f.engines)


def _patches_called_for(finding: Finding, patches: dict[str, Patch] | object) -> list[str]:
    named = [str(f.details.get("patch", "")) for f in finding.fixes if f.kind == "patch"]
    by_rule = [pid for pid, patch in dict(patches).items() if patch.rule_id == finding.id]  # type: ignore[call-overload]
    return list(dict.fromkeys(named + by_rule))


def _owned_by_findings(report: Report, actions: list[Action]) -> list[Action]:
    """A config file is credited to the finding about its kernel family."""
    out = []
    for action in actions:
        owner = next((f.id for f in report.findings
                      if action.kernel and f.evidence.get("item.kernel") == action.kernel), action.rule_id)
        out.append(dataclasses.replace(action, rule_id=owner))
    return out


def launch_env(actions: list[Action]) -> dict[str, str]:
    """The environment the written files need at launch (an engine's config-directory variable)."""
    env: dict[str, str] = {}
    for action in actions:
        env.update(action.env)
    return env


def _launch_script_action(report: Report, fix_dir: Path, with_env_file: bool) -> list[Action]:
    """A launch script with the composed command and env vars, when there is a finding."""
    launch = report.launch
    if not launch or not report.findings:
        return []
    lines = ["#!/usr/bin/env bash", f"# written by sm120-doctor --fix: {launch['engine']} {launch['version']}",
             *(f"# note (composed before --fix wrote its files): {n}" for n in launch.get("notes", [])),
             "set -euo pipefail"]
    if with_env_file:
        lines.append('source "$(dirname "$0")/env.sh"')
    lines += [f"export {key}={shlex.quote(str(value))}" for key, value in launch.get("env", {}).items()]
    files = launch.get("files", {})  # files the launch names (an options YAML) are written beside the script
    lines.append("exec " + shlex.join(str(fix_dir / a) if a in files else a for a in launch["argv"]))
    path = fix_dir / f"launch-{launch['engine']}.sh"
    applied = ", ".join(launch.get("applied", [])) or "no flag fixes"
    old = path.read_bytes() if path.is_file() else None
    return [Action("launch", Safety.SAFE, f"launch script with the composed command ({applied})", path=path,
                   new_bytes=utf8_bytes("\n".join(lines) + "\n"), old_bytes=old, mode=0o755)]


def _patch_action(report: Report, rule_id: str, patch_id: str, patches: dict[str, Patch], unsafe: bool) -> Action:
    from doctor.fix.patches import patched_source

    patch = patches.get(patch_id)
    summary = f"patch {patch_id}"
    if patch is None:
        return Action(rule_id, Safety.UNSAFE, summary, skipped=f"no such patch {patch_id!r}")
    library = report.facts.library(patch.package)
    if library is None or library.what_if or not library.location:
        return Action(rule_id, Safety.UNSAFE, summary, patch=patch,
                      skipped=f"{patch.package} is not installed here (a what-if version cannot be patched)")
    path = Path(library.location) / patch.relative_path(Version(library.version))
    try:
        old = read_regular_bytes(path)
    except OSError as exc:
        raise FixError(f"{patch_id}: cannot read {path}: {exc.strerror or exc}") from exc
    new_text = patched_source(patch, old.decode("utf-8"))
    if new_text is None:
        return Action(rule_id, Safety.UNSAFE, summary, path=path, patch=patch, skipped="already applied")
    return Action(rule_id, Safety.UNSAFE, summary, path=path, new_bytes=new_text.encode(), old_bytes=old,
                  patch=patch, skipped=None if unsafe else SKIP_UNSAFE)
