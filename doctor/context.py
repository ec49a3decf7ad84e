"""The flat-ish dictionary that rule conditions and message templates address by dotted path."""

from __future__ import annotations

from typing import Any

from doctor.analysis import Analysis
from doctor.facts import Facts, to_jsonable
from doctor.launch import Launch


def build_context(facts: Facts, analysis: Analysis, launch: Launch) -> dict[str, Any]:
    return {
        "source": to_jsonable(facts.source),
        "gpu": _gpu(facts),
        "driver": _driver(facts),
        "host": to_jsonable(facts.host),
        "lib": _libraries(facts),
        "model": to_jsonable(facts.model) if facts.model else None,
        "launch": {**launch.values, "tp": analysis.tp, "args": list(launch.args)},
        "analysis": analysis.to_dict(),
        "kernels": [k.to_dict() for k in analysis.kernels],
        "binaries": list(analysis.binaries),
        "plan": analysis.plan,
        "env": dict(facts.env),
        "topology": _topology(facts),
    }


def _gpu(facts: Facts) -> dict[str, Any]:
    if not facts.gpus:
        return {"count": 0}
    first = facts.gpus[0]
    major, minor = first.capability
    return {
        **to_jsonable(first),
        "count": len(facts.gpus),
        "capability_major": major,
        "capability_minor": minor,
        "capability": major + minor / 10,
        "mixed": len({(g.name, g.compute_capability) for g in facts.gpus}) > 1,
    }


def _driver(facts: Facts) -> dict[str, Any]:
    data = to_jsonable(facts.driver)
    version = facts.driver.driver_version
    if version and version.split(".")[0].isdigit():
        data["major"] = int(version.split(".")[0])
    return data


def _libraries(facts: Facts) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, library in facts.libraries.items():
        entry = {"version": library.version, "what_if": library.what_if, "location": library.location,
                 **library.details}
        archs = library.details.get("arch_list")
        if isinstance(archs, list):
            entry["has_sm12x_code"] = any(a.startswith(("sm_12", "compute_12")) for a in archs)
            entry["has_ptx"] = any(a.startswith("compute_") for a in archs)
        out[name] = entry
    return out


def _topology(facts: Facts) -> dict[str, Any]:
    kinds = [link.kind for link in facts.topology]
    nvlink = [k for k in kinds if k.startswith("NV")]
    return {
        "links": len(kinds),
        "nvlink_pairs": len(nvlink),
        "pcie_only": bool(kinds) and not nvlink,
        "full_nvlink": bool(kinds) and len(nvlink) == len(kinds),
        "kinds": sorted(set(kinds)),
    }
