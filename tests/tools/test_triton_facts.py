"""doctor/data/triton_facts.json (tools/triton_facts: each Triton wheel compiling a kernel for 9.0/10.0/12.0/12.1
on the CPU) against rules/triton.toml: TRI001 and TRI002 fire for exactly the releases whose own compile fails
for the GPU, and (slow) the newest release the table holds, compiled again with its real wheel."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import tomllib
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from doctor.data_tables import DATA

REPO = Path(__file__).resolve().parents[2]
TABLE = json.loads((DATA / "triton_facts.json").read_text())


def version_bound(rule_id: str) -> SpecifierSet:
    rules = tomllib.loads((REPO / "rules" / "triton.toml").read_text())["rules"]
    rule = next(r for r in rules if r["id"] == rule_id)
    return SpecifierSet(next(c["version"] for c in rule["when"] if c["fact"] == "lib.triton.version"))


def compiles(version: str, capability: str) -> bool:
    return TABLE[version]["targets"][capability]["compiles"]


def test_table_covers_the_releases_before_and_after_each_bound():
    releases = [Version(v) for v in TABLE]
    assert Version("3.2.0") in releases and Version("3.3.0") in releases  # TRI001's edge, both sides
    assert Version("3.5.1") in releases and Version("3.6.0") in releases  # TRI002's edge, both sides
    assert all(compiles(v, "90") for v in TABLE)  # the control: every release compiles for Hopper


@pytest.mark.parametrize("version", sorted(TABLE, key=Version))
def test_tri001_fires_exactly_where_the_release_cannot_compile_for_sm120(version):
    assert (Version(version) in version_bound("TRI001")) == (not compiles(version, "120"))


@pytest.mark.parametrize("version", sorted(TABLE, key=Version))
def test_tri001_or_tri002_fires_exactly_where_the_release_cannot_compile_for_sm121(version):
    fires = Version(version) in version_bound("TRI001") or Version(version) in version_bound("TRI002")
    assert fires == (not compiles(version, "121"))


def test_the_errors_recorded_are_the_ones_the_rules_match_in_logs():
    assert "Value 'sm_120' is not defined for option 'gpu-name'" in TABLE["3.2.0"]["targets"]["120"]["error"]
    assert "'sm_120' is not a recognized processor for this target (ignoring processor)" in \
        TABLE["3.2.0"]["tool_messages"]
    assert "Value 'sm_121a' is not defined for option 'gpu-name'" in TABLE["3.5.1"]["targets"]["121"]["error"]
    assert TABLE["3.6.0"]["targets"]["121"]["ptx_target"] == "sm_121a"


@pytest.mark.slow
@pytest.mark.wheel
def test_newest_triton_release_the_table_knows_compiles_as_recorded(tmp_path):
    from tools.triton_facts.__main__ import facts_for

    newest = max(TABLE, key=Version)
    root = Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", tmp_path)) / "triton"
    fresh = facts_for(newest, root, drop_site=False)
    assert fresh["ptxas"] == TABLE[newest]["ptxas"]
    assert fresh["targets"] == TABLE[newest]["targets"]
