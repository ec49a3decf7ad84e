"""The NCCL and cuDNN a vLLM release brings: the wheel pins `torch==X` (Requires-Dist in its METADATA), and
torch X pins `nvidia-nccl-cu12`/`-cu13==Y` and `nvidia-cudnn-cu12`/`-cu13==Z` in the metadata of its Linux x86_64
wheel. torch's metadata is read
without downloading the multi-GB wheel: `pip install --dry-run --report` reads the metadata file PyPI serves
beside each wheel (PEP 658), and the report names the wheel whose metadata it was. The answers are kept in
data/torch-nccl.json, so extracting a vLLM wheel needs no network once a torch version is known."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from tools.vllm_facts.source import WheelSource

TORCH_PIN = re.compile(r"^Requires-Dist:\s*torch\s*==\s*([0-9][^\s;,]*)")
NCCL_PIN = re.compile(r"^(nvidia-nccl-cu\d+)\s*==\s*([0-9][^\s;,]*)")
CUDNN_PIN = re.compile(r"^(nvidia-cudnn-cu\d+)\s*==\s*([0-9][^\s;,]*)")
PINNED = ("nccl", "cudnn")  # the keys every table entry carries
INDEX = "https://pypi.org/simple"
PLATFORM = "manylinux_2_28_x86_64"  # the platform of the vLLM wheels the doctor reads
PYTHON = "3.12"


def torch_pin(source: WheelSource) -> dict[str, Any] | None:
    """The exact torch version the wheel requires, with the METADATA line it comes from."""
    meta = next((n for n in source.names if n.endswith(".dist-info/METADATA")), None)
    for number, line in enumerate(source.text(meta).splitlines() if meta else [], start=1):
        found = TORCH_PIN.match(line)
        if found:
            return {"version": found.group(1), "file": meta, "line": number,
                    "requirement": line.split(":", 1)[1].strip()}
    return None


def nccl_pin(requires_dist: list[str], pattern: re.Pattern[str] = NCCL_PIN) -> dict[str, str] | None:
    for requirement in requires_dist:
        found = pattern.match(requirement.strip())
        if found:
            return {"package": found.group(1), "version": found.group(2), "requirement": requirement}
    return None


def torch_metadata(version: str) -> dict[str, Any]:
    """torch==version's NCCL and cuDNN pins from PyPI, read through pip's resolver report (metadata only)."""
    with tempfile.TemporaryDirectory(prefix="torch-metadata-") as tmp:
        report = Path(tmp) / "report.json"
        subprocess.run([sys.executable, "-m", "pip", "--isolated", "--disable-pip-version-check", "install",
                        "--dry-run", "--quiet", "--ignore-installed", "--no-deps", "--only-binary=:all:",
                        "--index-url", INDEX, "--platform", PLATFORM, "--python-version", PYTHON,
                        "--target", str(Path(tmp) / "target"), "--report", str(report), f"torch=={version}"],
                       check=True, timeout=600, capture_output=True)
        installed = json.loads(report.read_text(encoding="utf-8"))["install"][0]
    requires = installed["metadata"].get("requires_dist") or []
    return {"torch": version, "wheel": installed["download_info"]["url"], "nccl": nccl_pin(requires),
            "cudnn": nccl_pin(requires, CUDNN_PIN)}


def load_table(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def update_table(path: Path, versions: set[str]) -> dict[str, Any]:
    """Add the torch versions not yet in the table, and re-read those an older run wrote without one of the
    pins (one PyPI metadata read each)."""
    table = load_table(path)
    stale = {v for v, entry in table.items() if any(key not in entry for key in PINNED)}
    for version in sorted((versions - set(table)) | stale):
        table[version] = torch_metadata(version)
    ordered = dict(sorted(table.items(), key=lambda item: [int(p) for p in re.findall(r"\d+", item[0])]))
    path.write_text(json.dumps(ordered, indent=1) + "\n", encoding="utf-8")
    return ordered


def nccl_facts(pin: dict[str, Any] | None, table: dict[str, Any]) -> dict[str, Any] | None:
    """The release's NCCL: its torch pin joined with the torch table (None when either is missing)."""
    if pin is None:
        return None
    entry = table.get(pin["version"])
    return {"torch": pin, "nccl": entry.get("nccl") if entry else None,
            "nccl_source": entry.get("wheel") if entry else None}
