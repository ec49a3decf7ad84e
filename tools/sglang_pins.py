"""Maintainers' script: the torch and kernel-wheel versions each SGLang release pins, read from its wheel's METADATA.

SGLang pins `torch==T` and `sgl-kernel==K` (`sglang-kernel==K` from 0.5.10) in its Requires-Dist (under the `srt`
extra in 0.5.0-0.5.2); the kernel wheel's C++ extension (`common_ops`) is compiled against that torch, so the pair
says which torch each kernel release was built for (the kernel wheels' own README says "Requires torch == T").
Writes `pins` into each release's entry of doctor/data/sglang_facts.json and the small table `check` reads,
doctor/data/sglang_pins.json. tools/sglang_facts.py records the pins of every release it reads and rewrites the
table; this script fills them in for releases read before it existed.

Usage: python tools/sglang_pins.py [--cache DIR] [VERSION ...]
"""

from __future__ import annotations

import argparse
import email.parser
import json
import sys
import tarfile
import zipfile
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from doctor.engines.sglang.releases import RELEASES  # noqa: E402

FACTS = REPO / "doctor" / "data" / "sglang_facts.json"
TABLE = REPO / "doctor" / "data" / "sglang_pins.json"
KERNELS = ("sgl-kernel", "sglang-kernel")
PINNED = ("torch", *KERNELS, "flashinfer-python")


def requires_dist(archive: Path) -> list[str]:
    """The Requires-Dist lines of a wheel's METADATA (or an sdist's PKG-INFO)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as z:
            name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
            text = z.read(name).decode()
    else:
        with tarfile.open(archive) as t:
            member = next(m for m in t.getmembers() if m.name.count("/") == 1 and m.name.endswith("/PKG-INFO"))
            text = t.extractfile(member).read().decode()
    return email.parser.Parser().parsestr(text).get_all("Requires-Dist") or []


def pins_of(lines: list[str]) -> dict[str, str]:
    """`name -> version` for the exact `==` pins of PINNED, unconditional or under the `srt` extra."""
    pins: dict[str, str] = {}
    for line in lines:
        try:
            req = Requirement(line)
        except InvalidRequirement:
            continue
        name = req.name.lower().replace("_", "-")
        if name not in PINNED or (req.marker and not req.marker.evaluate({"extra": "srt"})):
            continue
        exact = [s.version for s in req.specifier if s.operator == "=="]
        if len(exact) == 1:
            pins.setdefault(name, exact[0])
    return pins


def table(data: dict[str, dict]) -> dict:
    """Per release its pins, and per kernel release the torch the SGLang releases pinning it pin."""
    releases = {v: data[v]["pins"] for v in RELEASES if data.get(v, {}).get("pins")}
    torches: dict[str, set[str]] = {}
    for pins in releases.values():
        kernel = next((pins[k] for k in KERNELS if k in pins), None)
        if kernel and "torch" in pins:
            torches.setdefault(kernel, set()).add(pins["torch"])
    # a kernel release pinned beside two different torches says nothing about its build: left out
    kernel_torch = {kernel: next(iter(ts)) for kernel, ts in torches.items() if len(ts) == 1}
    return {"source": "tools/sglang_pins.py: Requires-Dist == pins of each SGLang release wheel's METADATA",
            "releases": releases, "kernel_torch": kernel_torch}


def write_table(data: dict[str, dict]) -> None:
    TABLE.write_text(json.dumps(table(data), indent=1, sort_keys=True) + "\n")


def main() -> int:
    from tools.sglang_facts import download

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sm120-doctor-tests" / "downloads")
    parser.add_argument("versions", nargs="*")
    args = parser.parse_args()
    data = json.loads(FACTS.read_text())
    for version in args.versions or RELEASES:
        if "error" in data.get(version, {"error": "not read"}):
            continue
        data[version]["pins"] = pins_of(requires_dist(download(version, args.cache)))
        print(version, data[version]["pins"], file=sys.stderr)
    FACTS.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    write_table(data)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
