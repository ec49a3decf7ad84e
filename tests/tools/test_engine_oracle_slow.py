"""The oracle end to end on one boundary release: vLLM 0.24.0 (its DeepGEMM has no sm120 sources; 0.33.0
adds them) from PyPI into $SM120_DOCTOR_TEST_CACHE, the Qwen3-MoE shape on an emulated 12.0, and the decisions
must be the committed table's. Slow: installs a 9.4 GB environment the first time (about 2 min on an idle
machine), then about 2 minutes a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.wheels import cache_root

REPO = Path(__file__).resolve().parents[2]
SHAPE = "gqa-h128-moe"


def decisions(entry: dict) -> tuple:
    attention = entry["attention"] or {}
    moe = entry["moe"] or {}
    return (entry["grid"], attention.get("backend"), tuple(attention.get("valid") or ()),
            tuple(sorted(attention.get("rejected", {}))),
            moe.get("backend"), moe.get("experts"), tuple(e["kind"] for e in entry["errors"]))


@pytest.mark.slow
def test_oracle_reproduces_the_committed_table_for_one_shape(tmp_path):
    environment = {**os.environ, "SM120_DOCTOR_ORACLE_CACHE": str(cache_root() / "oracle")}
    subprocess.run([sys.executable, "-m", "tools.engine_oracle", "vllm", "0.24.0", "--only", SHAPE,
                    "--capabilities", "12.0", "--controls", "", "--out", str(tmp_path)],
                   cwd=REPO, env=environment, check=True, timeout=3600)
    fresh = json.loads((tmp_path / "vllm" / "0.24.0.json").read_text())
    committed = json.loads((REPO / "doctor" / "data" / "derived" / "vllm" / "0.24.0.json").read_text())
    wanted = [decisions(e) for e in committed["entries"] if e["capability"] == "12.0" and e["grid_shape"] == SHAPE]
    # the grid may have grown since the table was written: every committed decision must come out the same
    fresh_by_grid = {e["grid"]: decisions(e) for e in fresh["entries"]}
    assert wanted and [fresh_by_grid.get(d[0]) for d in wanted] == wanted
    assert fresh["jit_archs"]["deep_gemm"]["archs"] == ["sm90", "sm100"]
