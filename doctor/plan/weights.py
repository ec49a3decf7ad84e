"""Weights per GPU for a TP x PP (x EP) layout.

Sources, best first: the checkpoint's safetensors headers (a local model directory, or the hub's
headers through huggingface-hub, cached), else the config's parameter counts x the storage of each
module's quantization. A bundled checkpoint size (`data/checkpoints.json`, measured file sizes) is a
cross-check of the computed total; when the two disagree by more than 2 % the computed pieces are scaled
to the measured size and the plan says so.

EP subdivides the TP group (moe_tp = tp / ep; each rank holds experts/ep experts at
intermediate/moe_tp), so routed-expert bytes per rank are total/tp either way: EP changes traffic,
not memory.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from doctor.pipeline.facts import Model
from doctor.plan.arch import Piece, model_pieces, raw_text_config
from doctor.plan.storage import known_scheme

SCALE_TOLERANCE = 0.02
UNKNOWN_QUANT = "config-unknown-quantization"  # WeightSource.kind when a scheme's storage is not known


@dataclass(frozen=True)
class WeightSource:
    """The weight pieces of a model and where their sizes come from."""

    kind: str  # safetensors-local | safetensors-hub | config | config-scaled | config-unknown-quantization
    pieces: tuple[Piece, ...]
    checkpoint_bytes: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RankWeights:
    """Bytes on one rank of a pipeline stage, by kind."""

    stage: int
    layers: tuple[int, int]
    bytes: int
    by_kind: dict[str, int] = field(default_factory=dict)


def pp_layers(num_layers: int, pp: int, stage: int) -> tuple[int, int]:
    """The engines' pipeline split: even, the last `remainder` stages take one more layer."""
    base, remainder = divmod(num_layers, pp)
    if stage >= pp - remainder:
        start = stage * (base + 1) - (pp - remainder)
        return start, start + base + 1
    return stage * base, stage * base + base


def bundled_checkpoint_bytes(model_id: str) -> tuple[int, str] | None:
    text = (Path(__file__).resolve().parent / "data" / "checkpoints.json").read_text(encoding="utf-8")
    table: dict[str, Any] = json.loads(text)
    entry = next((v for k, v in table.items() if k.lower() == model_id.lower()), None)
    if entry is None:
        return None
    return int(entry["bytes"]), str(entry["source"])


def weight_source(model: Model, header_pieces: list[Piece] | None = None, header_kind: str = "",
                  measured_bytes: tuple[int, str] | None = None) -> WeightSource:
    """Pieces from safetensors headers when there are some; else from the config, scaled to a measured
    checkpoint size (`measured_bytes`: an index's total_size; else the bundled table) when they differ."""
    source = _weight_source(model, header_pieces, header_kind, measured_bytes)
    if model.source != "derived":
        return source
    estimated = f"estimated: {model.id}'s config is {model.derivation}"
    return dataclasses.replace(source, notes=(estimated, *source.notes))


def _weight_source(model: Model, header_pieces: list[Piece] | None, header_kind: str,
                   measured_bytes: tuple[int, str] | None) -> WeightSource:
    if header_pieces:
        total = sum(p.nbytes for p in header_pieces)
        return WeightSource(header_kind, tuple(header_pieces), total,
                            (f"weights from the checkpoint's safetensors headers ({header_kind})",))
    pieces = model_pieces(model)
    total = sum(p.nbytes for p in pieces)
    bundled = measured_bytes or bundled_checkpoint_bytes(model.id)
    if bundled is None and not known_scheme(model.quantization):
        q = model.quantization
        return WeightSource(UNKNOWN_QUANT, tuple(pieces), total, (
            f"quantization {q.method or q.scheme!r} ({q.source or 'config'}) has no storage layout in the doctor: "
            f"its modules were sized as {model.dtype} ({total / 1e9:.2f} GB), an upper bound; the checkpoint's "
            f"safetensors headers (a local copy, or the hub when reachable) or its index's total_size would size "
            f"it exactly",))
    if bundled is None:
        return WeightSource("config", tuple(pieces), total,
                            (f"weights computed from the config: {total / 1e9:.2f} GB in the checkpoint",))
    measured, where = bundled
    ratio = measured / total
    note = (f"computed checkpoint {total / 1e9:.2f} GB vs measured {measured / 1e9:.2f} GB ({where}): "
            f"{(ratio - 1) * 100:+.2f}%")
    if abs(ratio - 1) <= SCALE_TOLERANCE:
        return WeightSource("config", tuple(pieces), total, (note,))
    scaled = tuple(Piece(p.kind, int(p.nbytes * ratio), p.shard, p.layer, p.place) for p in pieces)
    return WeightSource("config-scaled", scaled, measured, (note + "; pieces scaled to the measured size",))


ByPlace = tuple[dict[int, dict[str, int]], dict[str, int], dict[str, int]]


def rank_weights(pieces: tuple[Piece, ...] | list[Piece], model: Model, tp: int, pp: int,
                 speculative: bool = False) -> list[RankWeights]:
    """Bytes on one rank of each PP stage (ranks inside a stage hold the same amount)."""
    return stage_weights(rank_bytes_by_place(pieces, model, tp, speculative), model, pp)


def stage_weights(by_place: ByPlace, model: Model, pp: int) -> list[RankWeights]:
    """rank_weights from one rank's bytes by place (which depend on TP, not on PP)."""
    per_layer, first, last = by_place
    out = []
    for stage in range(pp):
        start, end = pp_layers(model.num_layers, pp, stage)
        by_kind: dict[str, int] = {}
        parts = [per_layer.get(layer, {}) for layer in range(start, end)]
        parts += [first] if stage == 0 else []
        parts += [last] if stage == pp - 1 else []
        for part in parts:
            for kind, nbytes in part.items():
                by_kind[kind] = by_kind.get(kind, 0) + nbytes
        out.append(RankWeights(stage, (start, end), sum(by_kind.values()), by_kind))
    return out


def rank_bytes_by_place(pieces: tuple[Piece, ...] | list[Piece], model: Model, tp: int, speculative: bool
                        ) -> ByPlace:
    """One pass over the pieces: this rank's bytes per kind for each decoder layer, for the first stage
    (embeddings, ViT) and for the last (lm_head; MTP/nextn layers only when a draft loads them)."""
    kv_heads = model.attention.num_kv_heads
    per_layer: dict[int, dict[str, int]] = {}
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    for p in pieces:
        if p.kind == "mtp" or (p.layer is not None and p.layer >= model.num_layers):
            if not speculative:
                continue  # engines skip nextn weights unless a draft model loads them
            bucket = last
        elif p.layer is not None:
            bucket = per_layer.setdefault(p.layer, {})
        else:
            bucket = first if p.place == "first" else last
        bucket[p.kind] = bucket.get(p.kind, 0) + _share(p, tp, kv_heads)
    return per_layer, first, last


def _share(p: Piece, tp: int, kv_heads: int) -> int:
    if p.shard == "rep":
        return p.nbytes
    if p.shard == "kv":
        return p.nbytes // min(tp, kv_heads) if tp > 1 else p.nbytes
    return p.nbytes // tp


def vision_of(model: Model) -> tuple[int, int] | None:
    """(layers, hidden) of the ViT, as an engine's VLM memory adjustment sees them."""
    if model.vision is None:
        return None
    return model.vision.num_layers, model.vision.hidden_size


__all__ = ["ByPlace", "RankWeights", "WeightSource", "bundled_checkpoint_bytes", "pp_layers", "rank_bytes_by_place",
           "rank_weights", "raw_text_config", "stage_weights", "vision_of", "weight_source"]
