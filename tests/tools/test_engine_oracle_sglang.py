"""The SGLang side of the oracle without running SGLang: its grid, how a raw record's exceptions are
classified (only what SGLang raises on purpose is a rejection), and the committed tables against the grid
and the doctor's own shape classifier (the one `check` uses)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.engine_oracle import sglang_grid, sglang_tables, tables
from tools.engine_oracle.device import DEVICES

TABLES = sorted((Path(__file__).resolve().parents[2] / "doctor" / "data" / "derived" / "sglang").glob("*.json"))


def test_grid_ids_are_unique_and_nvfp4_is_asked_as_users_launch_it():
    asked = sglang_grid.queries()
    assert len({q.id for q in asked}) == len(asked)
    nvfp4 = {q.id: q.flags for q in asked if q.shape == "gqa-h128-moe" and q.quant == "nvfp4"}
    assert "--quantization" in nvfp4["gqa-h128-moe:nvfp4"]
    assert "--quantization" not in nvfp4["gqa-h128-moe:nvfp4+bare"]
    assert all(q.env == sglang_grid.NO_DEEP_GEMM for q in asked if "+env=" in q.id)


def test_the_deepseek_v32_shape_is_asked_without_v3s_auto_map():
    sparse = [q for q in sglang_grid.queries() if q.shape == "mla-sparse-moe"]
    assert sparse and all("auto_map" not in q.config for q in sparse)
    assert all(q.config["model_type"] == "deepseek_v32" for q in sparse)


@pytest.mark.parametrize("error, kind", [
    ({"stage": "server_args", "type": "ValueError", "message": "TRTLLM MHA backend is only supported on Blackwell "
      "GPUs (SM100). Please use a different backend."}, "rejection"),
    ({"stage": "build", "type": "AssertionError", "message": "assert is_sm100_supported() or is_sm90_supported()"},
     "rejection"),
    ({"stage": "server_args", "type": "SystemExit", "message": "2"}, "flag"),
    ({"stage": "setup", "type": "RuntimeError", "message": "parallel name 'tp_rank' has not been written"},
     "emulation"),
    ({"stage": "setup", "type": "TypeError", "message": "got an unexpected keyword argument 'model_config'"},
     "emulation"),
    ({"stage": "build", "type": "TypeError", "message": "unsupported operand"}, "emulation"),
    ({"stage": "build", "type": "RuntimeError", "message": "CUDA runtime error (deep_gemm jit device)"}, "emulation"),
    ({"stage": "build", "type": "RuntimeError", "message": "Found no NVIDIA driver on your system."}, "emulation"),
    ({"stage": "build", "type": "RuntimeError", "message": "FlashInfer FP8 GEMM requested via "
      "--fp8-gemm-backend=flashinfer_trtllm, but FlashInfer is not available or not supported on this hardware."},
     "rejection"),
    ({"stage": "server_args", "type": "ValueError", "message": "The repository /tmp/q contains custom code which "
      "must be executed"}, "emulation"),
    ({"stage": "build", "type": "NotImplementedError", "message": "Cannot copy out of meta tensor"}, "emulation"),
])
def test_only_what_sglang_raises_on_purpose_is_a_rejection(error, kind):
    assert sglang_tables.error_kind(error) == kind


@pytest.mark.parametrize("path", TABLES, ids=[p.stem for p in TABLES])
def test_committed_table_matches_the_grid_and_classifier(path):
    table = json.loads(path.read_text())
    assert table["release"] == path.stem
    assert table["generated_by"] == f"python -m tools.engine_oracle sglang {path.stem}"
    by_id = {q.id: q for q in sglang_grid.queries()} | {q.id: q for q in sglang_grid.queries(control=True)}
    for entry in table["entries"]:
        query = by_id[entry["grid"]]
        assert entry["shape"] == tables.classify(query.config), entry["grid"]
        assert entry["flags"] == list(query.flags) and entry["env"] == dict(query.env)


def test_fake_nvidia_smi_answers_the_emulated_device(capsys, monkeypatch):
    import importlib
    import sys

    monkeypatch.setenv("ORACLE_DEVICE", json.dumps(DEVICES["12.1"]))
    monkeypatch.syspath_prepend(str(Path(sglang_grid.__file__).parent / "inside"))
    sys.modules.pop("fake_nvidia_smi", None)
    fake_nvidia_smi = importlib.import_module("fake_nvidia_smi")
    assert fake_nvidia_smi.main(["--query-gpu=memory.total,compute_cap,driver_version",
                                 "--format=csv,noheader,nounits"]) == 0
    memory, capability, driver = capsys.readouterr().out.strip().split(", ")
    assert (int(memory), capability) == (DEVICES["12.1"]["memory_bytes"] // 2**20, "12.1") and driver
    assert fake_nvidia_smi.main(["topo", "-m"]) == 9
