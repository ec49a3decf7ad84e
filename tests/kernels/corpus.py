"""Fixed-seed random corpora of kernel configs for checking the estimators against Triton."""

from __future__ import annotations

import random
from typing import Any

TRITON_BASE = "3.5.1"  # torch 2.9.1, SGLang 0.5.6 .. 0.5.10
TRITON_NEWEST = "3.9.0"  # newest Triton on PyPI when this was written
ARCHS = (80, 86, 89, 90, 100, 120)
# (E, N, K) of real MoE layers at common TP: the up GEMM is [E, 2N, K], the down GEMM [E, K, N].
MOE_SHAPES = ((161, 192, 5120), (257, 256, 7168), (384, 256, 7168), (128, 768, 2048),
              (64, 1408, 2048), (8, 7168, 4096), (128, 192, 4096), (256, 512, 7168))
MOE_DTYPES = (("bf16", False, None), ("fp16", False, None), ("fp8_w8a8", False, None),
              ("fp8_w8a8", True, None), ("fp8_w8a8", False, [128, 128]),
              ("int8_w8a8", True, None), ("int8_w8a16", False, None))
HEADS = ((576, 512), (192, 128), (128, 128), (256, 256), (64, 64), (96, 96), (80, 80), (512, 512))


def _moe_case(rng: random.Random) -> dict[str, Any]:
    dtype, per_channel, block_shape = rng.choice(MOE_DTYPES)
    archs = [a for a in ARCHS if a >= 89 or not dtype.startswith("fp8")]
    e, n, k = rng.choice(MOE_SHAPES)
    down = rng.random() < 0.5
    gemm_n, gemm_k = (k, n) if down else (2 * n, k)
    bk_choices = (32, 64, 128) if block_shape else (32, 64, 128, 256)
    while True:
        bm = rng.choice((16, 32, 64, 128, 256))
        bn, bk = rng.choice((32, 64, 128, 256)), rng.choice(bk_choices)
        stages = rng.choice((1, 2, 3, 4, 5))
        width = 2 if dtype in ("bf16", "fp16") else 1
        if bm * bn <= 128 * 256 and (bm * bk + bk * bn) * width * max(stages - 1, 1) <= 256 * 1024:
            break
    config = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
              "GROUP_SIZE_M": rng.choice((1, 16, 32, 64)), "num_warps": rng.choice((4, 8)),
              "num_stages": stages}
    params = {"dtype": dtype, "config": config, "n": gemm_n, "k": gemm_k, "e": e,
              "per_channel": per_channel, "block_shape": block_shape, "down": down}
    return {"kernel": "fused_moe", "cc": rng.choice(archs), "params": params}


def _extend_case(rng: random.Random) -> dict[str, Any]:
    lq, lv = rng.choice(HEADS)
    kv_dtype = rng.choice(("bf16", "bf16", "fp8"))
    archs = [a for a in ARCHS if a >= 89 or kv_dtype == "bf16"]
    big = lq > 256 or lv > 256
    params = {"lq": lq, "lv": lv, "block_m": rng.choice((16, 32, 64) if big else (16, 32, 64, 128)),
              "block_n": rng.choice((16, 32, 64) if big else (16, 32, 64, 128)),
              "num_warps": rng.choice((4, 8)), "num_stages": rng.choice((1, 1, 1, 2)),
              "kv_dtype": kv_dtype, "kv_group": rng.choice((1, 1, 4, 8)),
              "custom_mask": rng.random() < 0.2, "sliding_window": rng.choice((0, 0, 0, 4096)),
              "logit_cap": rng.choice((0.0, 0.0, 30.0)), "sinks": rng.random() < 0.2}
    return {"kernel": "extend_attention", "cc": rng.choice(archs), "params": params}


def _decode_case(rng: random.Random) -> dict[str, Any]:
    grouped = rng.random() < 0.7
    lk, lv = rng.choice(HEADS if grouped else HEADS[1:])
    kv_dtype = rng.choice(("bf16", "bf16", "fp8"))
    archs = [a for a in ARCHS if a >= 89 or kv_dtype == "bf16"]
    params = {"lk": lk, "lv": lv, "block_n": rng.choice((16, 32, 64)),
              "block_h": rng.choice((16, 32)) if grouped else 1, "num_warps": rng.choice((2, 4, 8)),
              "num_stages": rng.choice((1, 2, 3)), "kv_dtype": kv_dtype, "grouped": grouped}
    return {"kernel": "decode_attention", "cc": rng.choice(archs), "params": params}


def _prefill_case(rng: random.Random) -> dict[str, Any]:
    params = {"head_dim": rng.choice((64, 72, 80, 128, 256)), "block": rng.choice((32, 64, 128)),
              "num_warps": rng.choice((4, 8)), "num_stages": rng.choice((1, 1, 2)),
              "dtype": rng.choice(("bf16", "bf16", "fp16", "fp32"))}
    return {"kernel": "prefill_attention", "cc": rng.choice(ARCHS), "params": params}


def valid(case: dict[str, Any]) -> bool:
    """Drop configs Triton rejects by design: fp8 dots need K >= 32 (p @ v has K = BLOCK_N),
    and a 256-row MoE tile with 4 warps fails Hopper's pass pipeline."""
    p = case["params"]
    if case["kernel"] == "extend_attention" and p["kv_dtype"] == "fp8" and p["block_n"] < 32:
        return False
    if case["kernel"] == "decode_attention" and p["kv_dtype"] == "fp8" and p["block_n"] < 32:
        return False
    return not (case["kernel"] == "fused_moe" and p["config"]["BLOCK_SIZE_M"] == 256
                and p["config"]["num_warps"] == 4)


def _draw(seed: int, count: int, makers) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < count:
        case = makers[i % len(makers)](rng)
        i += 1
        if valid(case):
            out.append(case)
    return out


def moe_corpus(seed: int, count: int) -> list[dict[str, Any]]:
    return _draw(seed, count, [_moe_case])


def attention_corpus(seed: int, count: int) -> list[dict[str, Any]]:
    """60 % extend, 20 % decode, 20 % prefill."""
    return _draw(seed, count, [_extend_case] * 3 + [_decode_case, _prefill_case])
