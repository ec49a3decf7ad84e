"""DeepSeek sparse attention is read from the config's `index_topk` (DeepSeek-V3.2 is DeepSeek-V3's config plus
the indexer fields `index_topk`, `index_n_heads`, `index_head_dim`): sparse for V3.2, dense for V3."""

from __future__ import annotations

import json
from pathlib import Path

from doctor.probe.model_config import parse_model

V3 = json.loads((Path(__file__).resolve().parents[2] / "doctor/data/models/deepseek-ai--DeepSeek-V3/config.json")
                .read_text(encoding="utf-8"))


def parse(config):
    return parse_model(config, None, model_id="t", source="test", source_path=None)


def test_index_topk_marks_sparse_mla():
    v32 = {**V3, "architectures": ["DeepseekV32ForCausalLM"], "model_type": "deepseek_v32",
           "index_topk": 2048, "index_n_heads": 64, "index_head_dim": 128}
    attention = parse(v32).attention
    assert attention.kind == "mla" and attention.sparse


def test_dense_mla_is_not_sparse():
    attention = parse(V3).attention
    assert attention.kind == "mla" and not attention.sparse
