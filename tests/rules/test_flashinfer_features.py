"""The FlashInfer bounds of rules/know_fi3.toml against what each release's source does on SM12x
(doctor/data/flashinfer_features.json, written by tools/flashinfer_features.py from the git tags): a rule's
flashinfer-python specifier must hold exactly for the releases that lack the feature it is about."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from doctor.pipeline.rules import load_rules

TABLE = Path(__file__).resolve().parents[2] / "doctor" / "data" / "flashinfer_features.json"
RELEASES = json.loads(TABLE.read_text(encoding="utf-8"))["releases"]
RULES = {rule.id: rule for rule in load_rules()}


def flashinfer_specifiers(conditions) -> list[str]:
    """Every `lib.flashinfer-python.version` specifier in a rule's conditions, nested ones included."""
    found = []
    for condition in conditions:
        if condition.get("fact") == "lib.flashinfer-python.version" and "version" in condition:
            found.append(condition["version"])
        for key in ("any", "all"):
            found += flashinfer_specifiers(condition.get(key, ()))
    return found


def first(feature: str) -> str:
    return min((v for v, f in RELEASES.items() if f[feature]), key=Version)


@pytest.mark.parametrize("rule_id, feature", [
    ("SGL281", "gdn_prefill_sm12x"), ("TRT060", "gdn_prefill_sm12x"), ("FI041", "dsv4_sparse_mla_swa_keywords"),
])
def test_a_rules_flashinfer_bound_is_where_the_feature_arrives(rule_id, feature):
    specifiers = [SpecifierSet(s) for s in flashinfer_specifiers(RULES[rule_id].when)]
    assert specifiers, rule_id
    for version, facts in RELEASES.items():
        claimed = all(s.contains(version, prereleases=True) for s in specifiers)
        if Version(version) >= Version("0.6.0"):
            assert claimed == (not facts[feature]), (rule_id, version)


def test_the_releases_the_rules_name():
    assert first("gdn_prefill_sm12x") == "0.6.14"
    assert first("gdn_prefill_sm121") == "0.6.16"
    assert first("dsv4_sparse_mla_api") == "0.6.12"
    assert first("dsv4_sparse_mla_swa_keywords") == "0.6.14"
    thrmma = sorted((v for v, f in RELEASES.items() if f["cute_core_thrmma_files"]), key=Version)
    assert thrmma == ["0.6.8", "0.6.8.post1", "0.6.9", "0.6.10", "0.6.10.post1", "0.6.11", "0.6.11.post1",
                      "0.6.11.post2", "0.6.11.post3", "0.6.12", "0.6.15", "0.6.15.post1"]


def test_sgl283_claims_exactly_the_releases_with_an_sm120a_only_gdn_prefill():
    specifiers = [SpecifierSet(s) for s in flashinfer_specifiers(RULES["SGL283"].when)]
    for version, facts in RELEASES.items():
        claimed = all(s.contains(version, prereleases=True) for s in specifiers)
        assert claimed == (facts["gdn_prefill_sm12x"] and not facts["gdn_prefill_sm121"]), version
