"""Environment variables that change what an engine does, with secrets redacted."""

from __future__ import annotations

import re
from collections.abc import Mapping

# Every variable a rule or an analyzer reads must be collected here, or a live check never sees it (a fix the
# user applied, such as RAY_memory_monitor_refresh_ms=0, would go unseen): tests/probe/test_env_probe.py.
PREFIXES = ("SGLANG_", "VLLM_", "TRITON_", "FLASHINFER_", "NCCL_", "TORCH_", "CUDA_", "TRTLLM_", "TLLM_", "HF_HUB_",
            "OLLAMA_", "GGML_", "RAY_")
EXACT = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "TORCH_CUDA_ARCH_LIST", "LD_LIBRARY_PATH", "HF_HOME",
         # torch's allocator (expandable segments break vLLM's custom all-reduce: COMM020), interposers such as
         # HAMi's libvgpu.so, llama.cpp's CUDA-graph switch (DRV010)
         "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "LD_PRELOAD", "GGML_CUDA_DISABLE_GRAPHS",
         # the cap on FlashInfer's (and torch cpp_extension's) ninja -j: FI250 / FI251 weigh it
         "MAX_JOBS",
         # build arch lists (doctor/buildargs.py), FLA's TMA switch, the multi-node interface and address settings
         "CMAKE_CUDA_ARCHITECTURES", "CUDAARCHS", "FLA_USE_TMA", "GLOO_SOCKET_IFNAME", "HOST_IP")
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|AUTH|PRIVATE", re.IGNORECASE)
_URL_CREDENTIALS = re.compile(r"(?P<scheme>[a-z][a-z0-9+.-]*://)[^/@\s]+@", re.IGNORECASE)
REDACTED = "<redacted>"


def probe_env(environ: Mapping[str, str]) -> dict[str, str]:
    selected = {}
    for name in sorted(environ):
        if name in EXACT or name.startswith(PREFIXES):
            selected[name] = redact(name, environ[name])
    return selected


def redact(name: str, value: str) -> str:
    if _SECRET_NAME.search(name):
        return REDACTED
    return _URL_CREDENTIALS.sub(lambda m: m.group("scheme") + REDACTED + "@", value)
