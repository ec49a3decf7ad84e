"""PCIe Access Control Services on the bridges above the GPUs, read from sysfs config space (what `lspci -vvv`
prints as `ACSCtl: ... ReqRedir+ CmpltRedir+`). With P2P request/completion redirect on, peer traffic between
two GPUs is sent up to the root complex (and through a translating IOMMU) instead of across the switch: the
host state behind the NCCL and custom all-reduce hangs of COMM002/P2P001. Extended config space (offset 0x100
and up, where ACS lives) is readable by root only; for anyone else the answer is None, never a guess."""

from __future__ import annotations

from pathlib import Path

NVIDIA_VENDOR = "0x10de"
DISPLAY_CLASS = "0x03"  # 0x0300 VGA, 0x0302 3D controller
ACS_CAPABILITY = 0x000D
EXTENDED_START = 0x100
REQUEST_REDIRECT, COMPLETION_REDIRECT = 1 << 2, 1 << 3


def acs_redirect(sysfs: Path = Path("/sys")) -> list[str] | None:
    """The bridges above an NVIDIA GPU whose ACS P2P request or completion redirect is on (`0000:00:01.1`);
    [] when none is; None when no bridge's extended config space could be read (not root, no GPU)."""
    devices = sysfs / "bus/pci/devices"
    try:
        gpus = [d for d in sorted(devices.iterdir()) if _is_nvidia_gpu(d)]
    except OSError:
        return None
    bridges = sorted({b for gpu in gpus for b in _upstream_bridges(gpu)}, key=lambda p: p.name)
    readable, redirected = False, []
    for bridge in bridges:
        control = _acs_control(bridge / "config")
        if control is None:
            continue
        readable = True
        if control & (REQUEST_REDIRECT | COMPLETION_REDIRECT):
            redirected.append(bridge.name)
    return redirected if readable else None


def acs_control_from_config(config: bytes) -> int | None:
    """The ACS Control register of one function's config space, walking the extended capability list;
    None when the space is short (unprivileged reads stop at 64 or 256 bytes) or has no ACS capability."""
    offset, seen = EXTENDED_START, set()
    while EXTENDED_START <= offset <= len(config) - 8 and offset not in seen:
        seen.add(offset)
        header = int.from_bytes(config[offset:offset + 4], "little")
        if header in (0, 0xFFFFFFFF):
            return None
        if header & 0xFFFF == ACS_CAPABILITY:
            return int.from_bytes(config[offset + 6:offset + 8], "little")
        offset = (header >> 20) & 0xFFC
    return None


def _acs_control(config: Path) -> int | None:
    try:
        with config.open("rb") as handle:
            data = handle.read(4096)
    except OSError:
        return None
    return acs_control_from_config(data)


def _is_nvidia_gpu(device: Path) -> bool:
    return _read(device / "vendor") == NVIDIA_VENDOR and (_read(device / "class") or "").startswith(DISPLAY_CLASS)


def _upstream_bridges(device: Path) -> list[Path]:
    """The PCI functions between the root complex and `device` (its parents in /sys/devices), nearest first."""
    try:
        real = device.resolve()
    except OSError:
        return []
    return [parent for parent in real.parents if parent.name.count(":") == 2 and (parent / "config").exists()]


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None
