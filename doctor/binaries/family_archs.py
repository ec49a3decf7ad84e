"""Kernel families of a released engine wheel, per GPU: which of them the GPU runs natively, through PTX JIT,
or not at all, read from `doctor/data/wheel_archs.json` (tools/wheel_archs.py keeps each file's kernel families
for the engines' kernel packages: doctor.binaries.families on the wheel's own fatbins). Nothing installed is
read: this answers a what-if (`--engine NAME==VERSION`) from the release PyPI serves.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.binaries.families import archs_list
from doctor.binaries.family_verdict import FamilyVerdict, family_verdicts
from doctor.wheel_archs import audited_wheels, find_wheel, platform_for

__all__ = ["audited_versions", "family_wheel", "images", "platform_for", "verdict", "wheel_families"]


def family_wheel(key: str, version: str, capability: tuple[int, int]) -> dict[str, Any] | None:
    """The audited wheel with kernel families for the release on the GPU's platform; a release without one of
    its own takes the newest audited patch of its minor not newer than it (wheel_archs.json audits minors)."""
    platform = platform_for(capability)
    own = find_wheel(key, version, platform)
    if own is not None:
        return own if own.get("families_read") else None
    try:
        stated = Version(version)
    except InvalidVersion:
        return None
    same_minor = [w for w in audited_wheels() if w.get("key", w["package"]) == key and w["platform"] == platform
                  and w.get("families_read") and _same_minor_not_newer(w["version"], stated)]
    return max(same_minor, key=lambda w: Version(w["version"]), default=None)


def audited_versions(key: str, capability: tuple[int, int]) -> list[str]:
    """Every release of the package with kernel families audited on the GPU's platform, oldest first."""
    platform = platform_for(capability)
    found = {w["version"] for w in audited_wheels() if w.get("key", w["package"]) == key
             and w["platform"] == platform and w.get("families_read")}
    return sorted(found, key=Version)


def _same_minor_not_newer(version: str, stated: Version) -> bool:
    try:
        parsed = Version(version)
    except InvalidVersion:
        return False
    return parsed.release[:2] == stated.release[:2] and parsed <= stated


def wheel_families(wheel: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The merged families of an audited wheel, once per wheel (a check asks each release several times)."""
    key = wheel["sha256"]
    if key not in _MERGED:
        _MERGED[key] = _merged_families(wheel)
    return _MERGED[key]


_MERGED: dict[str, dict[str, dict[str, Any]]] = {}


def _merged_families(wheel: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """family -> {"kernels", "kernel_archs", "files", "variants"} over every file of the wheel (FlashAttention 2
    and 3 are two files of one family; so are FlashMLA's dense and sparse extensions)."""
    merged: dict[str, dict[str, Any]] = {}
    for item in wheel.get("files", ()):
        for family, data in (item.get("families") or {}).items():
            into = merged.setdefault(family, {"files": [], "archs": Counter(), "variants": {}})
            into["files"].append(item["file"])
            _add(into["archs"], data["kernel_archs"])
            for variant, groups in (data.get("variants") or {}).items():
                _add(into["variants"].setdefault(variant, Counter()), groups)
    return {family: {"files": data["files"], "kernels": sum(data["archs"].values()),
                     "kernel_archs": archs_list(data["archs"]),
                     "variants": {v: archs_list(c) for v, c in sorted(data["variants"].items())}}
            for family, data in sorted(merged.items())}


def _add(into: Counter, groups: list) -> None:
    for tokens, gate, count in groups:
        into[tuple(tokens), tuple(gate) if gate else None] += count



def verdict(families: dict[str, dict[str, Any]], family: str, capability: tuple[int, int],
            variant: str | None = None) -> FamilyVerdict | None:
    """The family's verdict on the GPU (doctor.binaries.family_verdict), over one activation variant's kernels
    when `variant` is given and the wheel splits the family so; None when the wheel has no such kernel."""
    data = families.get(family)
    if data is None:
        return None
    groups = (data.get("variants") or {}).get(variant) if variant else None
    found = family_verdicts({family: {"kernel_archs": groups or data["kernel_archs"]}}, capability)
    return found[0] if found else None


def images(families: dict[str, dict[str, Any]], family: str, variant: str | None = None) -> str:
    """The family's images, most kernels first: `sm_80 compute_80 (732 kernels); sm_89 sm_120 (204)`."""
    data = families.get(family) or {}
    groups = (data.get("variants") or {}).get(variant) if variant else None
    parts = []
    for index, (tokens, gate, count) in enumerate(groups or data.get("kernel_archs") or []):
        gated = "" if not gate else f", body compiled only for {gate[0]} <= arch" + \
            (f" < {gate[1]}" if gate[1] < 10_000 else "")
        parts.append(f"{' '.join(tokens)} ({count}{' kernels' if index == 0 else ''}{gated})")
    return "; ".join(parts) or "none"
