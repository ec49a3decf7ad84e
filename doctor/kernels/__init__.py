"""Shared-memory estimators (closed form) per kernel family, and exact mode (AOT compile of the engine's own
kernel source).

Importing this package never imports torch or triton; only exact mode's worker subprocess does. The four
estimators engines call are memoised on disk (memo.py) and their modules load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .memo import memoised
from .result import SmemResult  # loads the `result` submodule now, so the function below keeps the name

extend_attention_smem = memoised("attention_smem", "extend_attention_smem")
prefill_attention_smem = memoised("attention_smem", "prefill_attention_smem")
decode_attention_smem = memoised("decode_smem", "decode_attention_smem")
fused_moe_smem = memoised("moe_smem", "fused_moe_smem")

_LAZY = {"arch_name": "arch", "parse_arch": "arch", "smem_limit": "arch", "analytic": "estimate",
         "check_moe_config_file": "moe_configs", "generate_safe_moe_config": "moe_configs"}

__all__ = [
    "SmemResult",
    "analytic",
    "arch_name",
    "check_moe_config_file",
    "decode_attention_smem",
    "exact_smem",
    "extend_attention_smem",
    "fused_moe_smem",
    "generate_safe_moe_config",
    "parse_arch",
    "prefill_attention_smem",
    "result",
    "smem_limit",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"doctor.kernels.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'doctor.kernels' has no attribute {name!r}")


def result(kernel: str, cc: Any, nbytes: int, method: str) -> SmemResult:
    """doctor.kernels.estimate.result: a SmemResult against the target's limit."""
    return import_module("doctor.kernels.estimate").result(kernel, cc, nbytes, method)


def exact_smem(kernel_name: str, source_dir, cc, triton_site=None, cache_dir=None, **config) -> int:
    """Exact mode (lazy import so the default path stays free of subprocess/triton machinery)."""
    from .exact import exact_smem as _exact

    return _exact(kernel_name, source_dir, cc, triton_site, cache_dir, **config)
