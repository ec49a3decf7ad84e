"""Gather Facts, the first stage of `check`: live from this machine (the probes in doctor/probe/), from a
built-in hardware profile or from a snapshot file, with every registered engine's distributions probed, then
the `--engine` what-ifs applied and the model attached."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from doctor.engines.pins import implied_libraries
from doctor.engines.registry import (
    bundle_note,
    bundled_libraries,
    engine_distributions,
    parse_engine_spec,
    scanned_engine_packages,
)
from doctor.hardware import load_profile
from doctor.hardware.stated import NOTHING_STATED, HostWhatIf, apply_host_what_if
from doctor.pipeline.facts import Facts, Gpu, Library, Source
from doctor.probe.binaries import with_binary_facts
from doctor.probe.env import probe_env
from doctor.probe.libraries import probe_libraries
from doctor.probe.model import load_model
from doctor.probe.network import probe_network
from doctor.validation.facts import load_facts


def installed_libraries(environ: Mapping[str, str]) -> dict[str, Library]:
    """Every tracked library and every registered engine's distribution, with their compiled archs."""
    return with_binary_facts(probe_libraries(environ, engine_distributions()), scanned_engine_packages())


def unified_pool(gpus: tuple[Gpu, ...], host_memory: int | None) -> tuple[Gpu, ...]:
    """A unified-memory GPU (GB10) has no memory of its own for NVML to report: its pool is the host's memory
    as the kernel counts it (MemTotal), which is what CUDA hands out; the planner sizes from it."""
    return tuple(dataclasses.replace(g, memory_total_bytes=host_memory)
                 if g.unified_memory and g.memory_total_bytes is None and host_memory else g for g in gpus)


def live_facts(environ: Mapping[str, str], deep: bool = False) -> Facts:
    from doctor.probe.host import probe_host
    from doctor.probe.nvml import probe_nvml

    nvml = probe_nvml(environ)
    host = probe_host()
    facts = Facts(
        source=Source(kind="live", name="this machine", notes=tuple(nvml.notes)),
        host=host,
        driver=nvml.driver,
        gpus=unified_pool(nvml.gpus, host.memory_bytes),
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
                 offline: bool = False, pinned: bool = True, stated: HostWhatIf = NOTHING_STATED) -> Facts:
    """`pinned`: add what the `engines` releases pin (torch, FlashInfer, ...) where the facts lack them;
    `diagnose` judges a log by what it states and leaves them out. `stated`: the profile's driver and WSL2 as
    `--driver` / `--wsl` state them (only with `hardware`: the command line refuses them elsewhere)."""
    if facts_file is not None:
        facts = load_facts(facts_file)
    elif hardware is not None:
        profile = load_profile(hardware)
        facts = profile.replace(libraries=installed_libraries(environ), env=probe_env(environ))
        facts = apply_host_what_if(facts, stated)
    else:
        facts = live_facts(environ, deep=deep)
    facts = with_engines(facts, engines, pinned=pinned)
    if model is not None:
        facts = facts.replace(model=load_model(model, environ, offline=offline))
    return facts


def with_engines(facts: Facts, engines: Sequence[str], pinned: bool = True) -> Facts:
    if not engines:
        return facts
    libraries = dict(facts.libraries)
    for spec in engines:
        what_if = parse_engine_spec(spec)
        libraries[what_if.name] = what_if
    implied = implied_libraries(libraries, facts.gpus[0].capability if facts.gpus else None) if pinned else {}
    libraries.update(implied)
    bundled = {lib.name: lib for what_if in [lib for lib in libraries.values() if lib.what_if]
               for lib in bundled_libraries(what_if) if lib.name not in libraries}
    libraries.update(bundled)
    note = "what-if versions: " + ", ".join(engines)
    if implied:
        note += "; as their wheels pin: " + ", ".join(f"{lib.name}=={lib.version}" for lib in implied.values())
    if bundled:
        note += "; the builds they run: " + ", ".join(f"{lib.name}=={lib.version}" for lib in bundled.values())
    note += "".join(f"; {text}" for lib in libraries.values() if (text := bundle_note(lib)))
    source = dataclasses.replace(facts.source, notes=(*facts.source.notes, note))
    return facts.replace(libraries=libraries, source=source)
