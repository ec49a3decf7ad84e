"""The grid of model shapes the oracle asks about: small config.json files made from real public configs
(doctor/data/models, or the architecture's published shape where the doctor bundles none), with the layer
count shrunk so the skeleton builds fast and every kind of layer the model has still appears once; each
crossed with the checkpoint formats it ships in and the KV-cache dtypes users launch it with."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MODELS = Path(__file__).resolve().parents[2] / "doctor" / "data" / "models"
BASE_FLAGS = ["--enforce-eager", "--load-format", "dummy", "--max-model-len", "8192", "--skip-tokenizer-init"]

# vLLM's own switch for DeepGEMM (`is_deep_gemm_supported()` reads envs.VLLM_USE_DEEP_GEMM): asked for the
# block-FP8 shapes, so a table shows what vLLM picks without it.
NO_DEEP_GEMM = (("VLLM_USE_DEEP_GEMM", "0"),)
# vLLM's switch for FlashInfer's FP4 MoE kernels, which SM12x guides tell users to turn off: asked for NVFP4 MoE.
NO_FLASHINFER_MOE_FP4 = (("VLLM_USE_FLASHINFER_MOE_FP4", "0"),)
ENV_KEYS = ("VLLM_USE_DEEP_GEMM", "VLLM_USE_FLASHINFER_MOE_FP4")

QUANT_CONFIGS: dict[str, dict[str, Any] | None] = {
    "bf16": None,
    "fp8-block": {"quant_method": "fp8", "activation_scheme": "dynamic", "fmt": "e4m3",
                  "weight_block_size": [128, 128]},
    "fp8-tensor": {"quant_method": "fp8", "activation_scheme": "dynamic"},
    # NVIDIA ModelOpt's NVFP4 checkpoints (nvidia/*-NVFP4), attention left in BF16 as they ship.
    "nvfp4": {"quant_method": "modelopt", "quant_algo": "NVFP4", "producer": {"name": "modelopt"},
              "config_groups": {"group_0": {"targets": ["Linear"], "weights": {
                  "dynamic": False, "num_bits": 4, "type": "float", "group_size": 16}, "input_activations": {
                  "dynamic": False, "num_bits": 4, "type": "float", "group_size": 16}}},
              "ignore": ["lm_head", "re:.*self_attn.*", "re:.*mlp\\.gate$"]},
    "awq": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True, "version": "gemm"},
    "gptq": {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False, "sym": True},
}


@dataclass(frozen=True)
class Shape:
    name: str
    provenance: str
    config: dict[str, Any]
    quants: tuple[str, ...]  # formats asked about; "native" keeps the config's own quantization_config
    kv_fp8: tuple[str, ...] = ()  # formats also asked with --kv-cache-dtype fp8
    kv_nvfp4: tuple[str, ...] = ()  # formats also asked with --kv-cache-dtype nvfp4
    controls: tuple[str, ...] = ()  # formats asked on the 9.0/10.0 control devices
    forced_moe: tuple[tuple[str, str], ...] = field(default=())  # (format, --moe-backend value) also asked
    env_variants: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = field(default=())  # (format, VLLM_* env)
    # asked of vLLM only (the SGLang grid, sglang_grid.py, reads quants/kv_fp8/controls and has its own tables)
    vllm_quants: tuple[str, ...] = ()
    vllm_kv_fp8: tuple[str, ...] = ()
    vllm_controls: tuple[str, ...] = ()
    # formats whose MTP drafter is also asked (vLLM only): `--speculative-config` with method "mtp", the drafter
    # model built as vLLM's spec-decode proposer builds it, recorded as an entry of its own
    vllm_drafters: tuple[str, ...] = ()
    tp: int = 1  # > 1: asked as rank 0 of a tensor-parallel world of this size (one process per rank)

    @property
    def all_quants(self) -> tuple[str, ...]:
        return self.quants + self.vllm_quants


def bundled(repo: str) -> dict[str, Any]:
    return json.loads((MODELS / repo / "config.json").read_text(encoding="utf-8"))


def shrink(config: dict[str, Any], layers: int, **overrides: Any) -> dict[str, Any]:
    small = copy.deepcopy(config)
    small["num_hidden_layers"] = layers
    small.pop("layer_types", None)
    small.update(overrides)
    return small


def _deepseek(layers: int = 2) -> dict[str, Any]:
    return shrink(bundled("deepseek-ai--DeepSeek-V3"), layers, first_k_dense_replace=1)


def _without_quant(config: dict[str, Any]) -> dict[str, Any]:
    plain = copy.deepcopy(config)
    plain.pop("quantization_config", None)
    return plain


QWEN3_NEXT = {  # Qwen/Qwen3-Next-80B-A3B-Instruct: gated DeltaNet every layer but each 4th (full attention)
    "architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 2048,
    "intermediate_size": 5120, "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
    "linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
    "linear_num_key_heads": 16, "linear_num_value_heads": 32, "decoder_sparse_step": 1, "full_attention_interval": 4,
    "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "num_experts_per_tok": 10,
    "num_experts": 512, "norm_topk_prob": True, "mlp_only_layers": [], "partial_rotary_factor": 0.25,
    "rope_theta": 10000000, "vocab_size": 151936, "max_position_embeddings": 262144, "rms_norm_eps": 1e-6,
    "hidden_act": "silu", "torch_dtype": "bfloat16", "tie_word_embeddings": False, "num_hidden_layers": 4}
NEMOTRON_H = {  # nvidia/NVIDIA-Nemotron-Nano-9B-v2: Mamba-2 mixers, squared-ReLU MLPs, a few attention layers
    "architectures": ["NemotronHForCausalLM"], "model_type": "nemotron_h", "hidden_size": 4480,
    "intermediate_size": 15680, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
    "mamba_num_heads": 128, "mamba_head_dim": 80, "ssm_state_size": 128, "n_groups": 8, "conv_kernel": 4,
    "expand": 2, "chunk_size": 128, "mlp_hidden_act": "relu2", "vocab_size": 131072, "rms_norm_eps": 1e-5,
    "hybrid_override_pattern": "M-M*-", "num_hidden_layers": 5, "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16", "tie_word_embeddings": False, "use_mamba_kernels": True}
GEMMA2 = {  # google/gemma-2-9b: head size 256, alternating 4096-token sliding window, logit soft-capping
    "architectures": ["Gemma2ForCausalLM"], "model_type": "gemma2", "hidden_size": 3584, "intermediate_size": 14336,
    "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256, "sliding_window": 4096,
    "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "query_pre_attn_scalar": 256,
    "hidden_act": "gelu_pytorch_tanh", "hidden_activation": "gelu_pytorch_tanh", "vocab_size": 256000,
    "rms_norm_eps": 1e-6, "num_hidden_layers": 2,
    "max_position_embeddings": 8192, "torch_dtype": "bfloat16", "rope_theta": 10000.0}
KNOWNGOOD = Path(__file__).resolve().parents[2] / "tests" / "knowngood" / "models"


def knowngood(folder: str) -> dict[str, Any]:
    """A config of the known-good corpus (tests/knowngood/models/README.md gives each one's source)."""
    return json.loads((KNOWNGOOD / folder / "config.json").read_text(encoding="utf-8"))


def _gemma4(layers: int = 2) -> dict[str, Any]:
    """google/gemma-4-26B-A4B: the text model's layers shrunk to one sliding (head size 256) and one full
    attention layer (global head size 512, one K=V head pair), as it ships: multimodal, vision tower included."""
    config = copy.deepcopy(knowngood("google--gemma-4-26B-A4B"))
    text = config["text_config"]
    text["num_hidden_layers"] = layers
    text["layer_types"] = ["sliding_attention", "full_attention"][:layers]
    return config


def _nemotron3(folder: str, pattern: str) -> dict[str, Any]:
    """NVIDIA Nemotron 3 (Mamba-2 + MoE + a few attention layers), every kind of block of the published
    `hybrid_override_pattern` once. `auto_map` is dropped: the grid directory holds no custom code, and the
    releases that build it use their own NemotronH config and model."""
    config = copy.deepcopy(knowngood(folder))
    config.pop("auto_map", None)
    config.update(hybrid_override_pattern=pattern, num_hidden_layers=len(pattern))
    return config


LLAMA_H64 = {  # meta-llama/Llama-3.2-1B: head size 64
    **_without_quant(bundled("meta-llama--Llama-3.1-8B-Instruct")), "hidden_size": 2048, "intermediate_size": 8192,
    "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64, "num_hidden_layers": 2}


def shapes() -> list[Shape]:
    deepseek = _deepseek()
    dsa = shrink(_deepseek(), 2, architectures=["DeepseekV32ForCausalLM"], model_type="deepseek_v32",
                 index_topk=2048, index_head_dim=128, index_n_heads=64)
    llama = shrink(bundled("meta-llama--Llama-3.1-8B-Instruct"), 2)
    qwen_moe = shrink(bundled("Qwen--Qwen3-30B-A3B"), 2)
    glm = shrink(bundled("zai-org--GLM-4.7-FP8"), 2, first_k_dense_replace=1, num_nextn_predict_layers=0)
    glm_mtp = shrink(bundled("zai-org--GLM-4.7-FP8"), 2, first_k_dense_replace=1)  # its one nextn layer
    gpt_oss = shrink(bundled("openai--gpt-oss-20b"), 2, layer_types=["sliding_attention", "full_attention"])
    return [
        Shape("mla-moe", "deepseek-ai/DeepSeek-V3 config.json, 2 layers (1 dense, 1 MoE)", deepseek,
              ("native", "bf16", "nvfp4"), kv_fp8=("native",), controls=("native",),
              forced_moe=(("native", "flashinfer_trtllm"), ("native", "triton"), ("native", "deep_gemm_mega_moe")),
              env_variants=(("native", NO_DEEP_GEMM),)),
        Shape("mla-sparse-moe", "DeepSeek-V3.2-Exp shape: DeepSeek-V3 config with the indexer fields "
              "(index_topk 2048, index_head_dim 128, index_n_heads 64), 2 layers", dsa, ("native",),
              controls=("native",)),
        Shape("gqa-h128-dense", "meta-llama/Llama-3.1-8B-Instruct config.json, 2 layers", llama,
              ("bf16", "fp8-tensor", "fp8-block", "nvfp4", "awq", "gptq"), kv_fp8=("bf16",), kv_nvfp4=("bf16",),
              controls=("bf16",), vllm_controls=("fp8-tensor", "fp8-block")),
        Shape("gqa-h64-dense", "meta-llama/Llama-3.2-1B shape (head size 64), 2 layers", LLAMA_H64, ("bf16",)),
        Shape("gqa-h128-moe", "Qwen/Qwen3-30B-A3B config.json, 2 layers", qwen_moe,
              ("bf16", "fp8-block", "nvfp4", "awq", "gptq"), kv_fp8=("bf16", "fp8-block"), kv_nvfp4=("bf16",),
              controls=("nvfp4",), vllm_controls=("bf16", "fp8-block"),
              forced_moe=(("nvfp4", "flashinfer_trtllm"), ("nvfp4", "marlin"), ("nvfp4", "cutlass")),
              env_variants=(("fp8-block", NO_DEEP_GEMM), ("nvfp4", NO_FLASHINFER_MOE_FP4))),
        Shape("gqa-h128-moe-fp8-channel", "zai-org/GLM-4.7-FP8 config.json (compressed-tensors FP8 per channel), "
              "2 layers", glm, ("native",)),
        Shape("gqa-h64-swa-sinks-moe", "openai/gpt-oss-20b config.json (sinks, 128-token sliding window, MXFP4 "
              "experts, clamped SwiGLU), 2 layers", gpt_oss, ("native", "bf16"), kv_fp8=("native",),
              controls=("native",), forced_moe=(("native", "flashinfer_trtllm"), ("native", "triton"))),
        Shape("gqa-h256-swa-softcap", "google/gemma-2-9b shape, 2 layers", GEMMA2, ("bf16",)),
        Shape("gqa-h256-linear-moe", "Qwen/Qwen3-Next-80B-A3B shape (gated DeltaNet, head size 256), 4 layers",
              QWEN3_NEXT, ("bf16", "fp8-block"), vllm_quants=("nvfp4",), vllm_kv_fp8=("bf16", "nvfp4"),
              vllm_controls=("bf16",)),
        Shape("gqa-h128-mamba", "nvidia/NVIDIA-Nemotron-Nano-9B-v2 shape (Mamba-2, relu2), 5 layers", NEMOTRON_H,
              ("bf16",)),
        *new_shapes(deepseek, glm_mtp, qwen_moe, gpt_oss),
    ]


def new_shapes(deepseek: dict[str, Any], glm_mtp: dict[str, Any], qwen_moe: dict[str, Any],
               gpt_oss: dict[str, Any]) -> list[Shape]:
    """Asked of vLLM only (2026-11-28): head size 512, Mamba + MoE, latent MoE, MTP drafters, and rank 0 of a
    TP=2 world for shapes whose per-rank heads or expert widths can move a choice."""
    tp_shapes = [
        Shape("mla-moe-tp2", "deepseek-ai/DeepSeek-V3 config.json, 2 layers, rank 0 of TP=2 (64 of 128 heads)",
              deepseek, (), vllm_quants=("native", "nvfp4"), tp=2),
        Shape("gqa-h128-moe-tp2", "Qwen/Qwen3-30B-A3B config.json, 2 layers, rank 0 of TP=2", qwen_moe, (),
              vllm_quants=("bf16", "fp8-block", "nvfp4"), tp=2),
        Shape("gqa-h64-swa-sinks-moe-tp2", "openai/gpt-oss-20b config.json, 2 layers, rank 0 of TP=2", gpt_oss, (),
              vllm_quants=("native",), tp=2),
        Shape("gqa-h256-g512-swa-moe-tp2", "google/gemma-4-26B-A4B config.json, 2 layers, rank 0 of TP=2", _gemma4(),
              (), vllm_quants=("bf16", "nvfp4"), tp=2),
    ]
    return [
        Shape("gqa-h256-g512-swa-moe", "google/gemma-4-26B-A4B config.json (tests/knowngood/models), text model "
              "shrunk to 2 layers: sliding window (head size 256) and full attention (global head size 512)",
              _gemma4(), (), vllm_quants=("bf16", "nvfp4"), vllm_kv_fp8=("bf16",), vllm_controls=("bf16",)),
        Shape("gqa-h128-mamba-moe", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 config.json "
              "(tests/knowngood/models), pattern MEM*E (Mamba-2, MoE, attention)",
              _nemotron3("nvidia--NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "MEM*E"), (),
              vllm_quants=("bf16", "nvfp4", "fp8-tensor"), vllm_kv_fp8=("bf16",)),
        Shape("gqa-h128-mamba-latent-moe", "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B config.json "
              "(tests/knowngood/models; latent MoE, moe_latent_size 1024, one MTP layer), pattern MEM*E",
              _nemotron3("nvidia--NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4", "MEM*E"), (),
              vllm_quants=("bf16", "nvfp4"), vllm_kv_fp8=("nvfp4",), vllm_drafters=("bf16", "nvfp4")),
        Shape("mla-moe-mtp", "deepseek-ai/DeepSeek-V3 config.json, 2 layers, its one MTP (nextn) layer asked as "
              "the drafter of --speculative-config method mtp", deepseek, (), vllm_drafters=("native", "nvfp4")),
        Shape("gqa-h128-moe-fp8-mtp", "zai-org/GLM-4.7-FP8 config.json, 2 layers, its one MTP (nextn) layer "
              "asked as the drafter", glm_mtp, (), vllm_drafters=("native",)),
        *tp_shapes,
        # last: its process segfaults in an import on an emulated 12.0 (0.31.0, 0.32.0 even as the first query;
        # 0.33.0 after the shapes above), which ends the process and would lose every query after it
        Shape("gqa-h256-linear-moe-mtp", "Qwen/Qwen3-Next-80B-A3B shape, 4 layers, its MTP module asked as the "
              "drafter", QWEN3_NEXT, (), vllm_drafters=("bf16", "fp8-block")),
    ]


def with_quant(config: dict[str, Any], quant: str) -> dict[str, Any]:
    if quant == "native":
        return config
    changed = _without_quant(config)
    if QUANT_CONFIGS[quant] is not None:
        changed["quantization_config"] = QUANT_CONFIGS[quant]
    return changed


@dataclass(frozen=True)
class Query:
    id: str
    shape: str
    quant: str
    flags: tuple[str, ...]
    config: dict[str, Any]
    env: tuple[tuple[str, str], ...] = ()
    drafter: str | None = None  # "mtp": the query builds the drafter vLLM's spec-decode proposer builds
    tp: int = 1


def tp_flags(tp: int) -> tuple[str, ...]:
    return ("--tensor-parallel-size", str(tp)) if tp > 1 else ()


SPECULATIVE_MTP = ("--speculative-config", json.dumps({"method": "mtp", "num_speculative_tokens": 1}))


def drafter_queries(shape: Shape) -> list[Query]:
    return [Query(f"{shape.name}:{quant}+mtp", shape.name, quant, (*BASE_FLAGS, *SPECULATIVE_MTP),
                  with_quant(shape.config, quant), drafter="mtp") for quant in shape.vllm_drafters]


def queries(control: bool = False) -> list[Query]:
    """Every (shape, format, KV dtype) the grid asks about; the control devices get each shape's controls."""
    asked = []
    for shape in shapes():
        for quant in shape.controls + shape.vllm_controls if control else shape.all_quants:
            config = with_quant(shape.config, quant)
            kv_fp8 = quant in shape.kv_fp8 + shape.vllm_kv_fp8
            kv_variants = [()] + ([("--kv-cache-dtype", "fp8")] if kv_fp8 else []) \
                + ([("--kv-cache-dtype", "nvfp4")] if quant in shape.kv_nvfp4 else [])
            for kv in kv_variants:
                flags = (*BASE_FLAGS, *kv, *tp_flags(shape.tp))
                suffix = f"+kv-{kv[1]}" if kv else ""
                asked.append(Query(f"{shape.name}:{quant}{suffix}", shape.name, quant, flags, config, tp=shape.tp))
        for quant, backend in () if control else shape.forced_moe:
            flags = (*BASE_FLAGS, "--moe-backend", backend)
            asked.append(Query(f"{shape.name}:{quant}+moe={backend}", shape.name, quant, flags,
                               with_quant(shape.config, quant)))
        for quant, env in () if control else shape.env_variants:
            suffix = ",".join(f"{k}={v}" for k, v in env)
            asked.append(Query(f"{shape.name}:{quant}+env={suffix}", shape.name, quant, BASE_FLAGS,
                               with_quant(shape.config, quant), env))
        asked += [] if control else drafter_queries(shape)
    return asked
