"""Expert shards vLLM's Marlin MoE cannot repack: where a layout sends NVFP4 or FP8 routed experts to Marlin
(`--moe-backend marlin`, or the release's own selection for this model on this GPU, `vllm.derived`) and the
release does not pad the per-rank intermediate to Marlin's tile (doctor/data/marlin-shapes.json, written from
each wheel by tools/marlin_shapes.py).

Up to 0.23.x `prepare_nvfp4_moe_layer_for_marlin` (quantization/utils/marlin_utils_fp4.py) hands w13 as
size_n = (2 or 1) x intermediate / TP, size_k = hidden and w2 as size_n = hidden, size_k = intermediate / TP to
`gptq_marlin_repack`, whose TORCH_CHECKs raise "size_n = N is not divisible by tile_n_size = 64" (and the same
for size_k and tile_k_size = 16) at weight loading. 0.24.0 pads NVFP4 experts (`round_up(N, 64)`, vLLM PR 45295),
0.25.0 FP8 and WNA16 experts (`marlin_moe_padded_intermediate`, PR 45703). MXFP4 experts are padded in every
release (VLLMMemory.loads_expert_split). GPTQ/AWQ/compressed-tensors INT4 experts are not checked here: their
methods test `check_moe_marlin_supports_layer` first and fall back to the WNA16 Triton kernels."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from packaging.version import Version

from doctor.engines.spi import Model
from doctor.plan.quant_shapes import Shard, expert_shards, repack_problem, thread_tile_fits

DATA = Path(__file__).resolve().parents[2] / "data" / "marlin-shapes.json"
# the routed experts' scheme -> the release-table column that says its Marlin MoE preparation pads
PADDING_COLUMN = {"nvfp4": "nvfp4_moe_padding", "fp8-block": "moe_padding", "fp8-channel": "moe_padding",
                  "fp8-tensor": "moe_padding"}


@cache
def table() -> dict[str, dict[str, Any]]:
    return json.loads(DATA.read_text(encoding="utf-8"))["vllm"]


@cache  # asked once per candidate layout, with the same release
def release_row(version: Version | str) -> tuple[str, dict[str, Any]] | None:
    """The newest tabulated release at or below `version` (None: older than every wheel read)."""
    wanted = Version(str(version))
    rows = sorted(table().items(), key=lambda item: Version(item[0]))
    below = [(release, row) for release, row in rows if Version(release) <= Version(wanted.base_version)]
    return below[-1] if below else None


def first_padding_release(column: str) -> str | None:
    rows = sorted(table().items(), key=lambda item: Version(item[0]))
    return next((release for release, row in rows if row.get(column)), None)


def _unpadded(model: Model, version: Version | str, tp: int, ep: int) -> list[Shard]:
    """The routed-expert shards the release hands Marlin as they are (none where it pads this scheme)."""
    column = PADDING_COLUMN.get(model.quantization.for_experts().scheme)
    found = release_row(version)
    if column is None or found is None or found[1].get(column):
        return []
    return expert_shards(model, tp, ep)


def unpadded_shards(model: Model, version: Version | str, tp: int, ep: int) -> list[tuple[Shard, str]]:
    """Each routed-expert shard on Marlin that the release repacks unpadded and the repack rejects, with the
    kernel's message."""
    found = ((shard, repack_problem(shard)) for shard in _unpadded(model, version, tp, ep))
    return [(shard, problem) for shard, problem in found if problem is not None]


def risks(model: Model, version: Version | str, tp: int, ep: int, marlin_reason: str) -> list[str]:
    """Unpadded expert shards that repack but that no Marlin thread tile divides (N % 64 with K % 128, or N % 128
    with K % 64): the MoE GEMM's "Invalid thread config" at the first forward is likely, not shown by the code
    read here (the MoE kernel's compiled configs differ by release: vllm PR 32360 added thread_n 64)."""
    return [f"Marlin MoE ({marlin_reason}): {shard.layer} per rank is N={shard.n} x K={shard.k} at TP{tp // ep}: "
            f"it repacks, but no Marlin thread tile divides it" for shard in _unpadded(model, version, tp, ep)
            if repack_problem(shard) is None and not thread_tile_fits(shard)]


def problems(model: Model, version: Version | str, tp: int, ep: int, marlin_reason: str) -> list[str]:
    """MEM003-style sentences: why this layout fails on vLLM's Marlin MoE."""
    found = release_row(version)
    scheme = model.quantization.for_experts().scheme
    fixed = first_padding_release(PADDING_COLUMN.get(scheme, ""))
    out = []
    for shard, problem in unpadded_shards(model, version, tp, ep):
        release = found[0] if found else str(version)
        out.append(f"Marlin MoE ({marlin_reason}): {shard.layer} per rank is N={shard.n} x K={shard.k} at "
                   f"TP{tp // ep}; vLLM {release} repacks {scheme} experts unpadded and gptq_marlin_repack raises "
                   f"\"{problem}\"" + (f" (vLLM {fixed} pads it)" if fixed else ""))
    return out
