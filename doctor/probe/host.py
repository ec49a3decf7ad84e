"""Host facts: OS, Python, CPU, memory and NUMA layout, read from the platform and /proc, /sys."""

from __future__ import annotations

import os
import platform
from pathlib import Path

from doctor.facts import Host


def probe_host(root: Path = Path("/")) -> Host:
    return Host(
        os=platform.system() or None,
        kernel=platform.release() or None,
        python=platform.python_version(),
        cpu_model=_cpu_model(root / "proc/cpuinfo") or platform.processor() or None,
        cpu_count=os.cpu_count(),
        memory_bytes=_mem_total(root / "proc/meminfo"),
        numa_nodes=_numa_nodes(root / "sys/devices/system/node"),
    )


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
