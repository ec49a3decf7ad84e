"""Which torch the installed SGLang kernel wheel was compiled for, against the torch that is installed.

sgl-kernel/sglang-kernel's `common_ops` is a C++ torch extension: it links against the libtorch/c10 symbols of
the torch it was built with, and loads only into that torch's minor release. Each SGLang release pins the pair
(`torch==T`, `sgl-kernel==K`), read from the release wheels' METADATA by tools/sglang_pins.py into
doctor/data/sglang_pins.json; a kernel release pinned beside one torch only was built for it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.engines.spi import Facts, release

PINS_TABLE = Path(__file__).resolve().parents[2] / "data" / "sglang_pins.json"


@lru_cache(maxsize=1)
def _pins_table() -> dict[str, Any]:
    return json.loads(PINS_TABLE.read_text(encoding="utf-8"))


def pinned(version: Version) -> dict[str, str]:
    """What SGLang `version`'s wheel pins (torch, sgl-kernel or sglang-kernel, flashinfer-python); {} if not read."""
    return dict(_pins_table()["releases"].get(str(version), {}))


def kernel_built_for(kernel_version: str) -> str | None:
    """The torch a kernel release was built for: the one every SGLang release pinning it pins (None if unknown).
    A local build tag (`0.4.4+cu130`, the docs.sglang.ai index wheels) is the same release built for that CUDA."""
    return _pins_table()["kernel_torch"].get(kernel_version.split("+", 1)[0])


def _minor(text: str) -> tuple[int, int] | None:
    try:
        parts = release(Version(text)).release
    except InvalidVersion:
        return None
    return (parts[0], parts[1]) if len(parts) >= 2 else None


def kernel_torch_view(facts: Facts, version: Version) -> dict[str, Any]:
    """`sglang.kernel_*` facts: the kernel in use (installed, else the release's pin), the torch it was built for,
    and whether the installed torch is another minor release (None when either side is unknown)."""
    installed = facts.libraries.get("sgl-kernel")
    pins = pinned(version)
    kernel = installed.version if installed and installed.version else (
        pins.get("sglang-kernel") or pins.get("sgl-kernel"))
    built_for = kernel_built_for(kernel) if kernel else None
    torch = facts.libraries.get("torch")
    have = _minor(torch.version) if torch and torch.version else None
    need = _minor(built_for) if built_for else None
    return {
        "kernel_version": kernel,
        "kernel_source": "installed" if installed and installed.version else "the release's pin",
        "kernel_built_for_torch": built_for,
        "kernel_torch_mismatch": None if have is None or need is None else have != need,
    }
