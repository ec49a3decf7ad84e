"""Files in and out: JSON read with one clear error per failure; results written atomically, so a crash
never leaves half a report behind."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

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


LONG_LIST = 16  # items; longer lists of a document are written one compact item per line


def json_text(value: Any) -> str:
    """JSON indented by two spaces like json.dumps(indent=2), except that a list of more than LONG_LIST
    items has one compact item per line: the same document, readable, and written by the C encoder where
    it is large (the topology of a big machine has N*(N-1)/2 links)."""
    return _json_text(value, "")


def _json_text(value: Any, indent: str) -> str:
    inner = indent + "  "
    if isinstance(value, dict) and value:
        items = (f"{inner}{json.dumps(str(k))}: {_json_text(v, inner)}" for k, v in value.items())
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(value, list | tuple) and value:
        render = json.dumps if len(value) > LONG_LIST else lambda item: _json_text(item, inner)
        return "[\n" + ",\n".join(inner + render(item) for item in value) + f"\n{indent}]"
    return json.dumps(value)


def read_json_file(path: Path, label: str, max_bytes: int | None = None) -> Any:
    """Parsed JSON of `path`; unreadable, oversized, non-UTF-8 or malformed files raise one InputError."""
    try:
        if max_bytes is not None and path.stat().st_size > max_bytes:
            raise InputError(f"{label} {path} is {path.stat().st_size} bytes; at most {max_bytes} are read")
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read {label} {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise InputError(f"{label} {path} is not UTF-8 text") from exc
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{label} {path} is not valid JSON: {exc}") from exc
