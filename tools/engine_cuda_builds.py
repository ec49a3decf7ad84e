"""Which CUDA runtime major each vLLM release's PyPI wheels are built for, per platform (x86_64, aarch64):
doctor/data/derived/engine_cuda_builds.json, read by doctor/engines/pin_check.py.

For every vLLM release in doctor/data/engine_pins.json, each manylinux wheel on PyPI (simple index, PEP 691):
the zip's central directory and the start of the core extension (`vllm/_C.abi3.so`, from 0.2x
`vllm/_C_stable_libtorch.abi3.so`) are read with HTTP range requests and inflated from its first byte; the
extension's `.dynstr` (which holds its DT_NEEDED names) sits in the first megabytes of the ELF, so the
`libcudart.so.N` it names is read without downloading the wheel. The same table holds the CUDA major of the
torch the release pins on that platform (engine_pins.json's torch wheels: None where PyPI's torch is a CPU build).

    python tools/engine_cuda_builds.py            # every release the pins table holds
    python tools/engine_cuda_builds.py --versions 0.12.0,0.24.0
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tools.remote_wheel import central_directory, get, read_member  # noqa: E402

PINS = REPO / "doctor" / "data" / "engine_pins.json"
OUT = REPO / "doctor" / "data" / "derived" / "engine_cuda_builds.json"
INDEX = "https://pypi.org/simple/vllm/"
CORE = ("vllm/_C.abi3.so", "vllm/_C_stable_libtorch.abi3.so")
PREFIX_BYTES = 6 << 20  # compressed bytes read from the extension's start: its .dynstr is well inside
CUDART = re.compile(rb"libcudart\.so\.(\d+)")


def _cudart_major(url: str, size: int) -> dict[str, Any] | None:
    entries = central_directory(url, size)
    member = next((name for name in CORE if name in entries), None)
    if member is None:
        return None
    data = read_member(url, entries[member], limit=PREFIX_BYTES)
    found = sorted({int(m) for m in CUDART.findall(data)})
    return {"extension": member, "cudart": found[0] if len(found) == 1 else None, "cudart_seen": found}


def _platform(filename: str) -> str | None:
    return "aarch64" if filename.endswith("aarch64.whl") else "x86_64" if filename.endswith("x86_64.whl") else None


def build(versions: list[str]) -> dict[str, Any]:
    pins = json.loads(PINS.read_text(encoding="utf-8"))
    files = json.loads(get(INDEX))["files"]
    releases: dict[str, Any] = {}
    for version in versions:
        entry: dict[str, Any] = {}
        torch = pins["engines"]["vllm"][version]["pins"].get("torch", {}).get("version")
        for file in files:
            name = file["filename"]
            if not name.startswith(f"vllm-{version}-") or _platform(name) is None or file.get("yanked"):
                continue
            read = _cudart_major(file["url"], int(file["size"]))
            torch_wheel = pins["torch"].get(torch or "", {}).get(_platform(name), {})
            entry[_platform(name)] = {"wheel": name, "sha256": file["hashes"].get("sha256"), **(read or {}),
                                      "torch": torch, "torch_cuda": torch_wheel.get("cuda")}
            print(version, name, read, file=sys.stderr)
        releases[version] = entry
    return releases


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--versions", help="comma-separated vLLM releases (default: every one in engine_pins.json)")
    args = parser.parse_args(argv)
    known = list(json.loads(PINS.read_text(encoding="utf-8"))["engines"]["vllm"])
    versions = args.versions.split(",") if args.versions else known
    table = {"generated_by": "tools/engine_cuda_builds.py",
             "source": "PyPI simple index (PEP 691); each wheel's core extension read by HTTP range requests",
             "vllm": build([v for v in versions if v in known])}
    if OUT.is_file() and args.versions:
        old = json.loads(OUT.read_text(encoding="utf-8"))
        old["vllm"].update(table["vllm"])
        table = old
    OUT.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
