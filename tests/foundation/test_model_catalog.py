"""The bundled model configs (doctor/data/models): index, folders, provenance rows and the offline check."""

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from doctor.cli import main
from doctor.errors import InputError
from doctor.probe.model import bundled_models, load_model
from doctor.probe.model_config import parse_model
from tools import bundle_models

BUNDLE = Path(__file__).resolve().parents[2] / "doctor" / "data" / "models"
PROVENANCE = (BUNDLE / "PROVENANCE.md").read_text(encoding="utf-8")


def test_index_matches_the_folders():
    index = bundled_models()
    folders = {p.name for p in BUNDLE.iterdir() if p.is_dir()}
    assert {entry["dir"] for entry in index.values()} == folders
    for model_id, entry in index.items():
        assert entry["dir"] == model_id.replace("/", "--")
        assert (BUNDLE / entry["dir"] / "config.json").is_file()


def test_every_bundled_file_has_a_provenance_row():
    rows = set(re.findall(r"^\| ([^|]+?/[^|]+?\.json) \|", PROVENANCE, flags=re.M))
    files = {f"{p.parent.name}/{p.name}" for p in BUNDLE.glob("*/*") if p.is_file()}
    assert files <= rows, sorted(files - rows)


def test_manifest_files_index_and_generated_table_agree():
    assert bundle_models.main(["--check"]) == 0


def test_catalog_holds_the_most_served_families():
    index = bundled_models()
    assert len(index) >= 60
    for model_id in ("Qwen/Qwen3-8B", "Qwen/Qwen3-1.7B", "zai-org/GLM-4.7-Flash",
                     "Qwen/Qwen3-Coder-30B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct",
                     "nvidia/Qwen3.6-35B-A3B-NVFP4", "deepseek-ai/DeepSeek-V4-Flash",
                     "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "MiniMaxAI/MiniMax-M2.7"):
        assert model_id in index


def _check_exit(model_id: str) -> int:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            return main(["check", model_id, "--offline", "--hardware", "rtx-5090", "--format", "json"])
        except SystemExit as exc:  # argparse or an input error
            return int(exc.code or 0)


def test_every_bundled_model_checks_offline_without_an_input_error():
    failed = {model_id: code for model_id in bundled_models() if (code := _check_exit(model_id)) not in (0, 1)}
    assert not failed


@pytest.mark.parametrize(("model_id", "scheme"), [
    ("nvidia/Qwen3-30B-A3B-NVFP4", "nvfp4"),  # config.json + ModelOpt hf_quant_config.json
    ("Qwen/Qwen3-30B-A3B-FP8", "fp8-block"),  # quantization_config inside config.json
    ("nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8", "fp8"),
])
def test_quantized_variants_resolve_with_their_quantization(model_id, scheme):
    model = load_model(model_id, {})
    assert model.source == "bundled" and model.quantization.scheme.startswith(scheme)


def test_checkpoint_sizes_of_raw_dumps_match_the_plan():
    # model_inspector.py's reports (the dumps' source) state the tensor bytes: Qwen3-14B 27.51, QwQ-32B 61.03,
    # Qwen3-30B-A3B-Instruct-2507 56.87, Qwen2.5-72B-Instruct 135.43 GiB
    for model_id, gib in (("Qwen/Qwen3-14B", 27.51), ("Qwen/QwQ-32B", 61.03),
                          ("Qwen/Qwen3-30B-A3B-Instruct-2507", 56.87), ("Qwen/Qwen2.5-72B-Instruct", 135.43)):
        plan = json.loads(_check_json(model_id))["analysis"]["plan"]["requested"]
        assert abs(plan["weights_per_gpu_gib"] - gib) / gib < 0.005, model_id


def _check_json(model_id: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        main(["check", model_id, "--offline", "--hardware", "rtx-5090", "--format", "json"])
    return out.getvalue()


NEMOTRON_H = {"architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 64,
              "vocab_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
              "intermediate_size": 128, "layers_block_type": ["mamba", "moe", "attention", "moe"]}


def test_nemotron_h_without_a_layer_count_takes_the_block_list():
    assert parse_model(NEMOTRON_H, None, model_id="t/t", source="local", source_path=None).num_layers == 4


def test_an_explicit_layer_count_still_wins_and_no_count_at_all_is_an_input_error():
    explicit = dict(NEMOTRON_H, num_hidden_layers=4)
    assert parse_model(explicit, None, model_id="t/t", source="local", source_path=None).num_layers == 4
    bare = {k: v for k, v in NEMOTRON_H.items() if k != "layers_block_type"}
    with pytest.raises(InputError, match="num_hidden_layers"):
        parse_model(bare, None, model_id="t/t", source="local", source_path=None)


def test_mentions_count_whole_names_only():
    texts = [bundle_models._normal(t) for t in ("served Qwen3-8B-FP8 on a 5090", "Qwen3-8B0 is not a model",
                                                 "qwen3_8b in a path", "Qwen3-80B")]
    assert bundle_models.mentions("Qwen/Qwen3-8B", texts) == 2
