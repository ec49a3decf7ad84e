"""Kernel families per released wheel (doctor/binaries/family_archs.py, tools/wheel_archs.py FAMILY_PACKAGES): Marlin's
activation variants, the merge over a wheel's files, verdicts per GPU, the releases where a family's archs change,
and (slow) one boundary release's wheel read again from PyPI and compared with the table."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from doctor.binaries.families import FamilyIndex, activation_variant
from doctor.binaries.family_archs import family_wheel, images, verdict, wheel_families
from doctor.engines.vllm.kernel_images import level
from doctor.wheel_archs import ARM, X86, find_wheel

DATA = Path(__file__).resolve().parents[2] / "doctor" / "data" / "wheel_archs.json"
# Real Marlin MoE kernel names of the vllm 0.22.0 wheel (_moe_C.abi3.so, shortened tails): the first template
# argument is the activation's vllm::ScalarType id (bfloat16 = 0x4000000010708, float8_e4m3fn = 0xa000000010304)
MOE_BF16 = "_ZN16marlin_moe_wna166MarlinILl1125899906909960ELl1125899906843648ELl1125899906909960ELi128EEEvPK4int4"
MOE_FP8 = "_ZN16marlin_moe_wna166MarlinILl2814749767172868ELl1125899906843648ELl1125899906909960ELi128EEEvPK4int4"
MOE_INT8 = "_ZN16marlin_moe_wna166MarlinILl1125899906909952ELl1125899906843648ELl1125899906909960ELi128EEEvPK4int4"
MOE_OLD = "_ZN16marlin_moe_wna166MarlinI13__nv_bfloat16Ll1125899906843648ELi256EEEvPK4int4"  # before 0.12.0
DENSE_HALF = "_ZN6marlin6MarlinI6__halfLl1125899907892224ELi128EEEvPK4int4"


@pytest.mark.parametrize(("name", "variant"), [
    (MOE_BF16, "a16"), (MOE_FP8, "a8"), (MOE_INT8, "a8"), (MOE_OLD, "a16"), (DENSE_HALF, "a16"),
    ("_ZN16marlin_moe_wna1613MarlinDefaultEPK4int4", None), ("_ZN5flash16flash_fwd_kernelIEEv", None),
])
def test_activation_variant(name: str, variant: str | None) -> None:
    assert activation_variant(name) == variant


def test_index_keeps_marlin_variants_apart() -> None:
    index = FamilyIndex()
    index.add({MOE_BF16}, "sm_80")
    index.add({MOE_BF16}, "compute_80")
    index.add({MOE_FP8}, "sm_89")
    index.add({MOE_FP8}, "sm_120")
    family = index.to_dict()["marlin_moe"]
    assert family["kernels"] == 2
    assert family["variants"] == {"a16": [[["sm_80", "compute_80"], None, 1]],
                                  "a8": [[["sm_89", "sm_120"], None, 1]]}
    families = {"marlin_moe": {**family, "files": ["vllm/_moe_C.abi3.so"]}}
    assert verdict(families, "marlin_moe", (12, 0)).verdict == "native"  # the family as a whole
    assert level(verdict(families, "marlin_moe", (12, 0), "a16")) == "ptx_jit"  # what W4A16 launches
    assert level(verdict(families, "marlin_moe", (12, 0), "a8")) == "native"
    assert images(families, "marlin_moe", "a16") == "sm_80 compute_80 (1 kernels)"


def test_an_arch_gated_image_is_a_trap_not_a_kernel() -> None:
    """sm_120 images of `enable_sm90_or_later`-style kernels whose body is compiled only for [80, 89): none runs."""
    families = {"cutlass_scaled_mm": {"kernels": 3, "files": ["vllm/_C.abi3.so"],
                                      "kernel_archs": [[["sm_80", "sm_120"], [80, 89], 3]], "variants": {}}}
    found = verdict(families, "cutlass_scaled_mm", (12, 0))
    assert level(found) == "gated" and found.gated == 3
    assert "body compiled only for 80 <= arch < 89" in images(families, "cutlass_scaled_mm")
    assert level(verdict(families, "cutlass_scaled_mm", (8, 0))) == "native"


def _variant_level(version: str, family: str, variant: str | None, capability=(12, 0)) -> str:
    wheel = family_wheel("vllm", version, capability)
    assert wheel is not None, version
    return level(verdict(wheel_families(wheel), family, capability, variant))


@pytest.mark.parametrize(("version", "expected"), [
    ("0.9.2", "ptx_jit"), ("0.11.0", "ptx_jit"), ("0.22.0", "ptx_jit"), ("0.23.0", "native"), ("0.33.0", "native"),
])
def test_marlin_moe_sixteen_bit_kernels_gain_sm120_sass_in_0_23(version: str, expected: str) -> None:
    assert _variant_level(version, "marlin_moe", "a16") == expected
    assert _variant_level(version, "marlin", "a16") == expected


@pytest.mark.parametrize("version", ["0.9.2", "0.22.0", "0.33.0"])
def test_fa2_is_compute_80_ptx_on_sm12x_in_every_audited_wheel(version: str) -> None:
    assert _variant_level(version, "flash_attention", None) == "ptx_jit"
    assert _variant_level(version, "flash_attention", None, (9, 0)) == "native"  # FlashAttention 3's sm_90a


def test_nvfp4_grouped_gemm_of_0_14_aarch64_has_no_image_for_gb10() -> None:
    assert _variant_level("0.14.0", "cutlass_moe_mm", None, (12, 1)) == "none"
    assert _variant_level("0.14.0", "cutlass_moe_mm", None, (12, 0)) == "native"  # the x86_64 wheel's sm_120a


def test_a_patch_release_without_an_audit_takes_its_minors_newest_audited_patch_before_it() -> None:
    assert family_wheel("vllm", "0.22.1", (12, 0))["version"] == "0.22.0"
    assert family_wheel("vllm", "0.15.1", (12, 0))["version"] == "0.15.1"  # audited itself
    assert family_wheel("vllm", "0.8.4", (12, 0)) is None  # nothing of 0.8 before 0.8.5.post1


def test_every_vllm_release_with_a_derived_table_has_kernel_families_on_x86_64() -> None:
    tables = sorted(p.stem for p in (DATA.parent / "derived" / "vllm").glob("*.json"))
    missing = [v for v in tables if not (find_wheel("vllm", v, X86) or {}).get("families_read")]
    assert missing == []


@pytest.mark.slow
@pytest.mark.wheel
def test_boundary_release_read_again_matches_the_table(tmp_path: Path) -> None:
    """Re-read vllm 0.23.0 (the first wheel with sm_120 SASS for 16-bit Marlin) from PyPI: its families and
    Marlin variants must equal what the table holds."""
    from tools.wheel_archs import audit

    recorded = find_wheel("vllm", "0.23.0", X86)
    cache = Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", tmp_path)) / "family-archs"
    fresh = audit("vllm", "0.23.0", X86, cache)
    assert fresh["sha256"] == recorded["sha256"]
    assert wheel_families(fresh) == wheel_families(recorded)
    assert level(verdict(wheel_families(fresh), "marlin_moe", (12, 0), "a16")) == "native"


def test_aarch64_rows_are_their_own_wheels() -> None:
    rows = [w for w in json.loads(DATA.read_text())["wheels"] if w["package"] == "vllm" and w["platform"] == ARM]
    assert all("aarch64" in w["wheel"] for w in rows)
