"""tools/image_table.py: the committed engine-image table is what the generator makes of the data it reads (the
vLLM rows from doctor/data/vllm, offline), and its rows have what image facts need."""

from __future__ import annotations

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from tools.image_table import OUT, render, vllm_rows


def _committed() -> list[dict]:
    return tomllib.loads(OUT.read_text(encoding="utf-8"))["image"]


def test_the_vllm_rows_are_regenerated_from_the_wheel_facts():
    committed = [row for row in _committed() if row["repository"] == "vllm/vllm-openai"]
    fresh = tomllib.loads(render(vllm_rows()))["image"]
    assert committed == fresh and len(fresh) >= 26


def test_every_row_names_its_source_and_a_release():
    for row in _committed():
        assert row["source"] and row["version"] and row["tag"], row
        for variant in row.get("variants", {}).values():
            assert variant["cuda"] and variant["archs"], row
