"""Launch-faithful argument sets for vLLM's Triton kernels, in doctor.kernels.exact_launch's value vocabulary (pure
Python: no triton, torch or vLLM import). Each builder reads the kernel's own parameter list from the release's file
(`kernel_params`) where the names changed across releases.

- `fused_moe_kernel` (vllm/model_executor/layers/fused_moe/fused_moe.py): the up GEMM as `invoke_fused_moe_kernel`
  passes it, specialised as the compile the closed form was checked against: pointers 16-byte aligned, N, K, EM and
  every stride that is not a unit stride divisible by 16, the unit strides the constant 1, every flag not named
  here False.
- TRITON_MLA's `_fwd_grouped_kernel_stage1` (triton_decode_attention.py): the grouped decode launch of
  doctor.kernels.exact_launch with vLLM's own names added (page size 16, the k/v scales as fp32 pointers).
- TRITON_ATTN's unified attention and `reduce_segments` (triton_unified_attention.py): what `unified_attention`
  passes `kernel_unified_attention[grid](...)`, unused optional tensors as None, parameters annotated `tl.int64` /
  `tl.int32` typed as declared.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path
from typing import Any

from doctor.kernels import exact_launch
from doctor.kernels.exact_launch import next_pow2

_SEQS, _MAX_BLOCKS = 5, 2048  # sequences, block-table width: generic values (not 1, not a power of two for 5)
_UNIT_STRIDES = {"stride_ak", "stride_bk", "stride_cn", "stride_ask", "stride_bsk"}
_SCALE_POINTERS = {"a_scale_ptr", "b_scale_ptr", "topk_weights_ptr"}
_INDEX_POINTERS = {"sorted_token_ids_ptr", "expert_ids_ptr", "num_tokens_post_padded_ptr"}
_DIVISIBLE, _NOT_DIVISIBLE = 4096, 4104  # an int the binder marks divisible by 16, one it does not


@cache
def kernel_params(source: str, name: str) -> tuple[tuple[str, str], ...]:
    """(parameter, annotation as written) of the function `name` defined at the top of `source`."""
    tree = ast.parse(Path(source).read_text(encoding="utf-8"))
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None)
    if fn is None:
        raise ValueError(f"{Path(source).name} defines no {name}")
    return tuple((a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in fn.args.args)


def defines(source: str, name: str) -> bool:
    try:
        kernel_params(source, name)
    except ValueError:
        return False
    return True


def _ptr(dtype: str) -> dict[str, str]:
    return {"ptr": dtype}


# --- fused MoE -------------------------------------------------------------------------------------------------------
def moe_args(source: str, shape: dict[str, Any], config: dict[str, int]) -> dict[str, Any]:
    fp8 = shape["dtype"] == "fp8_w8a8"
    block = shape.get("block_shape") or [0, 0]
    known = {"group_n": block[0], "group_k": block[1], "SPLIT_K": 1, "top_k": shape.get("top_k") or 8,
             "compute_type": {"tl": "bf16"}, "use_fp8_w8a8": fp8, "per_channel_quant": bool(shape.get("per_channel")),
             **{k: config[k] for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M")}}
    args: dict[str, Any] = {}
    for name, annotation in kernel_params(source, "fused_moe_kernel"):
        if name in _UNIT_STRIDES:
            args[name] = 1
        elif annotation == "tl.constexpr":
            args[name] = known.get(name, False)
        elif name.endswith("_ptr"):
            args[name] = _ptr(_moe_pointer(name, fp8))
        else:
            args[name] = _DIVISIBLE if name in ("N", "K", "EM") or name.startswith("stride_") else _NOT_DIVISIBLE
    return args


def _moe_pointer(name: str, fp8: bool) -> str:
    if name in _SCALE_POINTERS:
        return "fp32"
    if name in _INDEX_POINTERS:
        return "i32"
    return "fp8e4nv" if fp8 and name in ("a_ptr", "b_ptr") else "bf16"


# --- TRITON_MLA decode -----------------------------------------------------------------------------------------------
def mla_decode_args(cc: int, shape: dict[str, Any], config: dict[str, int]) -> tuple[str, dict[str, Any],
                                                                                     dict[str, int]]:
    lk, lv = shape["lk"], shape["lv"]
    name, args, options = exact_launch.decode_args(cc, lk, lv, config["block_n"], config["block_h"],
                                                   config["num_warps"], config["num_stages"], shape["kv_dtype"],
                                                   grouped=True)
    args.update({"Req_to_tokens": _ptr("i32"), "B_Seqlen": _ptr("i32"), "stride_req_to_tokens_b": 4096,
                 "stride_buf_kpbs": 16 * lk, "stride_buf_vpbs": 16 * lk, "k_scale": _ptr("fp32"),
                 "v_scale": _ptr("fp32"), "NUM_KV_SPLITS": 16, "PAGE_SIZE": 16, "IS_MLA": True})
    return name, args, options


# --- TRITON_ATTN unified attention -----------------------------------------------------------------------------------
def unified_kernel_name(source: str, kernel: str) -> str:
    """`reduce_segments`, or the attention kernel of this release (one with IS_3D from 0.20, two before)."""
    if kernel == "reduce":
        return "reduce_segments"
    return "kernel_unified_attention" if defines(source, "kernel_unified_attention") else \
        f"kernel_unified_attention_{kernel}"


def unified_args(source: str, job: dict[str, Any]) -> dict[str, Any]:
    """`job`: a launch of doctor.engines.vllm.unified_attention.launches, with "cc" (and "sinks", "softcap")."""
    name = unified_kernel_name(source, job["kernel"])
    args = reduce_args(job) if job["kernel"] == "reduce" else attention_args(job)
    declared = dict(kernel_params(source, name))
    for stride in ("stride_ks_blk", "stride_ks_slot", "stride_ks_head", "stride_vs_blk", "stride_vs_slot",
                   "stride_vs_head"):
        # without per-token-head scales: 0 while declared `tl.int64` (0.20 .. 0.24), None from 0.25 (`int | None`)
        args[stride] = 0 if declared.get(stride) == "tl.int64" else None
    return args


def attention_args(job: dict[str, Any]) -> dict[str, Any]:
    """The arguments `unified_attention` passes the attention kernel (every release's names)."""
    hs, qpk, kv_heads = job["head_size"], job["q_per_kv"], job.get("kv_heads", 8)
    heads, block = qpk * kv_heads, job.get("block_size", 16)
    kv = "fp8e4nv" if job["kv"] == "fp8" else "bf16"
    is_3d = job["kernel"] == "3d"
    cache = (block * kv_heads * 2 * hs, kv_heads * 2 * hs, 2 * hs)  # (B, N, H, 2*hs) split into K and V
    segments = _ptr("fp32") if is_3d else None
    return {
        "output_ptr": _ptr("bf16"), "query_ptr": _ptr("bf16"), "key_cache_ptr": _ptr(kv),
        "value_cache_ptr": _ptr(kv), "sink_ptr": _ptr("fp32") if job.get("sinks") else None,
        "block_tables_ptr": _ptr("i32"), "seq_lens_ptr": _ptr("i32"), "alibi_slopes_ptr": None,
        "qq_bias_ptr": None, "mm_prefix_range_ptr": None, "per_seq_causal_ptr": None,
        "rswa_prefix_lens_ptr": _ptr("i32"), "k_scale_cache_ptr": None, "v_scale_cache_ptr": None,
        "segm_output_ptr": segments, "segm_max_ptr": segments, "segm_expsum_ptr": segments,
        "query_start_len_ptr": _ptr("i32"), "scale": hs ** -0.5, "q_scale": None, "k_scale": _ptr("fp32"),
        "v_scale": _ptr("fp32"), "out_scale": 1.0, "softcap": 30.0 if job.get("softcap") else 0.0,
        "num_query_heads": heads, "num_queries_per_kv": qpk, "block_table_stride": _MAX_BLOCKS,
        "query_stride_0": heads * hs, "query_stride_1": hs, "output_stride_0": heads * hs, "output_stride_1": hs,
        "qq_bias_stride_0": 0, "BLOCK_SIZE": block, "TILE_SIZE": job["tile"], "HEAD_SIZE": hs,
        "HEAD_SIZE_PADDED": next_pow2(hs), "USE_ALIBI_SLOPES": False, "USE_ALIBI_SQRT": False,
        "USE_QQ_BIAS": False, "USE_SOFTCAP": bool(job.get("softcap")), "USE_SINKS": bool(job.get("sinks")),
        "SLIDING_WINDOW": job.get("window", 0), "USE_CAUSAL": True, "USE_PER_SEQ_CAUSAL": False,
        "USE_MM_PREFIX": False, "MAX_MM_RANGES": 0, "R_SWA_WINDOW": 0, "USE_R_SWA": False,
        "stride_k_cache_0": cache[0], "stride_k_cache_1": cache[1], "stride_k_cache_2": cache[2],
        "stride_k_cache_3": 1, "stride_v_cache_0": cache[0], "stride_v_cache_1": cache[1],
        "stride_v_cache_2": cache[2], "stride_v_cache_3": 1,
        "BLOCK_Q": job["block_m"] // qpk, "num_seqs": _SEQS, "BLOCK_M": job["block_m"],
        "NUM_SEGMENTS_PER_SEQ": job.get("segments", 16) if is_3d else 1, "USE_FP8": False, "IS_3D": is_3d,
        "KV_QUANT_MODE": 1 if job["kv"] == "fp8" else 0, "CHUNK_LOOKBACK": -1, "CHUNK_SIZE": -1,
        "USE_TD": False, "USE_TD_QO": False, "Q_IS_FP8": False, "MM_PREFIX_CLAMP_SW": False,
    }


def reduce_args(job: dict[str, Any]) -> dict[str, Any]:
    hs, heads = job["head_size"], job["q_per_kv"] * job.get("kv_heads", 8)
    return {"output_ptr": _ptr("bf16"), "segm_output_ptr": _ptr("fp32"), "segm_max_ptr": _ptr("fp32"),
            "segm_expsum_ptr": _ptr("fp32"), "seq_lens_ptr": _ptr("i32"), "num_seqs": _SEQS,
            "num_query_heads": heads, "out_scale_inv": 1.0, "output_stride_0": heads * hs, "output_stride_1": hs,
            "block_table_stride": _MAX_BLOCKS, "BLOCK_SIZE": job.get("block_size", 16), "TILE_SIZE": job["tile"],
            "HEAD_SIZE": hs, "HEAD_SIZE_PADDED": next_pow2(hs), "query_start_len_ptr": _ptr("i32"),
            "BLOCK_Q": job["block_m"] // job["q_per_kv"], "NUM_SEGMENTS_PER_SEQ": job.get("segments", 16),
            "USE_FP8": False}
