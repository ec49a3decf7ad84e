"""Launch-faithful argument sets for SGLang's Triton kernels (pure Python, no triton import).

Each builder mirrors an SGLang launch site: the same argument names, dtypes, strides and
constexprs that `kernel[grid](...)` receives. A value is one of
  {"ptr": "<triton dtype>"}   a 16-byte aligned tensor (SGLang allocations always are),
  {"tl": "<triton dtype>"}    a triton dtype constexpr (compute_type),
  int / float / bool / None   passed through Triton's own specialisation rules.
Names cover the 0.5.8 .. 0.5.23 signatures; the worker uses the ones the kernel declares and
fails loudly on a required parameter it does not know.
"""

from __future__ import annotations

from typing import Any

ELEM = {"bf16": "bf16", "fp16": "fp16", "fp8": "fp8e4nv", "fp32": "fp32"}

MOE_DTYPES = ("bf16", "fp16", "fp8_w8a8", "int8_w8a8", "int8_w8a16", "int4_w4a16")

# Shapes for generic launches: (tokens, top_k) give realistic, non-degenerate int specialisation.
_M, _TOPK = 512, 8


def _ptr(dtype: str) -> dict[str, str]:
    return {"ptr": dtype}


def _desc(dtype: str, block: list[int]) -> dict[str, Any]:
    """A host `TensorDescriptor` over a tensor of `dtype` with this block shape."""
    return {"desc": dtype, "block": block}


def next_pow2(x: int) -> int:
    return 1 if x <= 1 else 1 << (x - 1).bit_length()


def moe_operand_dtypes(dtype: str, act: str = "bf16") -> tuple[str, str]:
    """Triton dtypes of the A (activation) and B (weight) tiles as the kernel loads them."""
    act = ELEM[act]
    return {
        "bf16": (act, act), "fp16": ("fp16", "fp16"),
        "fp8_w8a8": ("fp8e4nv", "fp8e4nv"), "int8_w8a8": ("i8", "i8"),
        "int8_w8a16": (act, "i8"), "int4_w4a16": (act, "u8"),
    }[dtype]


def uses_gptq_awq(dtype: str, block_shape: list[int] | None) -> bool:
    """SGLang routes int4 weights, and int8 weights with a K group size, to `fused_moe_kernel_gptq_awq`."""
    grouped = block_shape is not None and len(block_shape) > 1 and block_shape[1] > 0
    return dtype == "int4_w4a16" or (dtype == "int8_w8a16" and grouped)


def default_swap_ab(cc: int, dtype: str, config: dict[str, int]) -> bool:
    """`should_enable_swap_ab`: fp8 on sm90 with BLOCK_M < 64 and BLOCK_N >= 64 (0.5.9+; 0.5.8 on H20 only)."""
    return dtype == "fp8_w8a8" and cc == 90 and config["BLOCK_SIZE_M"] < 64 and config["BLOCK_SIZE_N"] >= 64


def fused_moe_args(cc: int, dtype: str, config: dict[str, int], n: int = 384, k: int = 5120,
                   e: int = 161, per_channel: bool = False, block_shape: list[int] | None = None,
                   down: bool = False, act: str = "bf16", tma: str | None = None,
                   swap_ab: bool | None = None, has_zp: bool = False,
                   c_sorted: bool = False) -> tuple[str, dict[str, Any], dict[str, int]]:
    """(kernel name, args, options) for `invoke_fused_moe_kernel`.

    n, k are the GEMM's own sizes (B is [e, n, k]); for the up GEMM n = 2 * intermediate.
    tma: None, "up" (B through a TensorDescriptor: an up config with USE_TMA) or "down" (A and B
    through descriptors: a down config with USE_TMA, fp8 block quantization only).
    swap_ab: None follows SGLang's rule for the target (`default_swap_ab`).
    """
    if uses_gptq_awq(dtype, block_shape):
        return _gptq_awq_args(dtype, config, n, k, e, block_shape, down, act, has_zp)
    if tma not in (None, "up", "down"):
        raise ValueError(f"tma must be None, 'up' or 'down', not {tma!r}")
    if tma == "down" and not (dtype == "fp8_w8a8" and block_shape):
        raise ValueError("a TMA down GEMM needs fp8_w8a8 with a block shape (SGLang asserts it)")
    swap = default_swap_ab(cc, dtype, config) if swap_ab is None else swap_ab
    a_t, b_t = moe_operand_dtypes("fp16" if dtype == "fp16" else dtype, act)
    c_t = "fp16" if dtype == "fp16" else ELEM[act]
    blocked = block_shape is not None and dtype in ("fp8_w8a8", "int8_w8a8")
    bn, bk = (block_shape or [0, 0])[:2] if blocked else (0, 0)
    a_rows = _M * _TOPK if down else _M
    a_scale = b_scale = None
    asm = ask = bse = bsk = bsn = 0
    if dtype in ("fp8_w8a8", "int8_w8a8"):
        a_scale, b_scale = _ptr("fp32"), _ptr("fp32")
        if blocked:
            kb, nb = -(-k // bk), -(-n // bn)
            asm, ask, bse, bsk, bsn = kb, 1, nb * kb, 1, kb
        elif per_channel or dtype == "int8_w8a8":
            asm, ask, bse, bsk, bsn = 1, 1, n, 1, 1
    elif dtype == "int8_w8a16":
        b_scale = _ptr("fp32")
        bse, bsk, bsn = n, 0, 1
    em = a_rows * (1 if down else _TOPK) + e * (config["BLOCK_SIZE_M"] - 1)
    bm, bk_tile = config["BLOCK_SIZE_M"], config["BLOCK_SIZE_K"]
    args: dict[str, Any] = {
        "a_ptr": _ptr(a_t), "a_desc": _desc(a_t, [bm, bk_tile]) if tma == "down" else None,
        "b_ptr": _ptr(b_t), "b_desc": _desc(b_t, [1, config["BLOCK_SIZE_N"], bk_tile]) if tma else None,
        "bias_ptr": None,
        "c_ptr": _ptr(c_t), "a_scale_ptr": a_scale, "b_scale_ptr": b_scale,
        "topk_weights_ptr": _ptr("fp32"), "sorted_token_ids_ptr": _ptr("i32"),
        "expert_ids_ptr": _ptr("i32"), "num_tokens_post_padded_ptr": _ptr("i32"),
        "add_mask_ptr": None,
        "N": n, "K": k, "EM": em, "num_valid_tokens": _M * _TOPK,
        "stride_am": k, "stride_ak": 1, "stride_be": n * k, "stride_bk": 1, "stride_bn": k,
        "stride_bias_e": 0, "stride_bias_n": 0, "stride_cm": n, "stride_cn": 1,
        "stride_asm": asm, "stride_ask": ask, "stride_bse": bse, "stride_bsk": bsk, "stride_bsn": bsn,
        "group_n": bn, "group_k": bk,
        "MUL_ROUTED_WEIGHT": down, "top_k": 1 if down else _TOPK, "compute_type": {"tl": c_t},
        "use_fp8_w8a8": dtype == "fp8_w8a8", "use_int8_w8a8": dtype == "int8_w8a8",
        "use_int8_w8a16": dtype == "int8_w8a16", "per_channel_quant": per_channel,
        "even_Ks": k % config["BLOCK_SIZE_K"] == 0, "c_sorted": c_sorted, "filter_expert": True,
        "swap_ab": swap, "FUSE_ADD_TO_OUTPUT": False, "MASK_OUTPUT": False,
        "FUSE_SUM_ALL_REDUCE": False, "ROUTER_TOPK": 1, "USE_GDC": cc >= 90,
        **_tiles(config),
    }
    return "fused_moe_kernel", args, _options(config)


def _gptq_awq_args(dtype: str, config: dict[str, int], n: int, k: int, e: int,
                   block_shape: list[int] | None, down: bool, act: str, has_zp: bool):
    """`fused_moe_kernel_gptq_awq` as the moe_wna16 path launches it: B [e, n, k/pack] uint8 with
    scales [e, n, k/group] (and AWQ zero points [e, n/pack, k/group], GPTQ has none)."""
    group = (block_shape or [0, 128])[1] or 128
    a_t = ELEM[act]
    int4 = dtype == "int4_w4a16"
    pack = 2 if int4 else 1
    kp, groups = k // pack, -(-k // group)
    zp_rows = n // pack
    args: dict[str, Any] = {
        "a_ptr": _ptr(a_t), "b_ptr": _ptr("u8" if int4 else "i8"), "c_ptr": _ptr(a_t),
        "b_scale_ptr": _ptr(a_t), "b_zp_ptr": _ptr("u8") if has_zp else None,
        "topk_weights_ptr": _ptr("fp32"), "sorted_token_ids_ptr": _ptr("i32"),
        "expert_ids_ptr": _ptr("i32"), "num_tokens_post_padded_ptr": _ptr("i32"),
        "N": n, "K": k, "EM": _M * _TOPK + e * (config["BLOCK_SIZE_M"] - 1),
        "num_valid_tokens": _M * _TOPK, "stride_am": k, "stride_ak": 1, "stride_be": n * kp,
        "stride_bk": 1, "stride_bn": kp, "stride_cm": n, "stride_cn": 1,
        "stride_bse": n * groups, "stride_bsk": 1, "stride_bsn": groups,
        "stride_bze": zp_rows * groups if has_zp else 0, "stride_bzk": 1 if has_zp else 0,
        "stride_bzn": groups if has_zp else 0, "group_size": group,
        "MUL_ROUTED_WEIGHT": down, "top_k": 1 if down else _TOPK, "compute_type": {"tl": a_t},
        "has_zp": has_zp, "use_int4_w4a16": int4, "use_int8_w8a16": not int4,
        "even_Ks": k % config["BLOCK_SIZE_K"] == 0, "filter_expert": True, **_tiles(config),
    }
    return "fused_moe_kernel_gptq_awq", args, _options(config)


def _tiles(config: dict[str, int]) -> dict[str, int]:
    keys = ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K", "GROUP_SIZE_M")
    return {key: config[key] for key in keys}


def _options(config: dict[str, int]) -> dict[str, int]:
    return {"num_warps": config.get("num_warps", 4), "num_stages": config.get("num_stages", 3)}


def dmodel_split(lq: int) -> tuple[int, int]:
    """BLOCK_DMODEL, BLOCK_DPE for a query head dim, as SGLang splits it."""
    return {576: (512, 64), 288: (256, 32), 192: (128, 64)}.get(lq, (next_pow2(lq), 0))


def extend_args(cc: int, lq: int, lv: int, block_m: int, block_n: int, num_warps: int,
                num_stages: int = 1, kv_dtype: str = "bf16", kv_group: int = 1,
                custom_mask: bool = False, sliding_window: int = 0, logit_cap: float = 0.0,
                sinks: bool = False) -> tuple[str, dict[str, Any], dict[str, int]]:
    """`extend_attention_fwd` launch of `_fwd_kernel` (extend_attention.py)."""
    dm, dpe = dmodel_split(lq)
    h_kv = 1 if kv_group >= 8 else max(1, 8 // kv_group)
    heads = h_kv * kv_group
    mla = lq in (576, 288)  # absorbed MLA: V is a view of the latent K pool
    v_stride = lq if mla else lv
    kv = ELEM[kv_dtype]
    args: dict[str, Any] = {
        "Q_Extend": _ptr("bf16"), "K_Extend": _ptr("bf16"), "V_Extend": _ptr("bf16"),
        "O_Extend": _ptr("bf16"), "LSE_Extend": None, "K_Buffer": _ptr(kv), "V_Buffer": _ptr(kv),
        "qo_indptr": _ptr("i32"), "kv_indptr": _ptr("i32"), "kv_indices": _ptr("i64"),
        "mask_ptr": _ptr("i1") if custom_mask else None,
        "mask_indptr": _ptr("i64") if custom_mask else None,
        "sink_ptr": _ptr("fp32") if sinks else None,
        "window_kv_offset_ptr": _ptr("i32") if custom_mask and sliding_window > 0 else None,
        "sm_scale": lq ** -0.5, "k_scale": 1.0, "v_scale": 1.0, "kv_group_num": kv_group,
        "stride_qbs": heads * lq, "stride_qh": lq, "stride_kbs": h_kv * lq, "stride_kh": lq,
        "stride_vbs": h_kv * v_stride, "stride_vh": v_stride, "stride_obs": heads * lv,
        "stride_oh": lv, "stride_lse_bs": 0, "stride_lse_h": 0,
        "stride_buf_kbs": h_kv * lq, "stride_buf_kh": lq, "stride_buf_vbs": h_kv * v_stride,
        "stride_buf_vh": v_stride, "stride_buf_kpage": h_kv * lq, "stride_buf_ktok": h_kv * lq,
        "stride_buf_vpage": h_kv * v_stride, "stride_buf_vtok": h_kv * v_stride,
        "compact_batch_size": 4,
        "SLIDING_WINDOW_SIZE": sliding_window if sliding_window > 0 else -1,
        "logit_cap": float(logit_cap), "xai_temperature_len": -1, "Lq": lq, "Lv": lv,
        "BLOCK_DMODEL": dm, "BLOCK_DPE": dpe, "BLOCK_DV": next_pow2(lv), "BLOCK_M": block_m,
        "BLOCK_N": block_n, "BLOCK_N_PREFIX": block_n, "USE_CUSTOM_MASK": custom_mask,
        "IS_CAUSAL": True, "SKIP_PREFIX_CUSTOM_MASK": True, "STORE_LSE": False,
        "SKIP_PREFIX": False, "SKIP_EXTEND": False, "STORE_TRANSPOSE": False, "HAS_SINK": sinks,
        "USE_COMPACT_TILE_GRID": False, "USE_EXP2": False, "USE_FP8_PREFIX": False,
        "USE_FP8_EXTEND": False, "FP8_MAX": 1.0,
    }
    if custom_mask:
        # speculative target-verify masks the prefix too
        args["SKIP_PREFIX_CUSTOM_MASK"] = False
    return "_fwd_kernel", args, {"num_warps": num_warps, "num_stages": num_stages}


def decode_args(cc: int, lk: int, lv: int, block_n: int, block_h: int, num_warps: int,
                num_stages: int, kv_dtype: str = "bf16", grouped: bool = True,
                kv_group: int | None = None) -> tuple[str, dict[str, Any], dict[str, int]]:
    """Stage-1 decode launch: `_decode_grouped_att_m_fwd` or `_decode_att_m_fwd`."""
    kv = ELEM[kv_dtype]
    group = (kv_group or block_h) if grouped else 1
    h_kv = 1 if group >= 8 else max(1, 8 // group)
    heads, mla = h_kv * group, lk in (576, 288)
    v_stride = lk if mla else lv
    dm, dpe = dmodel_split(lk) if grouped else (next_pow2(lk), 0)
    if grouped and lk not in (576, 288):
        dm, dpe = next_pow2(lk), 0
    splits = 8
    args: dict[str, Any] = {
        "Q": _ptr("bf16"), "K_Buffer": _ptr(kv), "V_Buffer": _ptr(kv), "sm_scale": lk ** -0.5,
        "sm_scale_withk": lk ** -0.5, "kv_indptr": _ptr("i32"), "kv_indices": _ptr("i64"),
        "Att_Out": _ptr("fp32"), "Att_Lse": _ptr("fp32"), "num_kv_splits": _ptr("i32"),
        "stride_qbs": heads * lk, "stride_qh": lk, "stride_buf_kbs": h_kv * lk, "stride_buf_kh": lk,
        "stride_buf_vbs": h_kv * v_stride, "stride_buf_vh": v_stride,
        "stride_buf_kpage": h_kv * lk, "stride_buf_ktok": h_kv * lk,
        "stride_buf_vpage": h_kv * v_stride, "stride_buf_vtok": h_kv * v_stride,
        "stride_mid_ob": heads * splits * lv, "stride_mid_oh": splits * lv, "stride_mid_os": lv,
        "kv_group_num": group, "q_head_num": heads, "BLOCK_DMODEL": dm, "BLOCK_DPE": dpe,
        "BLOCK_DV": next_pow2(lv), "BLOCK_N": block_n, "BLOCK_H": block_h, "MIN_BLOCK_KV": 32,
        "logit_cap": 0.0, "xai_temperature_len": -1, "Lk": lk, "Lv": lv,
        "HAS_MLA": grouped and mla and lv == dm, "USE_PDL": False, "PAGE_SIZE": 1,
    }
    name = "_fwd_grouped_kernel_stage1" if grouped else "_fwd_kernel_stage1"
    return name, args, {"num_warps": num_warps, "num_stages": num_stages}


def prefill_args(cc: int, head_dim: int, block: int, num_warps: int, num_stages: int = 1,
                 dtype: str = "bf16", kv_group: int = 1) -> tuple[str, dict[str, Any], dict[str, int]]:
    """`context_attention_fwd` launch of prefill_attention.py's `_fwd_kernel`."""
    t = ELEM[dtype]
    heads, h_kv = 16, max(1, 16 // kv_group)
    args: dict[str, Any] = {
        "Q": _ptr(t), "K": _ptr(t), "V": _ptr(t), "sm_scale": head_dim ** -0.5,
        "B_Start_Loc": _ptr("i32"), "B_Seqlen": _ptr("i32"), "Out": _ptr(t),
        "stride_qbs": heads * head_dim, "stride_qh": head_dim, "stride_kbs": h_kv * head_dim,
        "stride_kh": head_dim, "stride_vbs": h_kv * head_dim, "stride_vh": head_dim,
        "stride_obs": heads * head_dim, "stride_oh": head_dim, "kv_group_num": kv_group,
        "BLOCK_M": block, "BLOCK_DMODEL": next_pow2(head_dim), "BLOCK_N": block,
        "IS_CAUSAL": False, "Lk": head_dim,
    }
    return "_fwd_kernel", args, {"num_warps": num_warps, "num_stages": num_stages}


BUILDERS = {
    "fused_moe": fused_moe_args,
    "extend_attention": extend_args,
    "decode_attention": decode_args,
    "prefill_attention": prefill_args,
}


def build(kernel: str, cc: int, params: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, int]]:
    return BUILDERS[kernel](cc, **params)
