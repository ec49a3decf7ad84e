"""The signature of ATTN060 (rules/deepen.toml): xformers' bundled FlashAttention-3 refused on SM12x with
`invalid argument`. The lines are the reports' (Dao-AILab/flash-attention#1763, facebookresearch/xformers#1323 on
Windows); xformers 0.0.30's `no kernel image` line at the same file stays BLD021's, and a standalone FA3 build's
path (no xformers in it) is not this rule's."""

from __future__ import annotations

from tests.diagnose.corpus import claimed, diagnose_on, fix_texts

LINE = ("CUDA error (/__w/xformers/xformers/third_party/flash-attention/hopper/flash_fwd_launch_template.h:188): "
        "invalid argument\n")
WINDOWS = ("CUDA error (C:/a/xformers/xformers/third_party/flash-attention/hopper\\flash_fwd_launch_template.h:188): "
           "invalid argument\n")


def test_the_xformers_fa3_invalid_argument_line_is_attn060s():
    assert claimed(LINE) == ["ATTN060"]
    assert claimed(WINDOWS) == ["ATTN060"]


def test_the_no_kernel_image_line_stays_bld021s():
    line = LINE.replace(":188): invalid argument", ":175): no kernel image is available for execution on the device")
    assert claimed(line) == ["BLD021"]


def test_a_standalone_fa3_path_is_not_claimed():
    assert "ATTN060" not in claimed("CUDA error (/src/flash-attention/hopper/flash_fwd_launch_template.h:188): "
                                    "invalid argument\n")


def test_on_an_rtx_5090_the_fix_is_xformers_033():
    diagnosis = diagnose_on(LINE, "rtx-5090")
    assert diagnosis.explanations[0].rule == "ATTN060"
    assert any("xformers>=0.0.33" in t for t in fix_texts(diagnosis))


def test_on_an_h100_it_is_not_explained_by_attn060():
    assert "ATTN060" not in [e.rule for e in diagnose_on(LINE, "h100-sxm-x8").explanations]
