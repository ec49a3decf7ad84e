"""KV cache per token per GPU and capacity in tokens, as the serving engines size their pools (cell size per
token, token capacity of a byte budget, the hybrid sliding-window split).

- MLA: (kv_lora_rank + qk_rope_head_dim) x layers x elem bytes; every TP rank stores the whole latent,
  so it is NOT divided by TP.
- MHA/GQA: max(1, kv_heads // attn_tp) x (head_dim + v_head_dim) x layers x elem bytes: heads are
  replicated once TP exceeds the KV heads.
- fp4 (fp4_e2m1) halves the bytes and adds one scale byte per 16 elements.
- int8 and int4 count their elements only (int4 halves the bytes); an engine that stores per-token scales
  adds them through its MemoryModel.kv_cell_bytes.
- Only the layers of this PP stage count; the engine MIN-reduces the token count over the stages.
- Hybrid sliding-window models (gpt-oss) split the pool into full and SWA layers by
  swa_full_tokens_ratio (0.8); the capacity reported is the full-attention layers' tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from doctor.errors import UsageError
from doctor.launch import closest, normal_flag
from doctor.pipeline.facts import Model

KV_DTYPES = {"auto": None, "bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16",
             "fp8_e4m3": "fp8_e4m3", "fp8_e5m2": "fp8_e5m2", "fp4_e2m1": "fp4_e2m1", "nvfp4": "fp4_e2m1",
             "int8": "int8", "int4": "int4"}
# Each planner dtype's spellings in the engines' own `--kv-cache-dtype` choices, which differ per engine and
# release (fp8 or fp8_e4m3, bfloat16 or bf16, nvfp4 or fp4_e2m1)
SPELLINGS = {"fp8_e4m3": ("fp8_e4m3", "fp8"), "fp8_e5m2": ("fp8_e5m2",), "bf16": ("bf16", "bfloat16"),
             "fp16": ("fp16", "float16", "half"), "fp4_e2m1": ("fp4_e2m1", "nvfp4"), "int8": ("int8",),
             "int4": ("int4",)}
_CANONICAL = {spelling: dtype for dtype, spellings in SPELLINGS.items() for spelling in spellings}


def same_dtype(value: str, choices: Collection[str]) -> str | None:
    """The choice that is another spelling of the KV dtype `value` names (`fp4_e2m1` where a release accepts
    `nvfp4`, `fp8_e4m3` where it accepts `fp8`): a "did you mean" must offer that before a look-alike."""
    dtype = _CANONICAL.get(value.lower())
    return next((c for c in choices if c != value and _CANONICAL.get(c.lower()) == dtype), None) if dtype else None


def suggest(flag: str, value: str, choices: Collection[str]) -> str | None:
    """The choice to offer for a refused flag value: for a KV-cache dtype the choice that means the same (the
    planner's spellings), else the nearest spelling."""
    if normal_flag(flag) == "--kv-cache-dtype":
        same = same_dtype(value, choices)
        if same:
            return same
    return closest(value, choices)


ELEM_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4, "fp8_e4m3": 1, "fp8_e5m2": 1, "fp4_e2m1": 1, "int8": 1, "int4": 1}
SWA_FULL_TOKENS_RATIO = 0.8


@dataclass(frozen=True)
class KvShape:
    """KV-cache bytes per token and the layers that hold them."""

    dtype: str
    cell_bytes: int  # per token per GPU, this stage's layers
    layers: int
    full_layers: int
    swa_layers: int
    linear_layers: int = 0  # linear-attention/Mamba layers of this stage: a recurrent state, no KV


def resolve_kv_dtype(model: Model, requested: str | None) -> str:
    """`--kv-cache-dtype auto`: the checkpoint's declared FP8 KV, else the model dtype."""
    key = (requested or "auto").lower()
    if key not in KV_DTYPES:
        raise UsageError(f"--kv-cache-dtype {requested!r}: expected one of {', '.join(KV_DTYPES)}")
    explicit = KV_DTYPES[key]
    if explicit:
        return explicit
    declared = model.quantization.kv_cache_dtype
    if declared and declared.startswith("fp8"):
        return "fp8_e4m3"
    return {"float16": "fp16", "float32": "fp32"}.get(model.dtype, "bf16")


def engine_spelling(dtype: str, accepted: Collection[str] | None, prefer: tuple[str, ...] = ()) -> str:
    """The planner's `dtype` as an engine release's `--kv-cache-dtype` takes it: the first of its spellings
    (`prefer`'s first) that `accepted`, the release's choices, holds; where the release checks no choices, the
    first spelling; `dtype` itself where it takes none (the flag checks then report the value)."""
    spellings = SPELLINGS.get(dtype, (dtype,))
    ordered = [s for s in prefer if s in spellings] + list(spellings)
    if accepted is None:
        return ordered[0]
    return next((s for s in ordered if s in accepted), dtype)


def attention_layers(model: Model, start: int, end: int) -> tuple[int, int]:
    """(full, sliding-window) attention layers in [start, end). Engines treat the pattern as alternating
    for the models they run as hybrid SWA; the counts come from the config's layer_types."""
    a = model.attention
    total = end - start
    linear = round(total * min(a.linear_attention_layers, model.num_layers) / model.num_layers)
    attention = total - linear  # linear-attention/Mamba layers keep a recurrent state, not KV
    if not a.sliding_window or not a.sliding_window_layers or a.sliding_window_layers >= model.num_layers:
        return attention, 0
    swa = round(total * a.sliding_window_layers / model.num_layers)
    return attention - swa, swa


def cell_bytes(model: Model, attn_tp: int, layers: int, dtype: str) -> int:
    a = model.attention
    elem = ELEM_BYTES[dtype]
    if a.kind == "mla":
        width = (a.kv_lora_rank or 512) + (a.qk_rope_head_dim or 64)
        cell = width * layers * elem
        if dtype == "fp4_e2m1":
            cell = cell // 2 + (width // 16) * layers * elem
        elif dtype == "int4":
            cell //= 2
        return cell
    heads = max(1, a.num_kv_heads // attn_tp)
    cell = heads * (a.head_dim + a.v_head_dim) * layers * elem
    if dtype == "fp4_e2m1":
        cell = cell // 2 + (heads * a.head_dim * layers * 2 * elem) // 16
    elif dtype == "int4":
        cell //= 2
    return cell


def kv_shape(model: Model, attn_tp: int, start: int, end: int, dtype: str,
             engine_cell: Callable[[Model, int, int, str], int | None] | None = None) -> KvShape:
    """`engine_cell`: the engine's own cell size where it differs (MemoryModel.kv_cell_bytes)."""
    full, swa = attention_layers(model, start, end)
    cell = engine_cell(model, attn_tp, full + swa, dtype) if engine_cell else None
    return KvShape(dtype, cell if cell is not None else cell_bytes(model, attn_tp, full + swa, dtype), full + swa,
                   full, swa, (end - start) - full - swa)


def tokens_for_bytes(budget: int, shape: KvShape, page_size: int = 1) -> int:
    """`int(rest_GiB * 2**30) // cell_size`, rounded down to the page size; hybrid SWA returns the
    full-attention layers' share."""
    if budget <= 0 or shape.cell_bytes <= 0:
        return 0
    tokens = budget // shape.cell_bytes
    tokens = tokens // page_size * page_size
    if shape.swa_layers:
        per_layer_total = tokens * shape.layers
        tokens = int(per_layer_total / (SWA_FULL_TOKENS_RATIO * shape.swa_layers + shape.full_layers))
        tokens = tokens // page_size * page_size
    return tokens


def swa_tokens(full_tokens: int, shape: KvShape) -> int:
    return int(full_tokens * SWA_FULL_TOKENS_RATIO) if shape.swa_layers else full_tokens


def concurrent_requests(tokens: int, shape: KvShape, context_length: int, window: int | None) -> int:
    """Requests of `context_length` tokens that fit in the pool at once."""
    if context_length <= 0 or tokens <= 0:
        return 0
    full = tokens // context_length
    if not shape.swa_layers or not window:
        return full
    return min(full, swa_tokens(tokens, shape) // min(context_length, window))
