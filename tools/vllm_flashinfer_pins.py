"""Write doctor/engines/vllm/data/flashinfer-pins.json: the flashinfer-python each vLLM release installs.

Read from each wheel's `*.dist-info/METADATA` (`Requires-Dist: flashinfer-python==X`, with the extra it hides
behind where there is one), downloaded from PyPI with `pip download --no-deps`:

    python tools/vllm_flashinfer_pins.py CACHE_DIR 0.20.0 0.21.0 ...   # download (or reuse) and write
    python tools/vllm_flashinfer_pins.py CACHE_DIR --all              # every release in data/index.json
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "doctor" / "data" / "vllm" / "flashinfer-pins.json"
PIN = re.compile(r"^Requires-Dist:\s*flashinfer-python\s*==\s*([0-9][^\s;,]*)\s*(?:;\s*(.*))?$")
EXTRA = re.compile(r"""extra\s*==\s*["']([^"']+)["']""")


def metadata_text(cache: Path, version: str) -> str:
    """The wheel's METADATA, kept as `cache/<version>.txt` (the wheel is downloaded, read and deleted once)."""
    kept = cache / f"{version}.txt"
    if not kept.exists():
        folder = cache / version
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", f"vllm=={version}", "-d", str(folder),
                        "-q"], check=True)
        wheel_path = sorted(folder.glob("vllm-*.whl"))[0]
        with zipfile.ZipFile(wheel_path) as wheel:
            name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            kept.write_bytes(wheel.read(name))
        wheel_path.unlink()
    return kept.read_text(encoding="utf-8")


def flashinfer_pin(metadata: str) -> dict[str, object] | None:
    """The exact flashinfer-python requirement, its METADATA line and the extra it needs (None: installed)."""
    for number, line in enumerate(metadata.splitlines(), start=1):
        match = PIN.match(line.strip())
        if match:
            extra = EXTRA.search(match.group(2) or "")
            return {"version": match.group(1), "line": number, "requirement": line.split(":", 1)[1].strip(),
                    "extra": extra.group(1) if extra else None}
    return None


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cache = Path(argv[0])
    versions = argv[1:]
    if versions == ["--all"]:
        versions = json.loads((TARGET.parent / "index.json").read_text())["releases"]
    pins = json.loads(TARGET.read_text()) if TARGET.exists() else {}
    for version in versions:
        pins[version] = {"file": f"vllm-{version}.dist-info/METADATA",
                         "flashinfer-python": flashinfer_pin(metadata_text(cache, version))}
    ordered = dict(sorted(pins.items(), key=lambda kv: tuple(int(p) for p in kv[0].split("."))))
    TARGET.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    print(f"{len(versions)} release(s) written to {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
