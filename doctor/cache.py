"""A small on-disk cache for derived facts that are costly to recompute but keyed by what they derive from
(file paths, sizes, mtimes, the doctor's version): parsed rules, a toolchain's version. JSON only, written
atomically; a cache that cannot be read or written only costs the recomputation."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def cache_root(environ: Mapping[str, str] | None = None) -> Path:
    """$SM120_DOCTOR_CACHE, else $XDG_CACHE_HOME/sm120-doctor, else ~/.cache/sm120-doctor."""
    env = os.environ if environ is None else environ
    explicit = env.get("SM120_DOCTOR_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "sm120-doctor"


def file_stamp(paths: list[Path]) -> list[Any] | None:
    """What a derived value depends on: each file's resolved path, size and mtime (None if one is missing)."""
    try:
        return [(str(p.resolve()), (st := p.stat()).st_size, st.st_mtime_ns) for p in paths]
    except OSError:
        return None


def _path(name: str, stamp: Any) -> Path:
    from doctor import __version__

    digest = hashlib.sha256(json.dumps([__version__, stamp], default=str).encode()).hexdigest()[:24]
    return cache_root() / f"{name}-{digest}.json"


def load(name: str, stamp: Any) -> Any | None:
    if stamp is None:
        return None
    try:
        return json.loads(_path(name, stamp).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def store(name: str, stamp: Any, value: Any) -> None:
    if stamp is None:
        return
    target = _path(name, stamp)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{name}-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(value, handle)
        os.replace(tmp, target)
    except OSError:
        return  # a read-only home only costs the recomputation next time
