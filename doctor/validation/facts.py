"""Physical ranges for a facts tree, after the type check of doctor.pipeline.facts' reader: a snapshot, profile or
probe that claims negative memory, a link to a GPU that is not there, or a capability like "abc" is
refused with one line naming the field, instead of being planned on."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from doctor.errors import InputError
from doctor.pipeline.facts import SCHEMA_VERSION, Facts
from doctor.validation import check_int, shown
from doctor.validation.model import check_model
from doctor.validation.reader import from_dict

if TYPE_CHECKING:
    from pathlib import Path

    from doctor.pipeline.facts import Gpu, Host, Library, Link

MAX_GPUS = 1 << 16
MAX_GPU_MEMORY = 1 << 44  # 16 TiB: ~60x the largest GPU memory shipped (B300, 288 GB)
MAX_HOST_MEMORY = 1 << 52  # 4 PiB
MAX_SMEM_PER_BLOCK = 1 << 20  # 1 MiB: 4.5x the largest opt-in limit (227 KiB, H100/B200)
MAX_SMS = 10_000
CAPABILITY = re.compile(r"\d{1,2}\.\d{1,2}")
LINK_KIND = re.compile(r"PSB|PIX|PXB|PHB|NODE|SYS|X|unknown|NV\d{1,3}")
ARCH_TAG = re.compile(r"(sm|compute)_\d{2,3}[af]?")
SOURCE_KINDS = ("live", "profile", "snapshot")
DEVICE_ORDERS = ("FASTEST_FIRST", "PCI_BUS_ID")


def validate_facts(facts: Facts, origin: str) -> None:
    if facts.source.kind not in SOURCE_KINDS:
        raise InputError(f"{origin}: source.kind {shown(facts.source.kind)} is not one of {', '.join(SOURCE_KINDS)}")
    if facts.driver.cuda_device_order not in DEVICE_ORDERS:
        raise InputError(f"{origin}: driver.cuda_device_order {shown(facts.driver.cuda_device_order)} is not one "
                         f"of {', '.join(DEVICE_ORDERS)}")
    _host(facts.host, f"{origin}: host")
    if len(facts.gpus) > MAX_GPUS:
        raise InputError(f"{origin}: {len(facts.gpus)} GPUs is not plausible (at most {MAX_GPUS})")
    for i, gpu in enumerate(facts.gpus):
        _gpu(gpu, f"{origin}: gpus[{i}]")
    _unique([g.index for g in facts.gpus], f"{origin}: gpus", "index")
    _unique([g.cuda_index for g in facts.gpus if g.cuda_index is not None], f"{origin}: gpus", "cuda_index")
    _links(facts.topology, {g.index for g in facts.gpus}, f"{origin}: topology")
    for name, library in facts.libraries.items():
        _library(library, f"{origin}: libraries.{shown(name, 60)}")
    if facts.model is not None:
        check_model(facts.model, f"{origin}: model")


def _host(host: Host, where: str) -> None:
    _optional(host.cpu_count, f"{where}.cpu_count", 1, 1 << 20)
    _optional(host.memory_bytes, f"{where}.memory_bytes", 1, MAX_HOST_MEMORY, "bytes")
    _optional(host.numa_nodes, f"{where}.numa_nodes", 1, 4096)
    _optional(host.dev_shm_bytes, f"{where}.dev_shm_bytes", 1, MAX_HOST_MEMORY, "bytes")


def _gpu(gpu: Gpu, where: str) -> None:
    check_int(gpu.index, f"{where}.index", 0, MAX_GPUS - 1)
    _optional(gpu.cuda_index, f"{where}.cuda_index", 0, MAX_GPUS - 1)
    if not CAPABILITY.fullmatch(gpu.compute_capability):
        raise InputError(f"{where}.compute_capability {shown(gpu.compute_capability)} is not MAJOR.MINOR "
                         f"(e.g. \"12.0\")")
    if not gpu.name.strip() or len(gpu.name) > 256:
        raise InputError(f"{where}.name {shown(gpu.name)} is not a GPU name (1..256 characters)")
    _optional(gpu.sm_count, f"{where}.sm_count", 1, MAX_SMS)
    _optional(gpu.memory_total_bytes, f"{where}.memory_total_bytes", 1, MAX_GPU_MEMORY, "bytes")
    _optional(gpu.bar1_total_bytes, f"{where}.bar1_total_bytes", 1, MAX_GPU_MEMORY, "bytes")
    _optional(gpu.smem_per_block_optin, f"{where}.smem_per_block_optin", 1024, MAX_SMEM_PER_BLOCK, "bytes")
    _optional(gpu.numa_node, f"{where}.numa_node", 0, 4095)
    if gpu.pcie is not None:
        _optional(gpu.pcie.gen_current, f"{where}.pcie.gen_current", 1, 16)
        _optional(gpu.pcie.gen_max, f"{where}.pcie.gen_max", 1, 16)
        _optional(gpu.pcie.width_current, f"{where}.pcie.width_current", 1, 64)
        _optional(gpu.pcie.width_max, f"{where}.pcie.width_max", 1, 64)


def _links(links: Sequence[Link], gpus: set[int], where: str) -> None:
    seen: set[tuple[int, int]] = set()
    for i, link in enumerate(links):
        if link.a not in gpus or link.b not in gpus:
            missing = link.a if link.a not in gpus else link.b
            raise InputError(f"{where}[{i}]: link names GPU {missing}, which is not in gpus")
        if link.a == link.b:
            raise InputError(f"{where}[{i}]: link joins GPU {link.a} to itself")
        pair = (link.a, link.b) if link.a < link.b else (link.b, link.a)
        if pair in seen:
            raise InputError(f"{where}[{i}]: GPUs {pair[0]} and {pair[1]} are linked twice")
        seen.add(pair)
        if not LINK_KIND.fullmatch(link.kind):
            raise InputError(f"{where}[{i}].kind {shown(link.kind)} is not a `nvidia-smi topo -m` link kind "
                             f"(PIX PXB PHB NODE SYS NV<n>)")


def _library(library: Library, where: str) -> None:
    details = library.details
    for key in ("arch_list", "cuda_archs"):
        if details.get(key) is not None:
            _strings(details[key], f"{where}.details.{key}")
    if details.get("cuda_binaries") is not None:
        files = details["cuda_binaries"]
        if not isinstance(files, list):
            raise InputError(f"{where}.details.cuda_binaries: expected a list, got {type(files).__name__}")
        for i, entry in enumerate(files):
            _binary(entry, f"{where}.details.cuda_binaries[{i}]")


def _binary(entry: Any, where: str) -> None:
    if not isinstance(entry, Mapping):
        raise InputError(f"{where}: expected an object, got {type(entry).__name__}")
    for key in ("path", "sass", "ptx"):
        if key not in entry:
            raise InputError(f"{where}: missing field {key!r}")
    if not isinstance(entry["path"], str):
        raise InputError(f"{where}.path: expected a string")
    for key in ("sass", "ptx", "rdc_ptx"):
        if key in entry:
            for tag in _strings(entry[key], f"{where}.{key}"):
                if not ARCH_TAG.fullmatch(tag):
                    raise InputError(f"{where}.{key}: {shown(tag)} is not an arch tag like sm_120 or compute_90a")
    unknown = set(entry) - {"path", "sass", "ptx", "rdc_ptx", "format", "modules", "size", "error", "entries",
                            "compressed", "module_archs"}
    if unknown:
        raise InputError(f"{where}: unknown field {shown(sorted(unknown)[0])}")


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: expected a list of strings")
    return value


def _optional(value: int | None, where: str, low: int, high: int, unit: str = "") -> None:
    if value is not None:
        check_int(value, where, low, high, unit)


def _unique(values: list[int], where: str, field: str) -> None:
    if len(set(values)) != len(values):
        seen: set[int] = set()
        duplicate = next(v for v in values if v in seen or seen.add(v))  # type: ignore[func-returns-value]
        raise InputError(f"{where}: two GPUs have {field} {duplicate}")


def facts_from_dict(data: Any, origin: str = "facts") -> Facts:
    if not isinstance(data, dict):
        raise InputError(f"{origin}: expected a JSON object, got {type(data).__name__}")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise InputError(
            f"{origin}: schema_version {shown(version)} is not supported (this doctor reads {SCHEMA_VERSION!r})"
        )
    facts = from_dict(Facts, data, origin)
    validate_facts(facts, origin)
    return facts


def load_facts(path: Path) -> Facts:
    from doctor.output import read_json_file

    return facts_from_dict(read_json_file(path, "facts file"), str(path))
