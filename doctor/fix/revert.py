"""`revert`, all or nothing: every step is checked before the first file is touched (each file still holds
what sm120-doctor wrote, or already its original; each backup matches its hash), then the steps run newest
first. A torn last journal line is set aside and reported; the files on disk settle what it would have said."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from doctor.fix.journal import Entry, FixError, Journal, sha256_file, state_dir, write_target
from doctor.fix.writer import read_backup, restore
from doctor.validation import shown


@dataclass(frozen=True)
class Step:
    entry: Entry
    already: bool  # the file holds its original already (a revert whose journal line was lost): record only


def run_revert(environ: Mapping[str, str], ids: Sequence[str], force: bool, list_only: bool) -> int:
    journal = Journal(state_dir(environ))
    with journal.locked():
        _revert_or_list(journal, ids, force, list_only)
        if journal.torn is not None:  # after the work: an error stays the one line on stderr
            print(f"note: {journal.torn.describe(journal.file)}", file=sys.stderr)
    return 0


def _revert_or_list(journal: Journal, ids: Sequence[str], force: bool, list_only: bool) -> None:
    entries = journal.entries()
    if list_only:
        for e in entries:
            print(f"{e.id}  {e.status:<8} {e.rule_id:<8} {e.path}")
        return
    steps = plan_revert(entries, ids, force)
    if not steps:
        print("nothing to revert", file=sys.stderr)
    for step in steps:
        if step.already:
            journal.record(replace(step.entry, status="reverted"))
            print(f"{step.entry.path} already holds its original (journal {step.entry.id})", file=sys.stderr)
        else:
            restore(journal, step.entry, force=force)
            print(f"reverted {step.entry.path} (journal {step.entry.id})", file=sys.stderr)


def plan_revert(entries: list[Entry], ids: Sequence[str], force: bool) -> list[Step]:
    """The steps, newest first in journal order; FixError (nothing done) on the first that cannot run."""
    known = {e.id: e for e in entries}
    missing = [i for i in ids if i not in known]
    if missing:
        raise FixError(f"no journal entry {shown(missing[0])} (see `sm120-doctor revert --list`)")
    wanted = set(ids)
    chosen = [e for e in entries if (not ids or e.id in wanted) and e.status in ("applied", "pending")]
    current: dict[Path, str | None] = {}
    steps = []
    for entry in reversed(chosen):
        target = write_target(Path(entry.path))
        now = current[target] if target in current else _hash(target, entry)
        if now == entry.sha256_before and entry.status == "applied":
            steps.append(Step(entry, already=True))
            continue
        if now != entry.sha256_after and not force:
            state = "is still pending (the fix may not have finished)" if entry.status == "pending" else \
                "changed since sm120-doctor wrote it"
            raise FixError(f"not reverting anything: {entry.path} {state} (journal {entry.id}); use --force to "
                           "restore the original anyway")
        if entry.backup is not None:
            read_backup(entry)
        current[target] = entry.sha256_before
        steps.append(Step(entry, already=False))
    return steps


def _hash(target: Path, entry: Entry) -> str | None:
    try:
        return sha256_file(target)
    except FixError as exc:
        raise FixError(f"not reverting anything: {exc} (journal {entry.id})") from exc
