"""The emulated GPU, as torch sees it: one device of the capability in ORACLE_DEVICE (JSON), every CUDA
allocation sent to `meta`. Runs inside the engine's own environment; imports nothing of the doctor."""

from __future__ import annotations

import json
import os
from typing import Any

import torch
from torch.overrides import TorchFunctionMode

DEVICE: dict[str, Any] = json.loads(os.environ["ORACLE_DEVICE"])
CAPABILITY: tuple[int, int] = tuple(DEVICE["capability"])  # type: ignore[assignment]


class Properties:
    """What `torch.cuda.get_device_properties` answers: the fields engines read during selection."""

    def __init__(self) -> None:
        self.name = DEVICE["name"]
        self.major, self.minor = CAPABILITY
        self.total_memory = DEVICE["memory_bytes"]
        self.multi_processor_count = DEVICE["sms"]
        self.is_integrated = DEVICE.get("integrated", False)
        self.shared_memory_per_block_optin = DEVICE["smem_per_block_optin"]
        self.shared_memory_per_multiprocessor = DEVICE["smem_per_sm"]
        self.L2_cache_size = DEVICE["l2_bytes"]
        self.warp_size = 32
        self.gcnArchName = ""
        self.uuid = "GPU-00000000-0000-0000-0000-000000000000"


class _NoStream:
    """Streams and events: selection creates them (shared-expert streams) but never waits on them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.device = torch.device("meta")

    def __enter__(self) -> _NoStream:
        return self

    def __exit__(self, *exc: Any) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


# A tensor-parallel query runs one process per rank (ORACLE_TP of them): the machine has that many such devices.
DEVICES_SEEN = int(os.environ.get("ORACLE_TP", "1"))


def fake_torch_cuda() -> None:
    cuda = torch.cuda
    memory = DEVICE["memory_bytes"]
    cuda.is_available = lambda: True
    cuda.device_count = lambda: DEVICES_SEEN
    cuda._device_count_nvml = lambda: DEVICES_SEEN
    cuda.current_device = lambda: 0
    cuda.set_device = lambda device: None
    cuda.get_device_capability = lambda device=None: CAPABILITY
    cuda.get_device_name = lambda device=None: DEVICE["name"]
    cuda.get_device_properties = lambda device=None: Properties()
    cuda.mem_get_info = lambda device=None: (memory, memory)
    cuda.Stream = _NoStream
    cuda.Event = _NoStream
    cuda.current_stream = lambda device=None: _NoStream()
    cuda.stream = lambda stream=None: _NoStream()
    cuda.synchronize = lambda device=None: None
    cuda.empty_cache = lambda: None
    torch._C._cuda_getDeviceCount = lambda: DEVICES_SEEN


def _to_meta(value: Any) -> Any:
    """A CUDA device in any spelling: "cuda", "cuda:0", torch.device("cuda", 0), or a bare index
    (`torch.cuda.current_device()` passed as `device=`)."""
    if isinstance(value, (str, torch.device)) and str(value).startswith("cuda"):
        return torch.device("meta")
    if isinstance(value, int) and not isinstance(value, bool):
        return torch.device("meta")
    return value


class CudaToMeta(TorchFunctionMode):
    """`device="cuda"`, `.to("cuda")` and `.cuda()` land on `meta`: workspaces engines allocate while they
    select (FlashInfer buffers) are built without a GPU."""

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = dict(kwargs or {})
        if "device" in kwargs:
            kwargs["device"] = _to_meta(kwargs["device"])
        if func is torch.Tensor.cuda:
            return args[0].to("meta")
        if func is torch.Tensor.to:
            args = tuple(_to_meta(a) for a in args)
        return func(*args, **kwargs)
