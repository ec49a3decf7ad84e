"""Closed forms against Triton's own compile, one row per rule that decides a buffer: kernel, arch, Triton, the
SGLang release whose kernel source was compiled (and the source revision the engine picks for it), launch
parameters, and `metadata.shared` of the ahead-of-time compile (doctor/kernels/exact.py, 2026-11-27). The slow
set recompiles the corpus; these rows keep the rules honest in the fast set."""

from __future__ import annotations

import pytest

from doctor.kernels.estimate import analytic


def extend(lq: int, bm: int, bn: int, warps: int, kv: str = "fp8", mask: bool = False, lv: int | None = None):
    return ("extend_attention", {"lq": lq, "lv": lv or lq, "block_m": bm, "block_n": bn, "num_warps": warps,
                                 "num_stages": 1, "kv_dtype": kv, "kv_group": 1, "custom_mask": mask,
                                 "sliding_window": 0, "logit_cap": 0.0, "sinks": False})


def mha_decode(lk: int, bn: int, warps: int, kv: str = "fp8"):
    return ("decode_attention", {"lk": lk, "lv": lk, "block_n": bn, "block_h": 1, "num_warps": warps,
                                 "num_stages": 2, "kv_dtype": kv, "grouped": False})


# (arch, Triton, SGLang release of the source, its revision, kernel and launch, metadata.shared)
COMPILED = [
    # tcgen05 from 3.8: the fp8 q and p of the prefix loop go into tensor memory through a conversion
    (100, "3.8.0", "0.5.23", 2, extend(64, 128, 64, 8), 28672),
    (100, "3.8.0", "0.5.23", 2, extend(80, 64, 32, 4), 24584),
    (100, "3.8.0", "0.5.23", 2, extend(192, 128, 32, 4, lv=128), 61440),
    (100, "3.8.0", "0.5.8", 1, extend(80, 128, 32, 4, mask=True), 45056),
    (100, "3.9.0", "0.5.23", 2, extend(576, 64, 32, 4, lv=512), 107520),
    # tcgen05 on 3.4: the same, with q loaded in the fp8 v tile's layout when the two have one shape
    (100, "3.4.0", "0.5.23", 2, extend(64, 64, 64, 4), 17408),
    (100, "3.4.0", "0.5.23", 2, extend(64, 128, 32, 4), 28672),
    (100, "3.4.0", "0.5.8", 1, extend(512, 64, 32, 4), 115712),
    # the custom mask takes the widest access of the same-shape loads in its slice (held-out run 1795779738)
    (120, "3.8.0", "0.5.23", 2, extend(64, 128, 128, 4, mask=True), 49152),
    (120, "3.8.0", "0.5.23", 2, extend(64, 128, 32, 4, mask=True), 36864),
    # 3.4's padded conversion into an mma accumulator pads its columns; an i1 vector is clamped by 1 bit
    (120, "3.4.0", "0.5.23", 2, extend(64, 64, 32, 4, mask=True), 18560),
    (100, "3.4.0", "0.5.23", 2, extend(64, 128, 128, 4, kv="bf16", mask=True), 49152),
    # MHA decode: the KV locations are loaded in the tiles' layout below 32 x warps elements
    (100, "3.9.0", "0.5.8", 1, mha_decode(64, 64, 4), 256),
    (120, "3.8.0", "0.5.23", 2, mha_decode(64, 64, 2), 512),
]


@pytest.mark.parametrize(("cc", "triton", "sglang", "revision", "launch", "shared"), COMPILED)
def test_closed_form_equals_the_compile(cc, triton, sglang, revision, launch, shared):
    del sglang  # provenance: the release whose kernel source gave `shared`
    kernel, params = launch
    assert analytic(kernel, cc, params, triton=triton, revision=revision) == shared
