"""Which torch the SGLang kernel wheel in use was compiled for, against the torch that is there.

sgl-kernel/sglang-kernel's `common_ops` is a C++ torch extension: it links against the libtorch/c10 symbols of
the torch it was built with and loads only into that torch's minor release. Every SGLang release pins the pair
(`torch==T`, `sgl-kernel==K`) in its wheel's METADATA (doctor/data/engine_pins.json, tools/engine_pins.py); a
kernel release that the SGLang releases pin beside one torch only was built for that torch (the kernel wheels'
own README agrees: "Requires torch == 2.11.0" in sglang-kernel 0.4.4).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from doctor.engines.pins import releases
from doctor.engines.spi import Facts, minor_release

KERNELS = ("sglang-kernel", "sgl-kernel")


@lru_cache(maxsize=1)
def kernel_torch_table() -> dict[str, str]:
    """kernel release -> the torch every SGLang release pinning it pins (kernels pinned beside two torches
    are left out: their build is not told by the pins)."""
    torches: dict[str, set[str]] = {}
    for entry in releases("sglang").values():
        pins = entry.get("pins", {})
        kernel = next((pins[k]["version"] for k in KERNELS if k in pins), None)
        if kernel and "torch" in pins:
            torches.setdefault(kernel, set()).add(pins["torch"]["version"])
    return {kernel: next(iter(found)) for kernel, found in torches.items() if len(found) == 1}


def kernel_built_for(kernel_version: str) -> str | None:
    """The torch a kernel release was built for (None if unknown). A local tag (`0.4.4+cu130`, the
    docs.sglang.ai index wheels) is the same release built for that CUDA."""
    return kernel_torch_table().get(kernel_version.split("+", 1)[0])


def kernel_torch_view(facts: Facts) -> dict[str, Any]:
    """`sglang.kernel_*` facts: the kernel wheel there (installed or named, or only implied by the SGLang
    release's pin), the torch it was built for, and whether the torch there is another minor release (None when
    either side is unknown)."""
    kernel = facts.libraries.get("sgl-kernel")
    version = kernel.version if kernel and kernel.version else None
    built_for = kernel_built_for(version) if version else None
    torch = facts.libraries.get("torch")
    have = minor_release(torch.version) if torch and torch.version else None
    need = minor_release(built_for) if built_for else None
    implied = bool(kernel and kernel.details.get("implied_by"))
    return {
        "kernel_version": version,
        "kernel_source": None if version is None else ("implied by the release's pin" if implied else "installed"),
        "kernel_built_for_torch": built_for,
        "kernel_torch_mismatch": None if have is None or need is None else have != need,
    }
