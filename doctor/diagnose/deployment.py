"""The deployment a log describes, as Facts the check pipeline reads: what the log states wins; the rest comes
from the base facts (this machine's probe, `--hardware`, `--facts`, `--engine`). Every fact says its source."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from doctor.diagnose.gpus import capability_of
from doctor.diagnose.logfacts import LogFacts, LoggedGpu, Stated
from doctor.engines.images import ImageFacts, image_facts
from doctor.engines.registry import tagless_build
from doctor.errors import DoctorError
from doctor.hardware import smem_per_block_optin
from doctor.pipeline.facts import Driver, Facts, Gpu, Library, Link, Model
from doctor.versions import KNOWN_PACKAGES

MIB = 1 << 20


@dataclass
class Deployment:
    facts: Facts
    argv: list[str]
    engine: str | None
    sources: dict[str, str] = field(default_factory=dict)  # fact → "log line N" | the base's name
    notes: list[str] = field(default_factory=list)
    image: ImageFacts | None = None  # the container image the log names (doctor/engines/images.py)


def reconstruct(log: LogFacts, base: Facts, base_name: str, environ: Mapping[str, str]) -> Deployment:
    sources: dict[str, str] = {}
    notes: list[str] = []
    engine = log.engine.value if log.engine else None
    if log.engine:
        sources["engine"] = _at(log.engine)
    image = image_facts(log.image.value) if log.image else None
    facts = base.replace(libraries=_with_image(image, log, _libraries(log, base, engine, base_name, sources), sources),
                         env={**base.env, **{k: str(v.value) for k, v in log.env.items()}})
    for name, stated in log.env.items():
        sources[f"env {name}"] = _at(stated)
    facts = _with_gpus(log, facts, base_name, sources)
    facts = _with_logged_smem(log, facts, sources)
    facts = _with_driver(log, facts, base_name, sources)
    facts = _with_wsl(log, facts, sources)
    facts = _with_host_os(log, facts, sources)
    model = _model(log, environ, notes)
    if model is not None:
        facts = facts.replace(model=model)
        sources["model"] = f"{_at(log.model)} ({model.source} config)" if log.model else base_name
    elif base.model is not None:
        sources["model"] = base_name
    argv = list(log.argv.value) if log.argv else []
    if log.argv:
        sources["launch flags"] = _at(log.argv)
    return Deployment(facts=facts, argv=argv, engine=engine, sources=sources, notes=notes, image=image)


# logged details that hold whatever the release: the architecture a llama.cpp log shows the GGUF has, and an MMQ
# abort with no tile left (the log line is the failure itself)
UNVERSIONED = {"logged_unknown_arch", "logged_model_arch", "logged_mmq_no_tile"}


def _serving() -> set[str]:
    """The packages of the engines the doctor knows (plug-ins too)."""
    from doctor.engines import registry

    return {engine.package for engine in registry.engines().values()}


def _at(stated: Stated | None) -> str:
    return f"log line {stated.line}" if stated else "not stated"


def _libraries(log: LogFacts, base: Facts, engine: str | None, base_name: str,
               sources: dict[str, str]) -> dict[str, Library]:
    """The log's versions as what-ifs (so the log's engine is the one analysed); another serving engine of the
    base is dropped when the log names its own."""
    serving = _serving()
    libraries = {name: lib for name, lib in base.libraries.items()
                 if engine not in serving or name not in serving or name == engine}
    for name in libraries:
        if name in serving or name in ("torch", "triton"):
            sources.setdefault(f"{name} version", base_name)
    for name, stated in log.versions.items():
        name = KNOWN_PACKAGES.get(name, name)
        if name in serving and tagless_build(str(stated.value)):
            sources[f"{name} version"] = f"{_at(stated)}: {stated.value}, a source build that names no release"
            continue
        details = {k: s.value for k, s in log.details.get(name, {}).items()}
        old = libraries.get(name)
        merged = {**(old.details if old and old.version == stated.value else {}), **details}
        libraries[name] = Library(name=name, version=str(stated.value), what_if=True, details=merged)
        sources[f"{name} version"] = _at(stated)
        for key, detail in log.details.get(name, {}).items():
            sources[f"{name} {key}"] = _at(detail)
    for name, details in log.details.items():  # details of a library whose version the log does not state
        if name in serving and name not in libraries and name not in log.versions and details.keys() & UNVERSIONED:
            # what the log shows of the engine's model, kept for each release the engine is evaluated at
            libraries[name] = Library(name=name, version="0", what_if=True,
                                      details={"release_stated": False, **{k: s.value for k, s in details.items()}})
            for key, detail in details.items():
                sources[f"{name} {key}"] = _at(detail)
            continue
        if name in libraries and name not in log.versions:
            lib = libraries[name]
            merged = {**lib.details, **{k: s.value for k, s in details.items()}}
            libraries[name] = dataclasses.replace(lib, details=merged)
            for key, detail in details.items():
                sources[f"{name} {key}"] = _at(detail)
    return _with_bundled(libraries, sources)


def _with_bundled(libraries: dict[str, Library], sources: dict[str, str]) -> dict[str, Library]:
    """The build a logged release runs, where the log states none of its own (Ollama's llama-server)."""
    from doctor.engines.registry import bundled_libraries, release_details

    for name, lib in list(libraries.items()):
        if lib.what_if and (table := release_details(name, lib.version)):
            libraries[name] = dataclasses.replace(lib, details={**table, **lib.details})
    for lib in [b for what_if in list(libraries.values()) if what_if.what_if for b in bundled_libraries(what_if)]:
        placeholder = libraries.get(lib.name)
        if placeholder is None or placeholder.details.get("release_stated") is False:
            logged = placeholder.details if placeholder else {}
            libraries[lib.name] = dataclasses.replace(lib, details={
                **lib.details, **{k: v for k, v in logged.items() if k in UNVERSIONED}})
            sources[f"{lib.name} version"] = lib.details.get("source", "bundled")
    return libraries


def _with_image(image: ImageFacts | None, log: LogFacts, libraries: dict[str, Library],
                sources: dict[str, str]) -> dict[str, Library]:
    """The libraries the image pins (FlashInfer, torch, nvcc), where the log states no version of its own."""
    if image is None:
        return libraries
    sources["image"] = _at(log.image)
    for spec in image.what_ifs():
        name, _, version = spec.partition("==")
        if name not in log.versions:
            libraries = {**libraries, name: Library(name=name, version=version, what_if=True)}
            sources[f"{name} version"] = f"{_at(log.image)} (the image {image.ref})"
    return libraries


def _with_gpus(log: LogFacts, facts: Facts, base_name: str, sources: dict[str, str]) -> Facts:
    gpus: list[Gpu] = []
    logged_gpus = _with_lower_indexes(log)
    labelled = not logged_gpus and not facts.gpus and bool(log.labelled_gpus)
    for logged in log.labelled_gpus if labelled else logged_gpus:
        capability = logged.capability or capability_of(logged.name)
        if capability is None:
            continue
        gpus.append(_gpu(logged.index, logged.name, capability, logged.memory_mib))
        where = (f"log line {logged.line}" if logged.line > 0 else
                 f"assumed like the GPU of log line {-logged.line} (a higher device index is logged)")
        sources[f"gpu {logged.index}"] = where + ("" if logged.capability else " (capability from its name)") + (
            " (the report's own words)" if labelled else "")
    if not gpus and log.capability is not None:
        capability = str(log.capability.value)
        name = "NVIDIA GB10" if capability == "12.1" else f"GPU of compute capability {capability}"
        gpus.append(_gpu(0, name, capability, None))
        sources["gpu 0"] = (f"{_at(log.capability)} (the compile target: ptxas' --gpu-name, Triton's GPUTarget; "
                            "or the device a kernel library's arch gate refused)")
    if not gpus:
        if facts.gpus:
            sources["gpus"] = base_name
        return facts
    topology = _links(log, {gpu.index for gpu in gpus}, sources)
    if not facts.driver.present:  # the log's machine had a driver; its version is another matter
        sources["driver"] = "implied by the logged GPUs (version not stated)"
        return facts.replace(gpus=tuple(gpus), topology=topology, driver=Driver(present=True))
    return facts.replace(gpus=tuple(gpus), topology=topology)


def _with_logged_smem(log: LogFacts, facts: Facts, sources: dict[str, str]) -> Facts:
    """The opt-in shared memory per block the log says the driver reported replaces the capability table's value:
    a driver that misreports it is the failure (LCPP040), which a profile's table value would rule out."""
    if log.smem_optin is None or not facts.gpus:
        return facts
    value = int(log.smem_optin.value)
    gpus = tuple(dataclasses.replace(gpu, smem_per_block_optin=value, smem_source="log") for gpu in facts.gpus)
    sources["gpu shared memory per block"] = f"{_at(log.smem_optin)} (the driver's sharedMemPerBlockOptin)"
    return facts.replace(gpus=gpus)


def _links(log: LogFacts, indexes: set[int], sources: dict[str, str]) -> tuple[Link, ...]:
    """The logged `nvidia-smi topo -m` links between the logged GPUs (none stated: none, as before)."""
    links = tuple(Link(a, b, str(stated.value)) for (a, b), stated in sorted(log.links.items())
                  if a in indexes and b in indexes)
    if links:
        first = min(stated.line for (a, b), stated in log.links.items() if a in indexes and b in indexes)
        sources["topology"] = f"log line {first} (nvidia-smi topo -m)"
    return links


def _with_lower_indexes(log: LogFacts) -> list[LoggedGpu]:
    """A log that names `device 7` only (one rank's line) has GPUs 0-6 too: the same model is assumed for
    them, and the source says so."""
    logged = sorted(log.gpus.values(), key=lambda g: g.index)
    if not logged or len(logged) > logged[-1].index or logged[-1].index >= 64:
        return logged
    model = logged[-1]
    known = {g.index for g in logged}
    fill = [dataclasses.replace(model, index=i, line=-model.line) for i in range(model.index) if i not in known]
    return sorted(logged + fill, key=lambda g: g.index)


def _gpu(index: int, name: str, capability: str, memory_mib: int | None) -> Gpu:
    major, _, minor = capability.partition(".")
    return Gpu(index=index, name=name, compute_capability=capability, cuda_index=index,
               memory_total_bytes=memory_mib * MIB if memory_mib else None,
               smem_per_block_optin=smem_per_block_optin((int(major), int(minor or 0))), smem_source="table")


def _with_host_os(log: LogFacts, facts: Facts, sources: dict[str, str]) -> Facts:
    """A log that shows native Windows says the host runs Windows, whatever the base says (a WSL2 log wins)."""
    if log.host_os is None or log.wsl is not None:
        return facts
    sources["host os"] = _at(log.host_os)
    return facts.replace(host=dataclasses.replace(facts.host, os=str(log.host_os.value)))


def _with_wsl(log: LogFacts, facts: Facts, sources: dict[str, str]) -> Facts:
    """A log that shows a WSL2 kernel says the host is WSL2, whatever the base (this machine, a profile) says."""
    if log.wsl is None:
        return facts
    sources["host wsl"] = _at(log.wsl)
    return facts.replace(host=dataclasses.replace(facts.host, wsl=True))


def _with_driver(log: LogFacts, facts: Facts, base_name: str, sources: dict[str, str]) -> Facts:
    if log.driver is None and log.cuda_driver is None:
        if facts.driver.present:
            sources.setdefault("driver", base_name)
        return facts
    version = str(log.driver.value) if log.driver else facts.driver.driver_version
    # the base's CUDA version belongs to the base's driver (a probe, --driver): another logged release drops it
    base_cuda = facts.driver.cuda_driver_version if version == facts.driver.driver_version else None
    driver = Driver(present=True, driver_version=version,
                    cuda_driver_version=str(log.cuda_driver.value) if log.cuda_driver else base_cuda)
    sources["driver"] = _at(log.driver or log.cuda_driver)
    return facts.replace(driver=driver)


def _model(log: LogFacts, environ: Mapping[str, str], notes: list[str]) -> Model | None:
    """The logged model's config: as named (local, HF cache, bundled), else a bundled config of the same name
    (a log names `/models/GLM-4.7-FP8` where the config is `zai-org/GLM-4.7-FP8`), else one derived from the bundled
    model the name names (doctor.probe.derived_name). Never the network."""
    if log.model is None:
        return None
    from doctor.probe.derived_name import hub_id_of_path
    from doctor.probe.model import bundled_models, load_model

    spec = str(log.model.value)
    candidates = [spec] + [known for known in bundled_models()
                           if known.split("/")[-1].lower() == PurePosixPath(spec).name.lower() and known != spec]
    derived = None
    for candidate in [*candidates, *hub_id_of_path(spec)]:
        try:
            model = load_model(candidate, {**environ, "HF_HUB_OFFLINE": "1"}, offline=True)
        except (DoctorError, OSError, ValueError):
            continue
        if model.source != "derived":
            return model
        derived = derived or dataclasses.replace(model, id=spec)  # a config read or bundled comes first
    if derived is not None:
        return derived
    notes.append(f"model {spec} (log line {log.model.line}): no config here or bundled; model rules not run")
    return None
