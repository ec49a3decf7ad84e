"""vLLM's release list (doctor/engines/vllm/releases.py) and the releases an unstated `--engine vllm` is evaluated
at agree: every final release the wheel-derived tables hold is one the engine knows, and the picker evaluates no
release the engine does not list."""

from __future__ import annotations

from packaging.version import Version

from doctor import data_tables
from doctor.engines import registry
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.releases import FACT_RELEASES, RELEASES
from doctor.pipeline.rules import load_rules
from doctor.pipeline.unversioned import evaluated_releases, shown_release

VLLM = registry.get("vllm")


def _table_finals() -> set[str]:
    """Final releases of vLLM in every wheel-derived table, from the oldest release with wheel facts on."""
    oldest = Version(FACT_RELEASES[0])
    return {str(v) for table in data_tables.tables() if table.package == "vllm"
            for v in (data_tables.stable(r) for r in data_tables.versions_in(table)) if v is not None and v >= oldest}


def test_every_table_release_is_known():
    assert _table_finals() <= set(RELEASES), sorted(_table_finals() - set(RELEASES), key=Version)


def test_the_engine_pins_finals_are_the_release_list():
    pins = data_tables.Table("engine pins: vllm", "vllm", data_tables.PINS)
    finals = [r for r in data_tables.versions_in(pins) if data_tables.stable(r) and Version(r) >= Version(RELEASES[0])]
    assert sorted(finals, key=Version) == list(RELEASES)


def test_fact_releases_are_a_sorted_subset():
    assert set(FACT_RELEASES) <= set(RELEASES) and tuple(knowledge.releases()) == FACT_RELEASES
    assert list(RELEASES) == sorted(RELEASES, key=Version) and len(set(RELEASES)) == len(RELEASES)
    assert VLLM is not None and VLLM.releases == RELEASES


def test_the_unstated_picker_evaluates_only_known_releases():
    assert VLLM is not None
    evaluated = evaluated_releases(VLLM, load_rules())
    newest = Version(RELEASES[-1])
    in_range = [r for r in evaluated if Version(r) <= newest]
    assert set(in_range) <= set(RELEASES), sorted(set(in_range) - set(RELEASES), key=Version)
    assert "0.27.1" in evaluated and shown_release(VLLM, evaluated) == RELEASES[-1]


def test_a_patch_release_is_judged_by_its_minor_facts():
    assert knowledge.known_release(Version("0.27.1")) == "0.27.0"
    assert knowledge.known_release(Version("0.10.1.1")) == "0.10.0"
