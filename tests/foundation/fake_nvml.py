"""A stand-in for nvidia-ml-py's `pynvml` that behaves like the real module on a given machine,
including its traps: NotSupported errors, and NVML_P2P_CAPS_INDEX_READ being the tuple (0,)."""

from __future__ import annotations

import ctypes
import types
from dataclasses import dataclass, field


class NVMLError(Exception):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


class NVMLError_NoPermission(NVMLError):
    pass


class NVMLError_FunctionNotFound(NVMLError):
    pass


class NVMLError_LibraryNotFound(NVMLError):
    pass


@dataclass
class FakeGpu:
    name: str
    cc: tuple[int, int]
    bus_id: str
    memory: int | None
    uuid: str
    nvlinks: dict[int, str] = field(default_factory=dict)  # link -> remote bus id
    numa_supported: bool = False
    display_active: int | None = None  # NVML_FEATURE_ENABLED (1) / DISABLED (0); None: not supported
    bar1: int | None = None  # nvmlDeviceGetBAR1MemoryInfo().bar1Total; None: the call is absent (older bindings)


def make_pynvml(gpus: list[FakeGpu], ancestor: dict[tuple[int, int], int], p2p_ok: bool,
                driver: str = "580.95.05", cuda: int = 13000, library_present: bool = True):
    module = types.ModuleType("pynvml")
    module.NVMLError = NVMLError
    module.NVMLError_NotSupported = NVMLError_NotSupported
    module.NVMLError_NoPermission = NVMLError_NoPermission
    module.NVMLError_FunctionNotFound = NVMLError_FunctionNotFound
    module.NVML_P2P_CAPS_INDEX_READ = (0,)  # the trailing-comma bug of nvidia-ml-py 13.615.71

    def init():
        if not library_present:
            raise NVMLError_LibraryNotFound("NVML Shared Library Not Found")

    def handle(i):
        return i

    def mem(i):
        if gpus[i].memory is None:
            raise NVMLError_NotSupported("Not Supported")
        return types.SimpleNamespace(total=gpus[i].memory, free=gpus[i].memory, used=0)

    def pci(i):
        return types.SimpleNamespace(busId=gpus[i].bus_id.encode())

    def numa(i):
        if not gpus[i].numa_supported:
            raise NVMLError_NotSupported("Not Supported")
        return 0

    def nvlink_state(i, link):
        if link not in gpus[i].nvlinks:
            raise NVMLError_NotSupported("Not Supported")
        return 1

    def nvlink_remote(i, link):
        return types.SimpleNamespace(busId=gpus[i].nvlinks[link].encode())

    def common_ancestor(a, b):
        return ancestor[(min(a, b), max(a, b))]

    def p2p_status(a, b, index):
        if not isinstance(index, int):
            raise ctypes.ArgumentError("argument 3: TypeError: Don't know how to convert parameter 3")
        return 0 if p2p_ok else 2

    def display_active(i):
        if gpus[i].display_active is None:
            raise NVMLError_NotSupported("Not Supported")
        return gpus[i].display_active

    def bar1_info(i):
        if gpus[i].bar1 is None:
            raise NVMLError_NotSupported("Not Supported")
        return types.SimpleNamespace(bar1Total=gpus[i].bar1, bar1Free=gpus[i].bar1, bar1Used=0)

    def unsupported(*_args):
        raise NVMLError_NotSupported("Not Supported")

    module.nvmlInit = init
    module.nvmlShutdown = lambda: None
    module.nvmlSystemGetDriverVersion = lambda: driver
    module.nvmlSystemGetCudaDriverVersion_v2 = lambda: cuda
    module.nvmlSystemGetNVMLVersion = lambda: "13." + driver
    module.nvmlDeviceGetCount = lambda: len(gpus)
    module.nvmlDeviceGetHandleByIndex = handle
    module.nvmlDeviceGetName = lambda i: gpus[i].name
    module.nvmlDeviceGetUUID = lambda i: gpus[i].uuid
    module.nvmlDeviceGetCudaComputeCapability = lambda i: gpus[i].cc
    module.nvmlDeviceGetMemoryInfo = mem
    module.nvmlDeviceGetPciInfo = pci
    module.nvmlDeviceGetNumaNodeId = numa
    module.nvmlDeviceGetCurrPcieLinkGeneration = lambda i: 5
    module.nvmlDeviceGetGpuMaxPcieLinkGeneration = lambda i: 5
    module.nvmlDeviceGetCurrPcieLinkWidth = lambda i: 16
    module.nvmlDeviceGetMaxPcieLinkWidth = lambda i: 16
    module.nvmlDeviceGetEccMode = unsupported
    module.nvmlDeviceGetDisplayActive = display_active
    module.nvmlDeviceGetMigMode = unsupported
    module.nvmlDeviceGetNvLinkState = nvlink_state
    module.nvmlDeviceGetNvLinkRemotePciInfo = nvlink_remote
    module.nvmlDeviceGetTopologyCommonAncestor = common_ancestor
    module.nvmlDeviceGetP2PStatus = p2p_status
    if any(g.bar1 is not None for g in gpus):
        module.nvmlDeviceGetBAR1MemoryInfo = bar1_info
    return module
