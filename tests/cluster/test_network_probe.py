"""Network facts from a sysfs tree built in tmp_path (the probe reads files only, no root, no tools)."""

from __future__ import annotations

import os

from doctor.cluster.network import node_network
from doctor.pipeline.facts import Facts, Source
from doctor.probe.network import probe_network


def fake_root(tmp_path, *, peermem: bool, open_module: bool):
    sys = tmp_path / "sys"
    pci = sys / "devices" / "pci0000:40" / "0000:41:00.0"
    pci.mkdir(parents=True)
    for name, state, speed in (("lo", "unknown", None), ("eth0", "up", "100000"), ("eth1", "down", None)):
        nic = sys / "class" / "net" / name
        nic.mkdir(parents=True)
        (nic / "operstate").write_text(state + "\n")
        (nic / "mtu").write_text("9000\n")
        if speed:
            (nic / "speed").write_text(speed + "\n")
        if name == "eth0":
            os.symlink(pci, nic / "device")
    port = sys / "class" / "infiniband" / "mlx5_0" / "ports" / "1"
    port.mkdir(parents=True)
    (port / "link_layer").write_text("Ethernet\n")
    (port / "state").write_text("4: ACTIVE\n")
    (port / "rate").write_text("200 Gb/sec (4X HDR)\n")
    (sys / "class" / "infiniband" / "mlx5_0" / "device" / "net" / "eth0").mkdir(parents=True)
    (sys / "module" / "nvidia").mkdir(parents=True)
    if peermem:
        (sys / "module" / "nvidia_peermem").mkdir()
    version = tmp_path / "proc" / "driver" / "nvidia" / "version"
    version.parent.mkdir(parents=True)
    kind = "Open Kernel Module" if open_module else "Kernel Module"
    version.write_text(f"NVRM version: NVIDIA UNIX {kind} for x86_64  580.65.06\n")
    return tmp_path


def test_interfaces_rdma_and_gpudirect(tmp_path):
    env = {"NCCL_SOCKET_IFNAME": "eth", "NCCL_IB_HCA": "mlx5_0", "PATH": "/bin", "GLOO_SOCKET_IFNAME": "eth0"}
    net = probe_network(env, fake_root(tmp_path, peermem=False, open_module=True))
    assert [(n.name, n.operstate, n.speed_mbps, n.device) for n in net.nics] == [
        ("eth0", "up", 100000, "0000:41:00.0"), ("eth1", "down", None, None)]
    (port,) = net.rdma
    assert (port.device, port.link_layer, port.netdev) == ("mlx5_0", "Ethernet", "eth0")
    assert net.peermem is False and net.nvidia_open_module is True
    assert net.settings == {"GLOO_SOCKET_IFNAME": "eth0", "NCCL_IB_HCA": "mlx5_0", "NCCL_SOCKET_IFNAME": "eth"}
    view = node_network(Facts(source=Source(kind="live"), node="n0", network=net))
    assert view["transport"] == "rdma" and view["roce"] and view["gbps"] == 200.0
    assert view["gpudirect_rdma"] is True  # DMA-BUF through the open kernel module
    assert view["interface_problems"] == []


def test_no_rdma_no_open_module_and_an_interface_that_is_down(tmp_path):
    root = fake_root(tmp_path, peermem=False, open_module=False)
    for path in sorted((root / "sys" / "class" / "infiniband").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    net = probe_network({"NCCL_SOCKET_IFNAME": "eth1"}, root)
    view = node_network(Facts(source=Source(kind="live"), node="n0", network=net))
    assert view["transport"] == "tcp" and view["gpudirect_rdma"] is None
    assert view["interface_problems"] == ["NCCL_SOCKET_IFNAME=eth1 selects no interface that is up (up: eth0)"]


def test_a_machine_without_sysfs_gives_empty_facts(tmp_path):
    net = probe_network({}, tmp_path)
    assert net.nics == () and net.rdma == () and net.peermem is None and net.nvidia_open_module is None
