"""Does the deployment hold the packages its engine release was built against (pip check, from the wheels)?

Four comparisons, each only over packages the deployment states or probes (a package implied by an engine's pin
is the pin itself; a finding resting on one is held to a warning by doctor/pipeline/rules.py):

- FlashInfer's own import-time check: flashinfer/jit/env.py raises `RuntimeError: flashinfer-cubin version (A)
  does not match flashinfer version (B)` (and the same for flashinfer-jit-cache) while `import flashinfer` runs,
  with the comparison each release makes (doctor/data/derived/flashinfer_version_checks.json,
  tools/flashinfer_version_checks.py from the raise-site table of every flashinfer-python wheel 0.5.0 on);
- the engine's compiled extensions against torch: the torch the release pins (engine_pins.json) against the one
  there, judged by symbol measurements of real wheel pairs (doctor/data/derived/torch_abi_pairs.json,
  bench/pin_abi_symbols.py): a core extension that misses torch symbols stops the import;
- every other package the release pins exactly, against the version there;
- the CUDA runtime major a PyPI engine wheel links (libcudart.so.N, doctor/data/derived/engine_cuda_builds.json,
  tools/engine_cuda_builds.py) against the CUDA major of the torch or image there.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.engines.pins import pinned, releases
from doctor.pipeline.facts import Library
from doctor.versions import KNOWN_PACKAGES, minor_release
from doctor.wheel_archs import platform_for

DERIVED = Path(__file__).resolve().parents[1] / "data" / "derived"
FAMILY = ("flashinfer-cubin", "flashinfer-jit-cache")
NOT_COMPARED = {"torch", *FAMILY}  # torch by the ABI measurements, the FlashInfer family by FlashInfer's check
CUBIN_INDEX = "https://flashinfer.ai/whl"  # flashinfer/__main__.py `_build_cubin_index_url` (0.7.x wheels)


@cache
def _table(name: str) -> dict[str, Any]:
    path = DERIVED / name
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _stated(library: Library | None) -> bool:
    return library is not None and bool(library.version) and not library.details.get("implied_by")


def _parts(version: str) -> tuple[int, ...] | None:
    try:
        return Version(version).release
    except InvalidVersion:
        return None


def _public(version: str) -> str:
    return version.split("+", 1)[0]


def pin_view(libraries: Mapping[str, Library], env: Mapping[str, str], library: Library | None,
             capability: tuple[int, int] | None, image: Mapping[str, Any] | None = None,
             backends: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`pins.*`: the FlashInfer family's mismatches (and whether the run's analysis puts FlashInfer on its path:
    engines import it lazily, so the refused import stops only a run that uses it), and for the run's engine
    release (unless a container image carries its own build of it) its torch ABI, its other exact pins and its
    CUDA build."""
    on_path = sorted(f"{role}: {name}" for role, name in (backends or {}).items() if "flashinfer" in str(name).lower())
    view: dict[str, Any] = {"flashinfer": flashinfer_mismatches(libraries, env), "abi": [], "mismatches": [],
                            "cuda": [], "abi_established": False, "flashinfer_in_path": bool(on_path),
                            "flashinfer_backends": ", ".join(on_path) or None}
    if library is None or not library.version or not releases(library.name) or _held_by_image(library, image):
        return view
    name = library.name
    view["abi"] = torch_abi(name, library.version, libraries)
    view["abi_established"] = any(item["status"] == "breaks" for item in view["abi"])
    view["mismatches"] = pin_mismatches(name, library.version, libraries)
    view["cuda"] = cuda_builds(name, library.version, libraries, platform_for(capability), image)
    return view


def _held_by_image(library: Library, image: Mapping[str, Any] | None) -> bool:
    return bool(image) and image.get("engine") == library.name and image.get("version") == library.version


def flashinfer_mismatches(libraries: Mapping[str, Library], env: Mapping[str, str]) -> list[dict[str, Any]]:
    """flashinfer-cubin / flashinfer-jit-cache versions the installed flashinfer-python's own check refuses."""
    python = libraries.get("flashinfer-python")
    table = _table("flashinfer_version_checks.json")
    if python is None or not python.version or not table:
        return []
    found = []
    for package in FAMILY:
        other = libraries.get(package)
        check = table["checks"].get(package, {}).get(python.version)
        if not _stated(other) or check is None or _passes(check["mode"], other.version, python.version):
            continue
        found.append(_family_item(package, other.version, python.version, check, table, env))
    return found


def _passes(mode: str, version: str, python: str) -> bool:
    if mode == "prefix":
        return version.startswith(python)
    if mode == "exact or local":
        return version == python or version.startswith(f"{python}+")
    return version == python


def _family_item(package: str, version: str, python: str, check: dict[str, Any], table: dict[str, Any],
                 env: Mapping[str, str]) -> dict[str, Any]:
    releases_with = [r for r in table["releases"] if r in table["checks"][package]]
    bypass = "FLASHINFER_DISABLE_VERSION_CHECK" if env.get("FLASHINFER_DISABLE_VERSION_CHECK") else (
        "FLASHINFER_CUBIN_DIR" if package == "flashinfer-cubin" and env.get("FLASHINFER_CUBIN_DIR") else None)
    item = {"package": package, "installed": version, "python": python, "mode": check["mode"],
            "site": f"flashinfer/jit/env.py:{check['line']} ({check['function']}) in flashinfer-python {python}",
            "message": _message(check["message"], package, version, python),
            "releases": f"{releases_with[0]}-{releases_with[-1]}", "fix": _family_fix(package, python, table)}
    return {**item, "bypassed_by": bypass} if bypass else item


def _message(template: str, package: str, version: str, python: str) -> str:
    """The RuntimeError's text; from 0.7.0 the jit-cache helper names the distribution first."""
    values = (package, version, python) if template.count("%s") == 3 else (version, python)
    return template.replace("%s", "{}", len(values)).format(*values).replace("%s", "...")


def _family_fix(package: str, python: str, table: dict[str, Any]) -> str:
    if package == "flashinfer-jit-cache":
        return (f"pip install flashinfer-jit-cache=={python} --index-url {CUBIN_INDEX}/cu130 (cu129 for a CUDA 12.9 "
                f"torch), or pip uninstall flashinfer-jit-cache")
    if python in table.get("cubin_on_pypi", ()):
        return f"pip install flashinfer-cubin=={python}, or pip uninstall flashinfer-cubin"
    return (f"pip uninstall flashinfer-cubin (PyPI has no flashinfer-cubin {python}; FlashInfer publishes it on "
            f"{CUBIN_INDEX}: pip install flashinfer-cubin=={python} --extra-index-url {CUBIN_INDEX})")


def torch_abi(engine: str, version: str, libraries: Mapping[str, Library]) -> list[dict[str, Any]]:
    """The engine's compiled extensions (its own wheel, or the kernel package it pins) against the torch there."""
    torch = libraries.get("torch")
    if not _stated(torch):
        return []
    found = []
    for carrier, carrier_version in _carriers(engine, version, libraries):
        built_for = _built_for(engine, version, carrier, carrier_version)
        if built_for is None or _public(torch.version) == built_for:
            continue
        item = _abi_item(carrier, carrier_version, built_for, torch.version)
        if item is None:
            continue
        kernel = libraries.get(carrier) if carrier != engine else None
        implied = kernel is not None and not _stated(kernel)
        if implied and item["status"] == "breaks":
            item["status"] = "breaks_implied"
        # an installed kernel wheel with another torch minor is SGL181's unless the measurement settles it
        item["left_to_other_rule"] = kernel is not None and not implied and item["status"] in ("unmeasured", "optional")
        own = carrier == engine
        item["carrier_text"] = (f"the {engine} {version} wheel" if own else
                                f"{carrier} {carrier_version} (the kernel wheel {engine} {version} runs)")
        found.append({"engine": engine, "release": version, **item, "status_text": _status_text(item, engine, version),
                      "alternative": _engine_for_torch(engine, torch.version)})
    return found


def _engine_for_torch(engine: str, torch: str) -> str:
    """The releases of the engine whose wheel pins a torch of this minor release: the other way out."""
    want = minor_release(torch)
    found = [v for v, entry in releases(engine).items()
             if minor_release(entry["pins"].get("torch", {}).get("version", "")) == want]
    found.sort(key=lambda v: Version(v))
    if not found:
        return f"(no {engine} release in the pins table pins a torch {'.'.join(map(str, want or ()))}.x)"
    span = found[0] if len(found) == 1 else f"{found[0]}-{found[-1]}"
    return f"or move to {engine} {span}, the release(s) whose wheel pins torch {'.'.join(map(str, want or ()))}"


def _status_text(item: dict[str, Any], engine: str, release: str) -> str:
    status, measured = item["status"], item["measured"]
    if status == "optional":
        return f"measured: {measured}; the core {item['core']} loads, but {', '.join(item['breaks'])} do not"
    if status == "breaks_implied":
        return (f"measured: {measured}; its core {item['core']} misses {item['core_missing']} torch symbol(s), if "
                f"{item['carrier']} is the {item['carrier_version']} that {engine} {release} pins (not read here)")
    if status == "patch" and measured:
        return f"measured: {measured}: {', '.join(item['breaks'])}"
    if status == "patch":
        return "another patch release of the same minor, a pair not measured"
    return (f"another minor release, a pair not measured: whether {item['carrier']}'s extensions load against torch "
            f"{item['torch']} is not established")


def _carriers(engine: str, version: str, libraries: Mapping[str, Library]) -> list[tuple[str, str]]:
    """(doctor key, version) of every package holding the engine's torch extensions: the engine's own wheel when
    it is measured, and each package of the ABI table the release pins (a kernel wheel), at the version there."""
    measured = {KNOWN_PACKAGES.get(p["package"], p["package"]) for p in _table("torch_abi_pairs.json").get("pairs", [])}
    found = [(engine, _public(version))] if engine in measured else []
    for key in pinned(engine, _public(version)):
        kernel = libraries.get(key)
        if key in measured and key != engine and kernel is not None and kernel.version:
            found.append((key, _public(kernel.version)))
    return found


def _built_for(engine: str, version: str, carrier: str, carrier_version: str) -> str | None:
    """The torch the carrier release was built against: the engine's own pin, or for a kernel package the torch
    every engine release that pins that kernel pins beside it (None where they disagree or none does)."""
    if carrier == engine:
        return pinned(engine, _public(version)).get("torch", {}).get("version")
    torches = {entry["pins"]["torch"]["version"] for entry in releases(engine).values()
               if "torch" in entry["pins"] and _pins_carrier(entry["pins"], carrier, carrier_version)}
    return next(iter(torches)) if len(torches) == 1 else None


def _pins_carrier(pins: dict[str, Any], carrier: str, version: str) -> bool:
    return any(KNOWN_PACKAGES.get(name) == carrier and pin["version"] == version for name, pin in pins.items())


def _abi_item(carrier: str, version: str, built_for: str, torch: str) -> dict[str, Any] | None:
    pair = _measured(carrier, version, built_for, torch)
    same_minor = minor_release(torch) == minor_release(built_for)
    base = {"carrier": carrier, "carrier_version": version, "built_for": built_for, "torch": torch,
            "measured": _pair_text(pair) if pair else None, "breaks": [], "core_missing": None}
    if pair is None:
        return {**base, "status": "patch" if same_minor else "unmeasured"}
    broken = [f"{name} ({count})" for name, count in sorted(pair["missing"].items()) if count]
    if not broken:
        return None  # measured: every torch symbol the wheel uses is there
    status = "breaks" if pair["core_missing"] else ("patch" if same_minor else "optional")
    return {**base, "status": status, "breaks": broken, "core_missing": pair["core_missing"],
            "core": ", ".join(sorted(pair["core"]))}


def _measured(carrier: str, version: str, built_for: str, torch: str) -> dict[str, Any] | None:
    """The measured pair of this carrier release and torch's minor release (the exact torch when it is a patch
    release of the one built for)."""
    same_minor = minor_release(torch) == minor_release(built_for)
    for pair in _table("torch_abi_pairs.json").get("pairs", []):
        if KNOWN_PACKAGES.get(pair["package"], pair["package"]) != carrier or pair["version"] != version:
            continue
        if pair["built_for"] != built_for:
            continue
        if (_public(torch) == pair["torch"]) if same_minor else (minor_release(torch) == minor_release(pair["torch"])):
            return pair
    return None


def _pair_text(pair: dict[str, Any]) -> str:
    return (f"{pair['wheel']} against {pair['torch_wheel']} (bench/pin_abi_symbols.py: "
            f"{sum(1 for n in pair['missing'].values() if n)} of {len(pair['missing'])} torch-linked extensions "
            f"miss symbols)")


def pin_mismatches(engine: str, version: str, libraries: Mapping[str, Library]) -> list[dict[str, Any]]:
    """Packages the release pins exactly (`==`) that the deployment holds at another version."""
    found = []
    for key, pin in pinned(engine, _public(version)).items():
        library = libraries.get(key)
        if key in NOT_COMPARED or not pin.get("exact") or not _stated(library):
            continue
        if _parts(_public(library.version)) != _parts(pin["version"]):
            found.append({"engine": engine, "release": version, "package": key, "pinned": pin["version"],
                          "installed": library.version, "requirement": pin["requirement"].split(";")[0].strip()})
    return found


def cuda_builds(engine: str, version: str, libraries: Mapping[str, Library], machine: str,
                image: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """A PyPI engine wheel (no local version label) whose core extension links another CUDA runtime major than
    the torch (or the image) there was built with."""
    if "+" in version:
        return []  # a +cu130 wheel (GitHub release, wheels.vllm.ai) or a source build: not PyPI's
    build = _table("engine_cuda_builds.json").get(engine, {}).get(version, {}).get(machine)
    have, source = _cuda_there(libraries.get("torch"), image)
    if not build or build.get("cudart") is None or have is None or have == build["cudart"]:
        return []
    return [{"engine": engine, "release": version, "platform": machine, "wheel": build["wheel"],
             "extension": build["extension"], "cudart": build["cudart"], "there": have, "there_source": source}]


def _cuda_there(torch: Library | None, image: Mapping[str, Any] | None) -> tuple[int | None, str | None]:
    """The CUDA major of the torch there (its probed or stated build, its +cuXXX label), else of the image."""
    if _stated(torch):
        cuda = torch.details.get("cuda_version")
        label = torch.version.partition("+")[2].lower()
        if isinstance(cuda, str) and cuda[:2].rstrip(".").isdigit():
            return int(cuda.split(".")[0]), f"torch {torch.version} (built with CUDA {cuda})"
        if label.startswith("cu") and label[2:].isdigit() and len(label) >= 5:
            return int(label[2:-1]), f"torch {torch.version}"
    if image and image.get("cuda_major"):
        return int(image["cuda_major"]), f"the image {image.get('ref')} (CUDA {image.get('cuda')})"
    return None, None
