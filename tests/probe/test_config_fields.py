"""Fields of a config.json that the model reader does not use and that could change sizes are named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doctor.probe.model import bundled_models, load_model
from doctor.probe.model_config import parse_model

BASE = {"architectures": ["X"], "model_type": "x", "hidden_size": 1024, "num_hidden_layers": 8,
        "num_attention_heads": 8, "vocab_size": 1000, "torch_dtype": "bfloat16"}


# The bundle holds public copies of configs whose fields the reader does not all model yet (MODEL001 says so at
# check time). Which ones, per model, is recorded: a config not listed must be read whole, and a listed one must
# leave exactly these unread, so reading a new field (or losing one) shows up here.
UNREAD = json.loads((Path(__file__).with_name("bundled_unread_fields.json")).read_text(encoding="utf-8"))


@pytest.mark.parametrize("model_id", sorted(bundled_models()))
def test_every_bundled_config_is_read_whole_or_its_gaps_are_recorded(model_id):
    assert list(load_model(model_id, {}, offline=True).unread_fields) == UNREAD.get(model_id, [])


def test_recorded_gaps_name_bundled_models_only():
    assert set(UNREAD) <= set(bundled_models())


def test_unknown_shape_fields_are_named_and_routine_ones_are_not():
    config = {**BASE, "num_kv_shared_layers": 4, "ssm_state_size": 128, "rope_theta": 1e6, "bos_token_id": 1,
              "hidden_act": "silu", "use_sliding_window": True, "decoder_sparse_step": 1}
    model = parse_model(config, None, model_id="t", source="local", source_path=None)
    assert model.unread_fields == ("num_kv_shared_layers", "ssm_state_size", "use_sliding_window=True")


def test_fields_inside_text_config_are_the_ones_tracked():
    config = {"architectures": ["Y"], "model_type": "y", "text_config": {**BASE, "altup_num_inputs": 4},
              "vision_config": {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2}}
    model = parse_model(config, None, model_id="t", source="local", source_path=None)
    assert model.unread_fields == ()  # altup_num_inputs names no shape the patterns know
    config["text_config"]["per_layer_input_dim"] = 256
    assert parse_model(config, None, model_id="t", source="local", source_path=None).unread_fields == (
        "per_layer_input_dim",)
