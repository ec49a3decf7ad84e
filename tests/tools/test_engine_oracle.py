"""The engine oracle's offline parts without an engine: the stub driver's source, the grid's configs (each a
distinct shape class, read by the doctor's own config reader), and the committed tables agreeing with both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doctor.engines.vllm import derived
from doctor.engines.vllm.shape_class import shape_key
from tools.engine_oracle import grid, tables
from tools.engine_oracle.stub_libcuda import DRIVER_SYMBOL, c_source

TABLES = sorted((Path(__file__).resolve().parents[2] / "doctor" / "data" / "derived" / "vllm").glob("*.json"))


def test_stub_source_exports_each_driver_symbol_failing_with_no_device():
    source = c_source({"cuInit", "cuGetProcAddress_v2"})
    assert "int cuInit(void) { return 100; }" in source
    assert "int cuGetProcAddress_v2(void) { return 100; }" in source


def test_symbol_scan_takes_undefined_driver_symbols_only():
    assert DRIVER_SYMBOL.match("                 U cuLaunchKernel").group(1) == "cuLaunchKernel"
    assert DRIVER_SYMBOL.match("                 U cudaMalloc") is None  # the runtime, not the driver
    assert DRIVER_SYMBOL.match("0000000000001234 T cuInit") is None  # defined, not imported


def test_every_grid_shape_is_its_own_shape_class():
    keys = {}
    for shape in grid.shapes():
        for quant, drafter in [(q, None) for q in shape.all_quants] + [(q, "mtp") for q in shape.vllm_drafters]:
            key = (shape_key(tables.classify(grid.with_quant(shape.config, quant), drafter)), shape.tp)
            assert key not in keys, (shape.name, quant, keys.get(key))
            keys[key] = (shape.name, quant)


def test_grid_formats_reach_the_doctors_scheme():
    llama = next(s for s in grid.shapes() if s.name == "gqa-h128-dense")
    schemes = {q: tables.classify(grid.with_quant(llama.config, q))["quant"] for q in llama.quants}
    assert schemes == {"bf16": "bf16", "fp8-tensor": "fp8-tensor", "fp8-block": "fp8-block", "nvfp4": "nvfp4",
                       "awq": "awq", "gptq": "gptq"}


@pytest.mark.parametrize("path", TABLES, ids=[p.stem for p in TABLES])
def test_committed_table_matches_the_grid_and_classifier(path):
    table = json.loads(path.read_text())
    assert table["release"] == path.stem and table["generated_by"].endswith(path.stem)
    by_id = {q.id: q for q in grid.queries()} | {q.id: q for q in grid.queries(control=True)}
    for entry in table["entries"]:
        query = by_id[entry["grid"]]
        assert entry["shape"] == tables.classify(query.config, query.drafter), entry["grid"]
        assert entry["flags"] == list(query.flags)


def test_emulation_artefacts_are_not_rejections():
    assert tables.error_kind({"type": "ValueError", "message": "Selected backend FLASHMLA is not valid"}) == \
        "rejection"
    assert tables.error_kind({"type": "RuntimeError", "message": "Tensor.item() cannot be called on meta "
                              "tensors"}) == "emulation"
    assert tables.error_kind({"type": "ValueError", "message": "Cannot copy out of meta tensor"}) == "emulation"


def test_tabulated_releases_are_the_committed_files():
    assert derived.tabulated() == tuple(sorted((p.stem for p in TABLES), key=lambda r: tuple(map(int, r.split(".")))))


def _record_installs(monkeypatch, tmp_path, uv: str | None) -> list[list[str]]:
    from tools.engine_oracle import environment
    calls: list[list[str]] = []
    monkeypatch.setattr(environment, "find_uv", lambda: uv)
    monkeypatch.setattr(environment.subprocess, "run", lambda command, **kwargs: calls.append(list(command)))
    monkeypatch.setattr(environment, "build_stub", lambda *args: None)
    monkeypatch.setattr(environment, "DEFAULT_CACHE", tmp_path)
    monkeypatch.delenv("UV_CACHE_DIR", raising=False)
    (tmp_path / "envs" / "vllm-0.32.0" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    environment.ensure_env("vllm", "0.32.0", cache=tmp_path)
    return calls


def test_install_uses_uv_with_hardlinks_from_the_shared_cache_when_found(monkeypatch, tmp_path):
    calls = _record_installs(monkeypatch, tmp_path, "/opt/uv")
    assert calls[0][:2] == ["/opt/uv", "venv"]
    assert calls[1][:3] == ["/opt/uv", "pip", "install"] and calls[1][-1] == "vllm==0.32.0"
    assert "--link-mode" in calls[1] and calls[1][calls[1].index("--link-mode") + 1] == "hardlink"
    record = json.loads((tmp_path / "envs" / "vllm-0.32.0" / "install.json").read_text())
    assert record["installer"] == "uv"


def test_install_falls_back_to_pip_without_uv(monkeypatch, tmp_path):
    calls = _record_installs(monkeypatch, tmp_path, None)
    assert calls[0][1:3] == ["-m", "venv"] and calls[1][1:4] == ["-m", "pip", "install"]
    assert json.loads((tmp_path / "envs" / "vllm-0.32.0" / "install.json").read_text())["installer"] == "pip"


def test_a_patch_release_with_its_own_table_is_read_from_it(monkeypatch):
    from packaging.version import Version
    monkeypatch.setattr(derived, "tabulated", lambda: ("0.15.0", "0.15.1", "0.27.1"))
    assert derived.table_release(Version("0.15.0")) == "0.15.0"
    assert derived.table_release(Version("0.15.1")) == "0.15.1"
    assert derived.table_release(Version("0.15.2")) == "0.15.1"  # the newest patch not newer than it
    assert derived.table_release(Version("0.27.0")) == "0.27.1"  # only a later patch is tabulated: its minor's
    assert derived.table_release(Version("0.16.0")) is None


def test_stub_error_text_calls_fill_their_out_parameter():
    source = c_source({"cuInit"})
    assert 'int cuGetErrorString(int error, const char **text) { if (text) *text = "CUDA_ERROR_NO_DEVICE' in source
    assert "int cuGetErrorName(int error, const char **text)" in source


def _nvfp4_moe_record(log: list[str]) -> dict:
    return {"layers": [{"layer": "FusedMoE", "first": "model.layers.0.mlp.experts", "count": 2,
                        "quant_method": "ModelOptNvFp4FusedMoE"}],
            "log": [{"logger": "vllm.model_executor.layers.quantization.modelopt", "level": "INFO", "msg": m}
                    for m in log]}


@pytest.mark.parametrize(("line", "backend"), [
    ("Using Cutlass for ModelOptNvFp4FusedMoE.", "CUTLASS"),                      # vLLM 0.13.0, 12.0
    ("Using Marlin for ModelOptNvFp4FusedMoE.", "MARLIN"),                        # vLLM 0.13.0, 9.0
    ("Using FlashInfer CUTLASS kernels for ModelOptNvFp4FusedMoE.", "FLASHINFER_CUTLASS"),
])
def test_an_nvfp4_moe_choice_without_a_backend_enum_is_read_from_its_log_line(line, backend):
    moe = tables._moe(_nvfp4_moe_record(["Enabled separate cuda stream for MoE shared_experts", line]))
    assert (moe["backend"], moe["backend_from"]) == (backend, "log")


def test_a_logged_choice_of_another_moe_method_is_not_taken():
    moe = tables._moe(_nvfp4_moe_record(["Using Cutlass for CompressedTensorsW4A4Nvfp4MoEMethod.",
                                         "Using flashinfer-cutlass for NVFP4 GEMM"]))
    assert moe["backend"] is None and "backend_from" not in moe


def test_releases_before_vllm_0_12_keep_transformers_4_which_they_were_built_against():
    from tools.engine_oracle.environment import constraints_for
    assert "transformers<5" in constraints_for("vllm", "0.11.0")
    assert "transformers<5" in constraints_for("vllm", "0.10.1.1")
    assert "transformers<5" not in constraints_for("vllm", "0.12.0")   # its own requirement says <5
    assert "transformers<5" not in constraints_for("sglang", "0.5.8")
    assert "cuda-python>=12.8" in constraints_for("vllm", "0.33.0")


def test_vllm_0_9_keeps_a_transformers_without_its_own_aimv2_config():
    from tools.engine_oracle.environment import constraints_for
    assert "transformers<4.54" in constraints_for("vllm", "0.9.2")
    assert "transformers<4.54" not in constraints_for("vllm", "0.10.0")


def test_stub_also_exports_the_driver_calls_of_tritons_runtime_compiled_launcher(tmp_path):
    """Triton compiles backends/nvidia/driver.c on first use and loads it against the stub: its calls are in no
    shipped shared object (Triton 3.6's cuCtxSetLimit failed vLLM 0.17.0's Qwen3-Next inspection)."""
    from tools.engine_oracle.stub_libcuda import runtime_compiled_driver_calls
    nvidia = tmp_path / "triton" / "backends" / "nvidia"
    nvidia.mkdir(parents=True)
    (nvidia / "driver.c").write_text("typedef CUresult (*cuTensorMapEncodeTiled_t)(void);\n"
                                     "CUDA_CHECK(cuCtxSetLimit(CU_LIMIT_STACK_SIZE, 0));\n"
                                     "CUresult r = cuModuleGetFunction (&fun, mod, name); /* cuInit */\n")
    assert runtime_compiled_driver_calls(tmp_path) == {"cuCtxSetLimit", "cuModuleGetFunction"}
    assert runtime_compiled_driver_calls(tmp_path / "elsewhere") == set()


def test_a_yanked_exact_pin_is_restated_for_its_own_release_only():
    from tools.engine_oracle.environment import constraints_for
    assert "transformers==4.57.0" in constraints_for("sglang", "0.5.3")
    assert not any(c.startswith("transformers==") for c in constraints_for("sglang", "0.5.2"))
    assert not any(c.startswith("transformers==") for c in constraints_for("sglang", "0.5.3.post1"))
    assert not any(c.startswith("transformers==") for c in constraints_for("vllm", "0.5.3"))


def test_a_pin_pypi_no_longer_has_is_overridden_with_its_nearest_version_and_recorded(tmp_path):
    from tools.engine_oracle import stand_ins
    overrides = stand_ins.overrides_file("sglang", "0.5.4", tmp_path)
    assert overrides is not None and overrides.read_text().split() == ["apache-tvm-ffi==0.1.0"]
    assert stand_ins.overrides_file("sglang", "0.5.5", tmp_path) is None
    record = stand_ins.substituted("sglang", "0.5.4", {"apache-tvm-ffi": "0.1.0"})["apache-tvm-ffi"]
    assert record["pinned"] == "0.1.0b15" and record["version"] == "0.1.0"
    assert stand_ins.substituted("sglang", "0.5.3", {}) == {}
