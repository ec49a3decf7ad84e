"""What a package's version string and its released wheel say about the GPUs it can run on.

Two sources, both without importing the package:
- the version's local part: torch `2.7.0+cu126` was built with CUDA 12.6, `2.9.1+cpu` has no CUDA at all;
- `doctor/data/wheel_archs.json`, written by `tools/wheel_archs.py` from the PyPI wheels themselves
  (fatbin headers of every CUDA library, with the wheel's file name and sha256): the archs each audited
  release ships. PyPI serves one build per version, so a version without a local part is that build.

Probed details (an installed torch's own fatbins and version.py) always win over these; they only fill what
a what-if (`--engine torch==2.7.0`) or a partial probe leaves unknown.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from doctor.binaries.archs import Arch, runs

_LOCAL_CUDA = re.compile(r"^cu(\d{2,3})(\d)$")
X86, ARM = "x86_64", "aarch64"


@lru_cache(maxsize=1)
def audited_wheels() -> tuple[dict[str, Any], ...]:
    path = Path(__file__).resolve().parent / "data" / "wheel_archs.json"
    try:
        return tuple(json.loads(path.read_text(encoding="utf-8")).get("wheels", ()))
    except (OSError, ValueError):
        return ()


def platform_for(capability: tuple[int, int] | None) -> str:
    """GB10 (12.1) exists only in aarch64 systems (DGX Spark and its OEM twins); the rest are x86_64 hosts."""
    return ARM if capability == (12, 1) else X86


def version_facts(name: str, version: str, capability: tuple[int, int] | None,
                  probed: dict[str, Any] | None = None) -> dict[str, Any]:
    """Details to merge under a library's probed ones: the build variant, CUDA version, audited archs. The
    audited wheel is used only when what is known of the build does not contradict it (a torch 2.7.0 known to
    be built with CUDA 12.8 is the cu128 build, not PyPI's cu126 one)."""
    base, _, local = version.partition("+")
    facts: dict[str, Any] = {}
    if local:
        facts.update(_variant_facts(local))
    wheel = None if local else find_wheel(name, base, platform_for(capability))
    known_cuda = (probed or {}).get("cuda_version")
    if wheel is not None and known_cuda and wheel.get("cuda_version") not in (None, known_cuda):
        wheel = None
    if wheel is not None:
        facts.update(_wheel_facts(wheel, capability))
    return facts


def _variant_facts(local: str) -> dict[str, Any]:
    local = local.lower()
    if local == "cpu":
        return {"variant": "cpu", "cuda_build": False, "cuda_version": None}
    match = _LOCAL_CUDA.match(local)
    if match:
        return {"variant": local, "cuda_build": True, "cuda_version": f"{int(match.group(1))}.{match.group(2)}"}
    return {"variant": local}


def find_wheel(name: str, version: str, platform: str) -> dict[str, Any] | None:
    """The audited wheel of that release for the platform; a platform-independent wheel (`-none-any`, e.g.
    flashinfer-cubin) serves every platform."""
    releases = [w for w in audited_wheels() if w.get("key", w["package"]) == name and w["version"] == version]
    return next((w for w in releases if w["platform"] == platform),
                next((w for w in releases if w["wheel"].endswith("-none-any.whl")), None))


def _wheel_facts(wheel: dict[str, Any], capability: tuple[int, int] | None) -> dict[str, Any]:
    archs = wheel.get("primary", {}).get("archs") or wheel.get("arch_list", wheel.get("union", []))
    facts: dict[str, Any] = {
        "arch_list": list(archs),
        "arch_source": f"{wheel['wheel']} (sha256 {wheel['sha256'][:12]}), doctor/data/wheel_archs.json",
        "cuda_build": bool(archs),
        "wheel_runs_here": None if capability is None else any(runs(Arch.parse(a), capability) for a in archs),
    }
    if "cuda_version" in wheel:
        facts["cuda_version"] = wheel["cuda_version"]
        facts["variant"] = "cu" + wheel["cuda_version"].replace(".", "") if wheel["cuda_version"] else "cpu"
    return facts
