"""Compile vLLM's Triton unified attention (TRITON_ATTN) ahead of time and print `metadata.shared` per job.

Run as a script with PYTHONPATH at a private Triton site (never imported by the tests themselves):
    python unified_attention_compile_worker.py OPS_DIR '[{"cc": 120, "kernel": "2d", "head_size": 64, ...}]' [--dump]
(JOBS as `-`: the JSON list is read from stdin.)
OPS_DIR holds the release's own triton_unified_attention.py (and triton_attention_helpers.py from 0.20). The files
are executed with stand-ins for their torch and vLLM imports (no GPU, torch or vLLM needed); the @triton.jit
functions are vLLM's own. Arguments are what `unified_attention` passes (vllm/v1/attention/ops/
triton_unified_attention.py, `kernel_unified_attention[grid](...)`), specialised as Triton's runtime binder does:
pointers 16-byte aligned, ints divisible by 16 marked so, `tl.int64`/`tl.int32` annotations kept, unused optional
tensors passed as None. With --dump each result also lists the buffers Triton's allocator placed.
"""

from __future__ import annotations

import enum
import json
import logging
import sys
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "doctor" / "kernels"))
import exact_worker
import triton
import triton.language as tl

_SEQS, _MAX_BLOCKS = 5, 2048  # sequences, block-table width: generic values (not 1, not a power of two for 5)


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


def _stubs() -> None:
    torch = _module("torch", Tensor=_Anything, dtype=_Anything, float8_e4m3fn="float8_e4m3fn",
                    finfo=lambda dtype: types.SimpleNamespace(min=-448.0, max=448.0))
    torch.__getattr__ = lambda name: _Anything()  # type: ignore[method-assign]
    for name in ("vllm", "vllm.attention", "vllm.attention.ops", "vllm.v1", "vllm.v1.attention",
                 "vllm.v1.attention.ops"):
        _module(name, __path__=[])
    _module("vllm.envs", VLLM_BATCH_INVARIANT=False).__getattr__ = lambda name: False
    _module("vllm.logger", init_logger=logging.getLogger)
    platform = _Anything()
    _module("vllm.platforms", current_platform=platform)
    _module("vllm.triton_utils", tl=tl, triton=triton)
    kv = enum.IntEnum("KVQuantMode", ["NONE", "FP8_PER_TENSOR", "INT8_PER_TOKEN_HEAD", "FP8_PER_TOKEN_HEAD",
                                      "INT4_PER_TOKEN_HEAD", "NVFP4"], start=0)
    _module("vllm.v1.kv_cache_interface", KVQuantMode=kv)


def load(folder: Path) -> types.ModuleType:
    _stubs()
    package = "vllm.v1.attention.ops" if "v1" in folder.parts else "vllm.attention.ops"
    for stem in ("triton_attention_helpers", "triton_unified_attention"):
        path = folder / f"{stem}.py"
        if not path.exists():
            continue
        module = _module(f"{package}.{stem}", __file__=str(path))
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return sys.modules[f"{package}.triton_unified_attention"]


def _ptr(dtype: str) -> dict[str, str]:
    return {"ptr": dtype}


def attention_args(job: dict[str, Any]) -> dict[str, Any]:
    """The arguments `unified_attention` passes the attention kernel (every release's names)."""
    hs, qpk, kv_heads = job["head_size"], job["q_per_kv"], job.get("kv_heads", 8)
    heads, block = qpk * kv_heads, job.get("block_size", 16)
    kv = "fp8e4nv" if job["kv"] == "fp8" else "bf16"
    is_3d = job["kernel"] == "3d"
    window = job.get("window", 0)
    cache = (block * kv_heads * 2 * hs, kv_heads * 2 * hs, 2 * hs)  # (B, N, H, 2*hs) split into K and V
    args: dict[str, Any] = {
        "output_ptr": _ptr("bf16"), "query_ptr": _ptr("bf16"), "key_cache_ptr": _ptr(kv),
        "value_cache_ptr": _ptr(kv), "sink_ptr": _ptr("fp32") if job.get("sinks") else None,
        "block_tables_ptr": _ptr("i32"), "seq_lens_ptr": _ptr("i32"), "alibi_slopes_ptr": None,
        "qq_bias_ptr": None, "mm_prefix_range_ptr": None, "per_seq_causal_ptr": None,
        "rswa_prefix_lens_ptr": _ptr("i32"), "k_scale_cache_ptr": None, "v_scale_cache_ptr": None,
        "segm_output_ptr": _ptr("fp32") if is_3d else None, "segm_max_ptr": _ptr("fp32") if is_3d else None,
        "segm_expsum_ptr": _ptr("fp32") if is_3d else None, "query_start_len_ptr": _ptr("i32"),
        "scale": hs ** -0.5, "q_scale": None, "k_scale": _ptr("fp32"), "v_scale": _ptr("fp32"), "out_scale": 1.0,
        "softcap": 30.0 if job.get("softcap") else 0.0,
        "num_query_heads": heads, "num_queries_per_kv": qpk, "block_table_stride": _MAX_BLOCKS,
        "query_stride_0": heads * hs, "query_stride_1": hs, "output_stride_0": heads * hs, "output_stride_1": hs,
        "qq_bias_stride_0": 0, "BLOCK_SIZE": block, "TILE_SIZE": job["tile"], "HEAD_SIZE": hs,
        "HEAD_SIZE_PADDED": triton.next_power_of_2(hs), "USE_ALIBI_SLOPES": False, "USE_ALIBI_SQRT": False,
        "USE_QQ_BIAS": False, "USE_SOFTCAP": bool(job.get("softcap")), "USE_SINKS": bool(job.get("sinks")),
        "SLIDING_WINDOW": window, "USE_CAUSAL": True, "USE_PER_SEQ_CAUSAL": False, "USE_MM_PREFIX": False,
        "MAX_MM_RANGES": 0, "R_SWA_WINDOW": 0, "USE_R_SWA": False,
        "stride_k_cache_0": cache[0], "stride_k_cache_1": cache[1], "stride_k_cache_2": cache[2],
        "stride_k_cache_3": 1, "stride_v_cache_0": cache[0], "stride_v_cache_1": cache[1],
        "stride_v_cache_2": cache[2], "stride_v_cache_3": 1,
        "BLOCK_Q": job["block_m"] // qpk, "num_seqs": _SEQS, "BLOCK_M": job["block_m"],
        "NUM_SEGMENTS_PER_SEQ": job.get("segments", 16) if is_3d else 1, "USE_FP8": False, "IS_3D": is_3d,
        "KV_QUANT_MODE": 1 if job["kv"] == "fp8" else 0, "CHUNK_LOOKBACK": -1, "CHUNK_SIZE": -1,
        "USE_TD": False, "USE_TD_QO": False, "Q_IS_FP8": False, "MM_PREFIX_CLAMP_SW": False,
    }
    return args


def reduce_args(job: dict[str, Any]) -> dict[str, Any]:
    hs, heads = job["head_size"], job["q_per_kv"] * job.get("kv_heads", 8)
    return {"output_ptr": _ptr("bf16"), "segm_output_ptr": _ptr("fp32"), "segm_max_ptr": _ptr("fp32"),
            "segm_expsum_ptr": _ptr("fp32"), "seq_lens_ptr": _ptr("i32"), "num_seqs": _SEQS,
            "num_query_heads": heads, "out_scale_inv": 1.0, "output_stride_0": heads * hs, "output_stride_1": hs,
            "block_table_stride": _MAX_BLOCKS, "BLOCK_SIZE": job.get("block_size", 16), "TILE_SIZE": job["tile"],
            "HEAD_SIZE": hs, "HEAD_SIZE_PADDED": triton.next_power_of_2(hs), "query_start_len_ptr": _ptr("i32"),
            "BLOCK_Q": job["block_m"] // job["q_per_kv"], "NUM_SEGMENTS_PER_SEQ": job.get("segments", 16),
            "USE_FP8": False}


def kernel_for(module: types.ModuleType, job: dict[str, Any]) -> Any:
    if job["kernel"] == "reduce":
        return module.reduce_segments
    unified = getattr(module, "kernel_unified_attention", None)
    return unified or getattr(module, f"kernel_unified_attention_{job['kernel']}")


def specialise(fn: Any, args: dict[str, Any]) -> tuple[dict, dict, dict]:
    """exact_worker.specialise, then the parameters annotated `tl.int64` / `tl.int32` typed as declared (the
    binder keeps the annotation's type and the value's divisibility)."""
    signature, constexprs, attrs = exact_worker.specialise(fn, args)
    for param in fn.params:
        declared = getattr(param, "annotation", "")
        if declared in ("i64", "i32") and signature.get(param.name) not in (None, "constexpr"):
            signature[param.name] = declared
    return signature, constexprs, attrs


def compile_job(module: types.ModuleType, job: dict[str, Any]) -> int:
    fn = kernel_for(module, job)
    args = reduce_args(job) if job["kernel"] == "reduce" else attention_args(job)
    for name in ("stride_ks_blk", "stride_ks_slot", "stride_ks_head", "stride_vs_blk", "stride_vs_slot",
                 "stride_vs_head"):
        # without per-token-head scales: 0 while declared `tl.int64` (0.20 .. 0.24), None from 0.25 (`int | None`)
        args[name] = 0 if any(p.name == name and p.annotation == "i64" for p in fn.params) else None
    signature, constexprs, attrs = specialise(fn, args)
    source = exact_worker.ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs)
    options = {"num_warps": job.get("num_warps", 4), "num_stages": job.get("num_stages", 3)}
    try:
        kernel = triton.compile(source, target=exact_worker.GPUTarget("cuda", job["cc"], 32), options=options)
    except exact_worker._SharedKnown as known:
        return known.shared
    return int(kernel.metadata.shared)


def main() -> int:
    module = load(Path(sys.argv[1]))
    dump = "--dump" in sys.argv
    if dump:
        exact_worker.stop_after_allocation()
    else:
        exact_worker.stop_after_llir()
    jobs = json.loads(sys.stdin.read() if sys.argv[2] == "-" else sys.argv[2])
    for job in jobs:
        result: dict[str, Any] = {"job": job}
        try:
            result["shared"] = compile_job(module, job)
        except exact_worker._Allocated as done:
            result.update(shared=done.shared, buffers=exact_worker.exact_dump.buffers(done.text),
                          layouts=exact_worker.exact_dump.layouts(done.text))
        except Exception as exc:  # one bad job must not stop a batch
            result["error"] = f"{type(exc).__name__}: {str(exc)[-400:]}"
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
