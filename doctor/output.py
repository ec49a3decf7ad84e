"""Writing result files: atomically, so a crash never leaves half a report behind."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from doctor.errors import InputError


def write_text_atomic(path: Path, text: str) -> None:
    directory = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror or exc}") from exc
