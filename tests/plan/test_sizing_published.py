"""Each quantization format and hybrid architecture sized from its config lands within 3 % of the checkpoint's
published size (tests/cases/sizing/published.json says where each size is from; bench/bench_sizing.py prints
the table recorded in bench/RESULTS-sizing.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_sizing", REPO / "bench" / "bench_sizing.py")
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)  # type: ignore[union-attr]

TOLERANCE = 0.03
PUBLISHED = bench.published()


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_config_size_is_within_3_percent_of_the_published_checkpoint(name):
    entry = PUBLISHED[name]
    size = bench.computed_bytes(name, entry)
    assert abs(size / entry["bytes"] - 1) <= TOLERANCE, f"{name}: {size:,} B vs published {entry['bytes']:,} B"


def test_every_fixture_folder_has_a_published_size_and_a_source():
    folders = {p.name for p in bench.CASES.iterdir() if p.is_dir()}
    assert folders <= set(PUBLISHED)
    assert all(entry["source"].startswith("https://") and entry["how"] for entry in PUBLISHED.values())


def test_nemotron_3_super_is_no_longer_sized_at_784_gib():
    """Issue 24: the latent-MoE hybrid was sized as 88 attention + MoE layers on the hidden width."""
    size = bench.computed_bytes("nemotron-3-super-120b-a12b-bf16", PUBLISHED["nemotron-3-super-120b-a12b-bf16"])
    assert size < 250e9
