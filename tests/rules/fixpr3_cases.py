"""Positive and boundary cases for the merged-fix rules of fixpr3 (rules/fixpr3.toml): llama.cpp builds before and
after each fix, the K/V pairs a default build compiles and those it does not, the flash-attention setting, the
other SM12x part and 9.0/10.0. test_rule_cases.py adds them to CASES."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib
from tests.rules.image_cases import case as image_case

R5070TI, R5090L, SPARK, H100, B200 = "rtx-5070-ti", "rtx-5090-laptop", "dgx-spark", "h100-sxm-x8", "b200-x8"


def lcpp(build_number: str, profile: str = R5070TI, **details: str) -> Callable[[], Facts]:
    """`--engine llama.cpp==BUILD` (the launch flags come after `--`)."""
    return lambda: build(profile, libs=(lib("llama.cpp", build_number, **details),))


MIXED = ("-ctk", "q8_0", "-ctv", "q4_0")
Q5 = ("-ctk", "q5_1", "-ctv", "q5_1")

FIXPR3_CASES = [
    # LCPP140: -fa auto + quantized V of an uncompiled pair, b9760-b10204: context creation refused
    a("LCPP140", True, "b10000, q8_0/q4_0, -fa auto (default)", lcpp("10000"), *MIXED),
    a("LCPP140", True, "b9760 (first ggml-cuda source read), f16 K / q4_0 V (#28524's pair)", lcpp("9760"),
      "-ctv", "q4_0"),
    a("LCPP140", True, "b10204 (last before the forced-on change), q5_1 both", lcpp("10204"), *Q5),
    a("LCPP140", True, "GB10 (12.1), q5_0 both, -fa auto", lcpp("10100", SPARK), "-ctk", "q5_0", "-ctv", "q5_0",
      "-fa", "auto"),
    a("LCPP140", True, "the pair from the log's llama_kv_cache line", lcpp("10100", logged_kv_types="f16-q8_0")),
    a("LCPP140", False, "b10216: a quantized V cache turns FA on (LCPP141 instead)", lcpp("10216"), *MIXED),
    a("LCPP140", False, "b9754: no ggml-cuda source read", lcpp("9754"), *MIXED),
    a("LCPP140", False, "q8_0 both: compiled", lcpp("10000"), "-ctk", "q8_0", "-ctv", "q8_0"),
    a("LCPP140", False, "q4_0 both: compiled", lcpp("10000"), "-ctk", "q4_0", "-ctv", "q4_0"),
    a("LCPP140", False, "quantized K only: auto turns FA off and needs none", lcpp("10000"), "-ctk", "q5_1"),
    a("LCPP140", False, "-fa on: FA stays on (CPU attention, LCPP141)", lcpp("10000"), *MIXED, "-fa", "on"),
    a("LCPP140", False, "-fa off: LCPP008's refusal", lcpp("10000"), *MIXED, "-fa", "off"),
    a("LCPP140", False, "iq4_nl V: no build has the kernel (not this fix)", lcpp("10000"), "-ctv", "iq4_nl"),
    a("LCPP140", False, "-ngl 0: every layer and its attention on the CPU", lcpp("10000"), *MIXED, "-ngl", "0"),
    a("LCPP140", False, "--no-kv-offload: the device check is not settled", lcpp("10000"), *MIXED, "-nkvo"),
    a("LCPP140", True, "-ngl 99: offloaded", lcpp("10000"), *MIXED, "-ngl", "99"),
    a("LCPP140", False, "default f16 cache", lcpp("10000")),
    a("LCPP140", False, "build unknown", lcpp("0"), *MIXED),
    a("LCPP140", False, "H100 (9.0)", lcpp("10000", H100), *MIXED),
    a("LCPP140", False, "B200 (10.0)", lcpp("10000", B200), *MIXED),
    # LCPP141: FA on with an uncompiled pair, b9760-b10867: attention on the CPU
    a("LCPP141", True, "b10300, q8_0/q4_0, -fa auto (forced on by the quantized V)", lcpp("10300"), *MIXED),
    a("LCPP141", True, "b10216 (first forced-on build read), q5_1 both", lcpp("10216"), *Q5),
    a("LCPP141", True, "b10867 (last gated build), -fa on, q5_0 both (RTX 5090 Laptop)", lcpp("10867", R5090L),
      "-ctk", "q5_0", "-ctv", "q5_0", "-fa", "on"),
    a("LCPP141", True, "b10000, -fa on, quantized K only", lcpp("10000"), "-ctk", "q8_0", "-fa", "on"),
    a("LCPP141", True, "b9760 (first ggml-cuda source read), -fa on, q8_0/q4_0", lcpp("9760"), *MIXED, "-fa", "on"),
    a("LCPP141", False, "b9754, -fa on: no ggml-cuda source read", lcpp("9754"), *MIXED, "-fa", "on"),
    a("LCPP141", True, "GB10 (12.1), b10500, q4_1 both", lcpp("10500", SPARK), "-ctk", "q4_1", "-ctv", "q4_1"),
    a("LCPP141", False, "b10878: PR #28079 keeps it on the GPU", lcpp("10878"), *MIXED),
    a("LCPP141", False, "b10000, -fa auto: refused instead (LCPP140)", lcpp("10000"), *MIXED),
    a("LCPP141", False, "b10300, -fa auto, quantized K only: auto turns FA off", lcpp("10300"), "-ctk", "q5_1"),
    a("LCPP141", False, "b10300, -fa off", lcpp("10300"), *MIXED, "-fa", "off"),
    a("LCPP141", False, "b10300, -ngl 0: the attention is the CPU's anyway", lcpp("10300"), *MIXED, "-ngl", "0"),
    a("LCPP141", False, "b10300, q8_0 both", lcpp("10300"), "-ctk", "q8_0", "-ctv", "q8_0"),
    a("LCPP141", False, "b10300, bf16 both", lcpp("10300"), "-ctk", "bf16", "-ctv", "bf16"),
    a("LCPP141", False, "H100 (9.0)", lcpp("10300", H100), *MIXED),
    a("LCPP141", False, "B200 (10.0)", lcpp("10300", B200), *MIXED),
    # LCPP142: from b10878 an uncompiled pair is converted to f16 for the vector kernel
    a("LCPP142", True, "b10878, q5_1 both", lcpp("10878"), *Q5),
    a("LCPP142", True, "b11434, q8_0/q4_0, -fa on", lcpp("11434"), *MIXED, "-fa", "on"),
    a("LCPP142", False, "b10867: the CPU fallback instead (LCPP141)", lcpp("10867"), *Q5),
    a("LCPP142", False, "b10878, q8_0 both", lcpp("10878"), "-ctk", "q8_0", "-ctv", "q8_0"),
    a("LCPP142", False, "b10878, -fa off", lcpp("10878"), *Q5, "-fa", "off"),
    a("LCPP142", False, "H100 (9.0)", lcpp("10878", H100), *Q5),
]

# LCPP143: the official llama.cpp `cuda`/`cuda12` image tags on GB10 (12.1): 120a-real SASS and compute_90 PTX only
LLAMA_IMAGE = "ghcr.io/ggml-org/llama.cpp"
FIXPR3_CASES += [
    image_case("LCPP143", True, "server-cuda on GB10", SPARK, f"{LLAMA_IMAGE}:server-cuda"),
    image_case("LCPP143", True, "server-cuda12-b10867 on GB10", SPARK, f"{LLAMA_IMAGE}:server-cuda12-b10867"),
    image_case("LCPP143", True, "full-cuda-b7551 on GB10 (CUDA 12.4 era: no Blackwell code at all)", SPARK,
               f"{LLAMA_IMAGE}:full-cuda-b7551"),
    image_case("LCPP143", True, "bare cuda tag on GB10", SPARK, f"{LLAMA_IMAGE}:cuda"),
    image_case("LCPP143", False, "server-cuda13: 121a-real", SPARK, f"{LLAMA_IMAGE}:server-cuda13"),
    image_case("LCPP143", False, "server-cuda13-b10867", SPARK, f"{LLAMA_IMAGE}:server-cuda13-b10867"),
    image_case("LCPP143", False, "server-vulkan", SPARK, f"{LLAMA_IMAGE}:server-vulkan"),
    image_case("LCPP143", False, "server-cuda on an RTX 5090 (12.0: 120a-real runs)", "rtx-5090",
               f"{LLAMA_IMAGE}:server-cuda"),
    image_case("LCPP143", False, "server-cuda on an H100 (9.0)", H100, f"{LLAMA_IMAGE}:server-cuda"),
    image_case("LCPP143", False, "server-cuda on a B200 (10.0)", B200, f"{LLAMA_IMAGE}:server-cuda"),
    image_case("LCPP143", False, "another repository with a cuda tag", SPARK, "example/llama.cpp:server-cuda"),
]
