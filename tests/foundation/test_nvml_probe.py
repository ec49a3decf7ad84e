import sys

import pytest

from doctor.probe.nvml import probe_nvml
from tests.foundation.fake_nvml import FakeGpu, make_pynvml

PRO = "NVIDIA RTX PRO 6000 Blackwell Server Edition"


def four_pcie_gpus():
    buses = ["00000000:18:00.0", "00000000:19:00.0", "00000000:3B:00.0", "00000000:86:00.0"]
    gpus = [FakeGpu(PRO, (12, 0), b, 97887 << 20, f"GPU-{i:04x}-aaaa") for i, b in enumerate(buses)]
    ancestor = {(0, 1): 10, (0, 2): 40, (0, 3): 50, (1, 2): 40, (1, 3): 50, (2, 3): 50}
    return gpus, ancestor


@pytest.fixture
def install(monkeypatch):
    def _install(module):
        monkeypatch.setitem(sys.modules, "pynvml", module)
    return _install


def test_pcie_box_topology_and_p2p_without_tuple_trap(install, tmp_path):
    gpus, ancestor = four_pcie_gpus()
    install(make_pynvml(gpus, ancestor, p2p_ok=True))
    result = probe_nvml({}, sysfs=tmp_path)
    assert result.driver.present and result.driver.cuda_driver_version == "13.0"
    assert [g.compute_capability for g in result.gpus] == ["12.0"] * 4
    assert all(g.smem_per_block_optin == 101376 for g in result.gpus)
    kinds = {(link.a, link.b): link.kind for link in result.topology}
    assert kinds == {(0, 1): "PIX", (0, 2): "NODE", (0, 3): "SYS", (1, 2): "NODE", (1, 3): "SYS", (2, 3): "SYS"}
    assert all(link.p2p_read is True for link in result.topology)
    assert any("numa_node_id: not supported" in u for u in result.gpus[0].unsupported)
    assert any(u.startswith("ecc_mode") for u in result.gpus[0].unsupported)


def test_numa_from_sysfs_when_nvml_says_unsupported(install, tmp_path):
    gpus, ancestor = four_pcie_gpus()
    install(make_pynvml(gpus, ancestor, p2p_ok=False))
    node = tmp_path / "bus/pci/devices/0000:86:00.0"
    node.mkdir(parents=True)
    (node / "numa_node").write_text("1\n")
    result = probe_nvml({}, sysfs=tmp_path)
    assert result.gpus[3].numa_node == 1
    assert result.gpus[0].numa_node is None
    assert all(link.p2p_read is False for link in result.topology)


def test_nvlink_pairs_are_counted(install, tmp_path):
    a, b = "00000000:18:00.0", "00000000:2A:00.0"
    gpus = [FakeGpu("NVIDIA H100 80GB HBM3", (9, 0), a, 80 << 30, "GPU-a", {i: b for i in range(18)}),
            FakeGpu("NVIDIA H100 80GB HBM3", (9, 0), b, 80 << 30, "GPU-b", {i: a for i in range(18)})]
    install(make_pynvml(gpus, {(0, 1): 50}, p2p_ok=True))
    result = probe_nvml({}, sysfs=tmp_path)
    assert result.topology[0].kind == "NV18"
    assert result.gpus[0].smem_per_block_optin == 232448


def test_unified_memory_soc(install, tmp_path):
    install(make_pynvml([FakeGpu("NVIDIA GB10", (12, 1), "0000000F:01:00.0", None, "GPU-gb10")], {}, True))
    gpu = probe_nvml({}, sysfs=tmp_path).gpus[0]
    assert gpu.unified_memory and gpu.memory_total_bytes is None and gpu.compute_capability == "12.1"


def test_cuda_visible_devices_renumbers(install, tmp_path):
    gpus, ancestor = four_pcie_gpus()
    install(make_pynvml(gpus, ancestor, p2p_ok=True))
    result = probe_nvml({"CUDA_VISIBLE_DEVICES": "2,0"}, sysfs=tmp_path)
    assert [g.cuda_index for g in result.gpus] == [1, None, 0, None]
    assert any("CUDA sees 2 of 4" in n for n in result.notes)


def test_mixed_gpus_fastest_first_leaves_cuda_index_unknown(install, tmp_path):
    gpus, ancestor = four_pcie_gpus()
    gpus[3].name = "NVIDIA GeForce RTX 5090"
    install(make_pynvml(gpus, ancestor, p2p_ok=True))
    result = probe_nvml({}, sysfs=tmp_path)
    assert all(g.cuda_index is None for g in result.gpus)
    result = probe_nvml({"CUDA_DEVICE_ORDER": "PCI_BUS_ID"}, sysfs=tmp_path)
    assert [g.cuda_index for g in result.gpus] == [0, 1, 2, 3]


def test_no_driver_is_a_fact_not_a_crash(install, tmp_path):
    install(make_pynvml([], {}, True, library_present=False))
    result = probe_nvml({}, sysfs=tmp_path)
    assert not result.driver.present
    assert "Library Not Found" in result.driver.error


def test_nvswitch_fabric_counts_as_nvlink(install, tmp_path):
    """HGX boxes: every NVLink ends at an NVSwitch, never at the peer GPU (seen on a real 2x H200:
    nvidia-smi prints NV18 while the common ancestor is PHB)."""
    switches = [f"00000000:{0x80 + i:02X}:00.0" for i in range(18)]
    gpus = [FakeGpu("NVIDIA H200", (9, 0), "00000000:00:06.0", 141 << 30, "GPU-a", dict(enumerate(switches))),
            FakeGpu("NVIDIA H200", (9, 0), "00000000:00:07.0", 141 << 30, "GPU-b", dict(enumerate(switches)))]
    install(make_pynvml(gpus, {(0, 1): 30}, p2p_ok=True))
    link = probe_nvml({}, sysfs=tmp_path).topology[0]
    assert link.kind == "NV18" and link.p2p_nvlink is True


def test_display_active_is_read_per_gpu(install, tmp_path):
    gpus, ancestor = four_pcie_gpus()
    gpus[0].display_active, gpus[1].display_active = 1, 0  # GPU 0 drives the desktop; 2 and 3 cannot say
    install(make_pynvml(gpus, ancestor, p2p_ok=True))
    result = probe_nvml({}, sysfs=tmp_path)
    assert [g.display_active for g in result.gpus] == [True, False, None, None]
    assert any(u.startswith("display_active") for u in result.gpus[2].unsupported)


def test_bar1_aperture_is_read_per_gpu(install, tmp_path):
    """A 5090 comes up with a 256 MiB BAR1 unless Resizable BAR is on (then 32 GiB covers its framebuffer):
    the patched P2P modules map the whole framebuffer through BAR1."""
    gpus, ancestor = four_pcie_gpus()
    gpus[0].bar1, gpus[1].bar1 = 256 << 20, 32 << 30
    install(make_pynvml(gpus, ancestor, p2p_ok=True))
    result = probe_nvml({}, sysfs=tmp_path)
    assert [g.bar1_total_bytes for g in result.gpus][:2] == [256 << 20, 32 << 30]


def test_bar1_unknown_when_the_bindings_lack_it(install, tmp_path):
    gpus, ancestor = four_pcie_gpus()
    install(make_pynvml(gpus, ancestor, p2p_ok=True))
    result = probe_nvml({}, sysfs=tmp_path)
    assert all(g.bar1_total_bytes is None for g in result.gpus)
    assert not any(u.startswith("bar1") for u in result.gpus[0].unsupported)
