"""The stops classifier (tools/engine_oracle/stops.py), the wheel reader (release_facts.py), the pinned rerun's
naming (environment.py) and the verdict check reads (doctor/engines/vllm/dependency.py), on real shapes of what
they read: a vLLM METADATA with markers, the tables' own error records, the probe answers stops.json holds."""

from __future__ import annotations

import json
import zipfile

from doctor.engines.vllm.dependency import verdict
from tools.engine_oracle import environment, release_facts, stops

METADATA = """Metadata-Version: 2.4
Name: vllm
Version: 0.27.1
Requires-Dist: regex
Requires-Dist: transformers>=5.5.3
Requires-Dist: tokenizers>=0.21.1
Requires-Dist: torch==2.13.0
Requires-Dist: flashinfer-python==0.6.16.post3
Requires-Dist: nvidia-cutlass-dsl[cu13]==4.6.0
Requires-Dist: mistral_common[audio]; extra == "audio"
Requires-Dist: xformers==0.0.33; platform_system == "Linux" and platform_machine == "x86_64"
"""


def test_requires_reads_unconditional_lines_only():
    assert release_facts.requires(METADATA) == {
        "transformers": ">=5.5.3", "tokenizers": ">=0.21.1", "torch": "==2.13.0",
        "flashinfer-python": "==0.6.16.post3", "nvidia-cutlass-dsl": "==4.6.0"}


def test_registered_config_types_and_exist_ok(tmp_path):
    wheel = tmp_path / "vllm-0.9.2-cp38-abi3-manylinux1_x86_64.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("vllm/transformers_utils/configs/ovis.py",
                         'AutoConfig.register("aimv2", AIMv2Config)\n'
                         'AutoConfig.register("siglip_visual_tokenizer", SiglipVisualTokenizerConfig, exist_ok=True)\n')
        archive.writestr("vllm/other.py", "x = 1\n")
    with zipfile.ZipFile(wheel) as archive:
        found = release_facts.registered_config_types(archive, "vllm")
    assert found == {"aimv2": {"file": "vllm/transformers_utils/configs/ovis.py", "exist_ok": False},
                     "siglip_visual_tokenizer": {"file": "vllm/transformers_utils/configs/ovis.py", "exist_ok": True}}


AMBIGUOUS = {"stage": "config", "type": "AmbiguousGlobalPerLayerAttributeError", "kind": "emulation",
             "message": "'head_dim' is a per-layer attribute and may vary across layers. Access it via the "
                        "individual layer configs instead", "where": "vllm/config/model.py:1"}
UNKNOWN_NEMOTRON = {"stage": "config", "type": "ValidationError", "kind": "emulation",
                    "message": "1 validation error for ModelConfig\n  Value error, The checkpoint you are trying to "
                               "load has model type `nemotron_h` but Transformers does not recognize this "
                               "architecture."}
STUB = {"stage": "build", "type": "RuntimeError", "kind": "emulation",
        "message": "Found no NVIDIA driver on your system."}


def _probe(version, loads=True, head_dim=None, shape="gqa-h256-g512-swa-moe"):
    reads = {} if head_dim is None else {"head_dim": head_dim}
    return {"package": "transformers", "version": version, "shape": shape, "loads": loads, "reads": reads}


FACTS = {"probes": [_probe("5.14.1", head_dim={"value": "256"}),
                    _probe("5.15.0", head_dim={"type": "AmbiguousGlobalPerLayerAttributeError", "message": "x"}),
                    _probe("5.24.0", head_dim={"type": "AmbiguousGlobalPerLayerAttributeError", "message": "x"})],
         "releases": {"vllm": {"0.27.1": {"registry": {"Gemma4ForConditionalGeneration": True}},
                               "0.18.0": {"registry": {"Gemma4ForConditionalGeneration": False}}}}}
GEMMA4_ENTRY = {"grid_shape": "gqa-h256-g512-swa-moe", "capability": "12.0"}


def test_a_stop_the_dependency_reproduces_alone_is_a_dependency_stop():
    cls, why = stops.classify("vllm", "0.27.1", GEMMA4_ENTRY, AMBIGUOUS, FACTS)
    assert cls == "dependency" and "5.24.0 (resolved)" in why


def test_a_release_whose_registry_lacks_the_architecture_is_unsupported():
    assert stops.classify("vllm", "0.18.0", GEMMA4_ENTRY, AMBIGUOUS, FACTS)[0] == "unsupported"


def test_without_a_probe_that_passes_it_stays_undetermined():
    facts = {**FACTS, "probes": FACTS["probes"][1:]}
    assert stops.classify("vllm", "0.27.1", GEMMA4_ENTRY, AMBIGUOUS, facts)[0] == "undetermined"


def test_the_grid_s_dropped_remote_code_and_the_stub_are_emulation():
    entry = {"grid_shape": "gqa-h128-mamba-moe", "capability": "12.0"}
    assert stops.classify("vllm", "0.20.0", entry, UNKNOWN_NEMOTRON, {})[0] == "emulation"
    assert stops.classify("sglang", "0.5.3", entry, STUB, {}) == ("emulation", "the stub driver")


def test_the_pydantic_wrapper_is_dropped_from_the_first_line():
    assert stops._first_line(UNKNOWN_NEMOTRON["message"]).startswith("The checkpoint you are trying to load")


def test_a_pinned_rerun_has_a_venv_and_a_constraint_of_its_own(tmp_path):
    pins = ("transformers==5.14.1",)
    assert environment.pins_suffix(pins) == "+transformers-5.14.1"
    env = environment.EngineEnv("vllm", "0.27.1", tmp_path, pins)
    lines = environment.constraints_file(env).read_text().split()
    assert "transformers==5.14.1" in lines and "cuda-python>=12.8" in lines


ROW = {"class": "dependency", "failing": ["5.15.0", "5.20.2", "5.24.0"], "passing": ["5.5.0", "5.8.1", "5.14.1"],
       "pin": "5.14.1"}


def test_verdict_brackets_the_stated_version_between_probes():
    assert verdict(ROW, "5.15.0") == "fails"
    assert verdict(ROW, "5.18.0") == "fails"
    assert verdict(ROW, "5.14.1") == "passes"
    assert verdict(ROW, "5.10.1") == "passes"
    assert verdict(ROW, "5.25.0") == "unknown"  # above the newest probe: not established
    assert verdict(ROW, None) == "unknown"
    assert verdict({**ROW, "pin": None}, None) == "none_admitted"


def test_the_shipped_rows_hold_what_check_reads():
    data = json.loads(stops.STOPS.read_text(encoding="utf-8"))
    assert {row["class"] for row in data["stops"]} <= set(data["classes"])
    for row in data["dependency"]:
        assert row["class"] in ("dependency", "unsupported") and row["architecture"] and row["exception"]
        if row["class"] == "dependency" and row["release"] == row["table_release"]:
            assert row["resolved"] in row["failing"] and row["passing"], row["release"]
    for row in data["import"]:
        assert row["failing"] and row["model_type"] and row["file"].endswith(".py")
