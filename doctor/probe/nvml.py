"""Live GPU facts through NVML (nvidia-ml-py). Every query may be unsupported: record it, never crash.

Traps handled here (NVML API reference, https://docs.nvidia.com/deploy/nvml-api/): NVML index order is
PCI order, CUDA's is fastest-first unless CUDA_DEVICE_ORDER=PCI_BUS_ID; `NVML_P2P_CAPS_INDEX_READ` is the
tuple `(0,)` in nvidia-ml-py 13.615.71, so the P2P indexes are our own ints; NUMA id is NotSupported on discrete GPUs
(sysfs is the fallback); memory info is NotSupported on unified-memory SoCs (GB10).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doctor.hardware import smem_per_block_optin
from doctor.pipeline.facts import Driver, Gpu, Link, Pcie

P2P_READ, P2P_WRITE, P2P_NVLINK, P2P_ATOMICS = 0, 1, 2, 3
P2P_STATUS_OK = 0
TOPOLOGY_LEVELS = {0: "PSB", 10: "PIX", 20: "PXB", 30: "PHB", 40: "NODE", 50: "SYS"}
NVLINK_MAX_LINKS = 36  # NVML_NVLINK_MAX_LINKS in NVML 13; a missing link stops the walk


class _Unsupported(Exception):
    pass


@dataclass
class NvmlResult:
    driver: Driver
    gpus: tuple[Gpu, ...] = ()
    topology: tuple[Link, ...] = ()
    notes: list[str] = field(default_factory=list)


def probe_nvml(environ: Mapping[str, str], sysfs: Path = Path("/sys")) -> NvmlResult:
    order = "PCI_BUS_ID" if environ.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID" else "FASTEST_FIRST"
    try:
        import pynvml
    except ImportError:
        return NvmlResult(Driver(present=False, error="nvidia-ml-py is not installed", cuda_device_order=order))
    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        return NvmlResult(Driver(present=False, error=f"NVML could not start: {exc}", cuda_device_order=order))
    except OSError as exc:
        return NvmlResult(Driver(present=False, error=f"NVML could not load: {exc}", cuda_device_order=order))
    try:
        return _probe(pynvml, environ, sysfs, order)
    finally:
        with contextlib.suppress(pynvml.NVMLError):
            pynvml.nvmlShutdown()


def _probe(nvml: Any, environ: Mapping[str, str], sysfs: Path, order: str) -> NvmlResult:
    ask = _Asker(nvml)
    cuda = ask.value(nvml.nvmlSystemGetCudaDriverVersion_v2)
    driver = Driver(
        present=True,
        driver_version=ask.value(nvml.nvmlSystemGetDriverVersion),
        cuda_driver_version=f"{cuda // 1000}.{(cuda % 1000) // 10}" if isinstance(cuda, int) else None,
        nvml_version=ask.value(nvml.nvmlSystemGetNVMLVersion),
        cuda_device_order=order,
    )
    count = ask.value(nvml.nvmlDeviceGetCount) or 0
    handles, notes = [], []
    for i in range(count):
        handle = ask.value(nvml.nvmlDeviceGetHandleByIndex, i)
        if handle is None:
            notes.append(f"NVML device {i} could not be opened (lost, or no permission); it is left out")
        else:
            handles.append(handle)
    gpus = [_gpu(nvml, i, h, sysfs) for i, h in enumerate(handles)]
    gpus, order_notes = _assign_cuda_indices(gpus, environ, order)
    notes.extend(order_notes)
    count = len(handles)
    bus_ids = {g.pci_bus_id.lower() for g in gpus if g.pci_bus_id}
    nvlinks = [_nvlink_remotes(ask, nvml, h) for h in handles]
    links = tuple(_link(nvml, gpus, handles, nvlinks, bus_ids, a, b) for a in range(count) for b in range(a + 1, count))
    return NvmlResult(driver, tuple(gpus), links, notes)


class _Asker:
    """Calls one NVML function; NotSupported and friends come back as a reason, not an exception."""

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return fn(*args)
        except self.nvml.NVMLError_NotSupported as exc:
            raise _Unsupported("not supported") from exc
        except self.nvml.NVMLError_NoPermission as exc:
            raise _Unsupported("no permission") from exc
        except self.nvml.NVMLError_FunctionNotFound as exc:
            raise _Unsupported("not in this driver") from exc
        except (self.nvml.NVMLError, AttributeError, TypeError, OSError) as exc:
            raise _Unsupported(str(exc) or type(exc).__name__) from exc

    def value(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return self.call(fn, *args)
        except _Unsupported:
            return None


def _gpu(nvml: Any, index: int, handle: Any, sysfs: Path) -> Gpu:
    ask = _Asker(nvml)
    unsupported: list[str] = []

    def get(label: str, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return ask.call(fn, handle, *args)
        except _Unsupported as why:
            unsupported.append(f"{label}: {why}")
            return None

    name = get("name", nvml.nvmlDeviceGetName) or "unknown NVIDIA GPU"
    cc = get("compute_capability", nvml.nvmlDeviceGetCudaComputeCapability)
    capability = (int(cc[0]), int(cc[1])) if cc else (0, 0)
    memory = get("memory_info", nvml.nvmlDeviceGetMemoryInfo)
    pci = get("pci_info", nvml.nvmlDeviceGetPciInfo)
    bus_id = _text(pci.busId) if pci is not None else None
    numa = get("numa_node_id", nvml.nvmlDeviceGetNumaNodeId)
    if numa is None and bus_id:
        numa = _sysfs_numa_node(sysfs, bus_id)
    pcie = Pcie(
        gen_current=get("pcie_gen_current", nvml.nvmlDeviceGetCurrPcieLinkGeneration),
        gen_max=get("pcie_gen_max", nvml.nvmlDeviceGetGpuMaxPcieLinkGeneration),
        width_current=get("pcie_width_current", nvml.nvmlDeviceGetCurrPcieLinkWidth),
        width_max=get("pcie_width_max", nvml.nvmlDeviceGetMaxPcieLinkWidth),
    )
    get("ecc_mode", nvml.nvmlDeviceGetEccMode)
    display_active = getattr(nvml, "nvmlDeviceGetDisplayActive", None)
    display = _flag(get("display_active", display_active)) if display_active else None
    bar1_info = getattr(nvml, "nvmlDeviceGetBAR1MemoryInfo", None)
    bar1 = get("bar1_memory_info", bar1_info) if bar1_info else None
    get("mig_mode", nvml.nvmlDeviceGetMigMode)
    get("nvlink", nvml.nvmlDeviceGetNvLinkState, 0)
    return Gpu(
        index=index,
        name=_text(name),
        compute_capability=f"{capability[0]}.{capability[1]}",
        uuid=_text(get("uuid", nvml.nvmlDeviceGetUUID)),
        sm_count=None,  # NVML has no SM count; `--deep` asks torch
        memory_total_bytes=int(memory.total) if memory is not None else None,
        smem_per_block_optin=smem_per_block_optin(capability),
        smem_source="table",
        pci_bus_id=bus_id,
        pcie=pcie,
        numa_node=numa,
        unified_memory=memory is None and capability >= (11, 0),
        unsupported=tuple(unsupported),
        display_active=display,
        bar1_total_bytes=int(bar1.bar1Total) if bar1 is not None else None,
    )


def _flag(value: Any) -> bool | None:
    """NVML's enable state (NVML_FEATURE_ENABLED = 1) as a bool."""
    return None if value is None else bool(value)


def _link(nvml: Any, gpus: list[Gpu], handles: list[Any], nvlinks: list[list[str]], bus_ids: set[str],
          a: int, b: int) -> Link:
    ask = _Asker(nvml)
    kind = _nvlink_kind(nvlinks[a], nvlinks[b], gpus[b].pci_bus_id, bus_ids)
    if kind is None:
        level = ask.value(nvml.nvmlDeviceGetTopologyCommonAncestor, handles[a], handles[b])
        kind = TOPOLOGY_LEVELS.get(level, "unknown") if level is not None else "unknown"

    def p2p(index: int) -> bool | None:
        status = ask.value(nvml.nvmlDeviceGetP2PStatus, handles[a], handles[b], index)
        return None if status is None else status == P2P_STATUS_OK

    return Link(a=a, b=b, kind=kind, p2p_read=p2p(P2P_READ), p2p_write=p2p(P2P_WRITE),
                p2p_atomics=p2p(P2P_ATOMICS), p2p_nvlink=p2p(P2P_NVLINK))


def _nvlink_kind(remotes_a: list[str], remotes_b: list[str], bus_b: str | None, gpu_buses: set[str]) -> str | None:
    """NV<n> as nvidia-smi prints it: links straight to the peer, or, on NVSwitch systems (remote end is
    not a GPU), the links both GPUs have into the switch fabric."""
    direct = sum(1 for remote in remotes_a if bus_b and remote == bus_b.lower())
    if direct:
        return f"NV{direct}"
    to_switch_a = sum(1 for remote in remotes_a if remote not in gpu_buses)
    to_switch_b = sum(1 for remote in remotes_b if remote not in gpu_buses)
    if to_switch_a and to_switch_b:
        return f"NV{min(to_switch_a, to_switch_b)}"
    return None


def _nvlink_remotes(ask: _Asker, nvml: Any, handle: Any) -> list[str]:
    """PCI bus ids at the far end of each active NVLink of one GPU (a peer GPU or an NVSwitch)."""
    remotes = []
    for link in range(NVLINK_MAX_LINKS):
        try:
            if ask.call(nvml.nvmlDeviceGetNvLinkState, handle, link) != 1:
                continue
            remote = ask.call(nvml.nvmlDeviceGetNvLinkRemotePciInfo, handle, link)
        except _Unsupported:
            break  # no NVLink on this device, or past its last link
        remotes.append(_text(remote.busId).lower())
    return remotes


def _assign_cuda_indices(gpus: list[Gpu], environ: Mapping[str, str], order: str) -> tuple[list[Gpu], list[str]]:
    """CUDA ordinals: PCI order when asked for, or when all GPUs are alike (fastest-first ties break by
    PCI bus id); otherwise unknown without CUDA. CUDA_VISIBLE_DEVICES then selects and renumbers."""
    import dataclasses

    notes: list[str] = []
    same_model = len({g.name for g in gpus}) <= 1
    if order != "PCI_BUS_ID" and not same_model:
        notes.append("CUDA device order is fastest-first and the GPUs differ: CUDA indices are unknown "
                     "without --deep; set CUDA_DEVICE_ORDER=PCI_BUS_ID to make them match NVML's")
        return gpus, notes
    by_bus = sorted(gpus, key=lambda g: (g.pci_bus_id or "", g.index))
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        ordinal = {g.index: i for i, g in enumerate(by_bus)}
    else:
        ordinal = _visible_ordinals(by_bus, visible)
        notes.append(f"CUDA_VISIBLE_DEVICES={visible}: CUDA sees {len(ordinal)} of {len(gpus)} GPUs")
    return [dataclasses.replace(g, cuda_index=ordinal.get(g.index)) for g in gpus], notes


def _visible_ordinals(by_bus: list[Gpu], visible: str) -> dict[int, int]:
    ordinal: dict[int, int] = {}
    for token in (t.strip() for t in visible.split(",")):
        match = None
        if token.isdigit() and int(token) < len(by_bus):
            match = by_bus[int(token)]
        elif token.startswith("GPU-"):
            match = next((g for g in by_bus if g.uuid and g.uuid.startswith(token)), None)
        if match is None:
            break  # CUDA stops at the first invalid entry
        ordinal.setdefault(match.index, len(ordinal))
    return ordinal


def _sysfs_numa_node(sysfs: Path, bus_id: str) -> int | None:
    domain, _, rest = bus_id.partition(":")
    short = f"{domain[-4:]}:{rest}".lower()
    try:
        value = int((sysfs / "bus/pci/devices" / short / "numa_node").read_text().strip())
    except (OSError, ValueError):
        return None
    return value if value >= 0 else None


def _text(value: Any) -> Any:
    return value.decode(errors="replace") if isinstance(value, bytes) else value
