"""Host facts: OS, Python, CPU, memory and NUMA layout, read from the platform and /proc, /sys."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from doctor.pipeline.facts import Host


def probe_host(root: Path = Path("/")) -> Host:
    iommu, iommu_source = iommu_mode(root)
    return Host(
        os=platform.system() or None,
        kernel=platform.release() or None,
        python=platform.python_version(),
        cpu_model=_cpu_model(root / "proc/cpuinfo") or platform.processor() or None,
        cpu_count=os.cpu_count(),
        memory_bytes=_mem_total(root / "proc/meminfo"),
        numa_nodes=_numa_nodes(root / "sys/devices/system/node"),
        iommu_mode=iommu,
        iommu_source=iommu_source,
    )


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


def _cpu_model(cpuinfo: Path) -> str | None:
    for line in _lines(cpuinfo):
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "Hardware"):
            return value.strip() or None
    return None


def _mem_total(meminfo: Path) -> int | None:
    for line in _lines(meminfo):
        if line.startswith("MemTotal:"):
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
