"""Properties (hypothesis), SGLang's memory arithmetic, safetensors headers, the hub's degraded path, CLI."""

import json
import struct
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from doctor.engines.sglang import memory
from doctor.engines.sglang.memory import SGLangMemory, load_extra_pieces
from doctor.errors import InputError
from doctor.hardware import load_profile
from doctor.plan import kv, safetensors
from doctor.plan.arch import model_pieces
from doctor.plan.layouts import Layout, communication
from doctor.plan.planner import PlanRequest, plan_layout
from doctor.plan.weights import rank_weights, weight_source
from doctor.probe.model import load_model
from tests.conftest import cli_env
from tests.schemas import validate

GiB = 1 << 30
MODELS = ["moonshotai/Kimi-K2.5", "zai-org/GLM-4.7-FP8", "deepseek-ai/DeepSeek-V3", "Qwen/Qwen3-30B-A3B",
          "meta-llama/Llama-3.1-8B-Instruct", "openai/gpt-oss-20b"]
LOADED = {m: load_model(m, {}, offline=True) for m in MODELS}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from([1, 2, 4, 8]), st.sampled_from([1, 2, 4]),
       st.sampled_from([1, 2, 3, 4]))
def test_more_gpus_never_increase_per_gpu_weights(model_id, tp, factor, pp):
    model = LOADED[model_id]
    pieces = list(weight_source(model).pieces) + load_extra_pieces(model)

    def largest(t, p):
        return max(r.bytes for r in rank_weights(pieces, model, t, p))

    assert largest(tp * factor, pp) <= largest(tp, pp)
    assert largest(tp, pp + 1) <= largest(tp, pp)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(MODELS), st.sampled_from([1, 2, 4, 8]), st.integers(1, 200 * GiB),
       st.sampled_from([1, 16, 64]))
def test_fp8_kv_holds_twice_the_tokens_of_bf16(model_id, tp, budget, page):
    model = LOADED[model_id]
    bf16 = kv.tokens_for_bytes(budget, kv.kv_shape(model, tp, 0, model.num_layers, "bf16"), page)
    fp8 = kv.tokens_for_bytes(budget, kv.kv_shape(model, tp, 0, model.num_layers, "fp8_e4m3"), page)
    # two roundings down to the page, and for hybrid sliding-window models a third after scaling to the
    # full-attention layers' share (layers / (0.8 x SWA + full) ~ 1.1): the slack is up to three pages
    slack = 3 * page if kv.kv_shape(model, tp, 0, model.num_layers, "bf16").swa_layers else 2 * page
    assert 2 * bf16 <= fp8 <= 2 * bf16 + slack


def test_mla_kv_is_not_divided_by_tp_but_gqa_replicates_past_kv_heads():
    k25, llama = LOADED["moonshotai/Kimi-K2.5"], LOADED["meta-llama/Llama-3.1-8B-Instruct"]
    assert kv.cell_bytes(k25, 1, 61, "bf16") == kv.cell_bytes(k25, 8, 61, "bf16") == 70_272
    assert kv.cell_bytes(llama, 8, 32, "bf16") == kv.cell_bytes(llama, 16, 32, "bf16") == 256 * 32 * 2
    assert kv.cell_bytes(llama, 2, 32, "bf16") == 4 * 256 * 32 * 2
    assert kv.cell_bytes(k25, 8, 61, "fp4_e2m1") == 576 * 61 // 2 + 36 * 61


def test_sglang_058_defaults_for_a_96gb_card():
    d = memory.memory_defaults("0.5.8", 97887, tp=8, pp=1)
    assert (d.chunked_prefill_size, d.cuda_graph_max_bs, d.reserved_mib) == (8192, 512, 14848)
    assert d.mem_fraction_static == pytest.approx(0.848)
    five090 = memory.memory_defaults("0.5.8", 32607, tp=1, pp=1)
    assert (five090.chunked_prefill_size, five090.cuda_graph_max_bs) == (2048, 24)
    # Kimi K2.5's MoonViT (27 layers, 1152 wide) takes SGLang's VLM factor 0.95 x 0.958
    assert memory.vlm_factor(27, 1152) == pytest.approx(0.9097, abs=1e-4)


def test_pp_stages_follow_get_pp_indices():
    from doctor.plan.weights import pp_layers

    assert [pp_layers(61, 2, s) for s in range(2)] == [(0, 30), (30, 61)]
    assert [pp_layers(92, 3, s) for s in range(3)] == [(0, 30), (30, 61), (61, 92)]


def test_topology_paths_on_the_field_rig():
    facts = load_profile("rtx-pro-6000-x8")
    assert communication(facts, Layout(2, 4)).tp_link == "PIX"
    assert communication(facts, Layout(2, 4)).custom_all_reduce is True
    assert communication(facts, Layout(4, 2)).tp_link == "NODE"
    tp8 = communication(facts, Layout(8, 1))
    assert tp8.tp_link == "SYS" and tp8.custom_all_reduce is False
    assert "all-to-all" in " ".join(communication(facts, Layout(8, 1, 8)).reasons)


def _write_safetensors(path, tensors):
    header = {name: {"dtype": dtype, "shape": shape, "data_offsets": [0, 0]}
              for name, (dtype, shape) in tensors.items()}
    header["__metadata__"] = {"format": "pt"}
    raw = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(raw)) + raw)


def test_header_parser_and_pieces_from_a_local_checkpoint(tmp_path):
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
              "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
              "intermediate_size": 128, "torch_dtype": "bfloat16"}
    (tmp_path / "config.json").write_text(json.dumps(config))
    tensors = {"model.embed_tokens.weight": ("BF16", [128, 64]), "lm_head.weight": ("BF16", [128, 64]),
               "model.norm.weight": ("BF16", [64])}
    for i in range(2):
        p = f"model.layers.{i}."
        shapes = {"self_attn.q_proj": [64, 64], "self_attn.k_proj": [32, 64], "self_attn.v_proj": [32, 64],
                  "self_attn.o_proj": [64, 64], "mlp.gate_proj": [128, 64], "mlp.up_proj": [128, 64],
                  "mlp.down_proj": [64, 128], "input_layernorm": [64]}
        tensors.update({f"{p}{name}.weight": ("BF16", shape) for name, shape in shapes.items()})
    _write_safetensors(tmp_path / "model-00001-of-00001.safetensors", tensors)
    model = load_model(str(tmp_path), {}, offline=True)
    pieces, kind = safetensors.checkpoint_pieces(model, {}, offline=True)
    assert kind == "safetensors-local"
    header_total = sum(p.nbytes for p in pieces)
    assert header_total == sum(safetensors.tensor_bytes(v) for v in safetensors.read_header(
        tmp_path / "model-00001-of-00001.safetensors").values())
    # header and config agree tensor for tensor except the post-attention norm the fake file leaves out
    assert header_total == sum(p.nbytes for p in model_pieces(model)) - 2 * 64 * 2
    tp2 = rank_weights(pieces, model, 2, 1)[0]
    assert tp2.by_kind["attention"] == 2 * (64 * 64 * 2 * 2 // 2 + 2 * 32 * 64 * 2 // 2)


@pytest.mark.parametrize("payload", [b"", struct.pack("<Q", 1 << 40), struct.pack("<Q", 4) + b"[1]x",
                                     struct.pack("<Q", 30) + b'{"w": {"dtype": "X9", "shape": [1]}}'])
def test_corrupt_headers_are_one_input_error(tmp_path, payload):
    path = tmp_path / "bad.safetensors"
    path.write_bytes(payload)
    with pytest.raises(InputError):
        safetensors.read_header(path)


def test_hub_headers_degrade_cleanly(monkeypatch, tmp_path):
    import huggingface_hub

    def unreachable(*args, **kwargs):
        raise OSError("network is unreachable")

    import doctor.probe.model

    monkeypatch.setattr(huggingface_hub, "get_safetensors_metadata", unreachable)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    env = {"SM120_DOCTOR_CACHE": str(tmp_path), "HF_ENDPOINT": "http://127.0.0.1:9"}
    tensors, why = safetensors.hub_tensors("org/model", env, offline=False)  # the connect fails at once
    assert tensors is None and "hub unreachable (cannot connect to 127.0.0.1:9" in why
    monkeypatch.setattr(doctor.probe.model, "hub_unreachable", lambda environ: None)  # the hub answers badly
    tensors, why = safetensors.hub_tensors("org/model", env, offline=False)
    assert tensors is None and "hub unreachable" in why and "OSError" in why
    tensors, why = safetensors.hub_tensors("org/model", env, offline=True)
    assert tensors is None and "offline" in why
    cache = tmp_path / "safetensors" / "org--model.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps({"model.embed_tokens.weight": {"dtype": "BF16", "shape": [10, 4]}}))
    tensors, why = safetensors.hub_tensors("org/model", env, offline=True)
    assert why == "cache" and tensors == {"model.embed_tokens.weight": ("BF16", (10, 4))}


def test_bundled_models_never_ask_the_hub_for_headers():
    pieces, why = safetensors.checkpoint_pieces(LOADED["moonshotai/Kimi-K2.5"], {}, offline=False)
    assert pieces is None and "bundled" in why


def test_user_flags_change_the_plan():
    facts, model = load_profile("rtx-pro-6000-x8"), LOADED["zai-org/GLM-4.7-FP8"]
    base = plan_layout(facts, model, Layout(8, 1), PlanRequest(SGLangMemory("0.5.8")))
    fp8 = plan_layout(facts, model, Layout(8, 1), PlanRequest(SGLangMemory("0.5.8"), kv_cache_dtype="fp8_e4m3"))
    lower = plan_layout(facts, model, Layout(8, 1), PlanRequest(SGLangMemory("0.5.8", mem_fraction_static=0.7)))
    assert fp8.kv_bytes_per_token * 2 == base.kv_bytes_per_token
    assert lower.kv_capacity_tokens < base.kv_capacity_tokens
    assert "--kv-cache-dtype" in fp8.flags and "--mem-fraction-static" in lower.flags


def run(*args):
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True,
                          env=cli_env(), timeout=120)


def test_cli_plan_json_lists_plans_best_first():
    result = run("plan", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8",
                 "--format", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    first = doc["layouts"][0]
    for key in ("tp", "pp", "ep", "fits", "weights_per_gpu_bytes", "kv_bytes_per_token", "kv_capacity_tokens",
                "flags", "reasons"):
        assert key in first
    assert first["fits"] and first["flags"][:2] == ["--tp-size", "8"]


def test_cli_plan_no_fit_gives_the_arithmetic():
    result = run("plan", "nvidia/Kimi-K2.6-NVFP4", "--hardware", "rtx-pro-6000-ws-x4", "--format", "json")
    doc = json.loads(result.stdout)
    assert not any(p["fits"] for p in doc["layouts"])
    assert doc["advice"]["min_gpus"]["gpus"] > 4 and doc["advice"]["max_routed_experts"] < 384


@pytest.mark.parametrize("args", [["--tp", "0"], ["--mem-fraction-static", "1.5"], ["--kv-cache-dtype", "int3"],
                                  ["--hardware", "no-such-rig"]])
def test_cli_plan_bad_input_is_one_line_exit_2(args):
    result = run("plan", "zai-org/GLM-4.7-FP8", *(["--hardware", "rtx-pro-6000-x8"] if "--hardware" not in args
                                                  else []), *args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


def test_check_fires_mem001_and_validates_against_the_schema():
    result = run("check", "zai-org/GLM-4.7", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8",
                 "--format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    validate("report", report)
    ids = [f["id"] for f in report["findings"]]
    assert "MEM001" in ids and ids[0] == "MEM001"
    assert report["analysis"]["plan"]["requested"]["fits"] is False


def test_check_tp_flag_reaches_the_plan():
    result = run("check", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--format", "json", "--",
                 "--tp-size", "7")
    report = json.loads(result.stdout)
    assert "MEM003" in [f["id"] for f in report["findings"]]


def _tiny_checkpoint(folder, shards):
    """A 2-layer Llama config, its tensors split over `shards` files named in an index; returns the total."""
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 64,
              "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
              "intermediate_size": 128, "torch_dtype": "bfloat16"}
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    tensors = {f"model.layers.{i}.mlp.{name}.weight": ("BF16", [128, 64]) for i in range(2) for name in ("gate", "up")}
    names = [f"model-{k + 1:05d}-of-{shards:05d}.safetensors" for k in range(shards)]
    weight_map = {t: names[i % shards] for i, t in enumerate(tensors)}
    for name in names:
        _write_safetensors(folder / name, {t: v for t, v in tensors.items() if weight_map[t] == name})
    total = sum(safetensors.tensor_bytes(v) for v in tensors.values())
    index = {"metadata": {"total_size": total * 7}, "weight_map": weight_map}  # a size the config cannot give
    (folder / safetensors.INDEX).write_text(json.dumps(index))
    return total


def test_a_partial_download_falls_back_to_the_index_total(tmp_path):
    from doctor.plan.summary import source_for

    total = _tiny_checkpoint(tmp_path, 2)
    (tmp_path / "model-00002-of-00002.safetensors").unlink()
    model = load_model(str(tmp_path), {}, offline=True)
    assert safetensors.checkpoint_pieces(model, {}, offline=True) == (None, "no local shards")
    source = source_for(build_facts(model), {}, offline=True)
    assert source.kind == "config-scaled" and source.checkpoint_bytes == total * 7
    assert "metadata.total_size" in source.notes[0]


def test_shards_in_the_hugging_face_cache_are_read(tmp_path):
    repo = tmp_path / "hub" / "models--org--tiny"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("abc123")
    total = _tiny_checkpoint(repo / "snapshots" / "abc123", 2)
    model = load_model("org/tiny", {"HF_HUB_CACHE": str(tmp_path / "hub")}, offline=True)
    assert model.source == "hf-cache"
    pieces, kind = safetensors.checkpoint_pieces(model, {}, offline=True)
    assert kind == "safetensors-hf-cache" and sum(p.nbytes for p in pieces) == total


def build_facts(model):
    from doctor.hardware import load_profile

    return load_profile("rtx-5090").replace(model=model)
