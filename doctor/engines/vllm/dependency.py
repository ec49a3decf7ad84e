"""Where a vLLM release stops on this model's architecture because of a dependency version or because it does
not know the architecture at all, read from doctor/data/derived/stops.json (written offline by
`python -m tools.engine_oracle.stops` from the derived tables, the dependency probes and the release's wheel).

A `dependency` row: the release's table stopped on this architecture with the transformers version the install
resolved, and the dependency alone reproduces the same exception at that version (tools/engine_oracle/
dependency_probe.py); the probes give the versions that fail and those that pass, and `pin` is the newest
passing version the release's own requirement admits. An `unsupported` row: the release's model registry
(read from its wheel) does not name the architecture.

The verdict for the checked run: `fails` (the stated transformers lies between two failing probes with no
passing one between), `passes` (likewise between passing probes: no finding), `none_admitted` (no version the
release admits passes, and the stated one, if any, does not pass), `unknown` (not stated, or outside what the
probes bracket)."""

from __future__ import annotations

from functools import cache
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.engines.derived_tables import DERIVED
from doctor.engines.spi import EngineRun


@cache
def _stops() -> dict[str, Any]:
    import json
    path = DERIVED / "stops.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def rows(release: str, architecture: str) -> list[dict[str, Any]]:
    return [r for r in _stops().get("dependency", []) if r["release"] == release and r["architecture"] == architecture]


def probed_pin(release: str, architecture: str) -> str | None:
    """The transformers the configuration probes measured for `release` and `architecture`: the newest passing
    version its requirement admits (`pin` of its rows), None where no row has one or the rows disagree."""
    pins = {r["pin"] for r in rows(release, architecture) if r.get("pin")}
    return pins.pop() if len(pins) == 1 else None


def _heterogeneous(run: EngineRun, attribute: str) -> bool:
    """Whether the model's config holds the per-layer attribute with more than one value (the condition of
    transformers' AmbiguousGlobalPerLayerAttributeError): head_dim with a different full-attention head size."""
    model = run.facts.model
    if model is None:
        return False
    if attribute == "head_dim":
        wide = model.attention.global_head_dim
        return bool(wide) and wide != model.attention.head_dim
    return False


def _applies(run: EngineRun, row: dict[str, Any]) -> bool:
    attribute = row.get("per_layer_attribute")
    return attribute is None or _heterogeneous(run, attribute)


def _bracketed(version: Version, inside: list[str], outside: list[str]) -> bool:
    """Between two versions of `inside` (inclusive) with no version of `outside` between them."""
    below = [Version(v) for v in inside if Version(v) <= version]
    above = [Version(v) for v in inside if Version(v) >= version]
    if not below or not above:
        return False
    low, high = max(below), min(above)
    return not any(low <= Version(v) <= high for v in outside)


def verdict(row: dict[str, Any], stated: str | None) -> str:
    failing, passing = row.get("failing", []), row.get("passing", [])
    parsed = _parse(stated)
    if parsed is not None and _bracketed(parsed, passing, failing):
        return "passes"
    if parsed is not None and _bracketed(parsed, failing, passing):
        return "fails"
    if row.get("pin") is None and failing:
        return "none_admitted"
    return "unknown"


def _parse(version: str | None) -> Version | None:
    try:
        return Version(version) if version else None
    except InvalidVersion:
        return None


def _fix(row: dict[str, Any], release: str) -> str:
    fixes = []
    if row.get("pin") and row["class"] == "dependency":
        fixes.append(f"pip install 'transformers=={row['pin']}' (vLLM {release} admits it: "
                     f"transformers{row.get('requires') or ''}; its configuration stage passes there)")
    if row.get("pinned_in"):
        later = row["pinned_in"]
        fixes.append(f"upgrade to vLLM {later['release']} (it knows the architecture) with "
                     f"pip install 'transformers=={later['pin']}' (its configuration stage passes there)")
    if row.get("builds_in"):
        fixes.append(f"upgrade to vLLM {row['builds_in']}, the first tabulated release that builds this "
                     f"architecture with the dependencies it resolves")
    return "; or ".join(fixes) or "no tabulated vLLM release builds this architecture"


def view(run: EngineRun, release: str | None) -> dict[str, Any] | None:
    """`vllm.derived.dependency`: the stop of this release on this model's architecture, with the verdict for
    the transformers the run states (`--engine transformers==X` or the probed install)."""
    model = run.facts.model
    if release is None or model is None or not model.architecture:
        return None
    own = run.version.base_version  # a patch's own row where its wheel was read (its requirement can differ)
    found = [r for r in rows(own, model.architecture) if _applies(run, r)] \
        or [r for r in rows(release, model.architecture) if _applies(run, r)]
    if not found:
        return None
    row = found[0]
    library = run.facts.libraries.get("transformers")
    stated = library.version if library is not None else None
    decided = verdict(row, stated)
    return {**row, "stated": stated, "verdict": decided, "fix": _fix(row, release), "no_fallback": _no_fallback(
                row, decided, stated),
            "failing_text": _span(row.get("failing", [])), "passing_text": _span(row.get("passing", []))}


def _no_fallback(row: dict[str, Any], decided: str, stated: str | None) -> str:
    """Why vLLM's Transformers-backend fallback cannot load it either (for an architecture the registry lacks)."""
    if decided == "fails":
        return f"transformers {stated} does not load its config either"
    if decided == "none_admitted":
        return f"no transformers it admits (transformers{row.get('requires') or ''}) loads its config"
    return ""


def _span(versions: list[str]) -> str:
    if not versions:
        return "none probed"
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]} ({len(versions)} releases probed)"


def import_view(run: EngineRun, release: str | None) -> dict[str, Any] | None:
    """`vllm.derived.import_clash`: a config type this release registers at import that the run's transformers
    already names (read for the run's own release where the wheel was read, else its table's release)."""
    own = run.version.base_version
    rows_read = _stops().get("import", [])
    releases = {r["release"] for r in rows_read} | set(_stops().get("releases", {}).get("vllm", {}))
    key = own if own in releases else release
    found = [r for r in rows_read if r["release"] == key]
    if not found:
        return None
    row = found[0]
    library = run.facts.libraries.get("transformers")
    stated = library.version if library is not None else None
    fixes = []
    if row.get("pin"):
        fixes.append(f"pip install 'transformers=={row['pin']}' (the newest probed release without "
                     f"'{row['model_type']}' that vLLM {key} admits: transformers{row.get('requires') or ''})")
    if row.get("fixed_in"):
        fixes.append(f"upgrade to vLLM {row['fixed_in']}, which no longer registers '{row['model_type']}'")
    return {**row, "release": key, "stated": stated, "verdict": verdict({**row, "class": "dependency"}, stated),
            "fix": "; or ".join(fixes) or "no probed transformers avoids it",
            "failing_text": _span(row["failing"]), "passing_text": _span(row["passing"])}

