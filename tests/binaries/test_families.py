"""Kernel families: the name table, vLLM's arch gates, and per-family verdicts."""

from __future__ import annotations

import pytest

from doctor.binaries import BinaryInfo, verdict_for
from doctor.binaries.archs import Arch, runs, sort_tokens
from doctor.binaries.families import FamilyIndex, arch_gate, family_of
from doctor.binaries.family_verdict import family_verdicts

# Real kernel names from vllm 0.33.0 _C_stable_libtorch.abi3.so / sgl-kernel 0.3.21 (shortened tails).
SM120_GEMM = ("_ZN7cutlass13device_kernelI19enable_sm120_familyINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEE"
              "NS2_10collective13CollectiveMmaINS2_31MainloopSm120TmaWarpSpecializedILi2ELi2EEEEEEEvNT_6ParamsE")
ADA_GEMM = ("_ZN7cutlass7Kernel2I19enable_sm89_to_sm90INS_4gemm6kernel22DefaultGemmWithVisitorIaNS_6layout8RowMajorE"
            "EEEEvNT_6ParamsE")
FA2 = "_ZN5flash16flash_fwd_kernelI23Flash_fwd_kernel_traitsILi128ELi128ELi32ELi4ELb0ELb0EEEvNS_16Flash_fwd_paramsE"
MARLIN_MOE = "_ZN16marlin_moe_wna166MarlinI13__nv_bfloat16Ll1125899906843648ELi256EEEvPK4int4"
TOPK = "_ZN4vllm3moe10topkGatingILi14ELi448ELi4ELi4ELi32Ej13__nv_bfloat16LNS0_11ScoringFuncE1EEEvPKT5_"


@pytest.mark.parametrize(("name", "family"), [
    (SM120_GEMM, "cutlass_scaled_mm"), (ADA_GEMM, "cutlass_scaled_mm"), (FA2, "flash_attention"),
    (MARLIN_MOE, "marlin_moe"), (TOPK, "moe_routing"),
    ("_ZN6marlin6MarlinI6__halfLl1125899907892224ELi128EEEvPK4int4", "marlin"),
    ("_ZN10flashinfer8sampling24OnlineSoftmaxFusedKernelILj512EEEvPT1_", "flashinfer"),
    ("_ZN15flashattn_other6kernelEv", None),  # `flash` only as part of a longer identifier
    ("_Z25selective_scan_fwd_kernelI32Selective_Scan_fwd_kernel_traitsEEv13SSMParamsBase", "mamba"),
    ("_Z12regular_fft_kernelPv", None),
])
def test_family_table(name: str, family: str | None) -> None:
    assert family_of(name) == family


@pytest.mark.parametrize(("name", "gate"), [
    (SM120_GEMM, (120, 130)), (ADA_GEMM, (89, 90)),
    ("_ZN7cutlass13device_kernelIN5flash20enable_sm90_or_laterINS0_9FlashAttnEEEEEvv", (90, 10_000)),
    ("Kernel2I19enable_sm80_to_sm89", (80, 89)), ("enable_sm120_only", (120, 121)),
    ("enable_sm100a_only", (100, 101)), (FA2, None),
])
def test_arch_gates_follow_vllm_common_hpp(name: str, gate: tuple[int, int] | None) -> None:
    assert arch_gate(name) == gate


def _info(**families: list[tuple[list[str], str]]) -> BinaryInfo:
    index = FamilyIndex()
    for kernels in families.values():
        for tokens, name in kernels:
            for token in tokens:
                index.add({name}, token)
    data = index.to_dict()
    tokens = {t for kernels in families.values() for ts, _ in kernels for t in ts}
    return BinaryInfo("x.so", sass=sort_tokens(t for t in tokens if t.startswith("sm_")),
                      ptx=sort_tokens(t for t in tokens if t.startswith("compute_")), modules=1,
                      module_archs=[(sort_tokens(tokens), 1)], families=data)


def test_gated_image_does_not_count_as_usable() -> None:
    """An sm_120 image of an enable_sm89_to_sm90 kernel exists, but its body traps: only the
    enable_sm120_family kernel serves sm_120."""
    info = _info(gemm=[(["sm_89", "sm_120"], ADA_GEMM), (["sm_120"], SM120_GEMM)])
    (family,) = verdict_for(info, (12, 0)).families
    assert (family.verdict, family.kernels, family.native, family.gated) == ("native", 2, 1, 1)
    assert "compiled out there" in family.reason


def test_family_with_only_gated_images_is_none() -> None:
    info = _info(gemm=[(["sm_89", "sm_120"], ADA_GEMM)])
    verdict = verdict_for(info, (12, 0))
    assert verdict.verdict == "native"  # the file has sm_120 SASS ...
    (family,) = verdict.families
    assert family.verdict == "none" and family.gated == 1  # ... which cannot do the family's work
    assert "kernel families cutlass_scaled_mm none" in verdict.reason


def test_family_through_ptx_and_deliberate_builds() -> None:
    info = _info(fa2=[(["sm_80", "compute_80"], FA2)], moe=[(["sm_90a"], MARLIN_MOE)])
    fams = {f.family: f for f in verdict_for(info, (12, 0)).families}
    assert fams["flash_attention"].verdict == "ptx-jit" and fams["flash_attention"].jit == 1
    assert fams["marlin_moe"].verdict == "none" and fams["marlin_moe"].deliberate
    assert verdict_for(info, (9, 0)).families[1].verdict == "native"


def test_family_verdicts_survive_hand_edited_facts() -> None:
    assert family_verdicts({"marlin": {"kernel_archs": [["sm_120"]]}, "x": "junk"}, (12, 0)) == ()
    assert family_verdicts(None, (12, 0)) == ()  # type: ignore[arg-type]


def test_lto_tokens() -> None:
    arch = Arch.parse("lto_120a")
    assert (arch.number, arch.variant, arch.kind, arch.token) == (120, "a", "lto", "lto_120a")
    assert not runs(arch, (12, 0))
    assert sort_tokens(["lto_75", "compute_90", "sm_120", "lto_120"]) == ["sm_120", "compute_90", "lto_75", "lto_120"]
