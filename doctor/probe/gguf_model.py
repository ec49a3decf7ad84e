"""A GGUF header → the normalised Model fact every engine reads (llama.cpp reads the tensor table too).

Keys are the ones llama.cpp's loader reads (`{arch}.block_count`, `{arch}.attention.head_count_kv`, ...;
ggml-org/llama.cpp `src/llama-arch.cpp`, names as in `gguf.Keys`). Sliding-window layers follow
`llama_hparams::set_swa_pattern`: with a pattern n, layer il is SWA when `il % n < n - 1`; the per-arch
default patterns below are the `load_swa_pattern(ml, n)` calls of `src/models/*.cpp` (llama.cpp
0c1e57098, vendored by llama-cpp-python 0.3.36).
"""

from __future__ import annotations

from doctor.errors import InputError
from doctor.pipeline.facts import Attention, Model, Moe, Quantization
from doctor.probe.gguf import GgufModel

DEFAULT_SWA_PATTERN = {"gpt-oss": 2, "gemma2": 2, "gemma3": 6, "cohere2": 4, "llama4": 4}
# Llama 4 files carry no window: the loader sets chunked attention of 8192 in 3 of 4 layers unless the file says
# sliding_window 0 (src/models/llama4.cpp:8-19 at b11434)
DEFAULT_SWA_WINDOW = {"llama4": 8192}
SINK_ARCHS = {"gpt-oss"}  # attention sinks (`attn_sinks` tensors) on these


def model_from_gguf(gguf: GgufModel, model_id: str) -> Model:
    layers = gguf.block_count
    hidden = int(gguf.arch_value("embedding_length", 0))
    heads = max(gguf.per_layer("attention.head_count"), default=0)
    if layers <= 0 or hidden <= 0 or heads <= 0:
        raise InputError(f"{model_id}: GGUF metadata lacks {gguf.architecture}.block_count, embedding_length or "
                         f"attention.head_count: not a model llama.cpp can load")
    vocab = int(gguf.arch_value("vocab_size", 0) or gguf.array_lengths.get("tokenizer.ggml.tokens", 0))
    return Model(
        id=model_id, source="gguf", source_path=gguf.paths[0], architecture=gguf.architecture,
        model_type=gguf.architecture, family=gguf.architecture, hidden_size=hidden, num_layers=layers,
        vocab_size=vocab, dtype=(gguf.file_type or "gguf").lower(), attention=attention(gguf, hidden, heads),
        quantization=Quantization(scheme="gguf", method=gguf.file_type, source="gguf header"),
        intermediate_size=max(gguf.per_layer("feed_forward_length"), default=0) or None,
        max_position_embeddings=int(gguf.arch_value("context_length", 0)) or None, moe=moe(gguf),
        nextn_layers=int(gguf.arch_value("nextn_predict_layers", 0)),
        tie_word_embeddings=not any(t.name == "output.weight" for t in gguf.tensors),
    )


def attention(gguf: GgufModel, hidden: int, heads: int) -> Attention:
    kv_heads = max(gguf.per_layer("attention.head_count_kv", heads), default=heads) or heads
    key = int(gguf.arch_value("attention.key_length", 0)) or hidden // heads
    value = int(gguf.arch_value("attention.value_length", 0)) or key
    window = sliding_window(gguf) or None
    swa = sum(swa_layers(gguf)) if window else 0
    sinks = gguf.architecture in SINK_ARCHS
    kv_lora = gguf.arch_value("attention.kv_lora_rank")
    if kv_lora:
        rope = int(gguf.arch_value("rope.dimension_count", 64))
        q_lora = int(gguf.arch_value("attention.q_lora_rank", 0)) or None
        return Attention(kind="mla", num_heads=heads, num_kv_heads=1, head_dim=key, v_head_dim=value,
                         kv_lora_rank=int(kv_lora), q_lora_rank=q_lora,
                         qk_rope_head_dim=rope, qk_nope_head_dim=key - rope, sliding_window=window,
                         sliding_window_layers=swa, sinks=sinks)
    return Attention(kind="mha" if kv_heads == heads else "gqa", num_heads=heads, num_kv_heads=kv_heads,
                     head_dim=key, v_head_dim=value, sliding_window=window, sliding_window_layers=swa, sinks=sinks)


def moe(gguf: GgufModel) -> Moe | None:
    experts = int(gguf.arch_value("expert_count", 0) or 0)
    if experts <= 1:
        return None
    return Moe(routed_experts=experts, top_k=int(gguf.arch_value("expert_used_count", 1) or 1),
               intermediate_size=int(gguf.arch_value("expert_feed_forward_length", 0) or 0),
               shared_experts=int(gguf.arch_value("expert_shared_count", 0) or 0),
               first_dense_layers=int(gguf.arch_value("leading_dense_block_count", 0) or 0))


def sliding_window(gguf: GgufModel) -> int:
    """The window of the sliding-window (or chunked) layers; 0 when the model has none."""
    value = gguf.arch_value("attention.sliding_window")
    if value is None:
        return DEFAULT_SWA_WINDOW.get(gguf.architecture, 0)
    return int(value)


def swa_layers(gguf: GgufModel) -> list[bool]:
    """Which layers use the sliding window (all False when the model has none)."""
    n = gguf.block_count
    if not sliding_window(gguf):
        return [False] * n
    pattern = gguf.arch_value("attention.sliding_window_pattern", DEFAULT_SWA_PATTERN.get(gguf.architecture, 0))
    if isinstance(pattern, list):
        return [bool(p) for p in pattern[:n]] + [False] * max(0, n - len(pattern))
    period = int(pattern)
    return [period == 0 or il % period < period - 1 for il in range(n)]
