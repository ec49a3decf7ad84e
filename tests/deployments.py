"""A deployment as facts the doctor reads, shared by the regression set (tests/cases, public failures) and the
known-good corpus (tests/knowngood, public deployments that served requests): a built-in hardware profile
(optionally its first N GPUs), `--engine` what-ifs, library versions with their details, a bundled model id or
a model folder beside the table (a config, or a GGUF spec: tests/gguf_specs.py), environment variables, host
facts, and the launch flags after `--` (`./x` names a file beside the table).

Each table is TOML: one `[[<kind>]]` per report. Every entry runs the same pure pipeline as `check`
(`check_facts`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from doctor.engines.images import ImageFacts, image_facts
from doctor.hardware import load_profile
from doctor.hardware.stated import HostWhatIf, apply_host_what_if, split_driver
from doctor.lint.find import file_kind
from doctor.lint.recipes import recipe_from_text
from doctor.pipeline.check import check_facts
from doctor.pipeline.facts import Facts, Library, Network, Nic, RdmaPort
from doctor.pipeline.gather import with_engines
from doctor.pipeline.report import Report
from doctor.probe.model import load_model
from tests.gguf_specs import SPEC_FILE, gguf_for

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

DEPLOYMENT_KEYS = {"hardware", "gpus", "engines", "libraries", "model", "env", "host", "driver", "gpu", "link",
                   "launch", "note", "image", "recipe", "nodes", "network", "driver_release", "wsl"}


@dataclass(frozen=True)
class Deployment:
    """What a report states; `hardware` is a built-in profile."""

    hardware: str
    gpus: int | None = None
    engines: tuple[str, ...] = ()
    libraries: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    model: str | None = None
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    host: dict[str, Any] = dataclasses.field(default_factory=dict)
    driver: dict[str, Any] = dataclasses.field(default_factory=dict)  # driver facts stated (`driver_version`)
    gpu: dict[str, Any] = dataclasses.field(default_factory=dict)  # facts of every GPU (`display_active`)
    link: dict[str, Any] = dataclasses.field(default_factory=dict)  # facts of every GPU pair (`p2p_read`, NVML's)
    launch: tuple[str, ...] = ()
    note: str = ""
    image: str | None = None  # the container image the launch runs in, read as `lint` reads it
    recipe: str | None = None  # `./files/X`: a build recipe beside the table (Dockerfile or shell), read as `lint` does
    nodes: int | None = None  # N identical nodes of the profile, checked as one deployment (`check --nodes N`)
    # every node's network as its probe would record it: `rdma` ports (device, port, link_layer, state, rate),
    # `nics` (name, operstate, speed_mbps, mtu, device) and `settings` (NCCL_IB_HCA, NCCL_SOCKET_IFNAME, ...)
    network: dict[str, Any] = dataclasses.field(default_factory=dict)
    # the driver release and WSL2 the report states, given as `check --driver X --wsl` gives them (the CUDA driver
    # version follows from NVIDIA's table: doctor/hardware/stated.py)
    driver_release: str | None = None
    wsl: bool = False


T = TypeVar("T", bound=Deployment)


def load_table(path: Path, kind: str, cls: type[T], keys: Iterable[str]) -> list[T]:
    """Every `[[kind]]` of the table as `cls`; an unknown key is a mistake in the table, not ignored."""
    allowed = set(keys)
    entries = []
    for raw in tomllib.loads(path.read_text(encoding="utf-8"))[kind]:
        unknown = set(raw) - allowed
        assert not unknown, f"{kind} {raw.get('id')}: unknown keys {sorted(unknown)}"
        entries.append(cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}))
    return entries


def facts_for(dep: Deployment, models: Path) -> Facts:
    image, recipe = launch_file_for(dep, models.parent)
    driver, module = split_driver(dep.driver_release) if dep.driver_release else (None, None)
    stated = HostWhatIf(driver=driver, wsl=dep.wsl, module=module)
    profile = apply_host_what_if(load_profile(dep.hardware), stated)
    facts = with_engines(profile, [*_image_engines(image), *dep.engines])
    if dep.gpus is not None:
        facts = _first_gpus(facts, dep.gpus)
    if dep.libraries:
        extra = {name: Library(name=name, version=str(d["version"]), details={k: v for k, v in d.items()
                                                                               if k != "version"})
                 for name, d in dep.libraries.items()}
        facts = facts.replace(libraries={**facts.libraries, **extra})
    if dep.env or recipe:
        facts = facts.replace(env={**dep.env, **(recipe or {}).get("variables", {})})
    if dep.host:
        host = {k: tuple(v) if isinstance(v, list) else v for k, v in dep.host.items()}
        facts = facts.replace(host=dataclasses.replace(facts.host, **host))
    if dep.driver:
        facts = facts.replace(driver=dataclasses.replace(facts.driver, **dep.driver))
    if dep.gpu:
        facts = facts.replace(gpus=tuple(dataclasses.replace(g, **dep.gpu) for g in facts.gpus))
    if dep.link:
        facts = facts.replace(topology=tuple(dataclasses.replace(k, **dep.link) for k in facts.topology))
    if dep.model:
        facts = facts.replace(model=load_model(model_spec(models, dep.model), {}, offline=True))
    if dep.network:
        facts = facts.replace(network=Network(rdma=tuple(RdmaPort(**port) for port in dep.network.get("rdma", ())),
                                              nics=tuple(Nic(**nic) for nic in dep.network.get("nics", ())),
                                              settings=dict(dep.network.get("settings", {}))))
    return facts


def model_spec(models: Path, name: str) -> str:
    """A folder beside the table (a config, or a `gguf.toml` written out as a sparse GGUF), else a bundled id."""
    local = models / name
    if (local / SPEC_FILE).is_file():
        return str(gguf_for(local))
    return str(local) if local.is_dir() else name


def _first_gpus(facts: Facts, count: int) -> Facts:
    assert count <= len(facts.gpus), f"profile has {len(facts.gpus)} GPUs, not {count}"
    keep = {g.index for g in facts.gpus[:count]}
    return facts.replace(gpus=facts.gpus[:count],
                         topology=tuple(link for link in facts.topology if {link.a, link.b} <= keep))


def launch_args(dep: Deployment, table_dir: Path) -> list[str]:
    """The flags after `--`; an argument written `./options/x.yml` is a file beside the table (an options file
    the report publishes), given to the doctor by its full path as the user's shell would."""
    return [str(table_dir / arg[2:]) if arg.startswith("./") else arg for arg in dep.launch]


def launch_file_for(dep: Deployment, table_dir: Path) -> tuple[ImageFacts | None, dict[str, Any] | None]:
    """The image and build recipe as `lint` reads them beside a launch (doctor/engines/images.py,
    doctor/lint/recipes.py)."""
    image = image_facts(dep.image) if dep.image else None
    recipe = None
    if dep.recipe:
        path = table_dir / dep.recipe.removeprefix("./")
        recipe = recipe_from_text(path.read_text(encoding="utf-8"), file_kind(path) or "shell").view()
    return image, recipe


def _image_engines(image: ImageFacts | None) -> list[str]:
    """What lint takes from an image: its engine release (the file's pin) and the libraries it pins."""
    if image is None:
        return []
    return ([f"{image.engine}=={image.version}"] if image.engine and image.version else []) + image.what_ifs()


def run_deployment(dep: Deployment, models: Path) -> Report:
    if dep.nodes is not None:
        return _run_nodes(dep, models)
    image, recipe = launch_file_for(dep, models.parent)
    launch_file = {"image": image, "recipe": recipe} if image or recipe else None
    return check_facts(facts_for(dep, models), launch_args(dep, models.parent), launch_file=launch_file)


def _run_nodes(dep: Deployment, models: Path) -> Report:
    """`nodes` identical nodes checked as one deployment, as `check --hardware P --nodes N` does: the head node's
    report with every finding of the cluster check (cluster rules and the per-node findings merged)."""
    from doctor.cluster.check import check_cluster
    from doctor.cluster.nodes import make_cluster

    assert dep.nodes and dep.nodes > 1, "nodes: 2 or more (one node is the plain case)"
    facts = facts_for(dep, models)
    cluster = make_cluster([facts] * dep.nodes, [dep.hardware] * dep.nodes, f"profile {dep.hardware}")
    report = check_cluster(cluster, launch_args(dep, models.parent))
    return dataclasses.replace(report.reports[0], findings=tuple(f.finding for f in report.findings))
