"""What a finding rests on that the deployment did not state: libraries an engine's wheel pins or PyPI's build of
a version, an engine build that is no published release, a model config derived from a hub id's name. Each makes
the finding at most a warning (doctor.pipeline.rules) and says what would confirm it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from doctor.pipeline.context import engine_root


def unconfirmed(paths: Iterable[str], area: str, context: dict[str, Any], severity: str,
                absent: Iterable[str] = ()) -> list[str]:
    """What a finding that reads `paths` (its conditions and evidence) of a rule about `area`, and needs the
    libraries `absent` not installed, assumes, each with what would confirm it."""
    paths = set(paths)
    out = []
    unseen = _absence_unseen(absent, context)
    if unseen:
        out.append(unseen)
    implied = _implied_libraries(paths, context)
    if implied:
        out.append(f"Assumed, not stated: {'; '.join(implied)}. A container image or another index may hold "
                   f"other builds: name yours with --engine NAME==VERSION (or run the check where they are "
                   f"installed) to confirm.")
    build = _unreleased_engine(paths, area, context)
    if build:
        out.append(f"{build} is not a published release: the doctor read the nearest release's wheel, and a "
                   f"source build, nightly or fork may differ; this build's own code (or `--help`) confirms it.")
    model = context.get("model")
    if isinstance(model, dict) and model.get("source") == "derived" and severity == "error":
        out.append(f"The model's config was not read: {model.get('id')} is {model.get('derivation')} (its "
                   f"config.json confirms this finding).")
    return out


def _implied_libraries(paths: set[str], context: dict[str, Any]) -> list[str]:
    """The libraries a finding rests on that the deployment did not name, taken from an engine's pins
    (doctor/engines/pins.py), or whose build it took from PyPI's wheel of a version stated without its build
    label (context.py: `build_assumed`): such a finding is at most a warning."""
    libraries = context.get("lib") or {}
    implied = []
    for path in paths:
        root, _, rest = path.partition(".")
        name = rest.split(".")[0]
        entry = libraries.get(name) if root == "lib" else None
        if isinstance(entry, dict) and entry.get("implied_by"):
            implied.append(f"{name} {entry['version']}, what {entry['implied_by']} pins")
        elif isinstance(entry, dict) and entry.get("build_assumed") and not path.endswith(".version"):
            implied.append(f"{name} {entry['version']} as PyPI builds it ({entry['build_assumed'].split(' ')[0]}), "
                           f"not another build of that version")
    return sorted(set(implied))


def _unreleased_engine(paths: set[str], area: str, context: dict[str, Any]) -> str | None:
    """'vLLM 0.25.2.dev0' when the engine of this run is a development, pre-release, fork or vendor build
    (context.py: `unreleased_build`) and the rule is about that engine: what its code does is not what any
    release's wheel shows, so such a finding is at most a warning."""
    engine = context.get("engine")
    if not isinstance(engine, dict) or not engine.get("unreleased_build"):
        return None
    root = engine_root(str(engine["name"]))
    if area != root and not any(p.startswith((f"lib.{root}.", f"{root}.", "engine.")) for p in paths):
        return None
    return f"{engine['name']} {engine['version']}"


def _absence_unseen(absent: Iterable[str], context: dict[str, Any]) -> str | None:
    """The engine of this run was stated (`--engine NAME==VERSION`), not found installed: the libraries read here
    are not its environment's, so a library missing here may be installed beside it."""
    engine = context.get("engine")
    if not isinstance(engine, dict) or not engine.get("what_if"):
        return None
    names = sorted({name for name in absent if name != engine.get("name")})
    if not names:
        return None
    shown = ", ".join(names)
    return (f"Assumed, not seen: no {shown} installed beside {engine['name']} (the doctor did not read "
            f"{engine['name']}'s environment); `pip show {' '.join(names)}` there, or the check run where "
            f"{engine['name']} is installed, confirms it.")
