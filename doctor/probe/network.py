"""Network facts of this node from sysfs, no root needed: interfaces with link speed, RDMA ports (InfiniBand or
RoCE), GPUDirect RDMA readiness, and the NCCL/Gloo settings that choose among them.

NCCL picks its transport from these: an active RDMA port gives it the IB verbs transport (RoCE when the link
layer is Ethernet); GPUDirect RDMA then needs the `nvidia_peermem` module, or DMA-BUF, which the NVIDIA open
kernel module provides on Linux >= 5.12 (NCCL docs, "GPUDirect RDMA": https://docs.nvidia.com/deeplearning/
nccl/user-guide/docs/env.html#nccl-net-gdr-level, and https://docs.nvidia.com/cuda/gpudirect-rdma/). Without an
RDMA port NCCL falls back to TCP sockets on NCCL_SOCKET_IFNAME (or the first non-loopback interface).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from doctor.pipeline.facts import Network, Nic, RdmaPort
from doctor.probe.env import redact

SETTING_NAMES = ("NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "NCCL_NET", "NCCL_NET_GDR_LEVEL", "NCCL_DMABUF_ENABLE",
                 "NCCL_CROSS_NIC", "TP_SOCKET_IFNAME")
SETTING_PREFIXES = ("NCCL_IB_",)
MAX_ENTRIES = 256  # a node with more interfaces or RDMA ports than this is not what the facts describe


def probe_network(environ: Mapping[str, str], root: Path = Path("/")) -> Network:
    sys_dir = root / "sys"
    return Network(
        nics=tuple(_nics(sys_dir / "class" / "net")),
        rdma=tuple(_rdma_ports(sys_dir / "class" / "infiniband")),
        peermem=_module_loaded(sys_dir / "module", "nvidia_peermem"),
        nvidia_open_module=_open_module(root / "proc" / "driver" / "nvidia" / "version"),
        settings=network_settings(environ),
    )


def network_settings(environ: Mapping[str, str]) -> dict[str, str]:
    return {name: redact(name, value) for name, value in sorted(environ.items())
            if name in SETTING_NAMES or name.startswith(SETTING_PREFIXES)}


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:  # missing, or EINVAL: `speed` of a link that is down
        return None


def _int(text: str | None) -> int | None:
    try:
        value = int(text) if text is not None else None
    except ValueError:
        return None
    return value if value is not None and 0 <= value < 1 << 40 else None


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())[:MAX_ENTRIES]
    except OSError:
        return []


def _device(device_link: Path) -> str | None:
    try:
        return device_link.resolve(strict=True).name if device_link.exists() else None
    except OSError:
        return None


def _nics(folder: Path) -> list[Nic]:
    nics = []
    for entry in _entries(folder):
        if entry.name == "lo":
            continue
        speed = _int(_read(entry / "speed"))
        nics.append(Nic(name=entry.name, operstate=_read(entry / "operstate"),
                        speed_mbps=speed if speed else None, mtu=_int(_read(entry / "mtu")),
                        device=_device(entry / "device")))
    return nics


def _rdma_ports(folder: Path) -> list[RdmaPort]:
    ports = []
    for device in _entries(folder):
        netdevs = [n.name for n in _entries(device / "device" / "net")]
        for port in _entries(device / "ports"):
            number = _int(port.name)
            if number is None:
                continue
            ports.append(RdmaPort(device=device.name, port=number, link_layer=_read(port / "link_layer"),
                                  state=_read(port / "state"), rate=_read(port / "rate"),
                                  netdev=netdevs[0] if netdevs else None))
    return ports


def _module_loaded(modules: Path, name: str) -> bool | None:
    if not modules.is_dir():
        return None
    return (modules / name).is_dir()


def _open_module(version_file: Path) -> bool | None:
    text = _read(version_file)
    return None if text is None else "Open Kernel Module" in text
