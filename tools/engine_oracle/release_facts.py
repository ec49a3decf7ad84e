"""What an engine release's own wheel says about its dependencies and its model registry, for the stops
classifier (tools/engine_oracle/stops.py):

    python -m tools.engine_oracle.release_facts vllm 0.18.0,0.19.0 --record doctor/data/derived/stops.json

For each release: the wheel from PyPI (`pip download --no-deps`, pip from `$SM120_DOCTOR_PIP`, else `pip`;
into the oracle cache, deleted after reading), its `Requires-Dist` lines for the dependencies that decide a
model build (transformers, huggingface-hub, tokenizers, torch, flashinfer-python, nvidia-cutlass-dsl) and, for
every architecture the grid asks (tools/engine_oracle/grid.py), whether vLLM's model registry
(`vllm/model_executor/models/registry.py`) names it. A release whose registry lacks an architecture
has no model of its own for it, whatever the dependency versions."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from tools.engine_oracle import grid
from tools.engine_oracle.environment import DEFAULT_CACHE

DEPENDENCIES = ("transformers", "huggingface-hub", "tokenizers", "torch", "flashinfer-python", "nvidia-cutlass-dsl")
REGISTRY = {"vllm": "vllm/model_executor/models/registry.py"}


def grid_architectures() -> list[str]:
    return sorted({arch for shape in grid.shapes() for arch in shape.config.get("architectures", [])})


def download(engine: str, release: str, folder: Path) -> Path:
    subprocess.run([os.environ.get("SM120_DOCTOR_PIP", "pip"), "download", "-q", "--no-deps", "--only-binary", ":all:",
                    f"{engine}=={release}",
                    "-d", str(folder)], check=True, capture_output=True)
    return next(folder.glob(f"{engine}-{release}-*.whl"))


def requires(metadata: str) -> dict[str, str]:
    """The release's requirement per dependency of DEPENDENCIES (without markers: only unconditional lines)."""
    found: dict[str, str] = {}
    for line in metadata.splitlines():
        if not line.startswith("Requires-Dist:") or ";" in line:
            continue
        spec = line.split(":", 1)[1].strip()
        name = re.split(r"[\s<>=!~\[(]", spec, maxsplit=1)[0].lower().replace("_", "-")
        if name in DEPENDENCIES:
            found[name] = spec[len(name):].strip().lstrip("[").split("]")[-1].strip() or "any"
    return found


# `AutoConfig.register("aimv2", AIMv2Config)` in the release's own config modules: transformers refuses a model
# type it already knows ("'aimv2' is already used by a Transformers config, pick another name") unless the call
# passes exist_ok=True, and the engine does it at import, before any model is named.
REGISTER = re.compile(r'AutoConfig\.register\(\s*["\'](\w+)["\']([^)]*)\)')


def registered_config_types(archive: zipfile.ZipFile, package: str) -> dict[str, dict[str, Any]]:
    """model type -> {file, exist_ok} for every AutoConfig.register call of the engine's own sources."""
    found: dict[str, dict[str, Any]] = {}
    for name in archive.namelist():
        if name.startswith(f"{package}/") and name.endswith(".py"):
            for model_type, rest in REGISTER.findall(archive.read(name).decode(errors="replace")):
                found[model_type] = {"file": name, "exist_ok": "exist_ok=True" in rest.replace(" ", "")}
    return found


def read_wheel(engine: str, wheel: Path) -> dict[str, Any]:
    with zipfile.ZipFile(wheel) as archive:
        metadata_name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(metadata_name).decode()
        registry = archive.read(REGISTRY[engine]).decode()
        registers = registered_config_types(archive, engine)
    names = set(re.findall(r'"(\w+)"\s*:\s*\(', registry))
    return {"wheel": wheel.name, "requires": requires(metadata),
            "registry": {arch: arch in names for arch in grid_architectures()},
            "registers_config_types": registers}


def facts(engine: str, release: str) -> dict[str, Any]:
    (DEFAULT_CACHE / "wheels").mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=DEFAULT_CACHE / "wheels") as tmp:
        return read_wheel(engine, download(engine, release, Path(tmp)))


def record(path: Path, engine: str, found: dict[str, dict[str, Any]]) -> None:
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    data.setdefault("releases", {}).setdefault(engine, {}).update(found)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.engine_oracle.release_facts",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=sorted(REGISTRY))
    parser.add_argument("releases", help="comma-separated")
    parser.add_argument("--record", type=Path)
    args = parser.parse_args()
    for release in args.releases.split(","):
        found = facts(args.engine, release)
        print(release, json.dumps(found))
        if args.record:
            record(args.record, args.engine, {release: found})


if __name__ == "__main__":
    main()
