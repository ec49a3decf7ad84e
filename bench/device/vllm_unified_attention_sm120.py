"""vLLM's Triton unified attention (TRITON_ATTN): launch it for real, then compile the kernels that ran for SM12x.

    python bench/device/vllm_unified_attention_sm120.py DIR OUT.json

DIR holds vLLM's own vllm/v1/attention/ops/triton_unified_attention.py and triton_attention_helpers.py (from the
wheel, never committed). They are executed with stand-ins for their other vLLM imports (a CUDA platform, the
default environment), `unified_attention` is called with paged bf16/fp8 caches for the head shapes of common
models, and every kernel the JIT compiled is compiled again ahead of time for sm_120 and sm_121 from the same
`ASTSource` (same specialisation, warps and stages): `metadata.shared` there against SM12x's 101,376 B."""

from __future__ import annotations

import enum
import json
import logging
import sys
import types
from pathlib import Path

import torch
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

SM12X_LIMIT = 101376
# (name, query heads, kv heads, head size, sliding window or 0)
SHAPES = [("gpt-oss", 64, 8, 64, 0), ("llama-3.1-8b", 32, 8, 128, 0), ("qwen3-32b", 64, 8, 128, 0),
          ("gemma-3 local", 16, 8, 256, 1024), ("gemma-3 global", 16, 8, 256, 0), ("head 512", 32, 4, 512, 0)]


class _Platform:
    def __init__(self) -> None:
        self.major = torch.cuda.get_device_capability()[0]

    def is_device_capability_family(self, family: int) -> bool:
        return self.major == family // 10

    def fp8_dtype(self) -> torch.dtype:
        return torch.float8_e4m3fn

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: False  # is_rocm, is_xpu, ...: not this platform


def _module(name: str, **attrs) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def load(folder: Path) -> types.ModuleType:
    for name in ("vllm", "vllm.v1", "vllm.v1.attention", "vllm.v1.attention.ops"):
        _module(name, __path__=[])
    _module("vllm.envs", VLLM_BATCH_INVARIANT=False)
    _module("vllm.logger", init_logger=logging.getLogger)
    _module("vllm.platforms", current_platform=_Platform())
    _module("vllm.triton_utils", tl=tl, triton=triton)
    kv = enum.IntEnum("KVQuantMode", ["NONE", "FP8_PER_TENSOR", "INT8_PER_TOKEN_HEAD", "FP8_PER_TOKEN_HEAD",
                                      "INT4_PER_TOKEN_HEAD", "NVFP4"], start=0)
    _module("vllm.v1.kv_cache_interface", KVQuantMode=kv)
    for stem in ("triton_attention_helpers", "triton_unified_attention"):
        module = _module(f"vllm.v1.attention.ops.{stem}")
        path = folder / f"{stem}.py"
        module.__file__ = str(path)
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return sys.modules["vllm.v1.attention.ops.triton_unified_attention"]


def jit_functions(module: types.ModuleType) -> list:
    return [v for v in vars(module).values() if isinstance(v, triton.runtime.JITFunction)]


def run_one(module, heads: int, kv_heads: int, size: int, window: int, kv_dtype: torch.dtype, q_len: int) -> None:
    dev, seqs, block, ctx = torch.device("cuda"), 2, 16, 512
    blocks_per_seq = ctx // block
    q = torch.randn(seqs * q_len, heads, size, device=dev, dtype=torch.bfloat16)
    cache = torch.randn(seqs * blocks_per_seq, block, kv_heads, size, device=dev).to(kv_dtype)
    out = torch.empty_like(q)
    cu = torch.arange(0, (seqs + 1) * q_len, q_len, device=dev, dtype=torch.int32)
    used = torch.full((seqs,), ctx, device=dev, dtype=torch.int32)
    table = torch.arange(seqs * blocks_per_seq, device=dev, dtype=torch.int32).view(seqs, blocks_per_seq)
    scale = torch.ones(1, device=dev, dtype=torch.float32) if kv_dtype != torch.bfloat16 else None
    module.unified_attention(q, cache, cache, out, cu, q_len, used, ctx, size ** -0.5, True,
                             (window - 1, 0) if window else (-1, -1), table, 0.0, scale, scale, scale)
    torch.cuda.synchronize()


def main() -> int:
    module = load(Path(sys.argv[1]))
    rows = []
    for name, heads, kv_heads, size, window in SHAPES:
        for kv_name, kv_dtype in (("bf16", torch.bfloat16), ("fp8", torch.float8_e4m3fn)):
            for fn in jit_functions(module):
                fn.device_caches.clear()
            for q_len in (32, 1):
                try:
                    run_one(module, heads, kv_heads, size, window, kv_dtype, q_len)
                except Exception as exc:
                    rows.append({"model": name, "kv": kv_name, "q_len": q_len, "error": str(exc)[-300:]})
            for fn in jit_functions(module):
                for caches in fn.device_caches.values():
                    for kernel in caches[0].values():
                        row = {"model": name, "heads": heads, "kv_heads": kv_heads, "head_size": size,
                               "window": window, "kv": kv_name, "kernel": kernel.name,
                               "num_warps": kernel.metadata.num_warps, "num_stages": kernel.metadata.num_stages,
                               "launched_shared": kernel.metadata.shared}
                        options = {"num_warps": kernel.metadata.num_warps, "num_stages": kernel.metadata.num_stages}
                        for cc in (120, 121):
                            try:
                                aot = triton.compile(kernel.src, target=GPUTarget("cuda", cc, 32), options=options)
                                row[f"sm{cc}_shared"] = aot.metadata.shared
                            except Exception as exc:
                                row[f"sm{cc}_shared"] = f"error: {str(exc)[-200:]}"
                        rows.append(row)
    result = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "triton": triton.__version__,
              "limit_sm12x": SM12X_LIMIT, "rows": rows}
    Path(sys.argv[2]).write_text(json.dumps(result, indent=1))
    for row in rows:
        print(json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
