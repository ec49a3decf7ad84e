"""doctor/engines/pin_check.py and its tables: what they hold is what their generators derive."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from doctor.engines import pin_check
from doctor.engines.pins import releases
from doctor.pipeline.facts import Library

REPO = Path(__file__).resolve().parents[2]
DERIVED = REPO / "doctor" / "data" / "derived"


def _libs(**versions: str) -> dict[str, Library]:
    return {name.replace("_", "-"): Library(name=name.replace("_", "-"), version=v, what_if=True)
            for name, v in versions.items()}


def test_flashinfer_table_is_what_the_raise_site_table_says():
    sys.path.insert(0, str(REPO / "tools"))
    from flashinfer_version_checks import checks

    stored = json.loads((DERIVED / "flashinfer_version_checks.json").read_text())
    derived = checks()
    assert stored["checks"] == derived["checks"] and stored["releases"] == derived["releases"]
    assert set(stored["checks"]["flashinfer-cubin"]) == set(stored["releases"])  # every release 0.5.0-0.7.4 checks


@pytest.mark.parametrize(("mode", "version", "python", "passes"), [
    ("exact", "0.6.13", "0.6.13", True), ("exact", "0.6.13", "0.6.16.post3", False),
    ("prefix", "0.6.1+cu129", "0.6.1", True), ("prefix", "0.6.10+cu130", "0.6.1", True),
    ("prefix", "0.6.3+cu130", "0.6.13", False),
    ("exact or local", "0.7.0+cu130", "0.7.0", True), ("exact or local", "0.7.0.post1+cu130", "0.7.0", False),
])
def test_comparisons_are_flashinfers(mode, version, python, passes):
    assert pin_check._passes(mode, version, python) is passes


def test_cuda_table_covers_every_pinned_vllm_release_and_both_majors():
    table = json.loads((DERIVED / "engine_cuda_builds.json").read_text())["vllm"]
    assert set(table) == set(releases("vllm"))
    majors = {build["cudart"] for entry in table.values() for build in entry.values()}
    assert majors == {12, 13}
    assert table["0.19.1"]["aarch64"]["cudart"] == 12 and table["0.20.0"]["aarch64"]["cudart"] == 13


def test_abi_pairs_core_counts_agree_with_their_extensions():
    for pair in json.loads((DERIVED / "torch_abi_pairs.json").read_text())["pairs"]:
        assert pair["core"], pair["wheel"]
        assert pair["core_missing"] == max(pair["core"].values())
        assert all(pair["missing"][name] == count for name, count in pair["core"].items())
        assert {name for name, n in pair["missing"].items() if n} == set(pair["symbols"])


def test_implied_packages_are_not_compared():
    libs = _libs(vllm="0.24.0")
    libs["nvidia-cutlass-dsl"] = Library(name="nvidia-cutlass-dsl", version="4.5.0", what_if=True,
                                         details={"implied_by": "vllm==0.24.0"})
    assert pin_check.pin_view(libs, {}, libs["vllm"], (12, 0))["mismatches"] == []


def test_an_image_that_carries_the_engine_holds_its_pins():
    libs = _libs(vllm="0.20.1", torch="2.12.0a0+5aff3928d8")
    image = {"engine": "vllm", "version": "0.20.1", "cuda_major": 13, "ref": "nvcr.io/nvidia/vllm:26.05-py3"}
    view = pin_check.pin_view(libs, {}, libs["vllm"], (12, 0), image)
    assert view["abi"] == [] and view["mismatches"] == [] and view["cuda"] == []


def test_flashinfer_on_the_path_comes_from_the_analysis():
    libs = _libs(vllm="0.28.0")
    assert pin_check.pin_view(libs, {}, libs["vllm"], (12, 0), None, {"attention": "FLASHINFER"})[
        "flashinfer_in_path"] is True
    assert pin_check.pin_view(libs, {}, libs["vllm"], (12, 0), None, {"attention": "FLASH_ATTN"})[
        "flashinfer_in_path"] is False
