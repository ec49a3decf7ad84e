"""Regenerate the vLLM version data from the released wheels:

    python -m tools.vllm_facts --out doctor/data/vllm [--versions 0.15.0,0.15.1]

Wheels are fetched with `pip download --no-deps` into $SM120_DOCTOR_TEST_CACHE (default
~/.cache/sm120-doctor-tests)/downloads/vllm-X, the layout tests/wheels.py shares; `--delete-wheels` removes
each one once read. Writes vllm-X.json per release and index.json (the releases, oldest first); the torch versions the
wheels pin are looked up on PyPI (metadata only) into torch-nccl.json first (vllm_facts.nccl)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from tools.vllm_facts import TORCH_TABLE, extract
from tools.vllm_facts.history import build_index
from tools.vllm_facts.nccl import torch_pin, update_table
from tools.vllm_facts.source import WheelSource

# Every minor from the first wheel with sm_120 SASS in vllm/_C.abi3.so (0.9.2: 0.9.0 and 0.9.1 carry none,
# read with doctor.binaries) to 0.33.0, with 0.15.1 (SM12x FP8 MoE gate and NVFP4 MoE fixes).
RELEASES = ("0.9.2", "0.10.0", "0.11.0", "0.12.0", "0.13.0", "0.14.0", "0.15.0", "0.15.1", "0.16.0", "0.17.0",
            "0.18.0", "0.19.0", "0.20.0", "0.21.0", "0.22.0", "0.23.0", "0.24.0", "0.25.0", "0.26.0", "0.27.0",
            "0.28.0", "0.29.0", "0.30.0", "0.31.0", "0.32.0", "0.33.0")


def cache_root() -> Path:
    return Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", Path.home() / ".cache" / "sm120-doctor-tests"))


def fetch_wheel(version: str) -> Path:
    dest = cache_root() / "downloads" / f"vllm-{version}"
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
                        "-d", str(dest), f"vllm=={version}"], check=True, timeout=1800)
        wheels = sorted(dest.glob("*.whl"))
    return wheels[0]


def _previous_binaries(path: Path, wheel: str) -> dict | None:
    """The fatbin audit of an earlier run on the same wheel (it reads ~1 GB; the source facts are cheap)."""
    if not path.is_file():
        return None
    old = json.loads(path.read_text(encoding="utf-8"))
    return old.get("binaries") if old.get("wheel") == wheel else None


def _know_torch(wheel: Path) -> None:
    """Put the wheel's torch pin into data/torch-nccl.json (PyPI metadata) before the wheel is extracted."""
    source = WheelSource(wheel)
    try:
        pin = torch_pin(source)
    finally:
        source.close()
    if pin is not None:
        update_table(TORCH_TABLE, {pin["version"]})


def write_json(path: Path, data: object) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.vllm_facts")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--versions", default=",".join(RELEASES))
    parser.add_argument("--no-binaries", action="store_true", help="skip the fatbin audit (faster)")
    parser.add_argument("--delete-wheels", action="store_true")
    parser.add_argument("--index-only", action="store_true", help="rebuild index.json from the files in --out")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for version in [] if args.index_only else args.versions.split(","):
        wheel = fetch_wheel(version)
        _know_torch(wheel)
        previous = _previous_binaries(args.out / f"vllm-{version}.json", wheel.name)
        facts = extract(wheel, audit_binaries=not args.no_binaries and previous is None)
        if previous is not None:
            facts["binaries"] = previous
        write_json(args.out / f"vllm-{version}.json", facts)
        print(f"vllm {version}: {len(facts['flags'])} flags, {len(facts['envs']['table'])} env vars, "
              f"{facts['moe']['count']} MoE configs", flush=True)
        if args.delete_wheels:
            wheel.unlink()
    write_json(args.out / "index.json", build_index(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
