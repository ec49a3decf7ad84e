"""Random kernel configs for checking the closed forms against Triton (tests and bench/).

A case is {"kernel", "cc", "params", "family", "mode"}: kernel and params in the `exact_launch`
vocabulary, family/mode naming the slice it belongs to in accuracy tables. Two spaces:

* "launch": what SGLang launches. Every kernel family it runs through Triton, the dtypes and
  quantization modes each takes; fused-MoE tiles within the envelope of the NVIDIA tuned configs
  SGLang ships (8,390 entries in 0.5.23: BLOCK_M 16-256, BLOCK_N 32-256 (16 in 8 entries),
  BLOCK_K 32-256, 4 or 8 warps (2 in 8), 2-5 stages (1 in 7); USE_TMA entries 2-6 stages,
  4/8 warps); attention tiles, warps and stages as the launch sites pick them per arch.
* "edge": the rest of what the kernels accept and the estimators model: one stage, 2 warps,
  BLOCK_N 16, smaller attention tiles. (Pipelined extend / prefill loops and decode with more
  than two stages are launched by no engine; the estimators refuse them.)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

TRITON_BASE = "3.5.1"  # torch 2.9.1: SGLang 0.5.6 .. 0.5.10
TRITON_NEWEST = "3.9.0"  # newest Triton on PyPI when this was written
# Triton each torch pins (torch's wheel metadata), and so every SGLang / vLLM release on that torch:
# 2.8 -> 3.4.0, 2.9 -> 3.5.1, 2.10 / 2.11 -> 3.6.0, 2.12 / 2.13 -> 3.7.1, 2.14 (SGLang 0.5.22+) -> 3.8.0.
TRITON_PINNED = ("3.4.0", "3.5.1", "3.6.0", "3.7.1", "3.8.0", "3.9.0")
ARCHS = (80, 86, 89, 90, 100, 120, 121)
# (E, N, K) of real MoE layers at common TP: the up GEMM is [E, 2N, K], the down GEMM [E, K, N].
MOE_SHAPES = ((161, 192, 5120), (257, 256, 7168), (384, 256, 7168), (128, 768, 2048),
              (64, 1408, 2048), (8, 7168, 4096), (128, 192, 4096), (256, 512, 7168), (60, 1408, 2048))
# mode -> (dtype, per_channel, block_shape)
MOE_MODES = {
    "bf16": ("bf16", False, None), "fp16": ("fp16", False, None),
    "fp8-tensor": ("fp8_w8a8", False, None), "fp8-channel": ("fp8_w8a8", True, None),
    "fp8-block": ("fp8_w8a8", False, [128, 128]),
    "int8-channel": ("int8_w8a8", True, None), "int8-block": ("int8_w8a8", False, [128, 128]),
    "w8a16-channel": ("int8_w8a16", False, None),
}
WNA16_MODES = {"w4a16-gptq": ("int4_w4a16", False), "w4a16-awq": ("int4_w4a16", True),
               "w8a16-group": ("int8_w8a16", False), "w8a16-group-zp": ("int8_w8a16", True)}
HEADS = ((576, 512), (192, 128), (128, 128), (256, 256), (64, 64), (96, 96), (80, 80), (512, 512),
         (288, 256))


def _fp8_archs(fp8: bool) -> tuple[int, ...]:
    return tuple(a for a in ARCHS if a >= 89 or not fp8)


def _moe_tiles(rng: random.Random, width: int, bk_choices: tuple[int, ...], edge: bool) -> dict[str, int]:
    while True:
        bm = rng.choice((16, 32, 64, 128, 256))
        bn, bk = rng.choice((16, 32, 64, 128, 256) if edge else (32, 64, 128, 256)), rng.choice(bk_choices)
        stages = rng.choice((1, 1, 2, 3) if edge else (2, 3, 4, 5))
        warps = rng.choice((2, 4, 8) if edge else (4, 8))
        if bm * bn <= 128 * 256 and (bm * bk + bk * bn) * width * max(stages - 1, 1) <= 256 * 1024:
            return {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": bk,
                    "GROUP_SIZE_M": rng.choice((1, 16, 32, 64)), "num_warps": warps, "num_stages": stages}


def _gemm(rng: random.Random) -> tuple[int, int, int, bool]:
    e, n, k = rng.choice(MOE_SHAPES)
    down = rng.random() < 0.5
    return (e, k, n, down) if down else (e, 2 * n, k, down)


def moe_case(rng: random.Random, edge: bool = False) -> dict[str, Any]:
    mode = rng.choice(sorted(MOE_MODES))
    dtype, per_channel, block_shape = MOE_MODES[mode]
    cc = rng.choice(_fp8_archs(dtype == "fp8_w8a8"))
    e, n, k, down = _gemm(rng)
    width = 2 if dtype in ("bf16", "fp16") else 1
    config = _moe_tiles(rng, width, (32, 64, 128) if block_shape else (32, 64, 128, 256), edge)
    tma = None
    if cc >= 90 and config["num_stages"] >= 2 and rng.random() < 0.3:  # a tuned config with USE_TMA
        tma = "down" if down and mode == "fp8-block" else "up"
        mode += f"+tma-{tma}"
    params = {"dtype": dtype, "config": config, "n": n, "k": k, "e": e, "per_channel": per_channel,
              "block_shape": block_shape, "down": down, "tma": tma}
    return {"kernel": "fused_moe", "cc": cc, "params": params, "family": "moe", "mode": mode}


def wna16_case(rng: random.Random, edge: bool = False) -> dict[str, Any]:
    mode = rng.choice(sorted(WNA16_MODES))
    dtype, has_zp = WNA16_MODES[mode]
    e, n, k, down = _gemm(rng)
    config = _moe_tiles(rng, 2, (32, 64, 128, 256), edge)
    params = {"dtype": dtype, "config": config, "n": n, "k": k, "e": e,
              "block_shape": [0, rng.choice((32, 64, 128))], "down": down, "has_zp": has_zp}
    return {"kernel": "fused_moe", "cc": rng.choice(ARCHS), "params": params, "family": "moe-wna16",
            "mode": mode}


def extend_case(rng: random.Random, edge: bool = False) -> dict[str, Any]:
    """extend_attention_fwd always launches one stage; its tiles are 32..128 (MLA heads 32/64)."""
    lq, lv = rng.choice(HEADS)
    kv_dtype = rng.choice(("bf16", "bf16", "fp8"))
    big = lq > 256 or lv > 256
    sizes = ((16, 32, 64) if big else (16, 32, 64, 128)) if edge else ((32, 64) if big else (32, 64, 128))
    params = {"lq": lq, "lv": lv, "block_m": rng.choice(sizes), "block_n": rng.choice(sizes),
              "num_warps": rng.choice((4, 8)), "num_stages": 1,
              "kv_dtype": kv_dtype, "kv_group": rng.choice((1, 1, 4, 8)),
              "custom_mask": rng.random() < 0.2, "sliding_window": rng.choice((0, 0, 0, 4096)),
              "logit_cap": rng.choice((0.0, 0.0, 30.0)), "sinks": rng.random() < 0.2}
    return {"kernel": "extend_attention", "cc": rng.choice(_fp8_archs(kv_dtype == "fp8")),
            "params": params, "family": "extend", "mode": f"kv-{kv_dtype}"}


def decode_case(rng: random.Random, edge: bool = False) -> dict[str, Any]:
    """Stage 1 of decode: grouped (BLOCK_N 32, BLOCK_H 16, 4 warps, 2 stages; the MLA tuning
    buckets use 2 or 1 warps and 2 or 1 stages) or MHA (BLOCK_N 64, 4 or 2 warps, 2 stages)."""
    grouped = rng.random() < 0.7
    lk, lv = rng.choice(HEADS if grouped else HEADS[1:])
    kv_dtype = rng.choice(("bf16", "bf16", "fp8"))
    if edge:
        block_n, block_h = rng.choice((16, 32, 64)), rng.choice((16, 32))
        warps, stages = rng.choice((2, 4, 8)), rng.choice((1, 2))
    elif grouped:
        block_n, block_h, warps, stages = rng.choice((16, 32, 64)), 16, rng.choice((2, 4, 4)), rng.choice((1, 2, 2))
    else:
        block_n, block_h, warps, stages = rng.choice((32, 64)), 1, rng.choice((2, 4)), 2
    params = {"lk": lk, "lv": lv, "block_n": block_n, "block_h": block_h if grouped else 1,
              "num_warps": warps, "num_stages": stages, "kv_dtype": kv_dtype, "grouped": grouped}
    return {"kernel": "decode_attention", "cc": rng.choice(_fp8_archs(kv_dtype == "fp8")),
            "params": params, "family": "decode", "mode": f"{'grouped' if grouped else 'mha'}-kv-{kv_dtype}"}


def prefill_case(rng: random.Random, edge: bool = False) -> dict[str, Any]:
    """context_attention_fwd (vision towers): BLOCK 128 (64 before sm80), 4 or 8 warps, 1 stage."""
    dtype = rng.choice(("bf16", "bf16", "fp16", "fp32"))
    params = {"head_dim": rng.choice((64, 72, 80, 96, 128, 256)),
              "block": rng.choice((32, 64, 128) if edge else (64, 128)),
              "num_warps": rng.choice((4, 8)), "num_stages": 1, "dtype": dtype}
    return {"kernel": "prefill_attention", "cc": rng.choice(ARCHS), "params": params,
            "family": "prefill", "mode": dtype}


FAMILIES: dict[str, Callable[[random.Random], dict[str, Any]]] = {
    "moe": moe_case, "moe-wna16": wna16_case, "extend": extend_case, "decode": decode_case,
    "prefill": prefill_case,
}


def valid(case: dict[str, Any]) -> bool:
    """Drop configs Triton rejects by design: fp8 dots need K >= 32 (p @ v has K = BLOCK_N),
    and a 256-row MoE tile with fewer than 8 warps fails Hopper's pass pipeline."""
    p = case["params"]
    if case["kernel"] in ("extend_attention", "decode_attention") and p["kv_dtype"] == "fp8" \
            and p["block_n"] < 32:
        return False
    return not (case["kernel"] == "fused_moe" and p["config"]["BLOCK_SIZE_M"] == 256
                and p["config"]["num_warps"] < 8)


def draw(seed: int, count: int, families: list[str] | None = None, space: str = "launch") -> list[dict[str, Any]]:
    """`count` valid cases of `space` ("launch" or "edge"), round-robin over `families`."""
    if space not in ("launch", "edge"):
        raise ValueError(f"unknown space {space!r}")
    makers = [FAMILIES[name] for name in (families or list(FAMILIES))]
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    i = 0
    while len(out) < count:
        case = makers[i % len(makers)](rng, space == "edge")
        i += 1
        if valid(case):
            case["space"] = space
            out.append(case)
    return out


def moe_corpus(seed: int, count: int) -> list[dict[str, Any]]:
    return draw(seed, count, ["moe", "moe", "moe", "moe-wna16"])


def attention_corpus(seed: int, count: int) -> list[dict[str, Any]]:
    """60 % extend, 20 % decode, 20 % prefill."""
    return draw(seed, count, ["extend", "extend", "extend", "decode", "prefill"])
