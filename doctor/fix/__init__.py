"""`--fix`: turn findings into changes. Safe fixes write only new files the user owns; unsafe fixes edit
installed packages and need `--unsafe-fixes`; manual fixes are printed, never run. Every write goes
through doctor.fix.writer (backup, journal, atomic replace, verify)."""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from packaging.version import Version

from doctor.fix.journal import Entry, FixError, Journal, state_dir
from doctor.fix.patches import PATCHES, patched_source, verify_patched_file
from doctor.fix.writer import check_writable, write_with_journal
from doctor.output import read_regular_bytes
from doctor.report import Report


@dataclass(frozen=True)
class Action:
    rule_id: str
    safety: str
    summary: str
    path: Path | None = None
    new_bytes: bytes | None = None
    old_bytes: bytes | None = None
    patch_id: str | None = None
    skipped: str | None = None  # why it will not be applied
    mode: int | None = None  # file mode for a new file (e.g. an executable script)

    def diff(self) -> str:
        if self.path is None or self.new_bytes is None:
            return ""
        old = (self.old_bytes or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
        new = self.new_bytes.decode("utf-8", errors="replace").splitlines(keepends=True)
        return "".join(difflib.unified_diff(old, new, f"a/{self.path}", f"b/{self.path}"))


@dataclass
class FixOutcome:
    actions: list[Action] = field(default_factory=list)
    written: list[Entry] = field(default_factory=list)
    unchanged: list[Action] = field(default_factory=list)


def plan_fixes(report: Report, unsafe: bool, fix_dir: Path | None = None) -> list[Action]:
    actions: list[Action] = []
    if fix_dir is not None:
        actions += _moe_config_actions(report, fix_dir)
        actions += _launch_script_action(report, fix_dir, with_env_file=bool(actions))
    seen: set[str] = set()
    for finding in report.findings:
        for fix in finding.fixes:
            key = f"{fix.kind}:{fix.details.get('patch') or fix.summary}"
            if key in seen:
                continue
            seen.add(key)
            if fix.kind == "patch":
                actions.append(_patch_action(report, finding.id, fix.details.get("patch", ""), unsafe))
            elif fix.safety == "manual" or fix.kind in ("upgrade", "manual"):
                actions.append(Action(finding.id, "manual", fix.summary, skipped="manual: run it yourself"))
    return actions


def _moe_config_actions(report: Report, fix_dir: Path) -> list[Action]:
    from doctor.fix.moe_config import safe_config_files

    rule_id = next((f.id for f in report.findings if f.evidence.get("item.kernel") == "fused_moe"), "fused_moe")
    actions = []
    for made in safe_config_files(report):
        path = fix_dir / made.relative_path
        old = path.read_bytes() if path.is_file() else None
        actions.append(Action(rule_id, "safe", f"smem-safe MoE config ({len(made.table)} entries, largest "
                              f"{made.worst_bytes} B), used through SGLANG_MOE_CONFIG_DIR={fix_dir}",
                              path=path, new_bytes=made.text().encode(), old_bytes=old, mode=0o644))
    if actions:
        env_file = fix_dir / "env.sh"
        text = f"# written by sm120-doctor --fix\nexport SGLANG_MOE_CONFIG_DIR={fix_dir}\n"
        actions.append(Action(rule_id, "safe", "environment for the launch (source it)", path=env_file,
                              new_bytes=text.encode(), old_bytes=env_file.read_bytes() if env_file.is_file() else None,
                              mode=0o644))
    return actions


def _launch_script_action(report: Report, fix_dir: Path, with_env_file: bool) -> list[Action]:
    """A launch script with the composed command and env vars (doctor.compose), when there is a finding."""
    launch = report.launch
    if not launch or not report.findings:
        return []
    lines = ["#!/usr/bin/env bash", f"# written by sm120-doctor --fix: {launch['engine']} {launch['version']}",
             *(f"# note (composed before --fix wrote its files): {n}" for n in launch.get("notes", [])),
             "set -euo pipefail"]
    if with_env_file:
        lines.append('source "$(dirname "$0")/env.sh"')
    lines += [f"export {key}={shlex.quote(str(value))}" for key, value in launch.get("env", {}).items()]
    lines.append("exec " + shlex.join(launch["argv"]))
    path = fix_dir / f"launch-{launch['engine']}.sh"
    applied = ", ".join(launch.get("applied", [])) or "no flag fixes"
    old = path.read_bytes() if path.is_file() else None
    return [Action("launch", "safe", f"launch script with the composed command ({applied})", path=path,
                   new_bytes=("\n".join(lines) + "\n").encode(), old_bytes=old, mode=0o755)]


def _patch_action(report: Report, rule_id: str, patch_id: str, unsafe: bool) -> Action:
    patch = PATCHES.get(patch_id)
    summary = f"patch {patch_id}"
    if patch is None:
        return Action(rule_id, "unsafe", summary, skipped=f"no such patch {patch_id!r}")
    library = report.facts.library("sglang")
    if library is None or library.what_if or not library.location:
        return Action(rule_id, "unsafe", summary, patch_id=patch_id,
                      skipped="SGLang is not installed here (a what-if version cannot be patched)")
    path = Path(library.location) / patch.relative_path(Version(library.version))
    try:
        old = read_regular_bytes(path)
    except OSError as exc:
        raise FixError(f"{patch_id}: cannot read {path}: {exc.strerror or exc}") from exc
    new_text = patched_source(patch, old.decode("utf-8"))
    if new_text is None:
        return Action(rule_id, "unsafe", summary, path=path, patch_id=patch_id, skipped="already applied")
    if not unsafe:
        return Action(rule_id, "unsafe", summary, path=path, new_bytes=new_text.encode(), old_bytes=old,
                      patch_id=patch_id, skipped="unsafe: edits an installed package; pass --unsafe-fixes")
    return Action(rule_id, "unsafe", summary, path=path, new_bytes=new_text.encode(), old_bytes=old,
                  patch_id=patch_id)


def apply_actions(actions: list[Action], environ: Mapping[str, str]) -> FixOutcome:
    outcome = FixOutcome(actions=actions)
    runnable = [a for a in actions if a.skipped is None and a.path is not None and a.new_bytes is not None]
    for action in runnable:
        if action.safety == "safe":
            _make_parent(action.path)
        check_writable(action.path)  # refuse everything before touching anything
    with Journal(state_dir(environ)).locked() as journal:
        for action in runnable:
            patch = PATCHES[action.patch_id] if action.patch_id else None

            def verify(tmp: Path, patch=patch) -> None:
                if patch is not None:
                    verify_patched_file(patch, tmp)

            entry = write_with_journal(journal, action.path, action.new_bytes, action.rule_id,
                                       action.summary, verify, mode=action.mode)
            if entry is None:
                outcome.unchanged.append(action)
            else:
                outcome.written.append(entry)
    return outcome


def _make_parent(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FixError(f"cannot create {path.parent}: {exc.strerror or exc}") from exc
