"""WSL2 and the NVIDIA kernel module, read from /proc the way a real host shows them."""

from __future__ import annotations

from pathlib import Path

from doctor.probe.host import is_wsl, nvidia_module, probe_host

WSL_VERSION = ("Linux version 6.6.87.2-microsoft-standard-WSL2 (root@439a258ad544) (gcc (GCC) 11.2.0, GNU ld "
               "(GNU Binutils) 2.37) #1 SMP PREEMPT_DYNAMIC Thu Jun  5 18:30:46 UTC 2025\n")
NATIVE_VERSION = ("Linux version 6.8.0-64-generic (buildd@lcy02-amd64-045) (x86_64-linux-gnu-gcc-13 (Ubuntu "
                  "13.3.0-6ubuntu2~24.04) 13.3.0) #67-Ubuntu SMP PREEMPT_DYNAMIC Sun Jun 15 20:23:31 UTC 2025\n")
OPEN_NVIDIA = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  "
               "(dvs-builder@U16-I3-B03-4-3)  Sun Jul 27 06:54:38 UTC 2025\nGCC version:  gcc version 13.3.0\n")
PROPRIETARY = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar 14 18:46:43 UTC 2025\n")
LOCAL_BUILD = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.148.08  Release Build  "
               "(root@rig)  Tue Jun 10 09:12:01 PM UTC 2025\n")


def proc(tmp_path: Path, version: str | None = None, nvidia: str | None = None) -> Path:
    (tmp_path / "proc/driver/nvidia").mkdir(parents=True)
    if version is not None:
        (tmp_path / "proc/version").write_text(version)
    if nvidia is not None:
        (tmp_path / "proc/driver/nvidia/version").write_text(nvidia)
    return tmp_path


def test_wsl2_kernel_is_recognised(tmp_path):
    assert is_wsl(proc(tmp_path, WSL_VERSION)) is True
    assert is_wsl(tmp_path / "nowhere", "5.15.167.4-microsoft-standard-WSL2") is True


def test_native_kernel_is_not_wsl(tmp_path):
    assert is_wsl(proc(tmp_path, NATIVE_VERSION)) is False


def test_nothing_readable_is_unknown(tmp_path):
    assert is_wsl(tmp_path) is None
    assert nvidia_module(tmp_path) == {"nvidia_module": None, "nvidia_module_build": None}


def test_nvidia_module_flavour_and_build(tmp_path):
    assert nvidia_module(proc(tmp_path / "a", nvidia=OPEN_NVIDIA)) == {"nvidia_module": "open",
                                                                       "nvidia_module_build": "nvidia"}
    assert nvidia_module(proc(tmp_path / "b", nvidia=PROPRIETARY)) == {"nvidia_module": "proprietary",
                                                                       "nvidia_module_build": None}
    assert nvidia_module(proc(tmp_path / "c", nvidia=LOCAL_BUILD))["nvidia_module_build"] == "local"


def test_probe_host_fills_the_new_fields(tmp_path):
    host = probe_host(proc(tmp_path, NATIVE_VERSION, OPEN_NVIDIA))
    assert host.nvidia_module == "open" and host.nvidia_module_build == "nvidia"
    assert host.wsl in (True, False)  # the release string of the machine running the test joins /proc/version


def test_memory_available_is_read_beside_the_total(tmp_path):
    root = proc(tmp_path, NATIVE_VERSION)
    (root / "proc/meminfo").write_text("MemTotal:       127605908 kB\nMemFree:         3018432 kB\n"
                                       "MemAvailable:   71219284 kB\nBuffers:            5504 kB\n")
    host = probe_host(root)
    assert host.memory_bytes == 127605908 * 1024 and host.memory_available_bytes == 71219284 * 1024


def test_unified_memory_view_only_on_unified_gpus():
    import dataclasses

    from doctor.hardware import load_profile
    from doctor.unified_memory import GB10_POOL_BYTES, uma_view

    spark = load_profile("dgx-spark")
    assert uma_view(load_profile("rtx-5090"), "vllm", {}) is None
    view = uma_view(spark, "vllm", {"gpu_memory_utilization": 0.5})
    assert view["requested_bytes"] == int(0.5 * GB10_POOL_BYTES) and view["short"] is None  # availability unknown
    tight = spark.replace(host=dataclasses.replace(spark.host, memory_available_bytes=50 << 30))
    assert uma_view(tight, "vllm", {})["short"] is True  # vLLM's default 0.9 x 121.69 GiB > 50 GiB
    assert "requested_bytes" not in uma_view(tight, "sglang", {})


def test_a_unified_gpu_without_nvml_memory_takes_the_hosts():
    from doctor.pipeline.facts import Gpu
    from doctor.pipeline.gather import unified_pool

    gb10 = Gpu(index=0, name="NVIDIA GB10", compute_capability="12.1", unified_memory=True)
    discrete = Gpu(index=1, name="RTX 5090", compute_capability="12.0", memory_total_bytes=32 << 30)
    filled = unified_pool((gb10, discrete), 128_000_000_000)
    assert filled[0].memory_total_bytes == 128_000_000_000 and filled[1].memory_total_bytes == 32 << 30
    assert unified_pool((gb10,), None)[0].memory_total_bytes is None


# /proc/driver/nvidia/params as the open modules print it (one `Name: value` per line; strings quoted), with
# the switches aikitoria/open-gpu-kernel-modules#21 ran its 595.58.03-p2p module with
PARAMS_P2P = ('ResmanDebugLevel: 4294967295\nRmLogonRC: 1\nEnableGpuFirmware: 18\nDmaRemapPeerMmio: 1\n'
              'RegistryDwords: "ForceP2P=17;RMForceP2PType=1;RMPcieP2PType=1;PeerMappingOverride=1;'
              'RMForceStaticBar1=1"\nRegistryDwordsPerDevice: ""\nRmMsg: ""\n')
PARAMS_STOCK = 'ResmanDebugLevel: 4294967295\nRegistryDwords: ""\nRegistryDwordsPerDevice: ""\n'


def test_registry_dwords_from_proc_params(tmp_path):
    from doctor.probe.host import nvidia_registry_dwords

    root = proc(tmp_path / "p2p")
    (root / "proc/driver/nvidia/params").write_text(PARAMS_P2P)
    assert nvidia_registry_dwords(root) == ("ForceP2P=17", "RMForceP2PType=1", "RMPcieP2PType=1",
                                            "PeerMappingOverride=1", "RMForceStaticBar1=1")
    stock = proc(tmp_path / "stock")
    (stock / "proc/driver/nvidia/params").write_text(PARAMS_STOCK)
    assert nvidia_registry_dwords(stock) == ()
    assert nvidia_registry_dwords(tmp_path / "nowhere") == ()


def test_registry_dwords_from_sysfs_when_proc_says_nothing(tmp_path):
    from doctor.probe.host import nvidia_registry_dwords

    params = tmp_path / "sys/module/nvidia/parameters"
    params.mkdir(parents=True)
    (params / "NVreg_RegistryDwords").write_text("RMForceP2PType=1\n")
    assert nvidia_registry_dwords(tmp_path) == ("RMForceP2PType=1",)
    (params / "NVreg_RegistryDwords").write_text("(null)\n")
    assert nvidia_registry_dwords(tmp_path) == ()


def test_ld_so_preload_lists_the_interposers(tmp_path):
    from doctor.probe.host import ld_so_preload

    (tmp_path / "etc").mkdir()
    assert ld_so_preload(tmp_path) is None
    (tmp_path / "etc/ld.so.preload").write_text("# HAMi\n/usr/local/vgpu/libvgpu.so\n")
    assert ld_so_preload(tmp_path) == "/usr/local/vgpu/libvgpu.so"
