"""VLLM680's signature (rules/mineV.toml) on the line vllm#26844 quotes, and just outside it: the message of a
build that lists SM120, the same message on a Hopper capability, and another missing CUTLASS kernel."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, profile_base, rules_named

LINE = ("NotImplementedError: No compiled get_cutlass_moe_mm_data: no cutlass_scaled_mm kernel for CUDA device "
        "capability: 121. Required capability: 90 or 100\n")


def test_the_spark_line_is_vllm680s():
    assert rules_named(diagnose_text(LINE, profile_base("dgx-spark")))[:1] == ["VLLM680"]


def test_a_0120_build_without_the_fp4_archs_is_vllm680s_on_an_rtx_5090():
    line = LINE.replace("121. Required capability: 90 or 100", "120. Required capability: 90, 100, or 120")
    assert rules_named(diagnose_text(line, profile_base("rtx-5090")))[:1] == ["VLLM680"]


def test_the_line_for_a_hopper_capability_is_not_vllm680s():
    line = LINE.replace("capability: 121.", "capability: 90.")
    assert "VLLM680" not in rules_named(diagnose_text(line, profile_base("h100-sxm-x8")))


def test_another_missing_cutlass_kernel_is_not_vllm680s():
    line = ("NotImplementedError: No compiled cutlass_scaled_mm for CUDA device capability: 121. "
            "Required capability: 90\n")
    assert "VLLM680" not in rules_named(diagnose_text(line, profile_base("dgx-spark")))
