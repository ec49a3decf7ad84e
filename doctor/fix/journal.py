"""The fix journal: every change `--fix` makes to a file, with a byte-exact backup, so `revert` can
restore the original. Lives in the user's state directory ($XDG_STATE_HOME/sm120-doctor)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from doctor import __version__
from doctor.errors import DoctorError, InputError
from doctor.output import read_regular_bytes, write_target
from doctor.validation import one_line, shown


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


STATUSES = ("pending", "applied", "reverted", "aborted")
_HASH = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class TornLine:
    """The journal's last line, cut short by a kill mid-append or not decodable: it carries no committed
    state (the line before it for the same entry, and the files on disk, do)."""

    number: int
    size: int
    reason: str
    entry_id: str | None

    def describe(self, journal_file: Path) -> str:
        which = f"entry {self.entry_id}" if self.entry_id else "an entry whose id it does not show"
        return (f"{journal_file} line {self.number} is torn ({self.reason}; {self.size} bytes, {which}): "
                "set aside; the state of every entry was settled from the files on disk")


class JournalDamaged(FixError):
    """A line before the last one is not a valid entry: not a torn append, so nothing is guessed."""


def state_dir(environ: Mapping[str, str]) -> Path:
    if environ.get("SM120_DOCTOR_STATE_DIR"):
        return Path(environ["SM120_DOCTOR_STATE_DIR"])
    base = environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "sm120-doctor"


def sha256_file(path: Path) -> str | None:
    """Hash of the regular file at `path` (through symlinks); None when nothing is there. A FIFO, device or
    unreadable file raises FixError: a fix never reads or replaces one."""
    try:
        return hashlib.sha256(read_regular_bytes(path)).hexdigest()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise FixError(f"cannot read {path}: {exc.strerror or exc}") from exc


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Journal:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.file = root / "journal.jsonl"
        self.backups = root / "backups"
        self.torn: TornLine | None = None  # set aside by locked(), for the caller to report

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
            self.torn = self.set_aside_torn()
            self.reconcile()
            yield self

    def entries(self) -> list[Entry]:
        """Latest record per entry id, in the order the entries were first written (the file is append-only:
        status changes are new lines). A torn last line is skipped; a damaged earlier one raises."""
        return self.read()[0]

    def read(self) -> tuple[list[Entry], TornLine | None]:
        try:
            data = read_regular_bytes(self.file)
        except FileNotFoundError:
            return [], None
        except OSError as exc:
            raise FixError(f"cannot read the fix journal {self.file}: {exc.strerror or exc}") from exc
        lines = data.split(b"\n")
        complete, tail = lines[:-1], lines[-1]
        latest: dict[str, Entry] = {}
        torn = None
        for number, raw in enumerate(complete, start=1):
            try:
                entry = parse_entry(raw)
            except ValueError as exc:
                if number < len(complete) or tail:
                    raise JournalDamaged(f"fix journal {self.file} line {number} is damaged ({exc}); nothing was "
                                         "changed: repair or delete that line and run again") from None
                torn = TornLine(number, len(raw), str(exc), _id_in(raw))
                continue
            latest[entry.id] = entry
        if tail:
            torn = TornLine(len(complete) + 1, len(tail), "no end of line: cut short while it was written",
                            _id_in(tail))
        return list(latest.values()), torn
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

    def set_aside_torn(self) -> TornLine | None:
        """Move a torn last line out of the journal (appended to journal.jsonl.torn), so the next record
        starts on a line of its own instead of gluing itself to the fragment."""
        torn = self.read()[1]
        if torn is None:
            return None
        data = read_regular_bytes(self.file)
        cut = (data[:-1] if data.endswith(b"\n") else data).rfind(b"\n") + 1
        with open(self.file.with_name(self.file.name + ".torn"), "ab") as aside:
            aside.write(data[cut:].rstrip(b"\n") + b"\n")
            aside.flush()
            os.fsync(aside.fileno())
        os.truncate(self.file, cut)
        return torn

    def reconcile(self) -> None:
        """A kill between the file replace and the journal line leaves a pending entry: settle it by
        what is on disk (the after-hash means applied, the before-hash means it never happened; anything
        else stays pending: the file changed since, and revert will say so)."""
        for entry in self.entries():
            if entry.status != "pending":
                continue
            try:
                target = write_target(Path(entry.path))
                for stray in target.parent.glob(f".{target.name}.*.sm120-doctor.tmp"):
                    stray.unlink(missing_ok=True)
                current = sha256_file(target)
            except (DoctorError, OSError):
                continue
            if current in (entry.sha256_after, entry.sha256_before):
                status = "applied" if current == entry.sha256_after else "aborted"
                self.record(Entry(**{**asdict(entry), "status": status}))


def parse_entry(raw: bytes) -> Entry:
    """One journal line; ValueError says what is wrong with it."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8") from None
    except (json.JSONDecodeError, RecursionError):
        raise ValueError("not JSON") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    names = {f.name for f in fields(Entry)}
    if set(data) != names:
        raise ValueError(f"fields {shown(sorted(map(str, set(data) ^ names)))} missing or unknown")
    for name in ("id", "time", "tool_version", "rule_id", "action", "path", "sha256_after", "status"):
        if not isinstance(data[name], str) or not data[name]:
            raise ValueError(f"{name} must be a non-empty string, got {shown(data[name])}")
    for name in ("sha256_before", "backup"):
        if data[name] is not None and (not isinstance(data[name], str) or not data[name]):
            raise ValueError(f"{name} must be a string or null, got {shown(data[name])}")
    if one_line(data["id"]) != data["id"] or len(data["id"]) > 200:
        raise ValueError(f"id {shown(data['id'])} is not an entry id")
    if data["status"] not in STATUSES:
        raise ValueError(f"status {shown(data['status'])} is not one of {', '.join(STATUSES)}")
    if not Path(data["path"]).is_absolute() or "\0" in data["path"]:
        raise ValueError(f"path {shown(data['path'])} is not an absolute path")
    for name in ("sha256_before", "sha256_after"):
        if data[name] is not None and not _HASH.fullmatch(data[name]):
            raise ValueError(f"{name} {shown(data[name])} is not a SHA-256")
    if (data["backup"] is None) != (data["sha256_before"] is None):
        raise ValueError("backup and sha256_before must be both set or both null")
    return Entry(**data)


def _id_in(raw: bytes) -> str | None:
    match = re.search(rb'"id": "([0-9A-Za-z._:-]{1,80})"', raw)
    return match.group(1).decode("ascii") if match else None
