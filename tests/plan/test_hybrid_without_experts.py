"""A Nemotron-H config whose hybrid pattern has MoE blocks but names no experts (the fuzzer deleted
`n_routed_experts`): the plan says why it cannot size the model, never an internal error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from doctor.hardware import load_profile
from doctor.pipeline.check import check_facts
from doctor.probe.model import load_model

NANO = Path(__file__).resolve().parents[1] / "knowngood" / "models" / "nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"


def test_moe_blocks_without_experts_are_a_plan_error(tmp_path):
    folder = tmp_path / "nano"
    shutil.copytree(NANO, folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    del config["n_routed_experts"]
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    facts = load_profile("rtx-pro-6000-x8").replace(libraries={}, model=load_model(str(folder), {}, offline=True))
    plan = check_facts(facts, []).analysis.plan
    assert "names no experts" in plan["error"]
