"""Stand-ins for the torch and vLLM imports of vLLM's attention kernel files, so the files run without torch, a GPU
or vLLM: executed by doctor/kernels/exact_worker.py (a job's launch "prelude") before it executes
triton_attention_helpers.py and triton_unified_attention.py as their own modules. Never imported by the doctor: it
needs the Triton of the worker's PYTHONPATH. The @triton.jit functions compiled are the release's own; what is
stood in for here is host-side only, except the values the kernels read at module level (fp8's range, KVQuantMode).
"""

from __future__ import annotations

import enum
import logging
import sys
import types
from typing import Any

import triton
import triton.language as tl


def _module(name: str, **attrs: Any) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


class _Anything:
    """A stand-in attribute for the parts of torch / vLLM the kernels never touch."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> _Anything:
        return self

    def __getattr__(self, name: str) -> _Anything:
        return self


def install() -> None:
    torch = _module("torch", Tensor=_Anything, dtype=_Anything, float8_e4m3fn="float8_e4m3fn",
                    finfo=lambda dtype: types.SimpleNamespace(min=-448.0, max=448.0))
    torch.__getattr__ = lambda name: _Anything()  # type: ignore[method-assign]
    for name in ("vllm", "vllm.attention", "vllm.attention.ops", "vllm.v1", "vllm.v1.attention",
                 "vllm.v1.attention.ops"):
        _module(name, __path__=[])
    _module("vllm.envs", VLLM_BATCH_INVARIANT=False).__getattr__ = lambda name: False  # type: ignore[method-assign]
    _module("vllm.logger", init_logger=logging.getLogger)
    _module("vllm.platforms", current_platform=_Anything())
    _module("vllm.triton_utils", tl=tl, triton=triton)
    kv = enum.IntEnum("KVQuantMode", ["NONE", "FP8_PER_TENSOR", "INT8_PER_TOKEN_HEAD", "FP8_PER_TOKEN_HEAD",
                                      "INT4_PER_TOKEN_HEAD", "NVFP4"], start=0)  # type: ignore[misc]
    _module("vllm.v1.kv_cache_interface", KVQuantMode=kv)


install()
