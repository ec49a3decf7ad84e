"""Validation queries: the launches of public reports whose engine log states a backend choice on a real GPU,
where the grid (grid.py) has no entry with the same flags. Each is a grid shape (same config, same shape class)
with the report's own flags added; `python -m tools.engine_oracle vllm RELEASE --grid validation --only NAME`
writes them to doctor/data/derived/vllm-validation/<release>.json, a table `check` never reads (the
validation tests in tests/engines/vllm/test_oracle_validation.py do)."""

from __future__ import annotations

from dataclasses import dataclass

from tools.engine_oracle import grid


@dataclass(frozen=True)
class Launch:
    name: str  # the --only name
    shape: str  # the grid shape whose config it uses
    quant: str
    flags: tuple[str, ...]  # added to grid.BASE_FLAGS
    report: str  # the report whose launch this is


LAUNCHES = (
    # vllm#41477: gpt-oss-120b on a DGX Spark (GB10), vLLM 0.20.0, each --moe-backend the report tried.
    *(Launch("gpt-oss-forced-moe", "gqa-h64-swa-sinks-moe", "native", ("--moe-backend", backend),
             "https://github.com/vllm-project/vllm/issues/41477")
      for backend in ("flashinfer_cutlass", "deep_gemm", "emulation", "marlin")),
    # AlexGS74/glm47-nvfp4-sm120: vLLM 0.15.1, `--attention-backend TRITON` (the SGLang name) refused, and the
    # default attention of its NVFP4 checkpoint, whose FP8 KV cache (729,248 tokens in 31.99 GiB at TP 4) the
    # grid's --kv-cache-dtype fp8 stands for.
    Launch("attention-backend-name", "gqa-h128-moe", "nvfp4", ("--attention-backend", "TRITON"),
           "https://github.com/AlexGS74/glm47-nvfp4-sm120"),
    Launch("nvfp4-fp8-kv", "gqa-h128-moe", "nvfp4", ("--kv-cache-dtype", "fp8"),
           "https://github.com/AlexGS74/glm47-nvfp4-sm120"),
    # vllm#52308: nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4 with default backend selection on a B200, vLLM
    # 0.27.0 (the checkpoint's FP8 KV cache); a control of the emulation on 10.0.
    Launch("nemotron-nano-nvfp4-default", "gqa-h128-mamba-moe", "nvfp4", ("--kv-cache-dtype", "fp8"),
           "https://github.com/vllm-project/vllm/issues/52308"),
    # Controls on real 9.0 machines whose release has no 9.0 entry of the shape in its grid table.
    # vllm#37180: Qwen/Qwen3.5-35B-A3B (gated DeltaNet + attention, head size 256, BF16 MoE) on a GH200, default
    # flags; the log's source lines (cuda.py:405, flash_attn.py:587) are vLLM 0.17.0's and 0.17.1's (0.18.0: 317/598).
    Launch("qwen35-moe-default", "gqa-h256-linear-moe", "bf16", (),
           "https://github.com/vllm-project/vllm/issues/37180"),
)


def _suffix(flags: tuple[str, ...]) -> str:
    """The grid's own spelling: `+kv-fp8` for a KV dtype, `+moe=triton` for a forced backend."""
    pairs = zip(flags[::2], flags[1::2], strict=True)
    return "".join(f"+kv-{value}" if name == "--kv-cache-dtype"
                   else f"+{name.removeprefix('--').replace('-backend', '')}={value}" for name, value in pairs)


def provenance() -> dict[str, str]:
    shapes = {s.name: s.provenance for s in grid.shapes()}
    return {launch.name: f"{shapes[launch.shape]}; flags of {launch.report}" for launch in LAUNCHES}


def queries(control: bool = False) -> list[grid.Query]:
    """Every validation launch (the same on every capability asked: --capabilities/--controls pick them)."""
    shapes = {s.name: s for s in grid.shapes()}
    asked = []
    for launch in LAUNCHES:
        config = grid.with_quant(shapes[launch.shape].config, launch.quant)
        query_id = f"{launch.shape}:{launch.quant}{_suffix(launch.flags)}"
        asked.append(grid.Query(query_id, launch.name, launch.quant, (*grid.BASE_FLAGS, *launch.flags), config))
    return asked
