"""The wheel-derived tables under doctor/data and the releases each one covers: what `sm120-doctor engines`
reports as the edge of its knowledge and what `tools/refresh` extends with every newer PyPI release.

Each table is (its name, the PyPI package its rows come from, the file, the machine for per-platform wheel
audits). Versions are read from the files themselves, so the answer is what the data holds, not a list kept
beside it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.raise_site_table import engines as raise_site_engines

DATA = Path(__file__).resolve().parent / "data"
X86 = "x86_64"
PINS = "engine_pins.json"  # what each engine release's wheel pins (tools/engine_pins.py)
MODEL_SUPPORT = "derived/model_support.json"  # architectures / model types per release (tools/model_support.py)
PARSERS = "derived/parsers.json"  # tool-call / reasoning parser names per release (tools/parser_tables.py)
PACKAGE_TABLES = (MODEL_SUPPORT, PARSERS)  # {"packages": {package: {"releases": [...]}}}
RAISE_SITES = "raise_sites"  # raise_sites/<engine>.zip: where each release raises what (tools/raise_sites.py)


@dataclass(frozen=True)
class Table:
    name: str
    package: str  # the PyPI distribution its rows are read from
    path: str  # relative to doctor/data
    machine: str | None = None  # wheel audits are per platform; the refresh audits x86_64 wheels
    families: bool = False  # only the audited wheels whose files keep their kernel families (families_read)


def tables(data_dir: Path = DATA) -> tuple[Table, ...]:
    """Every wheel-derived table, found by its layout (nothing here names an engine): `<package>_facts.json`
    keyed by release, `<package>/index.json` with its `releases`, each engine of `engine_pins.json`, each
    package of `wheel_archs.json` and each package of `derived/model_support.json` and `derived/parsers.json`."""
    found = [Table(f"{p.stem.removesuffix('_facts')} facts", p.stem.removesuffix("_facts"), p.name)
             for p in sorted(data_dir.glob("*_facts.json"))]
    found += [Table(f"{p.parent.name} facts", p.parent.name, f"{p.parent.name}/index.json")
              for p in sorted(data_dir.glob("*/index.json")) if "releases" in _load(p)]
    found += [Table(f"engine pins: {package}", package, PINS)
              for package in sorted(_load(data_dir / PINS).get("engines", {}))]
    wheels = _load(data_dir / "wheel_archs.json").get("wheels", [])
    audited = sorted({w["package"] for w in wheels})
    found += [Table(f"wheel archs: {package}", package, "wheel_archs.json", X86) for package in audited]
    # the same audit's kernel families (tools/wheel_archs.py FAMILY_PACKAGES): DSP060-DSP062 read them
    with_families = sorted({w["package"] for w in wheels if w.get("families_read")})
    found += [Table(f"kernel families: {package}", package, "wheel_archs.json", X86, families=True)
              for package in with_families]
    found += [Table(f"model support: {package}", package, MODEL_SUPPORT)
              for package in sorted(_load(data_dir / MODEL_SUPPORT).get("packages", {}))]
    found += [Table(f"parsers: {package}", package, PARSERS)
              for package in sorted(_load(data_dir / PARSERS).get("packages", {}))]
    found += [Table(f"raise sites: {engine}", row["project"], f"{RAISE_SITES}/{engine}.zip")
              for engine, row in sorted(raise_site_engines(data_dir / RAISE_SITES).items())]
    return tuple(found)


def stable(version: str) -> Version | None:
    """A final release (post releases count, pre/dev releases do not), else None."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        return None
    return None if parsed.is_prerelease or parsed.is_devrelease or parsed.local else parsed


def versions_in(table: Table, data_dir: Path = DATA) -> list[str]:
    """Every release the table holds, oldest first."""
    if table.path.startswith(RAISE_SITES + "/"):  # its index (the table itself is gzipped and large)
        engine = Path(table.path).stem
        rows = raise_site_engines(data_dir / RAISE_SITES)
        return sorted(set(rows.get(engine, {}).get("releases", [])), key=lambda v: stable(v) or Version("0"))
    data = _load(data_dir / table.path)
    if table.path.endswith("_facts.json"):
        found = [v for v, entry in data.items() if "error" not in entry]
    elif table.path.endswith("/index.json"):
        found = list(data.get("releases", []))
    elif table.path == PINS:
        found = list(data.get("engines", {}).get(table.package, {}))
    elif table.path in PACKAGE_TABLES:
        found = list(data.get("packages", {}).get(table.package, {}).get("releases", []))
    else:
        found = [w["version"] for w in data.get("wheels", [])
                 if w["package"] == table.package and w.get("platform", X86) == (table.machine or X86)
                 and (w.get("families_read") or not table.families)]
    return sorted(set(found), key=lambda v: stable(v) or Version("0"))


def newest(table: Table, data_dir: Path = DATA) -> str | None:
    held = [v for v in versions_in(table, data_dir) if stable(v) is not None]
    return held[-1] if held else None


def coverage(data_dir: Path = DATA) -> list[dict[str, Any]]:
    """One row per table: what it covers, for `engines`."""
    rows = []
    for table in tables(data_dir):
        held = versions_in(table, data_dir)
        rows.append({"table": table.name, "package": table.package, "file": f"doctor/data/{table.path}",
                     "releases": len(held), "newest": newest(table, data_dir)})
    return rows


def derived_coverage(data_dir: Path = DATA) -> list[dict[str, Any]]:
    """The engine oracle's dispatch tables (`derived/<engine>/<release>.json`, written by `python -m
    tools.engine_oracle ENGINE RELEASE`, not by the refresh): every release each engine has a table for, oldest
    first. `check`'s derived findings read exactly these releases (`derived/<engine>-validation/`, the
    validation queries of public reports, are read by tests only)."""
    rows = []
    for folder in sorted(p for p in (data_dir / "derived").glob("*") if p.is_dir() and "-" not in p.name):
        held = sorted((p.stem for p in folder.glob("*.json") if stable(p.stem)), key=Version)
        rows.append({"engine": folder.name, "file": f"doctor/data/derived/{folder.name}/<release>.json",
                     "releases": held, "newest": held[-1] if held else None})
    return rows


@lru_cache(maxsize=8)
def _load(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
