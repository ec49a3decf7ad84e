"""The committed vLLM wheel data: complete, with provenance, and consistent with the release list."""

from __future__ import annotations

import pytest

from doctor.engines.vllm import knowledge
from doctor.engines.vllm.releases import FACT_RELEASES as KNOWN
from tools.vllm_facts.__main__ import RELEASES


def test_every_release_has_its_file_and_the_lists_agree():
    assert knowledge.releases() == RELEASES == KNOWN
    for release in RELEASES:
        facts = knowledge.facts(release)
        assert facts["version"] == release and facts["wheel"].startswith(f"vllm-{release}-")


@pytest.mark.parametrize("release", RELEASES)
def test_facts_carry_their_provenance(release):
    facts = knowledge.facts(release)
    assert len(facts["flags"]) > 150 and len(facts["envs"]["table"]) > 100
    for name, entry in facts["flags"].items():
        assert name.startswith("-") and entry["file"].startswith("vllm/") and entry["line"] > 0, name
    assert all(entry["line"] > 0 for entry in facts["envs"]["table"].values())
    for entry in facts["moe"]["functions"].values():
        assert entry["file"].startswith("vllm/") and len(entry["sha256"]) == 16
    assert "get_default_config" in facts["moe"]["functions"]


def test_first_release_with_sm120_kernels():
    """0.9.2 is the first wheel whose core extension carries sm_120 SASS (0.9.0/0.9.1 do not, read with
    doctor.binaries when the data range was chosen); every later one keeps it."""
    for release in RELEASES:
        binaries = knowledge.facts(release)["binaries"]
        core = binaries.get("vllm/_C.abi3.so") or binaries["vllm/_C_stable_libtorch.abi3.so"]
        assert "sm_120" in core["sass"] or "sm_120f" in core["sass"], release


def test_flash_attention_2_reaches_sm12x_only_through_ptx():
    for release in RELEASES:
        fa2 = knowledge.facts(release)["binaries"]["vllm/vllm_flash_attn/_vllm_fa2_C.abi3.so"]
        assert not any(a.startswith("sm_12") for a in fa2["sass"]) and "compute_80" in fa2["ptx"], release


def test_sm12x_attention_priorities_from_012():
    for release in RELEASES[RELEASES.index("0.12.0"):]:
        priorities = knowledge.facts(release)["attention"]["priorities"]
        assert "TRITON_MLA" in priorities["mla@12.0"] and "TRITON_ATTN" in priorities["default@12.0"], release
    assert knowledge.facts("0.33.0")["attention"]["priorities"]["mla@12.0"][0] == "TRITON_MLA"


def test_known_release_for_versions_between_and_outside():
    from packaging.version import Version

    assert knowledge.known_release(Version("0.15.2")) == "0.15.1"
    assert knowledge.known_release(Version("0.10.1.1")) == "0.10.0"
    assert knowledge.known_release(Version("0.40.0")) == "0.33.0"
    assert knowledge.known_release(Version("0.8.5")) == "0.9.2"
