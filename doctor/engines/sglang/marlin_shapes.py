"""Weight shards SGLang's Marlin repack rejects: compressed-tensors WNA16 checkpoints (INT4/INT8 weight-only:
Kimi-K2.5, AutoRound/llm-compressor W4A16 exports) run every quantized dense and expert layer on Marlin, and no
SGLang release read pads a shard to Marlin's tile (doctor/data/marlin-shapes.json, tools/marlin_shapes.py).

python/sglang/srt/layers/quantization/compressed_tensors/schemes/compressed_tensors_wNa16.py (0.5.8-0.5.23) calls
`check_marlin_supports_shape` in `process_weights_after_loading` and discards its answer, then `gptq_marlin_repack`
(sgl-kernel) raises "size_n = N is not divisible by tile_n_size = 64"; the MoE scheme (compressed_tensors_moe.py in
0.5.8, schemes/compressed_tensors_wNa16_moe.py from 0.5.12) repacks each expert with `gptq_marlin_moe_repack`,
which calls the same `gptq_marlin_repack` per expert, without a check. GPTQ/AWQ/AutoRound methods test
`check_(moe_)marlin_supports_layer` first and fall back, so they are not claimed here."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.spi import Model
from doctor.plan.quant_shapes import Shard, rank_shards, repack_problem, thread_tile_fits

DATA = Path(__file__).resolve().parents[2] / "data" / "marlin-shapes.json"
WNA16 = ("int4-w4a16", "int8-w8a16")


@cache
def table() -> dict[str, dict[str, Any]]:
    return json.loads(DATA.read_text(encoding="utf-8"))["sglang"]


@cache  # asked once per candidate layout, with the same release
def release_row(version: str) -> tuple[str, dict[str, Any]] | None:
    """The newest release read at or below `version` (None: older than every release read)."""
    wanted = Version(Version(str(version)).base_version)
    below = sorted((Version(r), r) for r in table() if Version(r) <= wanted)
    return (below[-1][1], table()[below[-1][1]]) if below else None


def _marlin_shards(model: Model, version: str, tp: int, ep: int) -> tuple[str, list[Shard]] | None:
    """(release read, the compressed-tensors WNA16 shards SGLang hands Marlin unpadded); None: not this path."""
    if model.quantization.method != "compressed-tensors":
        return None
    found = release_row(version)
    if found is None or found[1].get("dense_padding"):
        return None
    return found[0], [shard for shard in rank_shards(model, tp, ep) if shard.scheme in WNA16]


def risks(model: Model, version: str, tp: int, ep: int) -> list[str]:
    """Shards that repack but that no Marlin thread tile divides: the GEMM's "Invalid thread config" at the first
    forward is likely (warning: the kernel's compiled tile list is in sgl-kernel, not read here)."""
    found = _marlin_shards(model, version, tp, ep)
    if found is None:
        return []
    return [f"Marlin ({shard.scheme}, compressed-tensors): {shard.layer} per rank is N={shard.n} x K={shard.k} at "
            f"TP{tp}: it repacks, but no Marlin thread tile divides it" for shard in found[1]
            if repack_problem(shard) is None and not thread_tile_fits(shard)]


def problems(model: Model, version: str, tp: int, ep: int) -> list[str]:
    """MEM003-style sentences: the compressed-tensors WNA16 shards this layout cannot repack."""
    found = _marlin_shards(model, version, tp, ep)
    if found is None:
        return []
    out = []
    for shard in found[1]:
        problem = repack_problem(shard)
        if problem is not None:
            out.append(f"Marlin ({shard.scheme}, compressed-tensors): {shard.layer} per rank is N={shard.n} x "
                       f"K={shard.k} at TP{tp}; SGLang {found[0]} repacks it unpadded and gptq_marlin_repack raises "
                       f"\"{problem}\"")
    return out
