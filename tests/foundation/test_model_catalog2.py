"""The 2026 configs bundled by the catalog2 task (bench/RESULTS-catalog2.md): each resolves offline with its own
quantization, and sizes where the source states the checkpoint's bytes."""

import contextlib
import io
import json

import pytest

from doctor.cli import main
from doctor.probe.model import bundled_models, load_model
from doctor.probe.quant_formats import group_modules

NEW = ("Qwen/Qwen3.8-27B", "RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8", "deepseek-ai/DeepSeek-V4-Flash-0731",
       "moonshotai/Kimi-K2.6", "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", "MiniMaxAI/MiniMax-M3-MXFP8")


def _check(model_id: str, hardware: str = "rtx-5090") -> tuple[int, dict]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            code = main(["check", model_id, "--offline", "--hardware", hardware, "--format", "json"])
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, json.loads(out.getvalue()) if code in (0, 1) else {}


@pytest.mark.parametrize("model_id", NEW)
def test_new_config_is_bundled_and_checks_offline(model_id):
    assert model_id in bundled_models()
    code, report = _check(model_id)
    assert code in (0, 1)
    assert report["analysis"]["plan"]["requested"]["weights_per_gpu_gib"] > 0


@pytest.mark.parametrize(("model_id", "method", "scheme", "experts"), [
    ("RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8", "compressed-tensors", "fp8-block", "nvfp4"),
    ("deepseek-ai/DeepSeek-V4-Flash-0731", "fp8", "fp8-block", None),
    ("moonshotai/Kimi-K2.6", "compressed-tensors", "int4-w4a16", None),
    ("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4", "modelopt", "nvfp4", None),
    ("Qwen/Qwen3.8-27B", None, "bf16", None),
    ("MiniMaxAI/MiniMax-M3-MXFP8", "mxfp8", "mxfp8", None),
])
def test_quantization_is_read_from_the_bundled_files(model_id, method, scheme, experts):
    q = load_model(model_id, {}).quantization
    assert (q.method, q.scheme) == (method, scheme)
    if experts:
        assert {m.module: m.scheme for m in q.modules}["routed_experts"] == experts


def test_kimi_k26_size_matches_the_checkpoint():
    # model_inspector.py's report of the downloaded checkpoint: 554.27 GB of tensors (GiB, as its other reports)
    _, report = _check("moonshotai/Kimi-K2.6")
    assert abs(report["analysis"]["plan"]["requested"]["weights_per_gpu_gib"] - 554.27) / 554.27 < 0.005


def test_deepseek_v4_names_route_config_groups_to_their_modules():
    groups = {"attn": {"targets": ["re:.*attn.*(fused_wqa_wkv|wq_b|wo_a|wo_b)$"],
                       "weights": {"num_bits": 8, "type": "float", "strategy": "block", "block_structure": [128, 128]}},
              "ffn": {"targets": ["re:.*ffn.*(gate|up|down)_proj$"],
                      "weights": {"num_bits": 4, "type": "float", "strategy": "tensor_group", "group_size": 16}}}

    def scheme_of(group):
        return ("fp8-block", 8, None, (128, 128)) if group["weights"]["num_bits"] == 8 else ("nvfp4", 4, 16, None)

    kinds = {m.module: m.scheme for m in group_modules(groups, scheme_of, ())}
    assert kinds["attention"] == "fp8-block"
    assert kinds["routed_experts"] == kinds["shared_experts"] == "nvfp4"
    assert kinds["dense_mlp"] == kinds["lm_head"] == "none"  # `mlp.gate_proj` and lm_head are not `ffn`/`attn`


def test_deepseek_v4_aliases_do_not_widen_llama_style_targets():
    # a target for Llama-style names (`self_attn`, `mlp.experts`) still misses nothing and adds nothing
    groups = {"g": {"targets": ["re:.*self_attn.*"], "weights": {"num_bits": 8}}}
    kinds = {m.module: m.scheme for m in group_modules(groups, lambda g: ("fp8-tensor", 8, None, None), ())}
    assert kinds["attention"] == "fp8-tensor"
    assert kinds["routed_experts"] == kinds["shared_experts"] == "none"


def test_redhat_nvfp4_experts_size_below_the_mxfp4_original_plus_nvfp4_scales():
    # NVFP4 (4 bits + an FP8 scale per 16) stores experts a little larger than MXFP4 (a UE8M0 scale per 32):
    # the RedHat export must land just above deepseek-ai's MXFP4 release, far from its 541 GiB BF16-experts misread
    _, redhat = _check("RedHatAI/DeepSeek-V4-Flash-NVFP4-FP8")
    _, mxfp4 = _check("deepseek-ai/DeepSeek-V4-Flash")
    ours = redhat["analysis"]["plan"]["requested"]["weights_per_gpu_gib"]
    base = mxfp4["analysis"]["plan"]["requested"]["weights_per_gpu_gib"]
    assert base < ours < base * 1.1


def test_mxfp8_checkpoint_sizes_near_its_tensor_table_not_as_bf16():
    # the report's tensor table: 413.27 GiB; read as BF16 (quant_method mxfp8 unknown) it was 834 GiB. The doctor
    # lands 4.8 % above (432.94): it does not read moe_layer_freq (MODEL001 says so), so the 3 dense layers are
    # sized as 128-expert MoE layers, 3 x 128 x 3 x 3072 x 6144 x 33/32 B - 0.6 GiB of dense MLP = 20.2 GiB
    _, report = _check("MiniMaxAI/MiniMax-M3-MXFP8")
    gib = report["analysis"]["plan"]["requested"]["weights_per_gpu_gib"]
    assert 413.27 <= gib < 413.27 * 1.06


def test_mxfp8_reads_ignored_layers():
    from doctor.probe.quant import normalise_quantization

    q = normalise_quantization({"quantization_config": {"quant_method": "mxfp8", "weight_block_size": [1, 32],
                                                        "ignored_layers": ["lm_head"]}}, None, "bfloat16")
    assert (q.scheme, q.bits, q.group_size) == ("mxfp8", 8, 32)
    assert "lm_head" not in q.quantized and "routed_experts" in q.quantized


def test_ranking_lists_unbundled_ids_only_and_reads_no_sealed_set():
    from tools import rank_unbundled_models as rank

    rows = {model_id: count for model_id, count, _ in rank.ranking(include_bundled=False)}
    assert "zai-org/GLM-5.3-Flash" in rows and "Qwen/Qwen3.8-27B" not in rows
    assert "nvidia/NVFP4" not in rows and not any("GGUF" in model_id for model_id in rows)
    assert rank.HELDOUT == ("heldout", "heldout2", "heldout3", "heldout4")
