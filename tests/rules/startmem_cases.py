"""Positive and boundary cases of OLL080-OLL081 (rules/ollama_context.toml): the context Ollama gives a request that
sets no num_ctx (server/routes.go's VRAM tiers from 0.15.5: 4096 below 23 GiB, 32768 below 47 GiB, else 262144,
capped at the GGUF's trained context) and whether the model fits the GPUs whole at it. area_cases.py adds them to
AREA_CASES. The GGUFs are the specs of tests/cases/models (Llama 3.3 70B Q4_K_M: 320 KiB of f16 KV a token;
Qwen3.5-35B-A3B Q4_K_M)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from doctor.pipeline.facts import Facts, Gpu
from tests.rules.builders import a, build

MODELS = Path(__file__).resolve().parents[1] / "cases" / "models"
LLAMA70B, QWEN35 = "llama-3.3-70b-q4km-gguf", "qwen3.5-35b-a3b-gguf"
GiB = 1 << 30


def resized(total: int) -> Callable[[tuple[Gpu, ...]], tuple[Gpu, ...]]:
    """Every GPU of the profile with `total` bytes of memory (a tier boundary)."""
    return lambda gpus: tuple(dataclasses.replace(g, memory_total_bytes=total) for g in gpus)


def ollama(version: str, profile: str, model: str | None = None, env: dict[str, str] | None = None,
           total: int | None = None) -> Callable[[], Facts]:
    """`--engine ollama==X` (or `llama.cpp==N` as given) on a profile, the server's environment, a GGUF spec."""
    def facts() -> Facts:
        from doctor.probe.model import load_model
        from tests.gguf_specs import gguf_for

        engine = version if "==" in version else f"ollama=={version}"
        built = build(profile, engines=(engine,), env=env, gpus=resized(total) if total else None)
        if model is None:
            return built
        return built.replace(model=load_model(str(gguf_for(MODELS / model)), {}, offline=True))
    return facts


S5060, S5070, S5090, S5090X2, PRO, SPARK, H100 = ("rtx-5060-ti-16gb", "rtx-5070", "rtx-5090", "rtx-5090-x2",
                                                  "rtx-pro-6000", "dgx-spark", "h100-sxm-x8")

STARTMEM_CASES = [
    a("OLL080", True, "0.32.15 on a 16 GB 5060 Ti, no model: 15.9 GiB < 23 GiB", ollama("0.32.15", S5060)),
    a("OLL080", True, "0.30.0 on a 12 GB 5070 with Qwen3.5 (trained for 262144)", ollama("0.30.0", S5070, QWEN35)),
    a("OLL080", True, "0.32.15, OLLAMA_CONTEXT_LENGTH=0 (automatic)",
      ollama("0.32.15", S5060, env={"OLLAMA_CONTEXT_LENGTH": "0"})),
    a("OLL080", True, "0.32.15 on a GPU of 22.9 GiB, just below the 23 GiB tier",
      ollama("0.32.15", S5090, total=int(22.9 * GiB))),
    a("OLL080", True, "0.32.15, 24 GiB less 2 GiB OLLAMA_GPU_OVERHEAD = 22 GiB",
      ollama("0.32.15", S5090, env={"OLLAMA_GPU_OVERHEAD": str(2 * GiB)}, total=24 * GiB)),
    a("OLL080", True, "0.20.0 (Ollama's own runners, VRAM tier) on one 5060 Ti", ollama("0.20.0", S5060)),
    a("OLL080", True, "0.15.4 (fixed 4096 default) on one 5060 Ti", ollama("0.15.4", S5060)),
    a("OLL080", False, "0.32.15 on a GPU of exactly 23 GiB: the 32768 tier", ollama("0.32.15", S5090, total=23 * GiB)),
    a("OLL080", False, "0.32.15 on a 32 GB 5090: 32768", ollama("0.32.15", S5090)),
    a("OLL080", False, "0.32.15 on two 16 GB cards: 31.8 GiB summed, 32768",
      ollama("0.32.15", S5090X2, total=int(15.9 * GiB))),
    a("OLL080", False, "0.32.15 with OLLAMA_CONTEXT_LENGTH=16384", ollama(
        "0.32.15", S5060, env={"OLLAMA_CONTEXT_LENGTH": "16384"})),
    a("OLL080", False, "0.20.0 with OLLAMA_CONTEXT_LENGTH=16384", ollama(
        "0.20.0", S5060, env={"OLLAMA_CONTEXT_LENGTH": "16384"})),
    a("OLL080", False, "0.20.0 on a 5090 (one GPU of 31.8 GiB)", ollama("0.20.0", S5090)),
    a("OLL080", False, "0.20.0 with OLLAMA_GPU_OVERHEAD set: one GPU less an overhead the doctor does not read there",
      ollama("0.20.0", S5060, env={"OLLAMA_GPU_OVERHEAD": "1073741824"})),
    a("OLL080", False, "0.32.15 on an 80 GB H100 (9.0): 262144", ollama("0.32.15", H100)),
    a("OLL080", False, "llama.cpp b10488 itself (not Ollama): no default context of Ollama's",
      ollama("llama.cpp==10488", S5060, QWEN35)),
    a("OLL081", True, "0.32.15, Llama 3.3 70B on two 5090s: 262144 tier, capped at 131072, 40 GiB of KV",
      ollama("0.32.15", S5090X2, LLAMA70B)),
    a("OLL081", True, "0.30.0 (the first llama-server release), same deployment",
      ollama("0.30.0", S5090X2, LLAMA70B)),
    a("OLL081", True, "0.32.15 on a PRO 6000 with OLLAMA_NUM_PARALLEL=2: -c 262144, 80 GiB of KV",
      ollama("0.32.15", PRO, LLAMA70B, env={"OLLAMA_NUM_PARALLEL": "2"})),
    a("OLL081", False, "0.32.15 on one PRO 6000: weights 41 + KV 40 GiB fit 95.6", ollama("0.32.15", PRO, LLAMA70B)),
    a("OLL081", False, "0.32.15 on GB10 (119.7 GiB pool): fits", ollama("0.32.15", SPARK, LLAMA70B)),
    a("OLL081", False, "two 5090s with OLLAMA_CONTEXT_LENGTH=8192: the user's context, not the tier",
      ollama("0.32.15", S5090X2, LLAMA70B, env={"OLLAMA_CONTEXT_LENGTH": "8192"})),
    a("OLL081", False, "one 5090: the weights alone do not fit, at any context (LCPP010's)",
      ollama("0.32.15", S5090, LLAMA70B)),
    a("OLL081", False, "0.24.0: Ollama's own runners, no llama-server plan", ollama("0.24.0", S5090X2, LLAMA70B)),
    a("OLL081", False, "Qwen3.5-35B-A3B on a PRO 6000 at 262144: hybrid, 5 GiB of KV", ollama("0.32.15", PRO, QWEN35)),
    a("OLL081", False, "llama.cpp b10488 itself with -c 131072 on two 5090s (not Ollama)",
      ollama("llama.cpp==10488", S5090X2, LLAMA70B), "-c", "131072"),
]
