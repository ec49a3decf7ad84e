"""Positive and boundary cases for the know-spark3 work: community DGX Spark images (doctor/data/images/
community.toml) as lint hands them to the rules, and the Spark cluster / unified-memory rules on one node.
test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from doctor.engines.images import image_facts
from doctor.pipeline.facts import Facts
from tests.rules.builders import Case, build
from tests.rules.log_line_cases import logged

SPARK, PRO = "dgx-spark", "rtx-pro-6000"
NVFP4 = "nvidia/Kimi-K2.5-NVFP4"
AEON_0271 = "ghcr.io/aeon-7/aeon-vllm-ultimate:2026-08-16-v0.27.1"


def imaged(image: str | None, version: str, profile: str = SPARK, model: str = NVFP4) -> tuple[
        Callable[[], Facts], Callable[[], dict[str, Any]]]:
    """A launch in `image` (its engine pin as lint passes it: `version`)."""
    return (lambda: build(profile, model, (f"vllm=={version}",)),
            lambda: {"image": image_facts(image), "recipe": None})


def image_case(rule: str, fires: bool, why: str, image: str | None, version: str, *args: str,
               profile: str = SPARK) -> Case:
    facts, launch_file = imaged(image, version, profile)
    return Case(rule, fires, facts, tuple(args), (), why, launch_file)


KV_NVFP4 = ("--kv-cache-dtype", "nvfp4")
KNOW_SPARK3_CASES = [
    # ATTN004 reads upstream flashinfer.py; AEON's GB10 builds carry the Triton NVFP4 KV path (vLLM PR 44389)
    image_case("ATTN004", False, "aeon 0.27.1 image carries triton nvfp4 kv", AEON_0271, "0.27.1+aeon.sm121a.dspark",
               *KV_NVFP4),
    image_case("ATTN004", False, "aeon 0.24.0 image", "ghcr.io/aeon-7/aeon-vllm-ultimate:2026-07-01-v0.24.0",
               "0.24.0+sm121a.aeon", *KV_NVFP4),
    image_case("ATTN004", True, "upstream vllm/vllm-openai:v0.27.1 image", "vllm/vllm-openai:v0.27.1", "0.27.1",
               *KV_NVFP4),
    image_case("ATTN004", True, "aeon :latest floats, not in the table", "ghcr.io/aeon-7/aeon-vllm-ultimate:latest",
               "0.27.1", *KV_NVFP4),
    image_case("ATTN004", True, "anemll image carries nvfp4_ds_mla, not nvfp4", "ghcr.io/anemll/dspark-vllm-gx10:0.1.1",
               "0.25.2.dev0+g752a3a504.d20260714", *KV_NVFP4),
    image_case("ATTN004", True, "no image", None, "0.27.1", *KV_NVFP4),
]


def engine(version: str = "vllm==0.27.1", profile: str = SPARK) -> Callable[[], Facts]:
    return lambda: build(profile, None, (version,))


GMU = "--gpu-memory-utilization"
KNOW_SPARK3_CASES += [
    # UMA030: an explicit vLLM utilisation of 0.90 or more of GB10's unified pool
    Case("UMA030", True, engine(), (GMU, "0.90"), (), "0.90 on a spark"),
    Case("UMA030", True, engine("vllm==0.20.0"), (GMU, "0.95"), (), "0.95, vllm 0.20.0"),
    Case("UMA030", True, engine(), (GMU, "0.9", "--tensor-parallel-size", "2", "--distributed-executor-backend",
                                    "ray"), (), "0.9 per node over ray"),
    Case("UMA030", False, engine(), (GMU, "0.89"), (), "0.89 just under"),
    Case("UMA030", False, engine(), (GMU, "0.80"), (), "0.80 (the report's fix)"),
    Case("UMA030", False, engine(), (), (), "vllm's default: not asked for"),
    Case("UMA030", False, engine(profile=PRO), (GMU, "0.95"), (), "rtx pro 6000 (12.0, own VRAM)"),
    Case("UMA030", False, engine(profile="rtx-5090"), (GMU, "0.95"), (), "rtx 5090"),
    Case("UMA030", False, engine("sglang==0.5.12"), ("--mem-fraction-static", "0.95"), (), "sglang on a spark"),
]

# CLU040 explains a log line only (its signature's GB10 context scopes it; the rule itself reads log.signatures)
KNOW_SPARK3_CASES += [
    logged("CLU040", True, "its line on a spark", SPARK),
    logged("CLU040", False, "check: no log", SPARK, shown=()),
    logged("CLU040", False, "another rule's line", SPARK, shown=("CLU030",)),
]

# UMA002 also holds where Ray's own kill message shows Ray ran the workers (no launch flags in the log)
KNOW_SPARK3_CASES += [
    logged("UMA002", True, "ray's oom-kill line on a spark", SPARK),
    logged("UMA002", False, "ray's oom-kill line on an rtx pro 6000 (12.0)", PRO),
    logged("UMA002", False, "another rule's line, no ray launch", SPARK, shown=("CLU040",)),
]

# VLLM013: anemll's dspark image adds nvfp4_ds_mla to its vLLM 0.25 build; other flags are still checked
ANEMLL = "ghcr.io/anemll/dspark-vllm-gx10:0.1.1"
DS_MLA = ("--kv-cache-dtype", "nvfp4_ds_mla")
KNOW_SPARK3_CASES += [
    image_case("VLLM013", False, "anemll image carries nvfp4_ds_mla", ANEMLL, "0.25.0", *DS_MLA),
    image_case("VLLM013", True, "the same dtype in the upstream 0.25.0 image", "vllm/vllm-openai:v0.25.0", "0.25.0",
               *DS_MLA),
    image_case("VLLM013", True, "no image", None, "0.25.0", *DS_MLA),
    image_case("VLLM013", True, "anemll image, a moe backend no build has", ANEMLL, "0.25.0", *DS_MLA,
               "--moe-backend", "nonsense"),
]
