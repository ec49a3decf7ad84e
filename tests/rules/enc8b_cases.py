"""Positive and boundary cases of rules/enc8b.toml (task enc8b: the eighth held-out sample's rows F12-F22) in the
shared rule-case runner (test_rule_cases.py)."""

from __future__ import annotations

from tests.rules.builders import a, build

MINIMAX = "nvidia/MiniMax-M2.7-NVFP4"  # hidden 3072, silu experts, NVFP4 (flashinfer#3432's model)
QWEN122 = "nvidia/Qwen3.5-122B-A10B-NVFP4"  # hidden 3072, silu, NVFP4 (flashinfer#3807's failing model)
QWEN35B = "nvidia/Qwen3.6-35B-A3B-NVFP4"  # hidden 2048: launches in flashinfer#3807
UNSLOTH = "unsloth/Qwen3.6-35B-A3B-NVFP4-Fast"  # flashinfer#3935's model: 30 GDN + 10 attention layers
MTP5 = '{"method":"mtp","num_speculative_tokens":5}'
B12X = ("--moe-backend", "flashinfer_b12x")
TP2 = ("--tensor-parallel-size", "2")
FP8 = ("--kv-cache-dtype", "fp8")


def facts(profile: str, engines: tuple[str, ...], model: str | None = None):
    return lambda: build(profile, model, engines)


def _fi210():
    return [
        a("FI210", True, "spark minimax b12x vllm 0.22.0 (fi 0.6.11.post2)",
          facts("dgx-spark", ("vllm==0.22.0",), MINIMAX), *B12X),
        a("FI210", True, "spark minimax b12x vllm 0.26.0 (fi 0.6.14)", facts("dgx-spark", ("vllm==0.26.0",), MINIMAX),
          *B12X),
        a("FI210", True, "pro 6000 qwen3.5-122b b12x vllm 0.24.0", facts("rtx-pro-6000", ("vllm==0.24.0",), QWEN122),
          *B12X),
        a("FI210", False, "vllm 0.27.0 (fi 0.6.16.post3: gated stages capped)",
          facts("dgx-spark", ("vllm==0.27.0",), MINIMAX), *B12X),
        a("FI210", False, "fi 0.6.15 under vllm 0.26.0 (the first capped release)",
          facts("dgx-spark", ("vllm==0.26.0", "flashinfer-python==0.6.15"), MINIMAX), *B12X),
        a("FI210", True, "fi 0.6.14 stated under vllm 0.26.0",
          facts("dgx-spark", ("vllm==0.26.0", "flashinfer-python==0.6.14"), MINIMAX), *B12X),
        a("FI210", False, "hidden 2048 (qwen3.6-35b launches)", facts("rtx-pro-6000", ("vllm==0.24.0",), QWEN35B),
          *B12X),
        a("FI210", False, "moe backend flashinfer_cutlass", facts("dgx-spark", ("vllm==0.24.0",), MINIMAX),
          "--moe-backend", "flashinfer_cutlass"),
        a("FI210", False, "no --moe-backend", facts("dgx-spark", ("vllm==0.24.0",), MINIMAX)),
        a("FI210", False, "b200 (10.0)", facts("b200-x8", ("vllm==0.24.0",), MINIMAX), *B12X),
        a("FI210", True, "glm-5.1 nvfp4 (hidden 6144: 48 k-tiles, 3 stages)",
          facts("rtx-pro-6000", ("vllm==0.25.1",), "nvidia/GLM-5.1-NVFP4"), *B12X),
        a("FI210", False, "qwen3-235b nvfp4 (hidden 4096: 32 k-tiles, 2 stages)",
          facts("rtx-pro-6000", ("vllm==0.25.1",), "nvidia/Qwen3-235B-A22B-NVFP4"), *B12X),
        a("FI210", False, "nemotron-3-nano (relu2: no up-projection buffers)",
          facts("rtx-pro-6000", ("vllm==0.26.0",), "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"), *B12X),
        a("FI210", False, "fi 0.6.8 (no b12x MoE)", facts("dgx-spark", ("vllm==0.22.0", "flashinfer-python==0.6.8"),
                                                             MINIMAX), *B12X),
    ]


def _fi211():
    return [
        a("FI211", True, "5090 unsloth vllm 0.25.0 (fi 0.6.13) fp8 kv", facts("rtx-5090", ("vllm==0.25.0",), UNSLOTH),
          *FP8),
        a("FI211", True, "5090 nvidia qwen3.6 vllm 0.25.1 fp8 kv", facts("rtx-5090", ("vllm==0.25.1",), QWEN35B), *FP8),
        a("FI211", True, "--attention-backend FLASHINFER named, bf16 kv", facts("rtx-5090", ("vllm==0.25.0",), UNSLOTH),
          "--attention-backend", "FLASHINFER"),
        a("FI211", False, "bf16 kv, no backend named (FlashAttention 2)",
          facts("rtx-5090", ("vllm==0.25.0",), UNSLOTH)),
        a("FI211", False, "vllm 0.24.0 (fi 0.6.12)", facts("rtx-5090", ("vllm==0.24.0",), UNSLOTH), *FP8),
        a("FI211", False, "vllm 0.26.0 (fi 0.6.14: not measured)", facts("rtx-5090", ("vllm==0.26.0",), UNSLOTH), *FP8),
        a("FI211", False, "fi 0.6.12 pinned under vllm 0.25.0",
          facts("rtx-5090", ("vllm==0.25.0", "flashinfer-python==0.6.12"), UNSLOTH), *FP8),
        a("FI211", False, "triton attention", facts("rtx-5090", ("vllm==0.25.0",), UNSLOTH), *FP8,
          "--attention-backend", "TRITON_ATTN"),
        a("FI211", False, "gb10 (12.1: not measured)", facts("dgx-spark", ("vllm==0.25.0",), UNSLOTH), *FP8),
        a("FI211", False, "not hybrid (minimax nvfp4)", facts("rtx-pro-6000", ("vllm==0.25.0",), MINIMAX), *FP8),
        a("FI211", False, "h100 (9.0)", facts("h100-sxm-x8", ("vllm==0.25.0",), UNSLOTH), *FP8),
    ]


def _fi212():
    return [
        a("FI212", True, "pro 6000 fi 0.6.5", facts("rtx-pro-6000", ("flashinfer-python==0.6.5",))),
        a("FI212", True, "spark fi 0.6.5", facts("dgx-spark", ("flashinfer-python==0.6.5",))),
        a("FI212", False, "fi 0.6.6 (stages from the device)", facts("rtx-pro-6000", ("flashinfer-python==0.6.6",))),
        a("FI212", False, "fi 0.6.4 (no tinygemm2)", facts("rtx-pro-6000", ("flashinfer-python==0.6.4",))),
        a("FI212", False, "h100 fi 0.6.5 (228 KB)", facts("h100-sxm-x8", ("flashinfer-python==0.6.5",))),
    ]


def _torch010():
    spark = ("vllm==0.25.1", "torch==2.10.0")
    return [
        a("TORCH010", True, "spark tp2 torch 2.10.0", facts("dgx-spark", spark), *TP2),
        a("TORCH010", True, "spark tp2 vllm 0.17.1 with its torch 2.10.0",
          facts("dgx-spark", ("vllm==0.17.1", "torch==2.10.0")), *TP2),
        a("TORCH010", False, "torch 2.9.1 (the rollback)", facts("dgx-spark", ("vllm==0.25.1", "torch==2.9.1")), *TP2),
        a("TORCH010", False, "torch 2.11.0 (not reported)", facts("dgx-spark", ("vllm==0.25.1", "torch==2.11.0")),
          *TP2),
        a("TORCH010", False, "tp1 (one node)", facts("dgx-spark", spark), "--tensor-parallel-size", "1"),
        a("TORCH010", False, "2x rtx 5090 (12.0, one host)", facts("rtx-5090-x2", spark), *TP2),
        a("TORCH010", False, "sglang", facts("dgx-spark", ("sglang==0.5.9", "torch==2.10.0")), "--tp", "2"),
    ]


def _vllm390():
    mtp = ("--kv-cache-dtype", "fp8", "--speculative-config", MTP5)
    spark = ("vllm==0.27.1",)
    return [
        a("VLLM390", True, "spark mtp fp8 TRITON_ATTN", facts("dgx-spark", spark, QWEN35B), *mtp,
          "--attention-backend", "TRITON_ATTN"),
        a("VLLM390", True, "spark mtp fp8_e4m3 TRITON_ATTN", facts("dgx-spark", spark, QWEN35B), "--kv-cache-dtype",
          "fp8_e4m3", "--speculative-config", MTP5, "--attention-backend", "TRITON_ATTN"),
        a("VLLM390", False, "--attention-backend FLASHINFER (the drafter agrees)", facts("dgx-spark", spark, QWEN35B),
          *mtp, "--attention-backend", "FLASHINFER"),
        a("VLLM390", False, "no --attention-backend", facts("dgx-spark", spark, QWEN35B), *mtp),
        a("VLLM390", False, "bf16 kv", facts("dgx-spark", spark, QWEN35B), "--speculative-config", MTP5,
          "--attention-backend", "TRITON_ATTN"),
        a("VLLM390", False, "no speculative decoding", facts("dgx-spark", spark, QWEN35B), "--kv-cache-dtype", "fp8",
          "--attention-backend", "TRITON_ATTN"),
        a("VLLM390", False, "the drafter's backend named in --speculative-config", facts("dgx-spark", spark, QWEN35B),
          "--kv-cache-dtype", "fp8", "--attention-backend", "TRITON_ATTN", "--speculative-config",
          '{"method":"mtp","num_speculative_tokens":5,"attention_backend":"TRITON_ATTN"}'),
        a("VLLM390", True, "vllm 0.21.0 (the first release whose drafter autoselects)",
          facts("dgx-spark", ("vllm==0.21.0",), QWEN35B), *mtp, "--attention-backend", "TRITON_ATTN"),
        a("VLLM390", False, "vllm 0.20.0 (the drafter keeps the target's backend)",
          facts("dgx-spark", ("vllm==0.20.0",), QWEN35B), *mtp, "--attention-backend", "TRITON_ATTN"),
        a("VLLM390", False, "an MLA model (TRITON_MLA ranks first on 12.x)",
          facts("dgx-spark", spark, "nvidia/DeepSeek-V3.1-NVFP4"), *mtp, "--attention-backend", "TRITON_MLA"),
        a("VLLM390", False, "rtx pro 6000 (12.0: not reported)", facts("rtx-pro-6000", spark, QWEN35B), *mtp,
          "--attention-backend", "TRITON_ATTN"),
    ]


ENC8B_CASES = [*_fi210(), *_fi211(), *_fi212(), *_torch010(), *_vllm390()]
