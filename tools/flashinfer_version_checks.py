"""Write doctor/data/derived/flashinfer_version_checks.json: how each flashinfer-python release compares the
flashinfer-cubin and flashinfer-jit-cache beside it with its own version, read by doctor/engines/pin_check.py.

Derived from the raise-site table (doctor/data/raise_sites/flashinfer.zip, tools/raise_sites.py: every
flashinfer-python wheel 0.5.0 on): the `RuntimeError` "flashinfer-cubin version (...) does not match flashinfer
version (...)" that flashinfer/jit/env.py raises while it is imported (module-level `FLASHINFER_CUBIN_DIR =
_get_cubin_dir()`, `FLASHINFER_AOT_DIR` / `FLASHINFER_AOT_PROVIDERS`), its guard, and the releases it exists in.
A guard `x != flashinfer_version` is an exact comparison; `not x.startswith(flashinfer_version)` a prefix one
(jit-cache 0.6.1+cu129 passes 0.6.1, and so does 0.6.10 beside 0.6.1); `x != v and not x.startswith(f'{v}+')` the
exact version with any local tag. Also the flashinfer-cubin releases PyPI serves (simple index, PEP 691): from
0.6.14 on, flashinfer-cubin is published on FlashInfer's own index only.

    python tools/flashinfer_version_checks.py
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from doctor.raise_site_table import load_table, parse_ranges  # noqa: E402

OUT = REPO / "doctor" / "data" / "derived" / "flashinfer_version_checks.json"
PACKAGES = {"flashinfer-cubin": "flashinfer-cubin version", "flashinfer-jit-cache": "flashinfer-jit-cache version"}
GENERIC = "{*} version ({*}) does not match flashinfer version"  # 0.7.0 on: one helper for the jit-cache packages
INDEX = "https://pypi.org/simple/flashinfer-cubin/"


def _mode(guard: str) -> str:
    if ".startswith(f'{flashinfer_version}+')" in guard:
        return "exact or local"
    if ".startswith(flashinfer_version)" in guard:
        return "prefix"
    if "!= flashinfer_version" in guard or "flashinfer_version != " in guard:
        return "exact"
    raise ValueError(f"unrecognised guard: {guard}")


def _package(record: dict[str, Any]) -> str | None:
    template = record["template"]
    for package, start in PACKAGES.items():
        if template.startswith(start):
            return package
    if template.startswith(GENERIC) and "jit_cache_version" in record["function"]:
        return "flashinfer-jit-cache"
    return None


def checks() -> dict[str, Any]:
    table = load_table("flashinfer")
    releases: list[str] = table["releases"]
    sites: list[dict[str, Any]] = table["sites"]
    found: dict[str, dict[str, Any]] = {package: {} for package in PACKAGES}
    for record in sites:
        package = _package(record)
        if package is None or record["kind"] != "RuntimeError":
            continue
        for index in parse_ranges(record["releases"]):
            found[package][releases[index]] = {
                "mode": _mode(record["guard"]), "file": record["file"], "line": record["line"],
                "function": record["function"], "message": record["template"].replace("{*}", "%s")}
    return {"releases": releases, "checks": found}


def pypi_cubins() -> list[str]:
    request = urllib.request.Request(INDEX, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return list(json.load(response)["versions"])


def main() -> int:
    table = {"generated_by": "tools/flashinfer_version_checks.py",
             "source": "doctor/data/raise_sites/flashinfer.zip (flashinfer-python wheels); PyPI simple index",
             **checks(), "cubin_on_pypi": pypi_cubins()}
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
