"""The one way `--fix` writes a file: backup, journal, temp file in the same directory, fsync, verify,
atomic replace. A kill at any moment leaves the file either original or fully changed."""

from __future__ import annotations

import dataclasses
import os
import stat
import time
from collections.abc import Callable
from pathlib import Path

from doctor.fix.journal import Entry, FixError, Journal, sha256_bytes, sha256_file, write_target
from doctor.output import read_regular_bytes, temp_beside


def write_with_journal(journal: Journal, path: Path, new_bytes: bytes, rule_id: str, action: str,
                       verify: Callable[[Path], None], mode: int | None = None) -> Entry | None:
    """Returns the journal entry, or None when the file already has exactly these bytes (a no-op). A symlink
    is written through (the journal keeps the link's path); a FIFO or device is never replaced."""
    real = write_target(path)
    before = sha256_file(real)
    after = sha256_bytes(new_bytes)
    if before == after:
        return None
    entry = journal.new_entry(rule_id, action, path, before, after)
    if entry.backup is not None:
        _copy_durably(real, Path(entry.backup))
    _pause()
    journal.record(entry)  # pending: from here on a kill is settled by Journal.reconcile
    _pause()
    tmp = _temp_beside(real, new_bytes)
    try:
        if mode is not None and before is None:
            os.chmod(tmp, mode)
        _pause()
        verify(Path(tmp))
        _pause()
        os.replace(tmp, real)
        _fsync_dir(real.parent)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        journal.record(dataclasses.replace(entry, status="aborted"))
        raise
    _pause()
    applied = dataclasses.replace(entry, status="applied")
    journal.record(applied)
    return applied


def _pause() -> None:
    """Fault-injection aid for the kill test (bench/bench_fix_kill.py): widen each step's window."""
    delay = os.environ.get("SM120_DOCTOR_FIX_STEP_DELAY_S")
    if delay:
        time.sleep(float(delay))


def restore(journal: Journal, entry: Entry, force: bool) -> Entry:
    path = write_target(Path(entry.path))
    current = sha256_file(path)
    if current != entry.sha256_after and not force:
        raise FixError(f"{path} changed since sm120-doctor wrote it (journal {entry.id}); not reverting "
                       "(use --force to restore the original anyway)")
    if entry.backup is None:
        path.unlink(missing_ok=True)
    else:
        original = read_backup(entry)
        tmp = _temp_beside(path, original)
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    reverted = dataclasses.replace(entry, status="reverted")
    journal.record(reverted)
    return reverted


def read_backup(entry: Entry) -> bytes:
    """The original bytes of an entry's file, checked against the hash recorded before the write."""
    try:
        original = read_regular_bytes(str(entry.backup))
    except OSError as exc:
        raise FixError(f"backup {entry.backup} of journal entry {entry.id} cannot be read: "
                       f"{exc.strerror or exc}; not reverting") from exc
    if sha256_bytes(original) != entry.sha256_before:
        raise FixError(f"backup {entry.backup} does not match the recorded hash; not reverting")
    return original


def _temp_beside(path: Path, data: bytes) -> str:
    """The staged new content, with the mode of the file it will replace (doctor.output.temp_beside)."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
        return temp_beside(path, data, mode, suffix=".sm120-doctor.tmp")
    except OSError as exc:
        raise FixError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _copy_durably(source: Path, target: Path) -> None:
    try:
        data = read_regular_bytes(source)
        with open(target, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except OSError as exc:
        raise FixError(f"cannot back up {source}: {exc.strerror or exc}") from exc


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def check_writable(path: Path) -> None:
    """Refuse up front (before any backup or journal line) when the target cannot be replaced: no write
    permission, or a FIFO, device or directory where a file should be (never replaced)."""
    real = write_target(path)
    if real.exists() and not real.is_file():
        raise FixError(f"{path} is not a regular file; nothing was changed")
    if not os.access(real.parent, os.W_OK) or (real.exists() and not os.access(real, os.R_OK)):
        raise FixError(f"permission denied: cannot replace {path} (read-only install?); nothing was changed")
