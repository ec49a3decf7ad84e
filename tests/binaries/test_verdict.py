"""Compatibility rules: SASS within a major, `a` and `f` targets, PTX JIT; and target parsing."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.binaries import BinaryInfo, parse_capability, read_cuda_archs, verdict_for
from doctor.binaries.archs import Arch, sort_tokens


def info(*tokens: str) -> BinaryInfo:
    sass = [t for t in tokens if t.startswith("sm_")]
    ptx = [t for t in tokens if t.startswith("compute_")]
    return BinaryInfo("x.so", sass=sass, ptx=ptx, module_archs=[(list(tokens), 1)], modules=1)


@pytest.mark.parametrize(("tokens", "capability", "expected"), [
    (("sm_120",), (12, 0), "native"),
    (("sm_120",), (12, 1), "native"),            # binary compatible within major 12
    (("sm_121",), (12, 0), "none"),              # never backwards
    (("sm_120a",), (12, 0), "native"),
    (("sm_120a",), (12, 1), "none"),             # arch-specific: exactly 12.0
    (("sm_121a",), (12, 1), "native"),
    (("sm_120f",), (12, 1), "native"),           # family: all of 12.x from 12.0 up
    (("sm_100f",), (12, 0), "none"),             # another family
    (("sm_90",), (12, 0), "none"),
    (("sm_90", "compute_90"), (12, 0), "ptx-jit"),
    (("compute_80",), (12, 1), "ptx-jit"),
    (("compute_120",), (12, 0), "ptx-jit"),
    (("compute_121",), (12, 0), "none"),         # PTX JITs only forwards
    (("compute_120a",), (12, 0), "ptx-jit"),     # `a` PTX JITs for its own GPU ...
    (("compute_120a",), (12, 1), "none"),        # ... and no other
    (("compute_120f",), (12, 1), "ptx-jit"),
    (("compute_100f",), (12, 0), "none"),
    (("sm_80", "sm_90", "sm_120", "compute_120"), (12, 0), "native"),
    (("sm_90", "compute_90"), (8, 9), "none"),
    ((), (12, 0), "none"),
])
def test_verdict_table(tokens, capability, expected) -> None:
    assert verdict_for(info(*tokens), capability).verdict == expected


def test_reasons_name_the_rule() -> None:
    assert "binary compatible within major 12" in verdict_for(info("sm_120"), (12, 1)).reason
    assert "same family 12.x" in verdict_for(info("sm_120f"), (12, 1)).reason
    locked = verdict_for(info("sm_120a", "compute_120a"), (12, 1)).reason
    assert "not forward compatible" in locked and "JITs only for its own GPU" in locked
    jit = verdict_for(info("sm_90", "compute_90"), (12, 0)).reason
    assert "compute_90" in jit and "first launch" in jit
    assert "newer GPU" in verdict_for(info("sm_121"), (12, 0)).reason


def test_deliberate_only_for_other_majors() -> None:
    assert verdict_for(info("sm_90a", "sm_100f"), (12, 0)).deliberate
    assert not verdict_for(info("sm_90", "sm_80"), (12, 0)).deliberate      # plain: a real gap
    assert not verdict_for(info("sm_120a"), (12, 1)).deliberate            # same major: a real gap
    assert not verdict_for(info("sm_90a"), (9, 0)).deliberate              # it runs
    cubin = BinaryInfo("k.cubin", sass=["sm_100"], format="cubin", modules=1, module_archs=[(["sm_100"], 1)])
    assert verdict_for(cubin, (12, 0)).deliberate                          # standalone, picked per GPU
    assert not verdict_for(cubin, (10, 3)).deliberate


def test_modules_without_image_counted() -> None:
    two = BinaryInfo("x.so", sass=["sm_90a", "sm_120"], modules=3,
                     module_archs=[(["sm_120"], 2), (["sm_90a"], 1)])
    verdict = verdict_for(two, (12, 0))
    assert verdict.verdict == "native" and verdict.modules_without_image == 1
    assert "1 of 3 kernel modules" in verdict.reason


def test_error_without_archs_is_none_with_the_error() -> None:
    broken = BinaryInfo("x.so", error="truncated: section headers lie past the end")
    verdict = verdict_for(broken, (12, 0))
    assert verdict.verdict == "none" and "truncated" in verdict.reason


def test_verdicts_on_real_builds(built: dict[str, Path]) -> None:
    expected = {"sm90": "none", "sm90a": "none", "sm120_ptx": "native", "ptx80": "ptx-jit",
                "sm120f": "native", "sm120a_121a": "native", "sm100f": "none"}
    for name, verdict in expected.items():
        assert verdict_for(read_cuda_archs(built[name]), (12, 1)).verdict == verdict, name


@pytest.mark.parametrize(("text", "capability"), [
    ("sm120", (12, 0)), ("sm_121", (12, 1)), ("SM_120a", (12, 0)), ("12.0", (12, 0)), ("12,1", (12, 1)),
    ("120", (12, 0)), ("sm_90", (9, 0)), ("8.6", (8, 6)), ("compute_120", (12, 0)),
])
def test_parse_capability(text: str, capability: tuple[int, int]) -> None:
    assert parse_capability(text) == capability


@pytest.mark.parametrize("text", ["", "blackwell", "sm", "12", "sm_1200", "1.2.3", "sm_20"])
def test_parse_capability_rejects(text: str) -> None:
    with pytest.raises(ValueError):
        parse_capability(text)


def test_sorting_and_names() -> None:
    assert sort_tokens(["compute_120", "sm_120a", "sm_90", "sm_120", "sm_100f"]) == \
        ["sm_90", "sm_100f", "sm_120", "sm_120a", "compute_120"]
    assert Arch.parse("sm_121a") == Arch(121, "a")
    assert (Arch(121, "a").major, Arch(121, "a").minor) == (12, 1)
    with pytest.raises(ValueError):
        Arch.parse("gfx942")
