"""Attempts to import a module the install replaced with a metadata-only stand-in (the runner's
ORACLE_WATCH_IMPORTS, comma-separated): the table's claim that its decisions never touch the module is measured,
not assumed. Each attempt is kept as "MODULE (import|find_spec) from FILE:LINE"; `find_spec` is an availability
probe (`importlib.util.find_spec`), which the stand-in answers as an absent module would."""

from __future__ import annotations

import sys
import traceback
from typing import Any


class ImportWatch:
    """A meta-path finder that notes the attempt and lets it proceed (to fail, as it would with the stand-in)."""

    def __init__(self, watched: tuple[str, ...], hits: list[str]) -> None:
        self.watched = watched
        self.hits = hits

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        if any(fullname == name or fullname.startswith(name + ".") for name in self.watched):
            stack = traceback.extract_stack()[:-1]
            # importlib.util is frozen in 3.11 ("<frozen importlib.util>"), a file in others
            how = "find_spec" if any(f.name == "find_spec" and "importlib" in f.filename and "util" in f.filename
                                     for f in stack) else "import"
            caller = next((f for f in reversed(stack) if "importlib" not in f.filename), None)
            where = f"{caller.filename.split('/site-packages/')[-1]}:{caller.lineno}" if caller else "?"
            self.hits.append(f"{fullname} ({how}) from {where}")


def install(watched: str) -> list[str]:
    """Watch the comma-separated modules; the list the attempts are appended to."""
    hits: list[str] = []
    names = tuple(filter(None, watched.split(",")))
    if names:
        sys.meta_path.insert(0, ImportWatch(names, hits))
    return hits
