"""Positive and boundary cases for rules/gapO.toml (task gapO: non-vLLM ledger entries that establish a cause and
a fix). test_rule_cases.py runs them."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build
from tests.rules.log_line_cases import logged
from tests.wheels import cache_root

R5090, LAPTOP, PRO, SPARK, B200, H100 = ("rtx-5090", "rtx-5090-laptop", "rtx-pro-6000", "dgx-spark", "b200-x8",
                                         "h100-sxm-x8")


def lcpp(version: str, profile: str = R5090) -> Callable[[], Facts]:
    return lambda: build(profile, None, (f"llama.cpp=={version}",))


FA_ON = ("-fa", "on", "-ctk", "q4_0", "-ctv", "q4_0", "-c", "131072")

LCPP310_CASES = [
    # llama.cpp#21564: Xid 43 on b8685 (any tag >= b8680, #21159's stream-k fixup), b8679 runs
    a("LCPP310", True, "b8685, -fa on, RTX 5090 (the report)", lcpp("b8685"), *FA_ON),
    a("LCPP310", True, "b8680, the stream-k fixup rewrite", lcpp("b8680"), *FA_ON),
    a("LCPP310", True, "-fa auto on a model-less run (flash attention taken as on)", lcpp("b8685")),
    a("LCPP310", True, "RTX PRO 6000 (12.0)", lcpp("b8685", PRO), *FA_ON),
    a("LCPP310", False, "b8679, the report's last good build", lcpp("b8679"), *FA_ON),
    a("LCPP310", False, "b8686: after the report's build, not read", lcpp("b8686"), *FA_ON),
    a("LCPP310", False, "-fa off", lcpp("b8685"), "-fa", "off"),
    a("LCPP310", False, "DGX Spark (12.1): not what the report ran", lcpp("b8685", SPARK), *FA_ON),
    a("LCPP310", False, "B200 (10.0)", lcpp("b8685", B200), *FA_ON),
    a("LCPP310", False, "H100 (9.0)", lcpp("b8685", H100), *FA_ON),
]

LONG = ("-fa", "on", "--parallel", "2", "--kv-unified", "-ctk", "q4_0", "-ctv", "q4_0")

LCPP311_CASES = [
    # llama.cpp#28877: misaligned address in op_sigmoid between d3146f2b5 (b10919, works) and ad6c66839 (b10950)
    a("LCPP311", True, "b10950 (ad6c66839), the RTX 5090 Laptop", lcpp("b10950", LAPTOP), *LONG),
    a("LCPP311", True, "b10920, the first build after the good end", lcpp("b10920", LAPTOP), *LONG),
    a("LCPP311", True, "RTX 5090 desktop (12.0)", lcpp("b10950"), *LONG),
    a("LCPP311", False, "b10919 (d3146f2b5), the good end", lcpp("b10919", LAPTOP), *LONG),
    a("LCPP311", False, "b10951: not read", lcpp("b10951", LAPTOP), *LONG),
    a("LCPP311", False, "DGX Spark (12.1)", lcpp("b10950", SPARK), *LONG),
    a("LCPP311", False, "B200 (10.0)", lcpp("b10950", B200), *LONG),
    a("LCPP311", False, "H100 (9.0)", lcpp("b10950", H100), *LONG),
    a("LCPP311", True, "--parallel 4", lcpp("b10950", LAPTOP), "-np", "4"),
    a("LCPP311", False, "--parallel 1: one slot, not tried", lcpp("b10950", LAPTOP), "--parallel", "1"),
    a("LCPP311", False, "no --parallel (auto slots): not tried", lcpp("b10950", LAPTOP), "-fa", "on"),
]



def iommu(mode: str | None, version: str = "b8792") -> Callable[[], Facts]:
    return lambda: build(PRO, None, (f"llama.cpp=={version}",), iommu=mode)


LCPP312_CASES = [
    # llama.cpp#21908: IOMMU page faults + Xid 31 bisected to d6f303004 (b8738); bad end b8792
    a("LCPP312", True, "b8792 (the report's bad end), IOMMU not stated", lcpp("b8792", PRO)),
    a("LCPP312", True, "b8738 (d6f303004), IOMMU translating", iommu("translated", "b8738")),
    a("LCPP312", True, "RTX 5090 (12.0)", lcpp("b8792")),
    a("LCPP312", False, "b8737: before d6f303004", lcpp("b8737", PRO)),
    a("LCPP312", False, "b8793: after the report's bad end, not read", lcpp("b8793", PRO)),
    a("LCPP312", False, "IOMMU in passthrough: no translation to fault", iommu("passthrough")),
    a("LCPP312", False, "IOMMU off", iommu("off")),
    a("LCPP312", False, "DGX Spark (12.1)", lcpp("b8792", SPARK)),
    a("LCPP312", False, "B200 (10.0)", lcpp("b8792", B200)),
    a("LCPP312", False, "H100 (9.0)", lcpp("b8792", H100)),
]

SUPER_NVFP4 = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"
SUPER_FP8 = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8"
DENSE_NVFP4 = "nvidia/Gemma-4-31B-IT-NVFP4"  # dense: no fused MoE loader


def trt(version: str = "1.3.0rc15", profile: str = SPARK, model: str | None = SUPER_NVFP4) -> Callable[[], Facts]:
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",))


TRT210_CASES = [
    # TensorRT-LLM#14500: rc15 hangs loading Nemotron-3-Super NVFP4's experts on GB10; rc12 serves
    a("TRT210", True, "1.3.0rc15, Nemotron-3-Super NVFP4, DGX Spark (the report)", trt()),
    a("TRT210", False, "1.3.0rc12 (the report's working image)", trt("1.3.0rc12")),
    a("TRT210", False, "1.3.0rc16: not read", trt("1.3.0rc16")),
    a("TRT210", False, "1.3.0rc14: not tried", trt("1.3.0rc14")),
    a("TRT210", False, "RTX PRO 6000 (12.0): not unified memory, not what the report ran", trt(profile=PRO)),
    a("TRT210", False, "B200 (10.0)", trt(profile=B200)),
    a("TRT210", False, "the FP8 checkpoint", trt(model=SUPER_FP8)),
    a("TRT210", False, "a dense NVFP4 model (no fused MoE)", trt(model=DENSE_NVFP4)),
    a("TRT210", False, "model-less: NVFP4 MoE not known", trt(model=None)),
]



def options(name: str, text: str) -> tuple[str, str]:
    """`--extra_llm_api_options FILE` with this YAML (written once to the test cache)."""
    path = cache_root() / "trt-options" / f"gapO-{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return "--extra_llm_api_options", str(path)


def mtp() -> tuple[str, str]:
    return options("mtp", "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\n")


def eagle() -> tuple[str, str]:
    return options("eagle3", "speculative_config:\n  decoding_type: Eagle3\n  max_draft_len: 3\n")


TRT211_CASES = [
    # TensorRT-LLM#14575: rc15 + MTP on Nemotron-3-Super NVFP4, GB10: MoE GEMM init fails; no MTP serves; rc17 fixed
    a("TRT211", True, "1.3.0rc15, MTP 3, Nemotron-3-Super NVFP4, DGX Spark (the report)", trt(), *mtp()),
    a("TRT211", False, "no speculative_config (served in the report)", trt()),
    a("TRT211", False, "Eagle3: not MTP, not what the report ran", trt(), *eagle()),
    a("TRT211", False, "1.3.0rc17 (the reporter: resolved)", trt("1.3.0rc17"), *mtp()),
    a("TRT211", False, "1.3.0rc16: not tried", trt("1.3.0rc16"), *mtp()),
    a("TRT211", False, "1.3.0rc14: not tried", trt("1.3.0rc14"), *mtp()),
    a("TRT211", False, "RTX PRO 6000 (12.0)", trt(profile=PRO), *mtp()),
    a("TRT211", False, "B200 (10.0)", trt(profile=B200), *mtp()),
    a("TRT211", False, "the FP8 checkpoint", trt(model=SUPER_FP8), *mtp()),
]

DRV130_CASES = [
    # nvidia-smi "No devices were found" on a Blackwell GPU (prathamesh.dev, getsolus/packages#5575)
    logged("DRV130", True, "its line on an RTX PRO 6000", PRO),
    logged("DRV130", True, "its line on an RTX 5090", R5090),
    logged("DRV130", True, "its line on a DGX Spark (12.1)", SPARK),
    logged("DRV130", True, "its line on a B200 (10.0: datacenter Blackwell, open modules too)", B200),
    logged("DRV130", False, "its line on an H100 (9.0): the proprietary module drives Hopper", H100),
    logged("DRV130", False, "check: no log", PRO, shown=()),
    logged("DRV130", False, "another rule's line", PRO, shown=("LCPP310",)),
]

GAPO_CASES = [*LCPP310_CASES, *LCPP311_CASES, *LCPP312_CASES, *TRT210_CASES, *TRT211_CASES, *DRV130_CASES]
