"""The -hf estimate for the 2026 architectures (doctor/probe/gguf_arch.py, gguf_quant_mix.py) and llama.cpp's plan
for them: against published GGUF figures (tests/cases/sizing/gguf_published.json, table in
bench/RESULTS-gguf-estimate.md) within the bounds measured there, and the fit verdict on real card profiles on
both sides of each boundary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.bench_gguf_estimate import estimated, rows
from doctor.cli import main
from doctor.errors import InputError
from doctor.probe.gguf import read_gguf
from doctor.probe.model import load_model

PUBLISHED = {(r["spec"], r["kind"]): r for r in rows()}


def _gguf(spec: str):
    return read_gguf(load_model(spec, {}, offline=True).source_path)


def _error(spec: str, kind: str) -> float:
    row = PUBLISHED[(spec, kind)]
    return abs(estimated(row) / row["value"] - 1)


def _within_stated_digits(spec: str, kind: str) -> bool:
    row = PUBLISHED[(spec, kind)]
    return abs(estimated(row) - row["value"]) <= row["precision"]


@pytest.mark.parametrize("spec", ["unsloth/Qwen3.5-35B-A3B-GGUF:Q8_0", "unsloth/Qwen3.5-27B-GGUF:Q8_0",
                                  "unsloth/Qwen3.5-122B-A10B-GGUF:Q8_0", "unsloth/Qwen3.5-397B-A17B-GGUF:Q8_0",
                                  "unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M",
                                  "ggml-org/gpt-oss-120b-GGUF:MXFP4", "ggml-org/gpt-oss-20b-GGUF:MXFP4"])
def test_stock_mixes_match_the_published_file_size(spec):
    """llama-quantize's own mix (ported): measured within 0.2 % (stated to 0.05 GB / 0.005 GiB)."""
    assert _error(spec, "file") < 0.002


def test_the_stock_q4_k_m_mix_is_llama_quantizes_tensor_for_tensor():
    """llama.cpp#17067: Qwen3-Coder-30B-A3B Q4_K_M holds f32 241, q4_K 289, q6_K 49 tensors."""
    assert _gguf("unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M").type_counts == {"Q4_K": 289, "F32": 241,
                                                                                      "Q6_K": 49}


@pytest.mark.parametrize("spec", ["unsloth/Qwen3.5-35B-A3B-GGUF:UD-Q4_K_XL", "unsloth/Qwen3.5-27B-GGUF:UD-Q4_K_XL",
                                  "unsloth/Qwen3.5-122B-A10B-GGUF:UD-Q4_K_XL",
                                  "unsloth/Qwen3.5-397B-A17B-GGUF:UD-Q4_K_XL",
                                  "unsloth/Qwen3.5-35B-A3B-GGUF:UD-IQ4_XS", "unsloth/Qwen3-30B-A3B-GGUF:UD-Q3_K_XL"])
def test_unsloth_dynamic_mixes_stay_within_the_measured_ten_percent(spec):
    """UD- files override types per tensor; the base file type's mix lands within 4.7-9.8 % of them."""
    assert PUBLISHED[(spec, "file")]["recipe"] == "unsloth-dynamic"
    assert _error(spec, "file") < 0.10


@pytest.mark.parametrize(("spec", "count"), [("unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q4_K_XL", 733),
                                             ("unsloth/GLM-4.7-Flash-GGUF:BF16", 844),
                                             ("unsloth/gemma-4-26B-A4B-it-GGUF:Q2_K", 658),
                                             ("unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:Q4_K_M", 579)])
def test_the_tensor_table_has_the_converters_tensors(spec, count):
    assert len(_gguf(spec).tensors) == count == PUBLISHED[(spec, "tensors")]["value"]


def test_load_log_buffers_of_qwen36_27b():
    """guardkit's Spark log: CPU model buffer 682.03 MiB (token_embd), CUDA0 15345.66 MiB (an Unsloth mix: -1.7 %);
    llama.cpp#23792: the recurrent state of 48 Gated DeltaNet layers x 3 sequences is 448.88 MiB."""
    spec = "unsloth/Qwen3.6-27B-GGUF:Q4_K_M"
    assert _within_stated_digits(spec, "cpu_weights")
    assert _error(spec, "gpu_weights") < 0.02
    assert _within_stated_digits(spec, "recurrent")


def test_gpt_oss_experts_stay_mxfp4_at_every_quant_tag():
    """Requantizing MXFP4 needs --allow-requantize (llama-quant.cpp:1306): published gpt-oss GGUFs keep them."""
    gguf = _gguf("unsloth/gpt-oss-20b-GGUF:Q4_K_M")
    experts = {t.type for t in gguf.tensors if "_exps.weight" in t.name}
    assert experts == {"MXFP4"} and abs(gguf.tensor_bytes / 11.6e9 - 1) < 0.01


def test_mla_keys_are_the_converters():
    """ik_llama.cpp#1173 (GLM-4.7-Flash GGUF): key_length 576, value_length 512, *_mla 256."""
    meta = _gguf("unsloth/GLM-4.7-Flash-GGUF:Q4_K_M").metadata
    assert (meta["deepseek2.attention.key_length"], meta["deepseek2.attention.value_length"],
            meta["deepseek2.attention.key_length_mla"], meta["deepseek2.attention.value_length_mla"]) == (
        576, 512, 256, 256)


def test_an_architecture_without_a_writer_is_still_one_clear_line():
    with pytest.raises(InputError, match="does not estimate a GGUF of deepseek_v4"):
        load_model("unsloth/DeepSeek-V4-Flash-GGUF:Q4_K_M", {}, offline=True)


def _plan(capsys: pytest.CaptureFixture[str], hardware: str, spec: str, *flags: str) -> tuple[dict, set[str]]:
    code = main(["check", "--offline", "--format", "json", "--hardware", hardware, "--engine", "llama.cpp==b11434",
                 "--", "-hf", spec, *flags])
    out = capsys.readouterr().out
    assert code in (0, 1), out
    report = json.loads(out)
    return report["analyses"][0]["plan"], {f["id"] for f in report["findings"]}


# (profile, -hf spec, largest -c that fits with -np 1, a -c just past it); the boundaries come from the estimate
# (weights + KV of the attention layers + recurrent state + compute + llama.cpp's 1 GiB --fit margin)
BOUNDARIES = [
    ("rtx-5080", "unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q3_K_S", 22528, 24576),
    ("rtx-5090", "unsloth/Qwen3.6-27B-GGUF:Q4_K_M", 249856, 262144),
    ("rtx-5080", "unsloth/gpt-oss-20b-GGUF:Q4_K_M", 172032, 180224),
    ("rtx-5090", "unsloth/GLM-4.7-Flash-GGUF:Q4_K_M", 270336, 278528),
    ("rtx-pro-6000", "ggml-org/gpt-oss-120b-GGUF:MXFP4", 1036288, 1044480),
]


@pytest.mark.parametrize(("hardware", "spec", "inside", "outside"), BOUNDARIES)
def test_hf_plans_fit_just_inside_and_not_just_outside(capsys, hardware, spec, inside, outside):
    plan, findings = _plan(capsys, hardware, spec, "-c", str(inside), "-np", "1")
    assert plan["requested"]["fits"] is True and "LCPP010" not in findings
    assert any("estimate" in note for note in plan["notes"])
    plan, findings = _plan(capsys, hardware, spec, "-c", str(outside), "-np", "1")
    assert plan["requested"]["fits"] is False and "LCPP010" in findings


def test_the_issue_launch_does_not_fit_a_5080_at_the_trained_context(capsys):
    """The task's example: Qwen3.6-35B-A3B UD-Q3_K_S at its 262,144-token default on an RTX 5080 needs the experts of
    some layers on the CPU; the hybrid's KV is in its 10 attention layers only (20,480 B/token at f16)."""
    plan, findings = _plan(capsys, "rtx-5080", "unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q3_K_S")
    assert plan["requested"]["kv_bytes_per_token"] == 10 * 2 * 2 * 256 * 2
    assert plan["requested"]["fits"] is False and plan["best"]["n_cpu_moe"] > 0 and "LCPP010" in findings
    device = plan["requested"]["devices"][1]
    assert device["recurrent_bytes"] == 30 * 4 * (3 * (4096 + 2 * 16 * 128) + 128 * 4096) * 4  # 4 server slots


def test_the_same_gemma4_launch_fits_a_5090_not_a_5080(capsys):
    spec = "unsloth/gemma-4-26B-A4B-it-GGUF:Q4_K_M"
    plan, _ = _plan(capsys, "rtx-5090", spec, "-c", "32768")
    assert plan["requested"]["fits"] is True
    plan, findings = _plan(capsys, "rtx-5080", spec, "-c", "32768")
    assert plan["requested"]["fits"] is False and "LCPP010" in findings


def test_a_spark_holds_qwen35_122b_q4_k_m_and_deepseek_v3_q2_k_needs_offload(capsys):
    plan, _ = _plan(capsys, "dgx-spark", "unsloth/Qwen3.5-122B-A10B-GGUF:Q4_K_M", "-c", "32768")
    assert plan["requested"]["fits"] is True
    plan, findings = _plan(capsys, "dgx-spark", "unsloth/DeepSeek-V3-GGUF:Q2_K", "-c", "32768")
    assert plan["requested"]["fits"] is False and "LCPP010" in findings


def test_ollama_uses_the_same_plan(capsys):
    code = main(["check", "--offline", "--format", "json", "--hardware", "rtx-5080", "--engine", "ollama",
                 "unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q3_K_S"])
    report = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    plan = report["analyses"][0]["plan"]["requested"]
    assert plan["kv_bytes_per_token"] == 20480 and plan["devices"][1]["recurrent_bytes"] > 0


def test_published_rows_name_public_sources():
    assert all(r["source"].startswith("https://") for r in rows())
    assert Path(__file__).resolve().parents[1].joinpath("cases", "sizing", "gguf_published.json").is_file()


def test_a_shortfall_inside_the_estimates_error_is_a_warning_not_an_error(capsys):
    """-ngl 99 (no --fit): just past the boundary the 35B-A3B UD-Q3_K_S estimate is short by less than 10 % of its
    weights (LCPP080 warns, LCPP009 stays silent); at the trained context it is short by far more (LCPP009)."""
    spec = "unsloth/Qwen3.6-35B-A3B-GGUF:UD-Q3_K_S"
    plan, findings = _plan(capsys, "rtx-5080", spec, "-c", "24576", "-np", "1", "-ngl", "99")
    assert plan["requested"]["estimate_uncertain"] is True and "LCPP080" in findings and "LCPP009" not in findings
    plan, findings = _plan(capsys, "rtx-5080", spec, "-c", "262144", "-np", "1", "-ngl", "99")
    assert plan["requested"]["estimate_uncertain"] is False and "LCPP009" in findings and "LCPP080" not in findings
    plan, findings = _plan(capsys, "rtx-5080", spec, "-c", "4096", "-np", "1", "-ngl", "99")  # kaiwu#10's OOM
    assert plan["requested"]["fits"] is True and "LCPP080" in findings and "LCPP009" not in findings
    plan, findings = _plan(capsys, "rtx-5090", spec, "-c", "4096", "-np", "1", "-ngl", "99")
    assert plan["requested"]["estimate_uncertain"] is False and not {"LCPP009", "LCPP080"} & findings


def _usage(spec: str, **options):
    from doctor.engines.llama_cpp.memory import usage
    from doctor.engines.llama_cpp.options import ALL, LlamaOptions

    return usage(_gguf(spec), LlamaOptions(n_gpu_layers=ALL, **options), [1 << 44])


def test_dsa_models_cache_the_latent_and_the_indexer_key():
    """llama_kv_cache_dsa: 576 latent+rope elements and one 128-element indexer key per token per layer at f16; GLM-5.2
    carries an indexer in its `indexer_types` 'full' layers only."""
    assert _usage("unsloth/GLM-5.1-GGUF:Q4_K_M", ctx_size=4096).kv_bytes_per_token == 78 * (576 + 128) * 2
    glm52 = _gguf("unsloth/GLM-5.2-GGUF:Q4_K_M")
    full = sum(glm52.metadata["glm-dsa.attention.indexer.types"])
    assert 0 < full < 78
    assert _usage("unsloth/GLM-5.2-GGUF:Q4_K_M", ctx_size=4096).kv_bytes_per_token == (78 * 576 + full * 128) * 2
    assert _usage("unsloth/DeepSeek-V3.2-GGUF:Q4_K_M", ctx_size=4096).kv_bytes_per_token == 61 * (576 + 128) * 2


def test_nemotron_h_keeps_kv_in_its_attention_layers_and_mamba_state_in_its_mamba_layers():
    """Nemotron-3-Nano: pattern MEMEM*E...: 6 attention layers (2 KV heads x 128), 23 Mamba-2 layers of conv
    3 x (4096 + 2 x 8 x 128) + SSM 128 x 4096 F32 per sequence, MoE layers none."""
    use = _usage("unsloth/Nemotron-3-Nano-30B-A3B-GGUF:Q4_K_M", ctx_size=4096, parallel=2)
    assert use.kv_bytes_per_token == 6 * 2 * (2 * 128) * 2
    assert use.devices["CUDA0"].recurrent == 23 * 2 * 4 * (3 * (4096 + 2 * 8 * 128) + 128 * 4096)


def test_llama4_chunked_layers_hold_the_chunk_not_the_context():
    """models/llama4.cpp: no window key in the file, so chunked attention of 8192 in 3 of every 4 layers."""
    use = _usage("unsloth/Llama-4-Scout-17B-16E-Instruct-GGUF:Q4_K_M", ctx_size=131072, parallel=1)
    row = 2 * 8 * 128 * 2
    assert use.devices["CUDA0"].kv == 12 * row * 131072 + 36 * row * (8192 + 512)
