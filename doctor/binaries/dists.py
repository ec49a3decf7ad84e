"""Which installed distribution owns a file: from `*.dist-info/RECORD`, else its top-level directory."""

from __future__ import annotations

import csv
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

_NORMALIZE = re.compile(r"[-_.]+")
_MAX_LEVELS_UP = 4


def normalize(name: str) -> str:
    """PEP 503 name normalization: `SGL_Kernel` -> `sgl-kernel`."""
    return _NORMALIZE.sub("-", name).lower()


def package_matches(package: str, top_level: str, wanted: list[str]) -> bool:
    """`wanted` names a distribution or top-level dir; a name also matches `name-*` distributions."""
    names = {normalize(package), normalize(top_level)}
    return any(w in names or normalize(package).startswith(w + "-") for w in wanted)


@dataclass
class DistIndex:
    """Maps binary files under one site directory to their (distribution, version)."""

    site_dir: Path | None
    owners: dict[str, tuple[str, str | None]] = field(default_factory=dict)

    @classmethod
    def for_root(cls, root: Path) -> DistIndex:
        site_dir = find_site_dir(root)
        index = cls(site_dir)
        if site_dir is not None:
            index._load(site_dir)
        return index

    def _load(self, site_dir: Path) -> None:
        try:
            infos = [e for e in os.scandir(site_dir) if e.name.endswith(".dist-info") and e.is_dir()]
        except OSError:
            return
        for info in infos:
            name, version = _name_version(info.name)
            for rel in _record_binaries(Path(info.path) / "RECORD"):
                self.owners[os.path.normpath(rel)] = (name, version)

    def owner(self, path: Path) -> tuple[str, str | None]:
        rel = self._relative(path)
        if rel is not None and rel in self.owners:
            return self.owners[rel]
        return normalize(self.top_level(path)), None

    def top_level(self, path: Path) -> str:
        rel = self._relative(path)
        if rel is None:
            return path.parent.name or path.name
        return rel.split(os.sep, 1)[0] if os.sep in rel else Path(rel).stem

    def _relative(self, path: Path) -> str | None:
        if self.site_dir is None:
            return None
        text, prefix = str(path), str(self.site_dir) + os.sep
        if text.startswith(prefix):  # the scanner's paths are built from the root, so this is the rule
            return os.path.normpath(text[len(prefix):])
        try:
            return os.path.normpath(os.path.relpath(path, self.site_dir))
        except ValueError:
            return None


def find_site_dir(root: Path) -> Path | None:
    """`root` or the nearest ancestor that holds `*.dist-info` directories."""
    current = root if root.is_dir() else root.parent
    for _ in range(_MAX_LEVELS_UP + 1):
        try:
            if any(e.name.endswith(".dist-info") for e in os.scandir(current)):
                return current
        except OSError:
            return None
        if current.parent == current:
            return None
        current = current.parent
    return None


def _name_version(dist_info: str) -> tuple[str, str | None]:
    stem = dist_info[: -len(".dist-info")]
    name, _, version = stem.partition("-")
    return normalize(name), version or None


def _record_binaries(record: Path):
    """Paths in a RECORD that look like binaries (the only ones the scanner asks about)."""
    try:
        text = record.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    for line in text.splitlines():
        if ".so" in line or ".cubin" in line or ".fatbin" in line:
            row = next(csv.reader([line]), None)
            if row:
                yield row[0]
