"""ACS P2P redirect on the bridges above the GPUs, from a sysfs tree shaped like a real host's (the config space
of a root port with an AER capability at 0x100 and ACS at 0x148, as `lspci -xxxx` shows them)."""

from __future__ import annotations

import os
from pathlib import Path

from doctor.probe.pcie_acs import acs_control_from_config, acs_redirect


def config(acs_control: int | None, length: int = 4096) -> bytes:
    data = bytearray(length)
    if length > 0x150:
        data[0x100:0x104] = (0x0001 | (1 << 16) | (0x148 << 20)).to_bytes(4, "little")  # AER, next 0x148
        if acs_control is not None:
            data[0x148:0x14C] = (0x000D | (1 << 16)).to_bytes(4, "little")  # ACS, last
            data[0x14C:0x14E] = (0x005F).to_bytes(2, "little")  # capability: SV TB RR CR UF DT
            data[0x14E:0x150] = acs_control.to_bytes(2, "little")
    return bytes(data)


def host(tmp_path: Path, port_config: bytes, gpu_class: str = "0x030000") -> Path:
    sysfs = tmp_path / "sys"
    port = sysfs / "devices/pci0000:00/0000:00:01.1"
    gpu = port / "0000:01:00.0"
    gpu.mkdir(parents=True)
    (port / "config").write_bytes(port_config)
    (gpu / "config").write_bytes(config(None, 256))
    (gpu / "vendor").write_text("0x10de\n")
    (gpu / "class").write_text(gpu_class + "\n")
    links = sysfs / "bus/pci/devices"
    links.mkdir(parents=True)
    os.symlink(os.path.relpath(gpu, links), links / "0000:01:00.0")
    return sysfs


def test_acs_control_register_is_found_in_the_extended_list():
    assert acs_control_from_config(config(0x001D)) == 0x001D
    assert acs_control_from_config(config(None)) is None
    assert acs_control_from_config(config(0x001D, length=256)) is None  # what a user who is not root reads


def test_redirect_on_the_root_port_above_a_gpu(tmp_path):
    assert acs_redirect(host(tmp_path, config(0x001D))) == ["0000:00:01.1"]  # ReqRedir+ CmpltRedir+


def test_acs_present_without_redirect(tmp_path):
    assert acs_redirect(host(tmp_path, config(0x0001))) == []  # SrcValid+ only


def test_unreadable_config_space_is_unknown(tmp_path):
    assert acs_redirect(host(tmp_path, config(0x001D, length=256))) is None
    assert acs_redirect(tmp_path / "nowhere") is None


def test_only_bridges_above_nvidia_gpus_count(tmp_path):
    assert acs_redirect(host(tmp_path, config(0x001D), gpu_class="0x020000")) is None  # a NIC, not a GPU


def test_null_capabilities_are_walked_past():
    """An H100's extended list as read on a real host (2026-11-27): null headers with a next pointer at 0x100,
    0x134, 0x248, 0x250, then LTR, AER, vendor-specific, power budget, serial number; no ACS on the endpoint."""
    data = bytearray(4096)
    chain = [(0x100, 0x0, 0x12C), (0x12C, 0x18, 0x134), (0x134, 0x0, 0x1B8), (0x1B8, 0x1, 0x248),
             (0x248, 0x0, 0x250), (0x250, 0x0, 0x2A4), (0x2A4, 0xB, 0x2B8), (0x2B8, 0x4, 0x2F0), (0x2F0, 0x3, 0)]
    for offset, cap, nxt in chain:
        data[offset:offset + 4] = (cap | (1 << 16) | (nxt << 20)).to_bytes(4, "little")
    assert acs_control_from_config(bytes(data)) is None
    data[0x2F0:0x2F4] = (0x3 | (1 << 16) | (0x300 << 20)).to_bytes(4, "little")
    data[0x300:0x304] = (0x000D | (1 << 16)).to_bytes(4, "little")
    data[0x306:0x308] = (0x0004).to_bytes(2, "little")
    assert acs_control_from_config(bytes(data)) == 0x0004
