"""Apply a fix plan: refuse everything up front when a target cannot be written, then write each file
through the journal (doctor.fix.writer: backup, journal, temp file, fsync, verify, atomic replace)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from doctor.findings import Action, Safety
from doctor.fix.journal import Entry, FixError, Journal, state_dir
from doctor.fix.patches import Patch, verify_patched_file
from doctor.fix.writer import check_writable, write_with_journal


@dataclass
class FixOutcome:
    actions: list[Action] = field(default_factory=list)
    written: list[Entry] = field(default_factory=list)
    unchanged: list[Action] = field(default_factory=list)


def apply_actions(actions: list[Action], environ: Mapping[str, str]) -> FixOutcome:
    outcome = FixOutcome(actions=actions)
    runnable = [a for a in actions if a.runnable]
    for action in runnable:
        assert action.path is not None
        if action.safety is Safety.SAFE:
            _make_parent(action.path)
        check_writable(action.path)  # refuse everything before touching anything
    with Journal(state_dir(environ)).locked() as journal:
        for action in runnable:
            assert action.path is not None and action.new_bytes is not None
            def verify(tmp: Path, patch: Patch | None = action.patch) -> None:
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
