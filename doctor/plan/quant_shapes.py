"""Each quantized linear layer's weight shard as one tensor-parallel rank holds it, in the (N, K) a GEMM kernel
sees (N output columns, K the reduction), so an engine can hold it against the tile its kernel needs (Marlin:
doctor/engines/<engine>/marlin_shapes.py). The layouts' own divisibility (heads, experts, groups) is
doctor.plan.layouts.invalid_reasons; a shard here exists only where TP divides the dimension it cuts.

Column-parallel layers cut N (merged gate/up: 2 x intermediate / TP, one kernel over both halves; QKV: the rank's
query heads plus its key and value heads), row-parallel ones cut K (down, o_proj). Routed experts are cut by
TP / EP and run at the latent width where the model has one (Nemotron-3-Super's `moe_latent_size`)."""

from __future__ import annotations

from dataclasses import dataclass

from doctor.pipeline.facts import Model, Quantization

NON_GATED = ("relu2",)  # experts without a gate half (Nemotron-H: mlp_hidden_act relu2; vLLM's *_no_mul)


@dataclass(frozen=True)
class Shard:
    """One rank's piece of a quantized weight: which layer, its (N, K), and how it is stored."""

    layer: str
    kind: str  # a doctor.probe.quant_common.MODULE_KINDS kind
    n: int
    k: int
    scheme: str
    group_size: int | None


def _gated(model: Model) -> bool:
    return model.moe is None or (model.moe.hidden_act or "").lower() not in NON_GATED


def _quant(model: Model, kind: str) -> Quantization | None:
    return model.quantization.for_module(kind)


def _split(size: int, parts: int) -> int | None:
    return size // parts if parts > 0 and size % parts == 0 else None


def expert_shards(model: Model, tp: int, ep: int = 1) -> list[Shard]:
    """The routed experts' w13 (gate and up, or up alone for a non-gated MLP) and w2 on one rank."""
    moe, q = model.moe, _quant(model, "routed_experts")
    if moe is None or q is None or tp % ep:
        return []
    per_rank = _split(moe.intermediate_size, tp // ep)
    if per_rank is None:
        return []
    width = moe.latent_size or model.hidden_size
    halves = 2 if _gated(model) else 1
    return [Shard("experts w13 (gate/up)" if halves == 2 else "experts w13 (up)", "routed_experts",
                  halves * per_rank, width, q.scheme, q.group_size),
            Shard("experts w2 (down)", "routed_experts", width, per_rank, q.scheme, q.group_size)]


def dense_shards(model: Model, tp: int) -> list[Shard]:
    """The dense MLP's gate/up and down on one rank (dense models, and an MoE model's first dense layers)."""
    q = _quant(model, "dense_mlp")
    size = model.intermediate_size
    if q is None or not size or (model.moe is not None and model.moe.first_dense_layers == 0):
        return []
    per_rank = _split(size, tp)
    if per_rank is None:
        return []
    return [Shard("mlp gate_up_proj", "dense_mlp", 2 * per_rank, model.hidden_size, q.scheme, q.group_size),
            Shard("mlp down_proj", "dense_mlp", model.hidden_size, per_rank, q.scheme, q.group_size)]


def attention_shards(model: Model, tp: int) -> list[Shard]:
    """QKV and o_proj on one rank (GQA/MHA; MLA's low-rank projections are not sized here)."""
    a, q = model.attention, _quant(model, "attention")
    if q is None or a.kind == "mla":
        return []
    heads = _split(a.num_heads, tp)
    if heads is None:
        return []
    kv = max(1, a.num_kv_heads // tp)  # fewer KV heads than ranks: each rank keeps a replica of one
    return [Shard("attention qkv_proj", "attention", (heads + 2 * kv) * a.head_dim, model.hidden_size, q.scheme,
                  q.group_size),
            Shard("attention o_proj", "attention", model.hidden_size, heads * a.head_dim, q.scheme, q.group_size)]


def rank_shards(model: Model, tp: int, ep: int = 1) -> list[Shard]:
    return expert_shards(model, tp, ep) + dense_shards(model, tp) + attention_shards(model, tp)


# Marlin (vLLM csrc/quantization/gptq_marlin/marlin.cuh and the engines' copies): tile_k_size = 16,
# tile_n_size = 4 x 16; gptq_marlin_repack TORCH_CHECKs both before repacking a weight.
MARLIN_TILE_K, MARLIN_TILE_N = 16, 64
# The GEMM's thread tiles (thread_k, thread_n): n % 64 with k % 128, or n % 128 with k % 64 (marlin.cu
# `is_valid_config`; vLLM 0.33.0's marlin_padded_nk states the same pair); none: "Invalid thread config".
MARLIN_THREAD_TILES = ((128, 64), (64, 128))


def repack_problem(shard: Shard) -> str | None:
    """gptq_marlin_repack's own message for a shard it rejects (None: it repacks)."""
    if shard.k % MARLIN_TILE_K:
        return f"size_k = {shard.k} is not divisible by tile_k_size = {MARLIN_TILE_K}"
    if shard.n % MARLIN_TILE_N:
        return f"size_n = {shard.n} is not divisible by tile_n_size = {MARLIN_TILE_N}"
    return None


def thread_tile_fits(shard: Shard) -> bool:
    return any(shard.k % k == 0 and shard.n % n == 0 for k, n in MARLIN_THREAD_TILES)
