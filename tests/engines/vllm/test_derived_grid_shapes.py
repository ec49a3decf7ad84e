"""The shapes added to vLLM's oracle grid (tools/engine_oracle/grid.py `new_shapes`) at check time: a model with
the feature maps to its own class (global head size 512, latent MoE, an MTP drafter), that class reads its own
table entry, and a class no table holds is "not derived", never matched to a neighbour."""

from __future__ import annotations

import json

from packaging.version import Version

from doctor.engines.run import EngineRun
from doctor.engines.vllm import derived
from doctor.engines.vllm.launch import parse_launch
from doctor.engines.vllm.shape_class import shape_class, shape_key
from tests.rules.builders import build

GEMMA4 = "tests/knowngood/models/google--gemma-4-26B-A4B"
NEMOTRON_SUPER = "tests/knowngood/models/nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
NEMOTRON_NANO = "tests/knowngood/models/nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
DSV3, LLAMA = "deepseek-ai/DeepSeek-V3", "meta-llama/Llama-3.1-8B-Instruct"
MTP = json.dumps({"method": "mtp", "num_speculative_tokens": 1})
NEWEST = "0.33.0"


def run_for(model: str, version: str = NEWEST, *args: str, profile: str = "rtx-pro-6000-x8") -> EngineRun:
    facts = build(profile, model, (f"vllm=={version}",))
    return EngineRun(facts, facts.libraries["vllm"], Version(version), parse_launch(list(args)))


def key(model: str) -> str:
    facts = build("rtx-pro-6000-x8", model)
    assert facts.model is not None
    return shape_key(shape_class(facts.model))


def test_the_new_features_are_classes_of_their_own():
    assert key(GEMMA4) == "gqa/h256/g512/sliding_window/moe/bf16"
    assert key(NEMOTRON_SUPER) == "gqa/h128/mamba/latent-moe/nvfp4"
    assert key(NEMOTRON_NANO) == "gqa/h128/mamba/moe/bf16"
    # models without them keep the class the tables were keyed on before
    assert key(LLAMA) == "gqa/h128/bf16"
    assert key(DSV3) == "mla/h192/moe/fp8-block"


def test_gemma4_reads_its_own_entry_on_12x_and_on_the_controls():
    view = derived.view(run_for(GEMMA4))
    assert view["status"] == "derived", view
    assert view["grid"] == "gqa-h256-g512-swa-moe:bf16"
    assert view["attention"] == "TRITON_ATTN"
    hopper = derived.view(run_for(GEMMA4, profile="h100-sxm-x8"))
    assert hopper["status"] == "derived" and hopper["capability"] == "9.0"


def test_nemotron3_super_reads_the_latent_moe_entry():
    view = derived.view(run_for(NEMOTRON_SUPER))
    assert view["status"] == "derived", view
    assert view["grid"] == "gqa-h128-mamba-latent-moe:nvfp4"


def test_a_class_no_table_holds_is_not_derived():
    # Gemma 4 with a KV format the grid does not ask for it, and a shape on a capability whose control subset
    # never asks it (Nemotron 3 Nano on 9.0)
    nvfp4_kv = derived.view(run_for(GEMMA4, NEWEST, "--kv-cache-dtype", "nvfp4"))
    assert nvfp4_kv["status"] == "not_derived"
    assert "gqa/h256/g512/sliding_window/moe/bf16" in nvfp4_kv["why"] and "not in the grid" in nvfp4_kv["why"]
    hopper = derived.view(run_for(NEMOTRON_NANO, profile="h100-sxm-x8"))
    assert hopper["status"] == "not_derived" and "not in the grid" in hopper["why"]


def test_the_mtp_drafter_reads_its_own_entry():
    view = derived.view(run_for(DSV3, NEWEST, "--speculative-config", MTP))
    drafter = view["drafter"]
    assert drafter["status"] == "derived", drafter
    assert drafter["architecture"] == "DeepSeekMTPModel"
    assert drafter["shape"] == "mla/h192/moe/drafter-mtp/fp8-block"
    assert view["status"] == "derived" and view["grid"] == "mla-moe:native"  # the target keeps its entry


def test_a_drafter_the_grid_does_not_build_is_not_derived():
    named = derived.view(run_for(DSV3, NEWEST, "--speculative-config", json.dumps({"method": "deepseek_mtp"})))
    assert named["drafter"]["status"] == "not_derived" and "not deepseek_mtp" in named["drafter"]["why"]
    dense = derived.view(run_for(LLAMA, NEWEST, "--speculative-config", MTP))["drafter"]
    assert dense["status"] == "not_derived" and "gqa/h128/drafter-mtp/bf16" in dense["why"]
    assert derived.view(run_for(DSV3))["drafter"] is None  # no speculative config: no drafter
    eagle = json.dumps({"method": "eagle3", "model": "x"})
    assert derived.view(run_for(DSV3, NEWEST, "--speculative-config", eagle))["drafter"] is None


GPT_OSS = "openai/gpt-oss-20b"


def test_a_tensor_parallel_run_reads_rank_0_of_its_own_tp_size():
    tp2 = derived.view(run_for(GPT_OSS, NEWEST, "--tensor-parallel-size", "2"))
    assert tp2["status"] == "derived" and tp2["tp"] == 2 and tp2["grid"] == "gqa-h64-swa-sinks-moe-tp2:native"
    # a TP size the grid does not ask reads the one-rank entry, as before the TP queries, and says so
    tp4 = derived.view(run_for(GPT_OSS, NEWEST, "--tensor-parallel-size", "4"))
    assert tp4["status"] == "derived" and tp4["tp"] == 1 and tp4["grid"] == "gqa-h64-swa-sinks-moe:native"
    one = derived.view(run_for(GPT_OSS))
    assert one["tp"] == 1 and one["grid"] == "gqa-h64-swa-sinks-moe:native"


def test_text_only_serving_of_a_multimodal_model_is_not_derived():
    # the grid asks Gemma 4 as it ships (multimodal: vLLM's mm-prefix attention on, FLASHINFER refused for it);
    # served text-only vLLM turns mm-prefix off, so those entries do not hold
    for args in (("--language-model-only",), ("--limit-mm-per-prompt", '{"image": 0, "audio": 0}'),
                 ("--limit-mm-per-prompt={\"image\":0}",)):
        view = derived.view(run_for(GEMMA4, NEWEST, "--attention-backend", "FLASHINFER", *args))
        assert view["status"] == "not_derived" and "text-only" in view["why"], args
    some_images = derived.view(run_for(GEMMA4, NEWEST, "--limit-mm-per-prompt", '{"image": 1, "audio": 0}'))
    assert some_images["status"] == "derived"
    assert derived.view(run_for(LLAMA, NEWEST, "--language-model-only"))["status"] == "derived"  # no vision tower


def test_a_drafter_under_a_forced_moe_backend_is_not_derived():
    # the drafter inherits --moe-backend (from 0.19.0) or takes the speculative config's own; the grid asks
    # drafters with vLLM's own MoE choice only
    inherited = derived.view(run_for(DSV3, NEWEST, "--speculative-config", MTP, "--moe-backend", "triton"))
    assert inherited["drafter"]["status"] == "not_derived" and "--moe-backend triton" in inherited["drafter"]["why"]
    own = json.dumps({"method": "mtp", "num_speculative_tokens": 1, "moe_backend": "marlin"})
    assert derived.view(run_for(DSV3, NEWEST, "--speculative-config", own))["drafter"]["status"] == "not_derived"
