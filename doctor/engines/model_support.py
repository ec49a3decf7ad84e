"""Which model architectures an engine release registers, and which model types and model classes a transformers
release knows: doctor/data/derived/model_support.json, written offline by tools/model_support.py from the wheels
on PyPI (each engine's model registry, the model types it ships configurations for, transformers'
`CONFIG_MAPPING_NAMES` and `MODEL_*_MAPPING_NAMES`, each release's `Requires-Dist: transformers`). A release
the table does not hold (newer than the data, a source build) is "not derived": nothing is guessed from a
neighbour. A toolkit library (spi.TOOLKIT): it knows the table's packages by name, never an engine's code."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from doctor.pipeline.facts import Facts, Library, Model
from doctor.specifiers import satisfies

TABLE = Path(__file__).resolve().parents[1] / "data" / "derived" / "model_support.json"
SOURCE = "doctor/data/derived/model_support.json"
# An engine's measured transformers pin for (its release, an architecture), None where not measured: vLLM's
# configuration probes (doctor/engines/vllm/dependency.py: probed_pin)
Probed = Callable[[str, str], "str | None"]
ARCHITECTURES, MODEL_TYPES, CLASSES = "architectures", "model_types", "classes"
CONFIG_TYPES = "config_types"  # the model types an engine release loads with a configuration class of its own
TRANSFORMERS = "transformers"
# Architectures the engines resolve by name only; other heads (ForSequenceClassification, ...) a release may serve by
# converting its base architecture, which the table does not model.
GENERATIVE = ("ForCausalLM", "ForConditionalGeneration")


@cache
def _table() -> dict[str, Any]:
    return json.loads(TABLE.read_text(encoding="utf-8"))["packages"] if TABLE.is_file() else {}


def engines() -> list[str]:
    """The engines (PyPI names) the table holds: every package but transformers."""
    return [name for name in _table() if name != TRANSFORMERS]


def names(package: str, kind: str) -> list[str]:
    """Every name of a kind the table holds for the package, in any release."""
    return sorted(_table().get(package, {}).get(kind, {}))


def releases(package: str) -> list[str]:
    return list(_table().get(package, {}).get("releases", ()))


def newest(package: str) -> str | None:
    known = releases(package)
    return known[-1] if known else None


def table_release(package: str, version: str | None) -> str | None:
    """The tabulated release `version` is (the same version, spelled either way), else None: newer than the
    data, older than its first release, a pre-release or a source build."""
    if not version:
        return None
    try:
        wanted = Version(version)
    except InvalidVersion:
        return None
    return next((r for r in releases(package) if Version(r) == wanted), None)


def _spans(package: str, kind: str, name: str) -> list[tuple[str, str]]:
    """The runs of releases that have the name, from the table's "first..last,first..last" text."""
    text = _table().get(package, {}).get(kind, {}).get(name, "")
    return [tuple(run.split("..", 1)) for run in text.split(",") if run]  # type: ignore[misc]


@cache
def _order(package: str) -> dict[str, int]:
    return {r: i for i, r in enumerate(releases(package))}


def knows(package: str, kind: str, name: str, release: str) -> bool:
    """Whether the tabulated `release` has the name (an architecture, model type or class)."""
    order = _order(package)
    at = order[release]
    return any(order[first] <= at <= order[last] for first, last in _spans(package, kind, name))


def first_release(package: str, kind: str, name: str, after: str | None = None) -> str | None:
    """The first tabulated release that has the name (after `after`, when given)."""
    order, known = _order(package), releases(package)
    floor = order.get(after or "", -1)
    for first, last in _spans(package, kind, name):
        if order[last] > floor:
            return known[max(order[first], floor + 1)]
    return None


def span_text(package: str, kind: str, name: str) -> str:
    spans = _spans(package, kind, name)
    return ", ".join(first if first == last else f"{first}-{last}" for first, last in spans) or "none"


def requirement(package: str, release: str) -> str | None:
    """The release's own `Requires-Dist: transformers` specifier ('' unbounded, None when it names none)."""
    return _table().get(package, {}).get("requires_transformers", {}).get(release)


@cache
def admitted(specifier: str | None) -> tuple[str, ...]:
    """The tabulated transformers releases a requirement admits (an exact pin: that release, if tabulated)."""
    known = releases(TRANSFORMERS)
    if specifier is None:
        return tuple(known)
    if specifier.startswith("==") and "," not in specifier and "*" not in specifier:
        pinned = table_release(TRANSFORMERS, specifier[2:])
        return (pinned,) if pinned else ()
    return tuple(r for r in known if satisfies(specifier, r))


def capped(specifier: str | None) -> bool:
    """The requirement admits no transformers newer than the table's (so the table decides every admitted one)."""
    top = newest(TRANSFORMERS)
    return bool(specifier) and top is not None and not satisfies(specifier or "", f"{Version(top).major + 1}.0.0")


@dataclass(frozen=True)
class Deployment:
    """What an engine run states that decides whether an unregistered architecture still loads."""

    package: str  # the engine's PyPI name in the table
    display: str  # the engine's name as its users write it
    version: str
    native_impl: str  # the --model-impl value that forbids the Transformers fallback (the engine's own name)
    argv: Sequence[str] = ()
    transformers: str | None = None  # the transformers version the run states (installed or a what-if)
    external_models: str | None = None  # what makes the engine register models from outside its package


def stated_transformers(facts: Facts, engine: Library) -> str | None:
    """The transformers the deployment runs: one the user states (a what-if), or the one installed next to an
    installed engine; an engine named as a what-if says nothing of the transformers on this machine."""
    library = facts.library(TRANSFORMERS)
    if library is None or not (library.what_if or not engine.what_if):
        return None
    return library.version


def deployment_for(package: str, display: str, facts: Facts, engine: Library, argv: Sequence[str],
                   external_models: str | None = None) -> Deployment:
    return Deployment(package=package, display=display, version=engine.version, native_impl=package,
                      argv=tuple(argv), transformers=stated_transformers(facts, engine),
                      external_models=external_models)


def view(deployment: Deployment, model: Model | None, probed: Probed | None = None) -> dict[str, Any] | None:
    """`<engine>.model_support`: does this release register the model's architecture, would its Transformers
    fallback take it, and which releases would (None without a model or an architecture). `probed`: the
    engine's measured transformers pins (fix_text)."""
    if model is None or model.architecture in ("", "unknown") or not _table():
        return None
    package, arch = deployment.package, model.architecture
    release = table_release(package, deployment.version)
    out: dict[str, Any] = {
        "architecture": arch, "model_type": model.model_type, "release": deployment.version,
        "newest_derived": newest(package), "registered_in": span_text(package, ARCHITECTURES, arch),
        "first_release": first_release(package, ARCHITECTURES, arch) or f"none up to {newest(package)}",
        "transformers_type_first": first_release(TRANSFORMERS, MODEL_TYPES, model.model_type),
        "transformers_class_first": first_release(TRANSFORMERS, CLASSES, arch),
        "source": SOURCE,
    }
    if release is None:
        return {**out, "status": "not_derived", "verdict": "not_derived"}
    out["requires"] = requirement(package, release) or ""
    if knows(package, ARCHITECTURES, arch, release):  # the common case: nothing more to work out
        return {**out, "status": "registered", "verdict": "registered"}
    out.update(status="unregistered", **_transformers(deployment, model, release))
    out.update(_fallback(deployment, model, out))
    if out["verdict"] == "fails" and model.architecture_unverified:
        out.update(verdict="unconfirmed", why=f"{out['why']}; but {model.architecture} is what the bundled copy of the "
                   f"config names ({model.architecture_unverified}): the checkpoint's own config.json decides")
    out["fix"] = fix_text(package, deployment.display, arch, model.model_type, release, probed)
    if out.get("fallback") == "needs_trust_remote_code":
        out["fix"] = ("add --trust-remote-code, so the checkpoint's own code (config.json's auto_map) can serve it "
                      "through the Transformers backend; or " + out["fix"])
    return out


def _transformers(deployment: Deployment, model: Model, release: str) -> dict[str, Any]:
    """What the stated transformers knows, else what every release the engine's requirement admits knows."""
    stated = table_release(TRANSFORMERS, deployment.transformers)
    if stated is not None:
        return {"transformers": stated, "transformers_basis": "stated",
                "knows_type": knows(TRANSFORMERS, MODEL_TYPES, model.model_type, stated),
                "knows_class": knows(TRANSFORMERS, CLASSES, model.architecture, stated)}
    spec = requirement(deployment.package, release)
    candidates = admitted(spec) if spec is not None else ()
    if deployment.transformers or ((spec or "").startswith("==") and not candidates):
        basis = "untabulated"  # a stated or pinned release the table does not hold: a pre-release, yanked, newer
        candidates = ()
    else:
        basis = "requirement" if candidates and capped(spec) else "open"
    return {"transformers": deployment.transformers or "not stated", "transformers_basis": basis,
            "knows_type": _any_or_unknown(candidates, MODEL_TYPES, model.model_type, basis),
            "knows_class": _any_or_unknown(candidates, CLASSES, model.architecture, basis)}


def _any_or_unknown(candidates: tuple[str, ...], kind: str, name: str, basis: str) -> bool | None:
    """True when an admitted release knows the name; False only when none does and the requirement admits no
    release newer than the data; else None (a future transformers may)."""
    if any(knows(TRANSFORMERS, kind, name, r) for r in candidates):
        return True
    return False if basis == "requirement" else None


def _fallback(deployment: Deployment, model: Model, out: dict[str, Any]) -> dict[str, Any]:
    """How the release resolves an architecture it does not register (both engines' Transformers fallback,
    `_try_resolve_transformers` / `resolve_transformers_arch`): `getattr(transformers, ARCH)`, else the
    checkpoint's `auto_map.AutoModel` (its own code, loaded only with --trust-remote-code), else it raises."""
    args = list(deployment.argv)
    impl = _flag_value(args, "--model-impl")
    remote = any(key.startswith("AutoModel") for key in model.auto_map)
    trusted = "--trust-remote-code" in args or "--trust_remote_code" in args
    if deployment.external_models:
        return {"fallback": "external", "verdict": "unconfirmed",
                "why": f"{deployment.external_models} may register it from outside the release"}
    if not model.architecture.endswith(GENERATIVE):
        return {"fallback": "conversion", "verdict": "unconfirmed",
                "why": "the release may serve a pooling or converted head through the base architecture"}
    if impl == deployment.native_impl:
        return {"fallback": "none", "verdict": "fails", "why": f"--model-impl {impl} allows no Transformers fallback"}
    if remote and trusted:
        return {"fallback": "remote_code", "verdict": "unconfirmed",
                "why": "the checkpoint's auto_map.AutoModel code may serve it through the Transformers backend"}
    if out["knows_class"] is True:
        return {"fallback": "transformers", "verdict": "unconfirmed",
                "why": f"transformers {_basis(out)} has the class {model.architecture}: the Transformers backend may "
                       "serve it if that class is backend-compatible"}
    if out["knows_class"] is None:
        return {"fallback": "unknown", "verdict": "unconfirmed", "why": _unknown_transformers(out)}
    if remote:
        return {"fallback": "needs_trust_remote_code", "verdict": "fails",
                "why": f"transformers {_basis(out)} has no class {model.architecture} and the checkpoint's "
                       "auto_map.AutoModel is loaded only with --trust-remote-code"}
    return {"fallback": "none", "verdict": "fails",
            "why": f"transformers {_basis(out)} has no class {model.architecture} and config.json has no "
                   "auto_map.AutoModel"}


def _unknown_transformers(out: dict[str, Any]) -> str:
    if out["transformers_basis"] == "untabulated":
        named = out["transformers"] if out["transformers"] != "not stated" else f"transformers{out['requires']}"
        return (f"the transformers the run states or the release pins ({named}) is not in the table (a "
                f"pre-release, a yanked or a newer release than {newest(TRANSFORMERS)}), so whether it has the class "
                "is not derived")
    return (f"the transformers version is not stated and the release admits transformers newer than the data "
            f"({newest(TRANSFORMERS)})")


def _basis(out: dict[str, Any]) -> str:
    if out["transformers_basis"] == "stated":
        return str(out["transformers"])
    return f"(every release the requirement transformers{out['requires']} admits)"


def _flag_value(args: list[str], flag: str) -> str | None:
    for i, arg in enumerate(args):
        if arg == flag and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith(flag + "="):
            return arg.partition("=")[2]
    return None


def working_release(package: str, architecture: str, model_type: str, after: str | None = None
                    ) -> tuple[str, str | None] | None:
    """The first release (after `after`) that registers the architecture and loads the model type: with a
    configuration class of its own (None: no transformers pin needed), else with the lowest transformers its
    requirement admits that knows the type."""
    for release in releases(package):
        if after is not None and Version(release) <= Version(after):
            continue
        if not knows(package, ARCHITECTURES, architecture, release):
            continue
        if knows(package, CONFIG_TYPES, model_type, release):
            return release, None
        good = [r for r in admitted(requirement(package, release)) if knows(TRANSFORMERS, MODEL_TYPES, model_type, r)]
        if good:
            return release, good[0]
    return None


def first_loading_release(package: str, model_type: str) -> tuple[str, str | None] | None:
    """The first release that loads the model type: with a configuration class of its own (None), else with the
    lowest transformers its requirement admits that knows it. Precise for an engine that pins transformers
    exactly; an open requirement admits releases newer than the engine itself was tested with."""
    for release in releases(package):
        if knows(package, CONFIG_TYPES, model_type, release):
            return release, None
        good = [r for r in admitted(requirement(package, release) or None)
                if knows(TRANSFORMERS, MODEL_TYPES, model_type, r)]
        if good and (requirement(package, release) or "").startswith("=="):
            return release, good[0]
    return None


def fix_text(package: str, name: str, architecture: str, model_type: str, release: str,
             probed: Probed | None = None) -> str:
    """The first later release that registers the architecture and loads the model type, read from the table;
    its transformers pin is the one the engine's configuration probes measured for it where they were run
    (`probed`), so this fix and the derived dependency rules (DSP051-DSP053) name the same pin."""
    found = working_release(package, architecture, model_type, release)
    if found is None:
        return (f"No {name} release after {release} up to {newest(package)} registers {architecture} and "
                f"loads model type `{model_type}` (derived from {SOURCE}): use a newer release or a source "
                "build, or the checkpoint's own code (auto_map) with --trust-remote-code")
    target, transformers = found
    spec = requirement(package, target)
    measured = probed(target, architecture) if probed is not None and transformers is not None else None
    if transformers is None:
        pin = f"its own configuration class for `{model_type}` needs no newer transformers"
    elif (spec or "").startswith("=="):
        pin = f"it pins transformers=={transformers}, which knows `{model_type}`"
    elif measured is not None:
        pin = (f"with pip install 'transformers=={measured}' (the newest transformers inside its requirement "
               f"transformers{spec} that loads the `{model_type}` config in the configuration probes, "
               f"doctor/data/derived/stops.json; transformers knows the model type from {transformers}, but newer "
               "releases than the probes are not known to load it)")
    else:
        pin = f"with pip install 'transformers>={transformers}' (inside its requirement transformers{spec})"
    registers = first_release(package, ARCHITECTURES, architecture, after=release)
    first = (f"{name} {target} is the first release after {release} that registers {architecture}"
             if registers in (target, None) or Version(registers) <= Version(release) else
             f"{name} {registers} registers {architecture}, but no transformers its requirement admits knows "
             f"`{model_type}`; {target} is the first release after {release} that does both")
    return f"pip install '{package}>={target}' ({first}; {pin})"

