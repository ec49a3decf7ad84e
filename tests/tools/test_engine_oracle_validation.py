"""The oracle's validation queries (tools/engine_oracle/validation.py): public reports' own launches, each a grid
shape with the report's flags added, tabulated apart from the grid (doctor/data/derived/vllm-validation), which
`check` never reads."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from doctor.engines.derived_tables import tabulated
from tools.engine_oracle import __main__ as oracle
from tools.engine_oracle import grid, tables, validation

ROOT = Path(__file__).resolve().parents[2]
VALIDATION_TABLES = sorted((ROOT / "doctor" / "data" / "derived" / "vllm-validation").glob("*.json"))


def test_each_launch_is_its_grid_shape_with_the_reports_flags_added():
    shapes = {s.name: s for s in grid.shapes()}
    for launch, query in zip(validation.LAUNCHES, validation.queries(), strict=True):
        base = grid.with_quant(shapes[launch.shape].config, launch.quant)
        assert tables.classify(query.config) == tables.classify(base)
        assert query.flags == (*grid.BASE_FLAGS, *launch.flags)
        assert query.shape == launch.name and launch.report.startswith("https://github.com/")


def test_query_ids_are_unique_and_name_the_added_flags():
    ids = [q.id for q in validation.queries()]
    assert len(ids) == len(set(ids))
    assert "gqa-h64-swa-sinks-moe:native+moe=deep_gemm" in ids
    assert "gqa-h128-moe:nvfp4+attention=TRITON" in ids


@pytest.mark.parametrize("path", VALIDATION_TABLES, ids=[p.stem for p in VALIDATION_TABLES])
def test_committed_validation_table_matches_its_queries(path):
    data = json.loads(path.read_text())
    assert data["release"] == path.stem and data["generated_by"].endswith("--grid validation")
    by_id = {q.id: q for q in validation.queries()}
    for entry in data["entries"]:
        query = by_id[entry["grid"]]
        assert entry["flags"] == list(query.flags)
        assert entry["shape"] == tables.classify(query.config)


def test_validation_tables_stay_out_of_checks_view():
    assert VALIDATION_TABLES, "no validation table committed"
    assert not any("vllm-validation" in p.read_text(encoding="utf-8") for p in (ROOT / "doctor").rglob("*.py"))
    assert set(tabulated("vllm")).isdisjoint({"vllm-validation"})


def test_the_validation_grid_is_planned_from_validation_py():
    args = argparse.Namespace(engine="vllm", grid="validation", only="gpt-oss-forced-moe", capabilities="12.1",
                              controls="")
    ((capability, asked),) = oracle._plan(args)
    assert capability == "12.1" and {q.shape for q in asked} == {"gpt-oss-forced-moe"}
    assert {q.id for q in asked} <= {q.id for q in validation.queries()}
