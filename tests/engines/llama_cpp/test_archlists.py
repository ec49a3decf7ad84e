"""The arch list of a llama.cpp build the doctor cannot read: its log's `CUDA : ARCHS` line and the official release
assets (ggml-cuda's default list for the asset's toolkit, ggml/src/ggml-cuda/CMakeLists.txt @ 00a2d609)."""

from __future__ import annotations

import pytest

from doctor.engines.llama_cpp.archlists import default_archs, logged_arch_verdict, parse_asset
from doctor.engines.registry import parse_engine_spec


@pytest.mark.parametrize("text, build, os, toolkit, cpu", [
    ("llama-b9835-bin-win-cuda-12.4-x64.zip", "9835", "win", "12.4", "x64"),
    ("cudart-llama-b9835-bin-win-cuda-13.3-x64.zip", "9835", "win", "13.3", "x64"),
    ("llama-b11070-bin-ubuntu-cuda-12.8-x64.tar.gz", "11070", "ubuntu", "12.8", "x64"),
    ("b9835-win-cuda-12.4", "9835", "win", "12.4", "x64"),
])
def test_release_asset_names(text, build, os, toolkit, cpu):
    asset = parse_asset(text)
    assert asset is not None and (asset.build, asset.os, asset.toolkit, asset.cpu) == (build, os, toolkit, cpu)


@pytest.mark.parametrize("text", ["b9835", "9835", "llama-b9835-bin-win-vulkan-x64.zip", "b9835-win-cuda"])
def test_other_versions_are_not_assets(text):
    assert parse_asset(text) is None


def test_default_lists_follow_the_toolkit():
    # CUDA 12.4: 50/61/70/75/80-virtual, 86-real, 89-real, 90-virtual; 12.8 adds 120a-real; 13.x drops 50-70
    # and adds 121a-real (from 12.9)
    assert default_archs("12.4") == ["compute_50", "compute_61", "compute_70", "compute_75", "compute_80", "sm_86",
                                     "sm_89", "compute_90"]
    assert default_archs("12.8")[-1] == "sm_120a" and "sm_121a" not in default_archs("12.8")
    assert default_archs("13.3") == ["compute_75", "compute_80", "sm_86", "sm_89", "compute_90", "sm_120a",
                                     "sm_121a"]


@pytest.mark.parametrize("logged, capability, verdict", [
    (["500", "610", "700", "750", "800", "860", "890", "900"], (12, 0), "below-12x"),
    (["750", "800", "860", "890", "900", "1200"], (12, 0), "own"),
    (["890", "1200"], (12, 1), "gb10-only-1200"),
    (["890", "1200", "1210"], (12, 1), "own"),
    (["890", "1210"], (12, 0), "other"),
    (["890", "900"], (9, 0), None),
    ([], (12, 0), None),
])
def test_logged_arch_verdicts(logged, capability, verdict):
    assert logged_arch_verdict(logged, capability) == verdict


def test_engine_spec_takes_an_asset_name():
    library = parse_engine_spec("llama.cpp==llama-b9835-bin-win-cuda-12.4-x64.zip")
    assert library.version == "9835" and library.what_if
    assert library.details["toolkit"] == "12.4" and "sm_86" in library.details["cuda_archs"]
    assert parse_engine_spec("llama.cpp==b9835").details == {}
