"""Collect Facts: live from this machine, from a built-in hardware profile, or from a snapshot file,
then apply `--engine` what-ifs and attach the model."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from doctor.engines.versions import engine_distributions, parse_engine_spec, scanned_engine_packages
from doctor.hardware import load_profile
from doctor.pipeline.facts import Facts, Library, Source, load_facts
from doctor.probe.binaries import with_binary_facts
from doctor.probe.env import probe_env
from doctor.probe.libraries import probe_libraries
from doctor.probe.model import load_model
from doctor.probe.network import probe_network


def installed_libraries(environ: Mapping[str, str]) -> dict[str, Library]:
    """Every tracked library and every registered engine's distribution, with their compiled archs."""
    return with_binary_facts(probe_libraries(environ, engine_distributions()), scanned_engine_packages())


def live_facts(environ: Mapping[str, str], deep: bool = False) -> Facts:
    from doctor.probe.host import probe_host
    from doctor.probe.nvml import probe_nvml

    nvml = probe_nvml(environ)
    facts = Facts(
        source=Source(kind="live", name="this machine", notes=tuple(nvml.notes)),
        host=probe_host(),
        driver=nvml.driver,
        gpus=nvml.gpus,
        topology=nvml.topology,
        libraries=installed_libraries(environ),
        env=probe_env(environ),
        network=probe_network(environ),
    )
    if deep:
        from doctor.probe.deep import deepen

        facts = deepen(facts)
    return facts


def gather_facts(*, environ: Mapping[str, str], hardware: str | None = None, facts_file: Path | None = None,
                 engines: Sequence[str] = (), model: str | None = None, deep: bool = False,
                 offline: bool = False) -> Facts:
    if facts_file is not None:
        facts = load_facts(facts_file)
    elif hardware is not None:
        profile = load_profile(hardware)
        facts = profile.replace(libraries=installed_libraries(environ), env=probe_env(environ))
    else:
        facts = live_facts(environ, deep=deep)
    facts = with_engines(facts, engines)
    if model is not None:
        facts = facts.replace(model=load_model(model, environ, offline=offline))
    return facts


def with_engines(facts: Facts, engines: Sequence[str]) -> Facts:
    if not engines:
        return facts
    libraries = dict(facts.libraries)
    for spec in engines:
        what_if = parse_engine_spec(spec)
        libraries[what_if.name] = what_if
    note = "what-if versions: " + ", ".join(engines)
    source = dataclasses.replace(facts.source, notes=(*facts.source.notes, note))
    return facts.replace(libraries=libraries, source=source)
