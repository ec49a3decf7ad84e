"""The SGLang oracle end to end on one boundary release: SGLang 0.5.10 (block-FP8 `auto` turns from DeepGEMM in
0.5.9 to Triton on SM120; explicit flashinfer_trtllm is refused from 0.5.10) from PyPI into
$SM120_DOCTOR_TEST_CACHE, the Llama shape on an emulated 12.0, and the decisions must be the committed
table's. Slow: installs an 11 GB environment the first time (171 s with a warm uv cache on the shared
machine), then a few minutes a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.wheels import cache_root

REPO = Path(__file__).resolve().parents[2]
SHAPE, RELEASE = "gqa-h128-dense", "0.5.10"


def decisions(entry: dict) -> tuple:
    linear = sorted({k for group in entry["linear"] for k in group["kernels"].values()})
    return (entry["grid"], (entry["attention"] or {}).get("backend"), tuple(linear),
            tuple((e["kind"], e["type"]) for e in entry["errors"]))


@pytest.mark.slow
def test_sglang_oracle_reproduces_the_committed_table_for_one_shape(tmp_path):
    environment = {**os.environ, "SM120_DOCTOR_ORACLE_CACHE": str(cache_root() / "oracle")}
    subprocess.run([sys.executable, "-m", "tools.engine_oracle", "sglang", RELEASE, "--only", SHAPE,
                    "--capabilities", "12.0", "--controls", "", "--out", str(tmp_path)],
                   cwd=REPO, env=environment, check=True, timeout=3600)
    fresh = json.loads((tmp_path / "sglang" / f"{RELEASE}.json").read_text())
    committed = json.loads((REPO / "doctor" / "data" / "derived" / "sglang" / f"{RELEASE}.json").read_text())
    wanted = [decisions(e) for e in committed["entries"] if e["capability"] == "12.0" and e["grid_shape"] == SHAPE]
    assert wanted and sorted(decisions(e) for e in fresh["entries"]) == sorted(wanted)
