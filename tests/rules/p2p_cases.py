"""Positive and boundary cases for the consumer-P2P, WSL2 and custom all-reduce rules (P2P001-P2P004, COMM020,
WSL010) and the driver rules of issue 25 (DRV010-). area_cases.py adds them to AREA_CASES."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build

R5090X2, PRO4, R5090, H100 = "rtx-5090-x2", "rtx-pro-6000-ws-x4", "rtx-5090", "h100-sxm-x8"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GIB = 1 << 30
# what aikitoria/open-gpu-kernel-modules#21 loads its 595.58.03-p2p module with
SWITCHES = ("ForceP2P=17", "RMForceP2PType=1", "RMPcieP2PType=1", "PeerMappingOverride=1", "RMForceStaticBar1=1")
P2P_OK = {"p2p_read": True, "p2p_write": True}
P2P_UNKNOWN = {"p2p_read": None, "p2p_write": None}  # a snapshot without NVML's P2P answer
TRANSLATED = {"iommu_mode": "translated", "iommu_source": "/sys/kernel/iommu_groups/*/type: DMA-FQ"}
PASSTHROUGH = {"iommu_mode": "passthrough", "iommu_source": "/sys/kernel/iommu_groups/*/type: identity"}


def rig(profile: str = R5090X2, engines: tuple[str, ...] = ("vllm==0.19.0",), host: dict[str, Any] | None = None,
        gpu: dict[str, Any] | None = None, link: dict[str, Any] | None = None,
        env: dict[str, str] | None = None, capability: str | None = None) -> Callable[[], Facts]:
    def facts() -> Facts:
        built = build(profile, LLAMA if engines else None, engines, env=env)
        if host:
            built = built.replace(host=dataclasses.replace(built.host, **host))
        gpu_facts = {**(gpu or {}), **({"compute_capability": capability} if capability else {})}
        if gpu_facts:
            built = built.replace(gpus=tuple(dataclasses.replace(g, **gpu_facts) for g in built.gpus))
        if link:
            built = built.replace(topology=tuple(dataclasses.replace(k, **link) for k in built.topology))
        return built
    return facts


def forced(**host: Any) -> dict[str, Any]:
    return {"nvidia_registry_dwords": SWITCHES, **host}


TP2 = ("--tensor-parallel-size", "2")
SMALL_BAR1 = {"bar1_total_bytes": 256 << 20}  # a 5090 without Resizable BAR

P2P_CASES = [
    a("P2P001", True, "nvml p2p ok on geforce, translated", rig(host=TRANSLATED, link=P2P_OK), *TP2),
    a("P2P001", True, "registry switches, translated", rig(host=forced(**TRANSLATED), link=P2P_UNKNOWN), *TP2),
    a("P2P001", True, "no engine, translated", rig(engines=(), host=TRANSLATED, link=P2P_OK), *TP2),
    a("P2P001", False, "passthrough", rig(host=PASSTHROUGH, link=P2P_OK), *TP2),
    a("P2P001", False, "stock geforce (nvml says no)", rig(host=TRANSLATED), *TP2),
    a("P2P001", False, "switches on a stock module: nvml says no", rig(host=forced(**TRANSLATED),
                                                                        link={"p2p_read": False}), *TP2),
    a("P2P001", False, "rtx pro (stock p2p: COMM002)", rig(PRO4, host=TRANSLATED), *TP2),
    a("P2P001", False, "tp 1", rig(host=TRANSLATED, link=P2P_OK), "--tensor-parallel-size", "1"),
    a("P2P001", False, "one geforce card", rig(R5090, host=forced(**TRANSLATED)), *TP2),
    a("P2P002", True, "5090 with a 256 MiB BAR1", rig(host=PASSTHROUGH, link=P2P_OK, gpu=SMALL_BAR1)),
    a("P2P002", False, "resizable bar: 32 GiB BAR1", rig(host=PASSTHROUGH, link=P2P_OK,
                                                          gpu={"bar1_total_bytes": 32 * GIB})),
    a("P2P002", False, "small BAR1, stock module", rig(gpu=SMALL_BAR1)),
    a("P2P002", False, "BAR1 unknown", rig(host=PASSTHROUGH, link=P2P_OK)),
    a("P2P002", False, "small BAR1 on hopper", rig(host=PASSTHROUGH, link=P2P_OK, gpu=SMALL_BAR1, capability="9.0")),
    a("P2P003", True, "vllm 0.19 tp2 graphs, nvml ok", rig(host=PASSTHROUGH, link=P2P_OK), *TP2),
    a("P2P003", True, "vllm 0.19 tp2, switches only", rig(host=forced(**PASSTHROUGH), link=P2P_UNKNOWN), *TP2),
    a("P2P003", False, "enforce eager", rig(host=PASSTHROUGH, link=P2P_OK), *TP2, "--enforce-eager"),
    a("P2P003", False, "custom all-reduce off", rig(host=PASSTHROUGH, link=P2P_OK), *TP2,
      "--disable-custom-all-reduce"),
    a("P2P003", False, "stock geforce: custom all-reduce disabled", rig(host=PASSTHROUGH), *TP2),
    a("P2P003", False, "rtx pro tp2", rig(PRO4, host=PASSTHROUGH), *TP2),
    a("P2P003", False, "sglang", rig(engines=("sglang==0.5.10",), host=PASSTHROUGH, link=P2P_OK), "--tp", "2"),
    a("P2P004", True, "display on forced-p2p 5090", rig(host=PASSTHROUGH, link=P2P_OK, gpu={"display_active": True}),
      *TP2),
    a("P2P004", False, "headless", rig(host=PASSTHROUGH, link=P2P_OK, gpu={"display_active": False}), *TP2),
    a("P2P004", False, "display, stock module", rig(host=PASSTHROUGH, gpu={"display_active": True}), *TP2),
    a("P2P004", False, "display, tp 1", rig(host=PASSTHROUGH, link=P2P_OK, gpu={"display_active": True}),
      "--tensor-parallel-size", "1"),
]

EXPANDABLE = {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:512"}
COMM_CASES = [
    a("COMM020", True, "rtx pro tp2 expandable", rig(PRO4, ("vllm==0.22.0",), env=EXPANDABLE), *TP2),
    a("COMM020", True, "0.33.0 still", rig(PRO4, ("vllm==0.33.0",), env=EXPANDABLE), *TP2),
    a("COMM020", True, "forced-p2p 5090 pair", rig(link=P2P_OK, env=EXPANDABLE), *TP2),
    a("COMM020", True, "torch's newer PYTORCH_ALLOC_CONF", rig(PRO4, ("vllm==0.22.0",),
                                                              env={"PYTORCH_ALLOC_CONF": "expandable_segments:True"}),
      *TP2),
    a("COMM020", False, "expandable off", rig(PRO4, ("vllm==0.22.0",),
                                               env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:False"}), *TP2),
    a("COMM020", False, "no alloc conf", rig(PRO4, ("vllm==0.22.0",)), *TP2),
    a("COMM020", False, "custom all-reduce off", rig(PRO4, ("vllm==0.22.0",), env=EXPANDABLE), *TP2,
      "--disable-custom-all-reduce"),
    a("COMM020", False, "tp 4 over pcie: custom all-reduce disabled", rig(PRO4, ("vllm==0.22.0",), env=EXPANDABLE),
      "--tensor-parallel-size", "4"),
    a("COMM020", False, "enforce eager", rig(PRO4, ("vllm==0.22.0",), env=EXPANDABLE), *TP2, "--enforce-eager"),
    a("COMM020", False, "stock 5090 pair", rig(env=EXPANDABLE), *TP2),
    a("COMM020", False, "sglang", rig(PRO4, ("sglang==0.5.10",), env=EXPANDABLE), "--tp", "2"),
]

WSL = {"wsl": True, "kernel": "6.6.87.2-microsoft-standard-WSL2"}
WSL_CASES = [
    a("WSL010", True, "5090 at 0.95 (1.59 GiB left)", rig(R5090, ("vllm==0.20.0",), host=WSL),
      "--gpu-memory-utilization", "0.95"),
    a("WSL010", True, "5090 laptop 24 GB at 0.95", rig(R5090, ("vllm==0.20.0",), host=WSL,
                                                       gpu={"memory_total_bytes": int(23.89 * GIB)}),
      "--gpu-memory-utilization", "0.95"),
    a("WSL010", False, "5090 at 0.94 (1.91 GiB left)", rig(R5090, ("vllm==0.20.0",), host=WSL),
      "--gpu-memory-utilization", "0.94"),
    a("WSL010", False, "default 0.9", rig(R5090, ("vllm==0.20.0",), host=WSL)),
    a("WSL010", False, "native linux at 0.95", rig(R5090, ("vllm==0.20.0",), host={"wsl": False}),
      "--gpu-memory-utilization", "0.95"),
    a("WSL010", False, "sglang under wsl", rig(R5090, ("sglang==0.5.10",), host=WSL), "--mem-fraction-static", "0.95"),
]



def llama(driver: str, profile: str = R5090, env: dict[str, str] | None = None) -> Callable[[], Facts]:
    return lambda: build(profile, None, ("llama.cpp==10355",), driver=driver, env=env)


DRIVER_CASES = [
    a("DRV010", True, "5090 on 610.57.04", llama("610.57.04")),
    a("DRV010", True, "5090 laptop on 610.57.04", llama("610.57.04", "rtx-5090-laptop")),
    a("DRV010", True, "5090 on a later 610 release", llama("610.62.01")),
    a("DRV010", False, "5090 on 610.43.02: before the reported release", llama("610.43.02")),
    a("DRV010", False, "5060 Ti on 610.43.02 (a public working benchmark)", llama("610.43.02", "rtx-5060-ti-16gb")),
    a("DRV010", False, "5060 Ti on 610.57.04: card not reported", llama("610.57.04", "rtx-5060-ti-16gb")),
    a("DRV010", False, "rtx pro on 610.57.04: card not reported", llama("610.57.04", PRO4)),
    a("DRV010", False, "graphs off", llama("610.57.04", env={"GGML_CUDA_DISABLE_GRAPHS": "1"})),
    a("DRV010", False, "595.71.05", llama("595.71.05")),
    a("DRV010", False, "615 branch: not reported", llama("615.20.01")),
    a("DRV010", False, "hopper on 610", llama("610.57.04", H100)),
    a("DRV010", False, "vllm on 610", lambda: build(R5090, None, ("vllm==0.20.0",), driver="610.57.04")),
]

VGPU = {"LD_PRELOAD": "/usr/local/vgpu/libvgpu.so"}
NCCL_CASES = [
    a("NCCL001", True, "LD_PRELOAD libvgpu, tp 4", rig(PRO4, ("vllm==0.24.0",), env=VGPU),
      "--tensor-parallel-size", "4"),
    a("NCCL001", True, "ld.so.preload libvgpu, tp 2", rig(PRO4, ("vllm==0.24.0",),
                                                         host={"ld_so_preload": "/usr/local/vgpu/libvgpu.so"}), *TP2),
    a("NCCL001", False, "passthrough", rig(PRO4, ("vllm==0.24.0",), env={**VGPU, "CUDA_DISABLE_CONTROL": "true"}),
      *TP2),
    a("NCCL001", False, "tp 1", rig(PRO4, ("vllm==0.24.0",), env=VGPU), "--tensor-parallel-size", "1"),
    a("NCCL001", False, "another preload", rig(PRO4, ("vllm==0.24.0",), env={"LD_PRELOAD": "libjemalloc.so.2"}), *TP2),
    a("NCCL001", False, "sglang", rig(PRO4, ("sglang==0.5.10",), env=VGPU), "--tp", "2"),
]

CASES = P2P_CASES + COMM_CASES + WSL_CASES + DRIVER_CASES + NCCL_CASES
