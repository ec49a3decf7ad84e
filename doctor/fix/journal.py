"""The fix journal: every change `--fix` makes to a file, with a byte-exact backup, so `revert` can
restore the original. Lives in the user's state directory ($XDG_STATE_HOME/sm120-doctor)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from doctor import __version__
from doctor.errors import DoctorError, InputError


class FixError(DoctorError):
    """A fix that cannot be applied or reverted safely; nothing was changed."""


@dataclass(frozen=True)
class Entry:
    id: str
    time: str
    tool_version: str
    rule_id: str
    action: str
    path: str
    sha256_before: str | None  # None: the fix created the file
    sha256_after: str
    backup: str | None
    status: str  # pending | applied | reverted | aborted


def state_dir(environ: Mapping[str, str]) -> Path:
    if environ.get("SM120_DOCTOR_STATE_DIR"):
        return Path(environ["SM120_DOCTOR_STATE_DIR"])
    base = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "sm120-doctor"


def sha256_file(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Journal:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.file = root / "journal.jsonl"
        self.backups = root / "backups"

    @contextlib.contextmanager
    def locked(self) -> Iterator[Journal]:
        """One `--fix` or `revert` at a time, across processes."""
        try:
            self.backups.mkdir(parents=True, exist_ok=True)
            handle = open(self.root / "lock", "a")  # noqa: SIM115 - held for the whole block
        except OSError as exc:
            raise InputError(f"cannot use state directory {self.root}: {exc.strerror or exc}") from exc
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise FixError(f"another sm120-doctor --fix or revert is running (lock {self.root / 'lock'})") from exc
            self.reconcile()
            yield self

    def entries(self) -> list[Entry]:
        """Latest record per entry id, in the order the entries were first written (the file is append-only:
        status changes are new lines)."""
        latest: dict[str, Entry] = {}
        try:
            lines = self.file.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        for line in lines:
            try:
                data = json.loads(line)
                latest[data["id"]] = Entry(**data)
            except (json.JSONDecodeError, KeyError, TypeError):
                continue  # a torn last line from a kill mid-append carries no committed state
        return list(latest.values())

    def new_entry(self, rule_id: str, action: str, path: Path, before: str | None, after: str) -> Entry:
        entry_id = time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
        backup = str(self.backups / f"{entry_id}-{path.name}") if before is not None else None
        return Entry(id=entry_id, time=time.strftime("%Y-%m-%dT%H:%M:%S%z"), tool_version=__version__,
                     rule_id=rule_id, action=action, path=str(path), sha256_before=before, sha256_after=after,
                     backup=backup, status="pending")

    def record(self, entry: Entry) -> None:
        line = json.dumps(asdict(entry), sort_keys=True) + "\n"
        with open(self.file, "a", encoding="utf-8") as handle:
            handle.write(line)
            handle.flush()
            os.fsync(handle.fileno())

    def reconcile(self) -> None:
        """A kill between the file replace and the journal line leaves a pending entry: settle it by
        what is on disk (the after-hash means applied, the before-hash means it never happened)."""
        for entry in self.entries():
            if entry.status != "pending":
                continue
            target = Path(entry.path)
            for stray in target.parent.glob(f".{target.name}.*.sm120-doctor.tmp"):
                stray.unlink(missing_ok=True)
            current = sha256_file(target)
            status = "applied" if current == entry.sha256_after else "aborted"
            self.record(Entry(**{**asdict(entry), "status": status}))
