"""Classify every stop the derived tables record, and derive the dependency findings `check` reads:

    python -m tools.engine_oracle.stops          # rewrites doctor/data/derived/stops.json (stops, dependency)

A stop is an error an entry of doctor/data/derived/<engine>/<release>.json recorded. Classes:
- `emulation`: the emulation's own limit (meta tensors, the stub driver, the platform plug-in, a grid config
  that differs from what users load: a dropped `auto_map`, a speculative method spelled as later releases do);
- `release`: the release's own deliberate refusal with the dependencies it resolves (DSP001/DSP020 read those);
- `dependency`: the release's own code meeting the dependency version the install resolved (the table's
  `pinned.distributions`), where the probes (tools/engine_oracle/dependency_probe.py) reproduce the same
  exception at that version and show versions where it does not occur;
- `unsupported`: the release's model registry does not name the architecture (tools/engine_oracle/release_facts.py
  read it from the wheel): no dependency version helps.

Inputs besides the tables, kept in stops.json itself: `probes` (dependency_probe --record) and `releases`
(release_facts --record). The output sections `stops` and `dependency` are rewritten; the inputs are kept."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from packaging.version import Version

from tools.engine_oracle import grid

DERIVED = Path(__file__).resolve().parents[2] / "doctor" / "data" / "derived"
STOPS = DERIVED / "stops.json"
UNKNOWN_MODEL_TYPE = re.compile(r"model type `(\w+)` but Transformers does not recognize this architecture")
PER_LAYER = re.compile(r"'(\w+)' is a per-layer attribute")
# Architectures whose published checkpoints ship their own configuration code (`auto_map`, loaded with
# --trust-remote-code) that the grid's config-only directory drops (grid._nemotron3): an unknown model type
# there is the grid's, not what a user of the release meets.
REMOTE_CODE_ARCHITECTURES = {"NemotronHForCausalLM": "nvidia's Nemotron-H checkpoints ship "
                                                      "configuration_nemotron_h.py (auto_map); the grid drops it"}
# Emulation stops by their message, with why each is the emulation's and not the release's.
EMULATION_MARKERS = (
    ("Found no NVIDIA driver", "the stub driver"),
    ("cuBLASLt error", "DeepGEMM's runtime asking the stub driver"),
    ("CUDA runtime error", "DeepGEMM's runtime asking the stub driver"),
    ("/usr/bin/gcc", "Triton links its launcher with -lcuda; the stub directory has only libcuda.so.1"),
    ("set_global_server_args_for_scheduler", "the runner called an SGLang function this release lacks"),
    ("method Input should be", "the grid spells the speculative method `mtp` as later releases do"),
    ("contains custom code which must be executed", "the grid directory holds no custom code"),
    ("requires VLLM_USE_V1", "the runner's environment (V0 engine selected)"),
    ("No module named", "the oracle venv lacks a module the release imports"),
    ("failed to be inspected", "vLLM's model inspection in the emulation"),
    ("requires DeepGEMM to be installed", "DeepGEMM is not a requirement of the wheel, so the oracle venv lacks it "
                                          "as a plain pip install does (vLLM's images add it); not settled"),
)


def grid_architecture(grid_shape: str) -> str | None:
    for shape in grid.shapes():
        if shape.name == grid_shape:
            return (shape.config.get("architectures") or [None])[0]
    return None


def _release_facts(facts: dict[str, Any], engine: str, release: str) -> dict[str, Any]:
    return facts.get("releases", {}).get(engine, {}).get(release, {})


def _signature(error: dict[str, Any]) -> dict[str, str] | None:
    """(package, kind, key) of a dependency-shaped exception, or None."""
    message = error["message"]
    if match := UNKNOWN_MODEL_TYPE.search(message):
        return {"package": "transformers", "kind": "unknown_model_type", "key": match.group(1)}
    if match := PER_LAYER.search(message):
        return {"package": "transformers", "kind": "per_layer_attribute", "key": match.group(1)}
    return None


def _probe_fails(probe: dict[str, Any], signature: dict[str, str]) -> bool | None:
    """Whether a probe answer reproduces the signature (None: the probe did not ask it)."""
    if signature["kind"] == "unknown_model_type":
        message = (probe.get("error") or {}).get("message", "")
        return bool(UNKNOWN_MODEL_TYPE.search(message)) if not probe["loads"] else False
    read = probe.get("reads", {}).get(signature["key"])
    if not probe["loads"] or read is None:
        return None
    return "type" in read and read["type"] == "AmbiguousGlobalPerLayerAttributeError"


def _passes(probe: dict[str, Any]) -> bool:
    return probe["loads"] and all("value" in read for read in probe.get("reads", {}).values())


def probe_ranges(probes: list[dict[str, Any]], grid_shape: str, signature: dict[str, str]) -> dict[str, Any] | None:
    """The probed versions that reproduce the signature and those that pass every read, for one grid shape
    (its multi-rank variants share its config)."""
    base = grid_shape.removesuffix("-tp2")
    asked = [p for p in probes if p["shape"] == base and p["package"] == signature["package"]]
    failing = [p["version"] for p in asked if _probe_fails(p, signature)]
    passing = [p["version"] for p in asked if _passes(p)]
    if not failing:
        return None
    return {"failing": sorted(failing, key=Version), "passing": sorted(passing, key=Version)}


def classify(engine: str, release: str, entry: dict[str, Any], error: dict[str, Any],
             facts: dict[str, Any]) -> tuple[str, str]:
    """(class, why) of one recorded error."""
    architecture = grid_architecture(entry["grid_shape"])
    registry = _release_facts(facts, engine, release).get("registry", {})
    if architecture and registry.get(architecture) is False:
        return "unsupported", f"vLLM {release}'s model registry does not name {architecture}"
    signature = _signature(error)
    if signature is not None:
        if architecture in REMOTE_CODE_ARCHITECTURES and signature["kind"] == "unknown_model_type":
            return "emulation", REMOTE_CODE_ARCHITECTURES[architecture]
        resolved = facts_version(engine, release, signature["package"])
        ranges = probe_ranges(facts.get("probes", []), entry["grid_shape"], signature)
        if ranges and resolved in ranges["failing"] and ranges["passing"]:
            return "dependency", f"{signature['package']} {resolved} (resolved) reproduces it alone; " \
                                 f"{', '.join(ranges['passing'])} pass (dependency_probe)"
        return "undetermined", f"{signature['package']}-shaped, but no probe brackets {signature['package']} " \
                               f"{resolved}"
    if error["kind"] in ("rejection", "flag"):
        return "release", "raised on purpose by the release's own checks (kind " + error["kind"] + ")"
    for marker, why in EMULATION_MARKERS:
        if marker in error["message"] or marker in error.get("type", ""):
            return "emulation", why
    return "emulation", "classified emulation by the table (meta tensors or the stub driver); not examined further"


_TABLES: dict[tuple[str, str], dict[str, Any]] = {}


def table(engine: str, release: str) -> dict[str, Any]:
    if (engine, release) not in _TABLES:
        _TABLES[(engine, release)] = json.loads((DERIVED / engine / f"{release}.json").read_text(encoding="utf-8"))
    return _TABLES[(engine, release)]


def facts_version(engine: str, release: str, package: str) -> str | None:
    return table(engine, release)["pinned"]["distributions"].get(package)


def releases(engine: str) -> list[str]:
    return sorted((p.stem for p in (DERIVED / engine).glob("*.json")), key=Version)


def stops(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per (engine, class, exception type, first line of the message), with where it occurred."""
    rows: dict[tuple[str, ...], dict[str, Any]] = {}
    for engine in ("vllm", "sglang"):
        for release in releases(engine):
            pinned = table(engine, release)["pinned"]["distributions"]
            for entry in table(engine, release)["entries"]:
                for error in entry["errors"]:
                    cls, why = classify(engine, release, entry, error, facts)
                    first = _first_line(error["message"])
                    row = rows.setdefault((engine, cls, error["type"], first), {
                        "engine": engine, "class": cls, "why": why, "type": error["type"], "message": first,
                        "stage": error.get("stage"), "where": error.get("where"), "releases": {}, "grid_shapes": [],
                        "capabilities": []})
                    row["releases"].setdefault(release, {k: pinned.get(k) for k in ("transformers", "torch",
                                                                                     "flashinfer-python")})
                    _add(row["grid_shapes"], entry["grid_shape"])
                    _add(row["capabilities"], entry["capability"])
    return sorted(rows.values(), key=lambda r: (r["engine"], r["class"], r["type"], r["message"]))


def _first_line(message: str) -> str:
    """The exception's own line: pydantic wraps a config error as '1 validation error for X' + 'Value error, ...'."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    wrapped = next((line for line in lines if line.startswith("Value error, ")), None)
    text = wrapped.removeprefix("Value error, ") if wrapped else (lines[0] if lines else "")
    text = re.sub(r"/tmp/oracle-grid-\w+/q\d+", "<grid dir>", text)
    return text[:300]


def _add(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


def dependency(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Per (engine, release, grid shape): the dependency or registry stop of its 12.x entries, with the
    failing and passing versions, the release's own requirement and the pin that passes inside it."""
    out = []
    for release in releases("vllm"):
        seen: set[str | None] = set()
        for entry in table("vllm", release)["entries"]:
            architecture = grid_architecture(entry["grid_shape"])
            # the target model's own one-rank entries: a drafter or a TP=2 rank stops where its target does
            if not entry["capability"].startswith("12.") or architecture in seen or not entry["errors"] \
                    or entry.get("drafter") or entry.get("tp", 1) != 1:
                continue
            error = entry["errors"][0]
            cls, why = classify("vllm", release, entry, error, facts)
            if cls not in ("dependency", "unsupported"):
                continue
            seen.add(architecture)
            out.append(_dependency_row(release, entry, error, cls, why, facts))
    out += [row for release in _untabulated(facts) for row in _retargeted(out, release, facts)]
    out.sort(key=lambda r: (Version(r["release"]), r["architecture"] or ""))
    for row in out:
        row["pinned_in"] = _pinned_in(out, row)
    return out


def _untabulated(facts: dict[str, Any]) -> list[str]:
    """Releases whose wheel was read (release_facts) but that have no table of their own (patches)."""
    tabulated = set(releases("vllm"))
    return sorted((r for r in facts.get("releases", {}).get("vllm", {}) if r not in tabulated), key=Version)


def _table_release(release: str) -> str | None:
    from doctor.engines.vllm.derived import table_release
    return table_release(Version(release))


def _retargeted(rows: list[dict[str, Any]], release: str, facts: dict[str, Any]) -> list[dict[str, Any]]:
    """The stops of the release's table (its minor's, as check reads it) with this release's own requirement
    and model registry, read from its own wheel: a patch release can admit other transformers (vLLM 0.19.1 admits
    5.5.1 and newer, 0.19.0 only <5) or know other architectures."""
    source = _table_release(release)
    own = _release_facts(facts, "vllm", release)
    out = []
    for row in (r for r in rows if r["release"] == source):
        knows = own.get("registry", {}).get(row["architecture"])
        cls = "unsupported" if knows is False else "dependency" if row.get("package") else row["class"]
        why = f"vLLM {release}'s model registry does not name {row['architecture']}" if knows is False else \
            f"vLLM {release}'s registry names {row['architecture']}; the stop of vLLM {source}'s table with " \
            f"{row.get('package')} {row.get('resolved')}" if cls == "dependency" else row["why"]
        requires = own.get("requires", {}).get(row.get("package") or "", row.get("requires"))
        admitted = [v for v in row.get("passing", []) if _admits(requires, v)]
        out.append({**row, "release": release, "table_release": source, "class": cls, "why": why,
                    "requires": requires, "pin": admitted[-1] if admitted else None})
    return out


def _pinned_in(rows: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, str] | None:
    """For a row without an admitted passing version: the first newer release that knows the architecture and
    admits one (its dependency row's pin)."""
    if row["class"] == "dependency" and row.get("pin"):
        return None
    later = [r for r in rows if r["architecture"] == row["architecture"] and r["class"] == "dependency"
             and r.get("pin") and Version(r["release"]) > Version(row["release"])]
    first = min(later, key=lambda r: Version(r["release"]), default=None)
    return {"release": first["release"], "pin": first["pin"]} if first else None


def _dependency_row(release: str, entry: dict[str, Any], error: dict[str, Any], cls: str, why: str,
                    facts: dict[str, Any]) -> dict[str, Any]:
    architecture = grid_architecture(entry["grid_shape"])
    row: dict[str, Any] = {"engine": "vllm", "release": release, "table_release": release,
                           "grid_shape": entry["grid_shape"],
                           "shape_key": entry["shape_key"], "architecture": architecture, "class": cls,
                           "why": why, "exception": f"{error['type']}: {_first_line(error['message'])}",
                           "where": error.get("where"), "stage": error.get("stage"),
                           "builds_in": _first_building(entry)}
    signature = _signature(error)
    if signature is not None:
        requires = _release_facts(facts, "vllm", release).get("requires", {}).get(signature["package"])
        ranges = probe_ranges(facts.get("probes", []), entry["grid_shape"], signature) or {}
        admitted = [v for v in ranges.get("passing", []) if _admits(requires, v)]
        row.update(package=signature["package"], resolved=facts_version("vllm", release, signature["package"]),
                   requires=requires, failing=ranges.get("failing", []), passing=ranges.get("passing", []),
                   pin=admitted[-1] if admitted else None, measured="configuration stage, dependency_probe "
                   "(AutoConfig.from_pretrained and the text-config reads of the release, the dependency alone)",
                   **({"per_layer_attribute": signature["key"]} if signature["kind"] == "per_layer_attribute"
                      else {"model_type": signature["key"]}))
        row["rerun"] = pinned_rerun(release, entry, signature["package"])
    return row


def pinned_rerun(release: str, entry: dict[str, Any], package: str) -> dict[str, Any] | None:
    """The oracle's own rerun of this entry with the dependency pinned (`--pin PKG==VERSION`, a table under
    <derived>/vllm-pinned/), where one was run: built, or the exception it stopped with."""
    for path in sorted((DERIVED / "vllm-pinned").glob(f"{release}+{package}-*.json")):
        rerun = json.loads(path.read_text(encoding="utf-8"))
        found = next((e for e in rerun["entries"] if e["grid"] == entry["grid"]
                      and e["capability"] == entry["capability"] and e.get("tp", 1) == entry.get("tp", 1)), None)
        if found is not None:
            stop = found["errors"][0] if found["errors"] else None
            return {"pin": path.stem.split("+", 1)[1], "table": f"doctor/data/derived/vllm-pinned/{path.name}",
                    "built": stop is None,
                    "exception": f"{stop['type']}: {_first_line(stop['message'])}" if stop else None}
    return None


def _admits(requires: str | None, version: str) -> bool:
    from packaging.specifiers import SpecifierSet
    return requires is None or requires == "any" or Version(version) in SpecifierSet(requires)


def _first_building(entry: dict[str, Any]) -> str | None:
    """The first tabulated vLLM release whose entry for the same capability, grid query, KV dtype and TP size
    builds with the dependencies it resolves."""
    for release in releases("vllm"):
        for other in table("vllm", release)["entries"]:
            if other["capability"] == entry["capability"] and other["grid"] == entry["grid"] \
                    and other.get("tp", 1) == entry.get("tp", 1) and not other["errors"]:
                return release
    return None


def import_clashes(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """Per vLLM release whose own config modules register a model type without exist_ok: the probed transformers
    versions that already name that type (the release then fails at import, whatever the model) and those that
    do not, the release's requirement, the newest admitted passing version, and the first later release read
    that no longer registers it so."""
    read = facts.get("releases", {}).get("vllm", {})
    ordered = sorted(read, key=Version)
    out = []
    for release in ordered:
        for model_type, where in read[release].get("registers_config_types", {}).items():
            if where["exist_ok"]:
                continue
            asked = [p for p in facts.get("probes", []) if model_type in p.get("knows", {})]
            failing = sorted((p["version"] for p in asked if p["knows"][model_type]), key=Version)
            passing = sorted((p["version"] for p in asked if not p["knows"][model_type]), key=Version)
            if not failing:
                continue
            requires = read[release].get("requires", {}).get("transformers")
            admitted = [v for v in passing if _admits(requires, v)]
            fixed = next((r for r in ordered if Version(r) > Version(release) and not _registers(read[r], model_type)),
                         None)
            out.append({"engine": "vllm", "release": release, "model_type": model_type, "file": where["file"],
                        "package": "transformers", "requires": requires, "failing": failing, "passing": passing,
                        "pin": admitted[-1] if admitted else None, "fixed_in": fixed, "stage": "import",
                        "exception": f"ValueError: '{model_type}' is already used by a Transformers config, "
                                     f"pick another name.",
                        "measured": "the wheel's AutoConfig.register calls (release_facts) and transformers' "
                                    "CONFIG_MAPPING_NAMES per version (dependency_probe --knows)"})
    return out


def _registers(release_facts: dict[str, Any], model_type: str) -> bool:
    where = release_facts.get("registers_config_types", {}).get(model_type)
    return where is not None and not where["exist_ok"]


def main() -> None:
    facts = json.loads(STOPS.read_text(encoding="utf-8")) if STOPS.exists() else {}
    out = {"schema": 1, "generated_by": "python -m tools.engine_oracle.stops",
           "classes": {"emulation": "the emulation's own limit", "release": "the release's own refusal",
                       "dependency": "the release's code meeting the resolved dependency version",
                       "unsupported": "the release's model registry lacks the architecture",
                       "undetermined": "dependency-shaped, not settled by a probe"},
           "stops": stops(facts), "dependency": dependency(facts), "import": import_clashes(facts),
           "probes": facts.get("probes", []), "releases": facts.get("releases", {})}
    STOPS.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    counts: dict[str, int] = {}
    for row in out["stops"]:
        counts[row["class"]] = counts.get(row["class"], 0) + 1
    print(f"{STOPS}: {len(out['stops'])} stop kinds {counts}; {len(out['dependency'])} dependency rows; "
          f"{len(out['import'])} import clashes")


if __name__ == "__main__":
    main()
