"""What an engine release installs with it.

`pip install vllm==X` takes the torch, FlashInfer and kernel packages its wheel pins, and that torch takes its own
Triton and CUDA runtime (doctor/data/engine_pins.json, written by tools/engine_pins.py from the wheels'
METADATA). When a deployment names an engine release (`--engine vllm==0.11.0`) but not these packages, they are
added as what-ifs whose `implied_by` says where they came from. A finding that rests on one is at most a warning
(`doctor/pipeline/rules.py`): a container image, another index (torch's cu128 wheels) or a later `pip install`
can hold other builds. Where PyPI's torch for the host is a CPU build (aarch64 up to 2.10), no serving stack
runs it, so the torch there is left unknown rather than implied."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from doctor.pipeline.facts import Library
from doctor.versions import KNOWN_PACKAGES
from doctor.wheel_archs import platform_for

TABLE = Path(__file__).resolve().parents[1] / "data" / "engine_pins.json"


@cache
def _table() -> dict[str, Any]:
    return json.loads(TABLE.read_text(encoding="utf-8")) if TABLE.is_file() else {"engines": {}, "torch": {}}


def releases(engine: str) -> dict[str, dict[str, Any]]:
    """Every release of the engine the table holds, with its wheel's pins as written (`pins`, by PyPI name)."""
    return _table()["engines"].get(engine, {})


def pinned(engine: str, version: str) -> dict[str, dict[str, Any]]:
    """The packages (by the doctor's key) the engine release's wheel pins for a plain install, {} when the
    release is not in the table."""
    release = releases(engine).get(version)
    if release is None:
        return {}
    extras = _table().get("installed_extras", {}).get(engine, ())  # the extras its install instructions name
    found: dict[str, dict[str, Any]] = {}
    for name, pin in release["pins"].items():
        key = KNOWN_PACKAGES.get(name)
        if key is not None and (pin.get("extra") is None or pin["extra"] in extras):
            found.setdefault(key, pin)
    return found


def implied_libraries(libraries: Mapping[str, Library], capability: tuple[int, int] | None) -> dict[str, Library]:
    """The pinned packages of every what-if engine release that the deployment does not already name, as PyPI
    serves them to the GPU's host (GB10 hosts are aarch64), and the Triton a what-if torch pins."""
    machine = platform_for(capability)
    implied: dict[str, Library] = {}
    for engine in [lib for lib in libraries.values() if lib.what_if and lib.name in _table()["engines"]]:
        origin = f"{engine.name}=={engine.version}"
        for key, pin in pinned(engine.name, engine.version).items():
            if key in libraries or key in implied:
                continue
            details = {"implied_by": origin, "requirement": pin["requirement"]}
            if key == "torch":
                build = _torch_build(pin["version"], machine)
                if build.get("cuda_build") is False:
                    continue  # PyPI's CPU build serves nothing, so a working stack did not take it: unknown
                details.update(build)
            implied[key] = Library(name=key, version=pin["version"], what_if=True, details=details)
        torch = implied.get("torch")
        if torch is not None:
            implied.update(_torch_triton(torch, f"{origin} (torch {torch.version})", machine, libraries, implied))
    stated = libraries.get("torch")
    if stated is not None and stated.what_if:
        implied.update(_torch_triton(stated, f"torch=={stated.version}", machine, libraries, implied))
    return implied


def _torch_triton(torch: Library, origin: str, machine: str, libraries: Mapping[str, Library],
                  implied: Mapping[str, Library]) -> dict[str, Library]:
    """The Triton this torch's wheel pins (every CUDA build of one torch release pins the same Triton), where the
    deployment names none."""
    if "triton" in libraries or "triton" in implied:
        return {}
    wheel = _table()["torch"].get(torch.version.split("+")[0], {}).get(machine, {})
    if not wheel.get("triton"):
        return {}
    return {"triton": Library(name="triton", version=wheel["triton"], what_if=True, details={
        "implied_by": origin, "requirement": wheel["triton_requirement"]})}


def _torch_build(version: str, machine: str) -> dict[str, Any]:
    """PyPI's default build of this torch on the machine: CUDA 12.6 for 2.7.x, 12.8 from 2.8, 13.0 from 2.11 on
    x86_64; a CPU build on aarch64 up to 2.10 (its wheels pin no CUDA runtime)."""
    wheel = _table()["torch"].get(version, {}).get(machine)
    if not wheel or not wheel.get("wheel"):
        return {}
    if wheel.get("cuda") is None:
        return {"variant": "cpu", "cuda_build": False, "cuda_version": None, "build_from": wheel["wheel"]}
    return {"cuda_version": wheel["cuda"], "build_from": wheel["wheel"]}
