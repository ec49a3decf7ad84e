"""LMDeploy for sm120-doctor, written against doctor.engines.spi only: `lmdeploy serve api_server MODEL`,
its flags per release (flags.json, generated from LMDeploy's source at the tags by tools/lmdeploy_flags.py),
its free-fraction KV cache (`--cache-max-entry-count`) and the rules in rules/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from doctor.engines.spi import (
    Engine,
    EngineRun,
    Flag,
    FlagTable,
    FreeFractionMemory,
    GiB,
    Launcher,
    LayoutFlags,
    MemoryModel,
)

DATA = json.loads(Path(__file__).with_name("flags.json").read_text(encoding="utf-8"))
# The flags whose values the doctor reads, by the canonical Launch.values key each sets (docs/PLUGINS.md).
KEYS = {"--tp": "tp", "--dp": "dp", "--ep": "ep", "--session-len": "context_length", "--backend": "backend",
        "--quant-policy": "kv_cache_dtype", "--cache-max-entry-count": "cache_max_entry_count",
        "--cache-block-seq-len": "page_size", "--max-batch-size": "max_batch_size"}
# --quant-policy (lmdeploy/messages.py QuantPolicy; names accepted from 0.16.0) → the planner's KV dtype.
# TurboQuant (42) has no planner dtype: the key stays unset and the plan uses the model's dtype.
KV_POLICY = {"0": "auto", "none": "auto", "4": "int4", "int4": "int4", "8": "int8", "int8": "int8",
             "16": "fp8_e4m3", "fp8": "fp8_e4m3", "fp8_e4m3": "fp8_e4m3", "17": "fp8_e5m2", "fp8_e5m2": "fp8_e5m2"}
TYPES = {"int": int, "float": float, "str": str}
# Defaults of every release here (lmdeploy/cli/utils.py; lmdeploy/utils.py get_max_batch_size: 128 on GPUs
# outside its A100/H100/H200 table, as every RTX and RTX PRO card is).
FRACTION, BLOCK_LEN, MAX_BATCH = 0.8, 64, 128
RUNTIME_RESERVE = 1 * GiB  # an assumption, not a measurement: CUDA context, NCCL, activations
# TurboMind stores an fp16 scale and zero per token, head and K/V beside int8/int4 KV
# (src/turbomind/kernels/attention/block.h: token_param_size = t_bits * 2 / 8).
TURBOMIND_KV_PARAMS = {"int8": 4, "int4": 4}
# Architectures whose TurboMind support is_supported() decides from more than the architecture name
# (lmdeploy/turbomind/supported_models.py); Qwen2 and Llama need head_dim 64 or 128.
SPECIAL = {"BaichuanForCausalLM", "ChatGLMModel", "ChatGLMForConditionalGeneration", "InternVLChatModel",
           "LlavaForConditionalGeneration", "InternVLForConditionalGeneration", "MolmoForCausalLM",
           "DeepseekV2ForCausalLM", "Glm4MoeLiteForCausalLM"}
HEAD_DIM_CHECKED = {"Qwen2ForCausalLM", "LlamaForCausalLM"}


def _flag(raw: dict[str, Any]) -> Flag:
    key = KEYS.get(raw["name"])
    return Flag(name=raw["name"], key=key, switch=raw["switch"], kind=TYPES[raw["type"]],
                choices=tuple(raw.get("choices", ())), values=KV_POLICY if key == "kv_cache_dtype" else {},
                aliases=tuple(raw["aliases"]), many=raw["many"])


FLAGS = FlagTable({r: tuple(_flag(f) for f in flags) for r, flags in DATA["releases"].items()})


class LMDeploy(Engine):
    name = "lmdeploy"
    display_name = "LMDeploy"
    package = "lmdeploy"
    distributions = ("lmdeploy",)
    scan_binaries = True  # lmdeploy/lib/_turbomind*.so: BIN001 reads its archs like any built-in's
    releases = tuple(DATA["releases"])
    rules_folder = "rules"
    flag_table = FLAGS
    launchers = (Launcher(command="lmdeploy", subcommand=("serve", "api_server"), positional_model=True),)
    images = (r"lmdeploy",)

    def memory_model(self, run: EngineRun) -> MemoryModel:
        values = run.launch.values
        turbomind = self.backend(run) == "turbomind"
        return FreeFractionMemory(
            self.display_name, str(run.version), knob="cache_max_entry_count",
            fraction=float(values.get("cache_max_entry_count", FRACTION)),  # type: ignore[arg-type]
            page_size=int(values.get("page_size", BLOCK_LEN)),  # type: ignore[call-overload]
            max_batch_size=int(values.get("max_batch_size", MAX_BATCH)),  # type: ignore[call-overload]
            runtime_reserve=RUNTIME_RESERVE, kv_param_bytes=TURBOMIND_KV_PARAMS if turbomind else None,
            flags=LayoutFlags(tp="--tp", ep=None if turbomind else "--ep", fraction="--cache-max-entry-count",
                              context="--session-len", kv_dtype={"int8": ("--quant-policy", "8"),
                                                                 "int4": ("--quant-policy", "4")}))

    def backend(self, run: EngineRun) -> str:
        """`--backend` (default turbomind); api_server falls back to pytorch for a model TurboMind lacks."""
        given = str(run.launch.values.get("backend", "turbomind"))
        return "pytorch" if given == "pytorch" or self.turbomind_serves(run) == "no" else given

    def turbomind_serves(self, run: EngineRun) -> str:
        """"yes", "no" or "unknown": does this release's TurboMind take the model (supported_models.py)?"""
        model = run.facts.model
        if model is None or model.architecture in SPECIAL - HEAD_DIM_CHECKED:
            return "unknown"
        archs = DATA["turbomind_archs"][FLAGS.at(run.version).release]
        if model.architecture not in archs or model.quantization.method == "smooth_quant":
            return "no"
        if model.architecture in HEAD_DIM_CHECKED and model.attention.head_dim not in (64, 128):
            return "no"
        return "yes"

    def rule_view(self, run: EngineRun) -> dict[str, Any]:
        return {"version": run.library.version, "release": FLAGS.at(run.version).release,
                "backend": self.backend(run), "turbomind_serves": self.turbomind_serves(run),
                "local_version": run.version.local, "flag_problems": FLAGS.check(run.launch.args, run.version)}
