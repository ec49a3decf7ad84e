"""A small on-disk cache for derived facts that are costly to recompute but keyed by what they derive from
(file paths, sizes, mtimes, the doctor's version): parsed rules, a toolchain's version. JSON only, written
atomically; a cache that cannot be read or written only costs the recomputation. Each kind keeps its newest
KEEP_PER_NAME files: every new stamp (an upgrade, an edited rule file, another environment) writes a new file,
and without a bound the folder only grows."""

from __future__ import annotations

import atexit
import binascii
import json
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

KEEP_PER_NAME = 8
STALE_TEMP_SECONDS = 3600  # a writer killed between mkstemp and replace leaves its temporary file behind


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """$SM120_DOCTOR_CACHE, else $XDG_CACHE_HOME/sm120-doctor, else ~/.cache/sm120-doctor."""
    env = os.environ if environ is None else environ
    explicit = env.get("SM120_DOCTOR_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sm120-doctor"


def file_stamp(paths: list[Path]) -> list[Any] | None:
    """What a derived value depends on: each file's absolute path, size and mtime (None if one is missing).
    Not the resolved path: resolving costs a syscall per path component, and stat() follows links anyway."""
    try:
        return [(os.path.abspath(p), (st := os.stat(p)).st_size, st.st_mtime_ns) for p in paths]
    except OSError:
        return None


def _key(stamp: Any) -> str:
    from doctor import __version__

    return json.dumps([__version__, stamp], default=str)


def _path(name: str, key: str) -> Path:
    data = key.encode()  # two 32-bit checksums name the file; the full key inside it decides a hit
    return cache_root() / f"{name}-{binascii.crc32(data):08x}{binascii.crc32(data[::-1]):08x}.json"


def load(name: str, stamp: Any) -> Any | None:
    if stamp is None:
        return None
    key = _key(stamp)
    try:
        stored = json.loads(_path(name, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stored, dict) or stored.get("key") != key:
        return None
    return stored.get("value")


def store(name: str, stamp: Any, value: Any) -> None:
    if stamp is None:
        return
    import tempfile

    key = _key(stamp)
    target = _path(name, key)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"key": key, "value": value}, handle)
        os.replace(tmp, target)
    except OSError:
        return  # a read-only home only costs the recomputation next time
    _prune(target.parent, name)


def _prune(folder: Path, name: str) -> None:
    """Drop all but the newest KEEP_PER_NAME files of this kind, and temporary files of killed writers."""
    now = time.time()
    kept: list[tuple[float, Path]] = []
    for path in folder.glob(f"{name}-*.json"):
        try:
            kept.append((path.stat().st_mtime, path))
        except OSError:
            continue
    kept.sort(reverse=True)
    stale = [path for _, path in kept[KEEP_PER_NAME:]]
    for path in folder.glob(f".{name}-*.tmp"):
        try:
            if now - path.stat().st_mtime > STALE_TEMP_SECONDS:
                stale.append(path)
        except OSError:
            continue
    for path in stale:
        try:
            path.unlink()
        except OSError:
            continue  # another process removed or holds it: it only costs disk until the next store


class DiskMemo:
    """A {key: value} memo of one kind of derived value, read from disk on first use and written back by
    `flush`, which runs once at the interpreter's exit; `stamp` is what the values derive from besides their
    keys (a new stamp starts a new memo), and a memo that outgrows `limit` entries keeps the newest `limit`.
    Writing once at exit matters: a check of every release evaluates the rules some hundred times, and a
    flush after each rewrote the whole file each time."""

    def __init__(self, name: str, stamp: Callable[[], Any], kind: type, limit: int) -> None:
        self.name, self.stamp, self.kind, self.limit = name, stamp, kind, limit
        self._values: dict[str, Any] | None = None
        self._dirty = False
        atexit.register(self.flush)

    def get(self, key: str) -> Any | None:
        return self._loaded().get(key)

    def put(self, key: str, value: Any) -> None:
        self._loaded()[key] = value
        self._dirty = True

    def flush(self) -> None:
        if self._dirty and self._values is not None:
            newest = list(self._values.items())[-self.limit:]  # loaded first, then added in this run
            store(self.name, self.stamp(), dict(newest))
            self._dirty = False

    def _loaded(self) -> dict[str, Any]:
        if self._values is None:
            stored = load(self.name, self.stamp())
            self._values = {k: v for k, v in stored.items() if isinstance(v, self.kind)} \
                if isinstance(stored, dict) else {}
        return self._values
