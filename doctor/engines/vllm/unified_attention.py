"""The launches of TRITON_ATTN's unified attention kernels, per vLLM release, read from each wheel's
`unified_attention` (vllm/attention/ops/triton_unified_attention.py up to 0.13, vllm/v1/attention/ops/ from 0.14)
and the backend that calls it (vllm/v1/attention/backends/triton_attn.py):

- BLOCK_M, the query rows per program: 16 up to 0.10; from 0.11 16 while a KV head serves at most 16 query heads,
  else the next power of two of that ratio. BLOCK_Q = BLOCK_M // queries per KV head.
- TILE_SIZE, keys per iteration: the KV block size (16) up to 0.10; 0.11 and 0.12 32 for the 2D kernel and 16 for
  the 3D one (bf16 queries); from 0.13 `_get_tile_size` also gives Gemma 3's shape (window 1024, head 128 or 256)
  32 in both.
- The 2D kernel runs prefill and large batches, the 3D split-KV kernel (`kernel_unified_attention_3d` up to 0.19,
  `kernel_unified_attention` with IS_3D from 0.20) small decode batches, followed by `reduce_segments` over
  NUM_PAR_SOFTMAX_SEGMENTS = 16 segments; from 0.32 on compute capability 12.0 (exactly) also 64 segments for the
  batches that under-fill the SMs (`max_seqs_64_segments`).
- Launch options: none, so Triton's defaults for CUDA, 4 warps and 3 stages, on SM12x in every release (0.24+
  passes 8 warps / 2 stages only for head size 256 on the 10.x family).
- From 0.14 a sliding window also zeroes V's rows outside the window before p @ V (kernel revision 2).
"""

from __future__ import annotations

from typing import Any

from packaging.version import Version

from doctor.versions import release as plain_release

WARPS, STAGES, KV_BLOCK = 4, 3, 16
# The Triton of the torch each wheel pins (METADATA `Requires-Dist: torch==`: 2.7.0 in 0.9.2, 2.7.1 in 0.10.0,
# 2.8.0 in 0.11.0, 2.9.0 in 0.12-0.13, 2.9.1 in 0.14-0.16, 2.10.0 in 0.17-0.19, 2.11.0 in 0.20-0.26, 2.13.0 in
# 0.27-0.32, 2.14.0 in 0.33.0; each torch's own `triton` pin), used when no Triton is installed.
TRITON_PINS = ((Version("0.33"), "3.8.0"), (Version("0.27"), "3.7.1"), (Version("0.17"), "3.6.0"),
               (Version("0.14"), "3.5.1"), (Version("0.12"), "3.5.0"), (Version("0.11"), "3.4.0"),
               (Version("0.0"), "3.3.1"))


def _plain(version: Any) -> Version:
    return plain_release(Version(version) if isinstance(version, str) else version)


def pinned_triton(version: Any) -> str:
    plain = _plain(version)
    return next(triton for first, triton in TRITON_PINS if plain >= first)


def kernel_revision(version: Any) -> int:
    """doctor.kernels.unified_attention_smem's revision of the kernel this release ships: 0 up to 0.10 (a tile is
    one KV block, `tl.load(block_tables_ptr + block_table_offset + j)` a scalar), 1 in 0.11-0.13 (TILE_SIZE keys
    gathered through a vector of block indices), 2 from 0.14 (a sliding window also zeroes V's rows)."""
    plain = _plain(version)
    if plain < Version("0.11"):
        return 0
    return 2 if plain >= Version("0.14") else 1


def block_m(version: Any, q_per_kv: int) -> int:
    if _plain(version) < Version("0.11") or q_per_kv <= 16:
        return 16
    return 1 << (q_per_kv - 1).bit_length()


def tiles(version: Any, head_size: int, window: int) -> tuple[int, int]:
    """(TILE_SIZE of the 2D kernel, of the 3D kernel) for bf16 queries."""
    plain = _plain(version)
    if plain < Version("0.11"):
        return KV_BLOCK, KV_BLOCK
    if plain >= Version("0.13") and window == 1024 and head_size in (128, 256):
        return 32, 32
    return 32, 16


def segment_counts(version: Any, cc: tuple[int, int] | None = None) -> tuple[int, ...]:
    if _plain(version) >= Version("0.32") and cc in (None, (12, 0)):
        return 16, 64
    return (16,)


def _tuned_large_head(version: Any, head_size: int, q_per_kv: int, cc: tuple[int, int] | None) -> bool:
    """0.24+: head size 256 prefill on the 10.x family runs the 2D kernel at BLOCK_M 32, TILE 128, 8 warps,
    2 stages (`tuned_large_head`)."""
    return (_plain(version) >= Version("0.24") and head_size == 256 and q_per_kv <= 16 and cc is not None
            and cc[0] == 10)


def launches(version: Any, head_size: int, q_per_kv: int, kv: str, window: int = 0,
             cc: tuple[int, int] | None = None) -> list[dict[str, Any]]:
    """The kernels TRITON_ATTN launches for one attention shape: the 2D kernel, the 3D kernel and the reduction
    (one per segment count), each as its launch parameters."""
    bm = block_m(version, q_per_kv)
    if bm // q_per_kv < 1:
        return []  # up to 0.10 more than 16 query heads per KV head leave BLOCK_Q at 0: vLLM cannot run it
    prefill, decode = tiles(version, head_size, window)
    common = {"head_size": head_size, "q_per_kv": q_per_kv, "kv": kv, "block_m": bm, "window": window,
              "num_warps": WARPS, "num_stages": STAGES, "block_size": KV_BLOCK}
    two_d = {**common, "kernel": "2d", "tile": prefill}
    if _tuned_large_head(version, head_size, q_per_kv, cc):
        two_d.update(block_m=32, tile=128, num_warps=8, num_stages=2)
    out = [two_d, {**common, "kernel": "3d", "tile": decode}]
    for segments in segment_counts(version, cc):
        out.append({**common, "kernel": "reduce", "tile": decode, "segments": segments})
    return out
