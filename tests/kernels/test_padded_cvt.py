"""Triton 3.4's padded conversion scratch (doctor.kernels.padded_cvt) against single-conversion compiles.

Each row is a TTGIR module holding one `convert_layout`, compiled for its target with Triton 3.4.0 on
this machine by bench/cvt_oracle.py (400 random pairs: 400 exact); `metadata.shared` is the last
number. Rows whose scratch is not a power of two are the padded ones."""

from __future__ import annotations

import pytest

from doctor.kernels import layouts as ll
from doctor.kernels.cvt_scratch import scratch_bytes
from doctor.kernels.padded_cvt import looks_like_mma

MEASURED_3_4 = [
    (100, [16, 64], 32, {"kind": "mma", "version": 2, "warps": [2, 4], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 8], "tpw": [4, 8], "wpc": [8, 1], "order": [1, 0]}, 4352),
    (120, [128, 16], 16, {"kind": "mma", "version": 2, "warps": [8, 1], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 1], "tpw": [2, 16], "wpc": [1, 8], "order": [1, 0]}, 4128),
    (100, [64, 16], 8, {"kind": "mma", "version": 2, "warps": [8, 1], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 4], "tpw": [8, 4], "wpc": [8, 1], "order": [1, 0]}, 1280),
    (100, [256, 128], 16, {"kind": "blocked", "spt": [2, 1], "tpw": [32, 1], "wpc": [1, 2], "order": [0, 1]},
     {"kind": "blocked", "spt": [1, 2], "tpw": [1, 32], "wpc": [1, 2], "order": [1, 0]}, 16640),
    (100, [256, 64], 32, {"kind": "mma", "version": 2, "warps": [4, 1], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 1], "tpw": [1, 32], "wpc": [4, 1], "order": [1, 0]}, 8704),
    (90, [32, 64], 16, {"kind": "mma", "version": 2, "warps": [2, 1], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 2], "tpw": [1, 32], "wpc": [1, 2], "order": [1, 0]}, 4224),
    (80, [32, 32], 16, {"kind": "mma", "version": 2, "warps": [1, 8], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 1], "tpw": [1, 32], "wpc": [8, 1], "order": [1, 0]}, 576),
    (120, [64, 8], 16, {"kind": "mma", "version": 2, "warps": [4, 1], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 2], "tpw": [8, 4], "wpc": [1, 4], "order": [1, 0]}, 1280),
    (89, [128, 8], 8, {"kind": "blocked", "spt": [2, 1], "tpw": [32, 1], "wpc": [1, 2], "order": [0, 1]},
     {"kind": "blocked", "spt": [1, 2], "tpw": [8, 4], "wpc": [2, 1], "order": [1, 0]}, 640),
    (120, [256, 8], 8, {"kind": "mma", "version": 2, "warps": [1, 2], "instr_n": 8},
     {"kind": "blocked", "spt": [1, 2], "tpw": [8, 4], "wpc": [2, 1], "order": [1, 0]}, 160),
    (90, [64, 256], 16, {"kind": "mma", "version": 3, "warps": [4, 1], "instr_n": 256},
     {"kind": "blocked", "spt": [1, 1], "tpw": [1, 32], "wpc": [4, 1], "order": [1, 0]}, 4352),
    (90, [64, 16], 16, {"kind": "mma", "version": 3, "warps": [4, 1], "instr_n": 16},
     {"kind": "blocked", "spt": [1, 8], "tpw": [16, 2], "wpc": [1, 4], "order": [1, 0]}, 3072),
    (90, [64, 16], 16, {"kind": "mma", "version": 3, "warps": [4, 1], "instr_n": 16},
     {"kind": "blocked", "spt": [2, 1], "tpw": [32, 1], "wpc": [4, 1], "order": [0, 1]}, 1056),
    (80, [16, 128], 8, {"kind": "blocked", "spt": [1, 4], "tpw": [1, 32], "wpc": [2, 1], "order": [1, 0]},
     {"kind": "blocked", "spt": [1, 2], "tpw": [1, 32], "wpc": [2, 1], "order": [1, 0]}, 0),
    (100, [256, 128], 16, {"kind": "blocked", "spt": [2, 1], "tpw": [32, 1], "wpc": [1, 2], "order": [0, 1]},
     {"kind": "blocked", "spt": [1, 2], "tpw": [1, 32], "wpc": [1, 2], "order": [1, 0]}, 16640),
    (89, [128, 8], 8, {"kind": "blocked", "spt": [2, 1], "tpw": [32, 1], "wpc": [1, 2], "order": [0, 1]},
     {"kind": "blocked", "spt": [1, 2], "tpw": [8, 4], "wpc": [2, 1], "order": [1, 0]}, 640),
]


def _layout(spec: dict, shape: tuple[int, ...]) -> ll.Layout:
    shape = tuple(shape)
    if spec["kind"] == "blocked":
        return ll.blocked(shape, tuple(spec["spt"]), tuple(spec["tpw"]), tuple(spec["wpc"]), tuple(spec["order"]))
    return ll.mma(shape, tuple(spec["warps"]), spec["version"], spec["instr_n"])


@pytest.mark.parametrize(("cc", "shape", "bits", "src", "dst", "measured"), MEASURED_3_4)
def test_padded_scratch_matches_triton_3_4(cc, shape, bits, src, dst, measured):
    assert scratch_bytes(_layout(src, shape), _layout(dst, shape), bits, cc, (3, 4)) == measured


def test_the_same_conversions_are_swizzled_from_3_5():
    """3.5 replaced the padded tile: the answers differ for most of the rows above."""
    differ = sum(scratch_bytes(_layout(s, shape), _layout(d, shape), bits, cc, (3, 5)) != m
                 for cc, shape, bits, s, d, m in MEASURED_3_4)
    assert differ >= len(MEASURED_3_4) // 2


def test_only_accumulator_layouts_take_the_other_sides_order():
    assert looks_like_mma(ll.mma((64, 64), (2, 2)))
    assert not looks_like_mma(ll.blocked((64, 64), (1, 8), (4, 8), (4, 1), (1, 0)))
