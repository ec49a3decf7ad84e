"""Installed distributions, read straight from the `*.dist-info` / `*.egg-info` directories on sys.path.

importlib.metadata answers the same questions but costs ~50 ms of imports (email, zipfile, csv) and parses
every METADATA file; the doctor needs names, versions, locations and one entry-point group, which the
directory names (`{name}-{version}.dist-info`, the wheel spec's escaping) and `entry_points.txt` give."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

_NORMALIZE = re.compile(r"[-_.]+")
_META_DIR = re.compile(r"^(?P<name>[^-]+?)(?:-(?P<version>[^-]+?))?(?:-py\d[^-]*)?\.(?:dist|egg)-info$",
                       re.IGNORECASE)


def normalize(name: str) -> str:
    """PEP 503: `SGL_Kernel` → `sgl-kernel`."""
    return _NORMALIZE.sub("-", name).lower()


@dataclass(frozen=True)
class Distribution:
    """An installed distribution as its metadata directory names it."""

    name: str  # as the directory spells it
    version: str
    location: str  # the site directory holding it
    meta_dir: str

    def entry_points(self, group: str) -> list[tuple[str, str]]:
        """(name, "module:attr") of one entry-point group."""
        return _entry_points(self.meta_dir, group)


@cache
def _index(paths: tuple[str, ...]) -> dict[str, Distribution]:
    """Every distribution on `paths`, the first of a name winning as for imports. The directory listing is
    cached on disk, keyed by each directory's mtime (installing or removing a package changes it); versions
    read from a METADATA file (directory names without one) are read again each run."""
    from doctor import cache

    stamp = [(site, _mtime(site)) for site in paths]
    rows = cache.load("distributions", stamp)
    if not isinstance(rows, list) or not all(isinstance(r, list) and len(r) == 4 for r in rows):
        rows = _scan(paths)
        cache.store("distributions", stamp, rows)
    found: dict[str, Distribution] = {}
    for name, version, site, meta_dir in rows:
        version = version or _metadata_version(meta_dir)
        key = normalize(name)
        if version and key not in found:
            found[key] = Distribution(name, version, site, meta_dir)
    return found


def _mtime(site: str) -> int | None:
    try:
        return os.stat(site or ".").st_mtime_ns
    except OSError:
        return None


def _scan(paths: tuple[str, ...]) -> list[list[str | None]]:
    """[name, version from the directory name or None, site, meta_dir] per metadata directory, in path order."""
    rows: list[list[str | None]] = []
    for site in paths:
        try:
            entries = sorted(os.listdir(site or "."))
        except OSError:
            continue
        for entry in entries:
            match = _META_DIR.match(entry)
            if match:
                rows.append([match.group("name"), match.group("version"), site or ".", os.path.join(site, entry)])
    return rows


def distributions(paths: Iterable[str] | None = None) -> dict[str, Distribution]:
    return _index(tuple(sys.path if paths is None else paths))


def distribution(name: str, paths: Iterable[str] | None = None) -> Distribution | None:
    return distributions(paths).get(normalize(name))


def _metadata_version(meta_dir: str) -> str | None:
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(meta_dir, name), encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.partition(":")[2].strip() or None
                    if not line.strip():
                        break
        except OSError:
            continue
    return None


def _entry_points(meta_dir: str, group: str) -> list[tuple[str, str]]:
    path = os.path.join(meta_dir, "entry_points.txt")
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            if f"[{group}]" not in handle.read():
                return []  # most distributions: no need to parse
    except OSError:
        return []
    import configparser

    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return []
    return list(parser.items(group)) if parser.has_section(group) else []


def entry_points(group: str) -> list[tuple[str, str, str]]:
    """(distribution, name, "module:attr") for every installed entry point of `group`."""
    return [(dist.name, name, target) for dist in distributions().values() for name, target in
            dist.entry_points(group)]
