"""Host facts: OS, Python, CPU, memory and NUMA layout, read from the platform and /proc, /sys."""

from __future__ import annotations

import os
import platform
import re
from pathlib import Path

from doctor.pipeline.facts import Host
from doctor.probe.env import redact
from doctor.probe.pcie_acs import acs_redirect


def probe_host(root: Path = Path("/")) -> Host:
    iommu, iommu_source = iommu_mode(root)
    return Host(
        os=platform.system() or None,
        kernel=platform.release() or None,
        python=platform.python_version(),
        cpu_model=_cpu_model(root / "proc/cpuinfo") or platform.processor() or None,
        cpu_count=os.cpu_count(),
        memory_bytes=_mem_total(root / "proc/meminfo"),
        memory_available_bytes=_mem_total(root / "proc/meminfo", "MemAvailable:"),
        numa_nodes=_numa_nodes(root / "sys/devices/system/node"),
        iommu_mode=iommu,
        iommu_source=iommu_source,
        wsl=is_wsl(root, platform.release()),
        nvidia_registry_dwords=nvidia_registry_dwords(root),
        ld_so_preload=ld_so_preload(root),
        dev_shm_bytes=dev_shm_bytes(root),
        nccl_conf=nccl_conf(root),
        acs_redirect=_tuple(acs_redirect(root / "sys")),
        **nvidia_module(root),
    )


def is_wsl(root: Path = Path("/"), release: str = "") -> bool | None:
    """WSL2 kernels name themselves `...-microsoft-standard-WSL2`; /proc/version says `Microsoft` too."""
    text = " ".join([release, *_lines(root / "proc/version")]).lower()
    if not text.strip():
        return None
    return "microsoft" in text or "wsl" in text


_BUILD_HOST = re.compile(r"\((?P<host>[^()\s]+@[^()\s]+)\)")


def nvidia_module(root: Path = Path("/")) -> dict[str, str | None]:
    """The loaded NVIDIA kernel module's flavour and build, from /proc/driver/nvidia/version, e.g.
    `NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (dvs-builder@U16-I3-B03-4-3)`.
    NVIDIA's packages are built on its `dvs-builder` hosts; anything else is a local source build (as the
    patched P2P modules for GeForce cards are)."""
    first = next(iter(_lines(root / "proc/driver/nvidia/version")), "")
    if not first.startswith("NVRM version:"):
        return {"nvidia_module": None, "nvidia_module_build": None}
    flavour = "open" if "Open Kernel Module" in first else "proprietary"
    match = _BUILD_HOST.search(first)
    build = None if match is None else ("nvidia" if match.group("host").startswith("dvs-builder@") else "local")
    return {"nvidia_module": flavour, "nvidia_module_build": build}


_REGISTRY_LINE = re.compile(r'^RegistryDwords:\s*"?(?P<value>[^"]*)"?\s*$')


def nvidia_registry_dwords(root: Path = Path("/")) -> tuple[str, ...]:
    """The `NVreg_RegistryDwords` the loaded nvidia module was given (`ForceP2P=17;RMForceStaticBar1=1`: the
    switches the patched P2P modules for GeForce cards are run with), readable without root from
    /proc/driver/nvidia/params (`RegistryDwords: "..."`) or /sys/module/nvidia/parameters/NVreg_RegistryDwords."""
    for line in _lines(root / "proc/driver/nvidia/params"):
        match = _REGISTRY_LINE.match(line.strip())
        if match:
            return _dwords(match.group("value"))
    sysfs = _lines(root / "sys/module/nvidia/parameters/NVreg_RegistryDwords")
    return _dwords(sysfs[0]) if sysfs else ()


def _dwords(value: str) -> tuple[str, ...]:
    value = value.strip().strip('"')
    if value in ("", "(null)"):
        return ()
    return tuple(entry.strip() for entry in value.split(";") if entry.strip())


def ld_so_preload(root: Path = Path("/")) -> str | None:
    """What /etc/ld.so.preload loads into every process (GPU-sharing interposers such as HAMi's libvgpu.so
    are installed this way in containers, as well as through LD_PRELOAD)."""
    entries = [w for line in _lines(root / "etc/ld.so.preload") if not line.lstrip().startswith("#")
               for w in line.split()]
    return " ".join(entries) or None


def nccl_conf(root: Path = Path("/")) -> dict[str, str]:
    """The NCCL_* settings /etc/nccl.conf holds, read as NCCL's initEnv does (one NAME=VALUE a line, the name up to
    the first `=`, no trimming; the first line of a name wins): NCCL sets them where the environment has none, so a
    file left in a container image changes every run in it. ~/.nccl.conf and NCCL_CONF_FILE are not read here."""
    settings: dict[str, str] = {}
    for line in _lines(root / "etc/nccl.conf"):
        name, sep, value = line.partition("=")
        if sep and name.startswith("NCCL_") and name not in settings:
            settings[name] = redact(name, value)
    return settings


_SIZE = re.compile(r"(?:^|,)size=(?P<n>\d+)(?P<unit>[kmgKMG]?)(?:,|$)")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def dev_shm_bytes(root: Path = Path("/")) -> int | None:
    """The size limit of the tmpfs at /dev/shm from /proc/mounts (`shm /dev/shm tmpfs rw,...,size=65536k 0 0`:
    Docker's 64 MiB default without --ipc=host or --shm-size); None when no size= is given (a host's tmpfs: half
    of RAM) or /dev/shm is not a mount of its own."""
    for line in _lines(root / "proc/mounts"):
        fields = line.split()
        if len(fields) >= 4 and fields[1] == "/dev/shm":
            match = _SIZE.search(fields[3])
            return int(match.group("n")) * _UNITS[match.group("unit").lower()] if match else None
    return None


def iommu_mode(root: Path = Path("/")) -> tuple[str | None, str | None]:
    """How the IOMMU treats device DMA, without root: the default domain type of the IOMMU groups
    (DMA/DMA-FQ translate, identity passes through), else the kernel command line. (mode, where it was read)."""
    groups = root / "sys/kernel/iommu_groups"
    try:
        types = {t.strip() for g in sorted(groups.iterdir())[:64] for t in _lines(g / "type")}
        present = groups.is_dir() and any(groups.iterdir())
    except OSError:
        types, present = set(), False
    if types:
        mode = "translated" if types & {"DMA", "DMA-FQ"} else "passthrough"
        return mode, f"/sys/kernel/iommu_groups/*/type: {', '.join(sorted(types))}"
    cmdline = " ".join(_lines(root / "proc/cmdline"))
    flags = [w for w in cmdline.split() if "iommu" in w]
    if any(w in ("iommu=pt", "iommu=off", "amd_iommu=off", "intel_iommu=off") for w in flags):
        return ("passthrough" if "iommu=pt" in flags else "off"), f"/proc/cmdline: {' '.join(flags)}"
    if (root / "sys/kernel").is_dir() and not present:
        return "off", "/sys/kernel/iommu_groups: no groups"
    return None, None


def _tuple(values: list[str] | None) -> tuple[str, ...] | None:
    return None if values is None else tuple(values)


def _cpu_model(cpuinfo: Path) -> str | None:
    for line in _lines(cpuinfo):
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware"):
            return value.strip() or None
    return None


def _mem_total(meminfo: Path, key: str = "MemTotal:") -> int | None:
    for line in _lines(meminfo):
        if line.startswith(key):
            parts = line.split()
            if len(parts) >= 2 and parts[1].isdigit():
                return int(parts[1]) * 1024
    return None


def _numa_nodes(node_dir: Path) -> int | None:
    try:
        nodes = [p for p in node_dir.iterdir() if p.name.startswith("node") and p.name[4:].isdigit()]
    except OSError:
        return None
    return len(nodes) or None


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []
