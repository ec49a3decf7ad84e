import json
import shutil
from pathlib import Path

import pytest

from doctor.errors import InputError
from doctor.probe.model import bundled_models, find_config, load_model
from doctor.probe.quant import is_ignored

BUNDLED = Path(__file__).resolve().parents[2] / "doctor" / "data" / "models"


def test_every_bundled_config_parses():
    for model_id in bundled_models():
        model = load_model(model_id, {})
        assert model.source == "bundled" and model.num_layers > 0


def test_kimi_k25_nested_text_config():
    m = load_model("moonshotai/Kimi-K2.5", {})
    assert m.architecture == "KimiK25ForConditionalGeneration" and m.family == "deepseek_v3"
    att = m.attention
    assert (att.kind, att.kv_lora_rank, att.qk_rope_head_dim) == ("mla", 512, 64)
    assert (att.head_dim, att.v_head_dim) == (192, 128)
    assert (m.moe.routed_experts, m.moe.top_k, m.moe.shared_experts, m.moe.first_dense_layers) == (384, 8, 1, 1)
    q = m.quantization
    assert (q.scheme, q.method, q.bits) == ("int4-w4a16", "compressed-tensors", 4)
    assert q.quantized == ("routed_experts",)  # attention, shared experts, dense MLP and lm_head stay bf16
    assert m.vision is not None and m.vision.head_dim == 72
    assert m.dtype == "bfloat16"


@pytest.mark.parametrize(("model_id", "scheme", "detail"), [
    ("deepseek-ai/DeepSeek-V3", "fp8-block", (128, 128)),
    ("Qwen/Qwen3-235B-A22B-FP8", "fp8-block", (128, 128)),
    ("openai/gpt-oss-20b", "mxfp4", None),
    ("meta-llama/Llama-3.1-8B-Instruct", "bf16", None),
    ("zai-org/GLM-4.7-FP8", "fp8-channel", None),
    ("nvidia/Kimi-K2.6-NVFP4", "nvfp4", None),
])
def test_quantization_schemes(model_id, scheme, detail):
    q = load_model(model_id, {}).quantization
    assert q.scheme == scheme
    if detail:
        assert q.block_shape == detail


def test_modelopt_hf_quant_config_wins_and_sets_fp8_kv():
    q = load_model("nvidia/Kimi-K2.6-NVFP4", {}).quantization
    assert q.source == "hf_quant_config.json" and q.kv_cache_dtype == "fp8_e4m3" and q.group_size == 16
    assert q.quantized == ("routed_experts",)


def test_gpt_oss_attention_sinks_and_sliding_window():
    att = load_model("openai/gpt-oss-120b", {}).attention
    assert att.sinks and att.sliding_window == 128 and att.sliding_window_layers == 18
    assert (att.kind, att.num_heads, att.num_kv_heads, att.head_dim) == ("gqa", 64, 8, 64)


def test_reconstructed_configs_are_marked():
    assert load_model("zai-org/GLM-4.7-FP8", {}).reconstructed
    assert not load_model("moonshotai/Kimi-K2.5", {}).reconstructed


def test_local_directory_wins_over_bundle(tmp_path):
    folder = tmp_path / "my-llama"
    shutil.copytree(BUNDLED / "meta-llama--Llama-3.1-8B-Instruct", folder)
    m = load_model(str(folder), {})
    assert m.source == "local" and m.source_path == str(folder)


def test_hf_cache_is_used_before_the_bundle(tmp_path):
    hub = tmp_path / "hf" / "hub" / "models--moonshotai--Kimi-K2.5"
    snap = hub / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    shutil.copy(BUNDLED / "moonshotai--Kimi-K2.5" / "config.json", snap / "config.json")
    (hub / "refs").mkdir()
    (hub / "refs" / "main").write_text("abc123")
    files = find_config("moonshotai/Kimi-K2.5", {"HF_HUB_OFFLINE": "1", "HF_HOME": str(tmp_path / "hf")})
    assert files.source == "hf-cache" and files.path == str(snap)
    files = find_config("moonshotai/Kimi-K2.5", {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path / "hf" / "hub")})
    assert files.source == "hf-cache"


def test_cache_layout_matches_huggingface_hub(tmp_path):
    """Our direct read of the cache agrees with huggingface-hub's own lookup."""
    import subprocess
    import sys

    snap = tmp_path / "hub" / "models--org--m" / "snapshots" / "c0ffee"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text("{}")
    (tmp_path / "hub" / "models--org--m" / "refs").mkdir()
    (tmp_path / "hub" / "models--org--m" / "refs" / "main").write_text("c0ffee")
    code = "from huggingface_hub import try_to_load_from_cache as t; print(t('org/m', 'config.json'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"HF_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}, timeout=60)
    assert out.stdout.strip() == str(snap / "config.json")


def test_offline_unknown_model_says_where_it_looked():
    with pytest.raises(InputError) as err:
        find_config("someone/unknown-model", {"HF_HUB_OFFLINE": "1"})
    text = str(err.value)
    assert "not in the Hugging Face cache" in text and "offline" in text and "not bundled" in text


@pytest.mark.parametrize("spec", ["../no/such/dir", "/definitely/not/here", "not a model id"])
def test_bad_specs(spec):
    with pytest.raises(InputError):
        find_config(spec, {"HF_HUB_OFFLINE": "1"})


def test_huge_config_is_refused(tmp_path):
    (tmp_path / "config.json").write_text(" " * (17 << 20))
    with pytest.raises(InputError, match="at most"):
        load_model(str(tmp_path), {})


def test_deeply_nested_json_is_one_error(tmp_path):
    (tmp_path / "config.json").write_text("[" * 100000 + "]" * 100000)
    with pytest.raises(InputError):
        load_model(str(tmp_path), {})


def test_ignore_patterns():
    assert is_ignored("model.layers.5.self_attn.q_proj", ("re:.*self_attn.*",))
    assert is_ignored("model.layers.5.self_attn.q_proj", ("language_model.model.layers.*.self_attn*",))
    assert not is_ignored("model.layers.5.mlp.experts.7.gate_proj", ("re:.*self_attn.*", "lm_head"))
    assert is_ignored("lm_head", ("lm_head",))


def test_kv_heads_above_heads_rejected(tmp_path):
    cfg = json.loads((BUNDLED / "meta-llama--Llama-3.1-8B-Instruct" / "config.json").read_text())
    cfg["num_key_value_heads"] = 64
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(InputError, match="num_key_value_heads"):
        load_model(str(tmp_path), {})
