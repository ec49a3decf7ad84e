"""Positive and boundary cases for QNT001/QNT002 (rules/quant_shapes.toml: vLLM's Marlin MoE repack of a TP shard off
Marlin's tile). test_rule_cases.py runs them and tests/rules/test_error_boundaries.py sweeps each error rule's bounds
from its positive cases here. The models are bundled configs (doctor/data/models/)."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

WS4, R5090X4, SPARK, H100 = "rtx-pro-6000-ws-x4", "rtx-5090-x4", "dgx-spark", "h100-sxm-x8"
SUPER = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-NVFP4"  # relu2 experts 2688 wide on a 1024 latent: TP4 = 672
NANO = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"  # relu2 experts 1856 wide: TP2 = 928
SUPER_FP8 = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8"  # ModelOpt per-tensor FP8, the same 2688
QWEN30_NVFP4, GPTOSS = "nvidia/Qwen3-30B-A3B-NVFP4", "openai/gpt-oss-120b"
MARLIN = ("--moe-backend", "marlin")


def vl(version, model=SUPER, profile=WS4):
    return lambda: build(profile, model, (f"vllm=={version}",))


def tp(size, *more):
    return ("--tensor-parallel-size", str(size), *more)


QSHAPE_CASES: list[Case] = [
    a("QNT001", True, "Nemotron-3-Super NVFP4 TP4 forced Marlin, 0.21.0 (size_n = 672)", vl("0.21.0"), *tp(4, *MARLIN)),
    a("QNT001", True, "0.23.0, the last release that repacks NVFP4 experts unpadded", vl("0.23.0"), *tp(4, *MARLIN)),
    a("QNT001", True, "Nemotron-3-Nano NVFP4 TP2 on 4x RTX 5090 (size_n = 928)", vl("0.21.0", NANO, R5090X4),
      *tp(2, *MARLIN)),
    a("QNT001", True, "the repack is the same on Hopper: the rule reads no capability", vl("0.21.0", profile=H100),
      *tp(4, *MARLIN)),
    a("QNT001", False, "0.24.0 pads NVFP4 expert shards to the tile", vl("0.24.0"), *tp(4, *MARLIN)),
    a("QNT001", False, "TP2: 1344 columns repack", vl("0.21.0"), *tp(2, *MARLIN)),
    a("QNT001", False, "the default NVFP4 MoE backend (FlashInfer CUTLASS) repacks nothing for Marlin", vl("0.21.0"),
      *tp(4)),
    a("QNT001", False, "--moe-backend cutlass", vl("0.21.0"), *tp(4, "--moe-backend", "cutlass")),
    a("QNT001", False, "expert parallelism keeps every expert whole", vl("0.21.0"),
      *tp(4, *MARLIN, "--enable-expert-parallel")),
    a("QNT001", False, "Qwen3-30B-A3B NVFP4: 768-wide experts stay on the tile at TP4", vl("0.21.0", QWEN30_NVFP4),
      *tp(4, *MARLIN)),
    a("QNT001", False, "gpt-oss MXFP4 experts on Marlin are padded in every release", vl("0.21.0", GPTOSS), *tp(4)),
    a("QNT001", False, "FP8 experts are QNT002's", vl("0.21.0", SUPER_FP8), *tp(4, *MARLIN)),
    a("QNT002", True, "Nemotron-3-Super FP8 TP4 forced Marlin on 0.24.0", vl("0.24.0", SUPER_FP8), *tp(4, *MARLIN)),
    a("QNT002", False, "0.25.0 pads FP8 expert shards", vl("0.25.0", SUPER_FP8), *tp(4, *MARLIN)),
    a("QNT002", False, "the default FP8 MoE backend", vl("0.24.0", SUPER_FP8), *tp(4)),
    a("QNT002", False, "NVFP4 experts are QNT001's", vl("0.24.0"), *tp(4, *MARLIN)),
]

# An llm-compressor W4A16 export of Nemotron-3-Nano (experts, dense and attention INT4, group 32), as its
# quantization_config would state it; the bundled config is the BF16 release's.
NANO_BF16 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"
CT_W4A16 = {"scheme": "int4-w4a16", "method": "compressed-tensors", "bits": 4, "group_size": 32,
            "quantized": ("routed_experts", "attention", "dense_mlp")}


def sg(version, model=NANO_BF16, profile=R5090X4, quant=None):
    return lambda: build(profile, model, (f"sglang=={version}",), quant=CT_W4A16 if quant is None else quant)


QSHAPE_CASES += [
    a("QNT003", True, "Nemotron-3-Nano W4A16 at TP2 on 0.5.23 (experts size_n = 928)", sg("0.5.23"), "--tp", "2"),
    a("QNT003", True, "0.5.8, the first release read", sg("0.5.8"), "--tp", "2"),
    a("QNT003", False, "TP1: the whole 1856-wide experts are on the tile", sg("0.5.23"), "--tp", "1"),
    a("QNT003", False, "GPTQ tests the shape and falls back", sg("0.5.23", quant={**CT_W4A16, "method": "gptq"}),
      "--tp", "2"),
    a("QNT003", False, "Kimi-K2.5 INT4 experts at TP8 stay on the tile",
      sg("0.5.23", "moonshotai/Kimi-K2.5", "rtx-pro-6000-x8", quant={}), "--tp", "8"),
    a("QNT003", False, "vLLM: QNT003 is SGLang's", vl("0.21.0", NANO_BF16, R5090X4), *tp(2)),
]

QWEN30_CT = {"scheme": "int4-w4a16", "method": "compressed-tensors", "bits": 4, "group_size": 32,
             "quantized": ("routed_experts",)}  # an llm-compressor W4A16 export of Qwen3-30B-A3B: experts INT4
PRO8 = "rtx-pro-6000-x8"

QSHAPE_CASES += [
    a("QNT004", True, "Qwen3-30B-A3B NVFP4 TP8 forced Marlin on 0.21.0: w2 K = 96", vl("0.21.0", QWEN30_NVFP4, PRO8),
      *tp(8, *MARLIN)),
    a("QNT004", True, "SGLang 0.5.23, compressed-tensors W4A16 Qwen3-30B-A3B at TP8: w2 K = 96",
      sg("0.5.23", "Qwen/Qwen3-30B-A3B", PRO8, quant=QWEN30_CT), "--tp", "8"),
    a("QNT004", False, "TP4: K = 192 with N = 2048 fits a tile", vl("0.21.0", QWEN30_NVFP4, PRO8), *tp(4, *MARLIN)),
    a("QNT004", False, "0.24.0 pads the expert shards", vl("0.24.0", QWEN30_NVFP4, PRO8), *tp(8, *MARLIN)),
    a("QNT004", False, "the default NVFP4 MoE backend", vl("0.21.0", QWEN30_NVFP4, PRO8), *tp(8)),
    a("QNT004", False, "a shard the repack refuses is QNT001's", vl("0.21.0"), *tp(4, *MARLIN)),
]


def _log_cases() -> list[Case]:
    """QNT020-QNT023 explain a log line: on SM12x (or a log naming no GPU), never in `check`, never on another
    GPU the log names, never for another rule's line."""
    from tests.rules.log_line_cases import OTHER, SM12X, logged

    out = []
    for rule in ("QNT020", "QNT021", "QNT022", "QNT023"):
        out += [logged(rule, True, f"its line on {profile}", profile) for profile in SM12X]
        out += [logged(rule, False, f"its line on {profile}: not an SM12x GPU", profile) for profile in OTHER]
        out += [logged(rule, False, "check: no log", "rtx-5090", shown=()),
                logged(rule, False, "another rule's line", "rtx-5090", shown=("KRN011",))]
    return out


QSHAPE_CASES += _log_cases()
