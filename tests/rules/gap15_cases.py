"""Positive and boundary cases for the gap15 rules (rules/gap15.toml); test_rule_cases.py runs them with the rest."""

from __future__ import annotations

from tests.rules.builders import Case, a, build

PRO4, PRO, SPARK, H100, B200 = "rtx-pro-6000-ws-x4", "rtx-pro-6000", "dgx-spark", "h100-sxm-x8", "b200-x8"
GEMMA31, GEMMA26, GEMMA_E2B = "google/gemma-4-31B-it", "google/gemma-4-26B-A4B", "google/gemma-4-E2B-it"
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
PTH = ("--kv-cache-dtype", "fp8_per_token_head")


def vl(version, profile=PRO4, model=GEMMA31):
    return lambda: build(profile, model, engines=(f"vllm=={version}",))


def logged(rule, fires, why, profile, engines=(), shown=None):
    """`diagnose` on `profile` with `shown` (default: the rule itself) as the rules the log's signatures named;
    `shown=()` is `check` (no log)."""
    log = None if shown == () else {"signatures": [rule] if shown is None else list(shown)}
    return Case(rule, fires, lambda: build(profile, engines=tuple(engines)), (), (), why,
                (lambda: {"image": None, "recipe": None, "log": log}) if log is not None else None)


GAP15_CASES = [
    # VLLM710: Gemma 4 (head 256 + global 512) with a per-token-head KV dtype, vLLM 0.20.0-0.23.x (vllm#39407)
    a("VLLM710", True, "vllm#39407: Gemma 4 31B, TP 4, fp8_per_token_head, 0.20.0 (first release with the dtype)",
      vl("0.20.0"), "--tensor-parallel-size", "4", *PTH),
    a("VLLM710", True, "0.23.0: the last release whose unify raises", vl("0.23.0"), *PTH),
    a("VLLM710", True, "0.22.0", vl("0.22.0"), *PTH),
    a("VLLM710", True, "int8_per_token_head: the same scale payload (vllm#40388)", vl("0.21.0"),
      "--kv-cache-dtype", "int8_per_token_head"),
    a("VLLM710", True, "Gemma 4 26B-A4B (8 and 2 KV heads)", vl("0.21.0", PRO, GEMMA26), *PTH),
    a("VLLM710", True, "Gemma 4 E2B (one KV head, 256 and 512)", vl("0.21.0", PRO, GEMMA_E2B), *PTH),
    a("VLLM710", True, "DGX Spark (12.1)", vl("0.21.0", SPARK, GEMMA26), *PTH),
    a("VLLM710", False, "0.24.0 pads the smaller page for TRITON_ATTN", vl("0.24.0"), *PTH),
    a("VLLM710", False, "0.19.1 has no per-token-head KV dtype (VLLM013 rejects the value)", vl("0.19.1"), *PTH),
    a("VLLM710", False, "plain fp8 KV: pages 512 and 1024 per token and head divide", vl("0.21.0"),
      "--kv-cache-dtype", "fp8"),
    a("VLLM710", False, "no KV dtype", vl("0.21.0")),
    a("VLLM710", False, "one head size (Llama): nothing to unify", vl("0.21.0", PRO, LLAMA), *PTH),
    a("VLLM710", False, "H100 (9.0): outside SM12x", vl("0.21.0", H100), *PTH),
    a("VLLM710", False, "B200 (10.0): outside SM12x", vl("0.21.0", B200), *PTH),
    # VLLM711: the page-size NotImplementedError in a log on SM12x
    logged("VLLM711", True, "vllm#39407: the line on sm_120", "rtx-5060-ti-16gb"),
    logged("VLLM711", True, "the line on a DGX Spark", SPARK, ("vllm==0.21.0",)),
    logged("VLLM711", False, "H100 (9.0)", H100, ("vllm==0.21.0",)),
    logged("VLLM711", False, "check: no log", PRO, ("vllm==0.21.0",), shown=()),
    logged("VLLM711", False, "another rule's line", PRO, ("vllm==0.21.0",), shown=("VLLM601",)),
    # FI290: a FlashInfer JIT module filtered to majors 9/10 on SM12x (flashinfer#5237)
    logged("FI290", True, "flashinfer#5237: DGX Spark, FlashInfer 0.6.18", SPARK, ("flashinfer-python==0.6.18",)),
    logged("FI290", True, "RTX PRO 6000 (12.0): the same filter", PRO, ("flashinfer-python==0.7.2",)),
    logged("FI290", False, "B200 (10.0): major 10 is in the filter", B200, ("flashinfer-python==0.6.18",)),
    logged("FI290", False, "check: no log", SPARK, ("flashinfer-python==0.6.18",), shown=()),
    logged("FI290", False, "another rule's line", SPARK, ("flashinfer-python==0.6.18",), shown=("FI002",)),
    # FI291: a 120a FlashInfer JIT directory with `no kernel image` on 12.1 (flashinfer#2839)
    logged("FI291", True, "flashinfer#2839: DGX Spark", SPARK, ("flashinfer-python==0.6.6",)),
    logged("FI291", False, "RTX PRO 6000 (12.0): 120a code runs there", PRO, ("flashinfer-python==0.6.6",)),
    logged("FI291", False, "B200 (10.0)", B200, ("flashinfer-python==0.6.6",)),
    logged("FI291", False, "check: no log", SPARK, ("flashinfer-python==0.6.6",), shown=()),
    logged("FI291", False, "another rule's line", SPARK, ("flashinfer-python==0.6.6",), shown=("FI005",)),
    # OLL100: ggml_cuda_cpy q4_K -> q4_K (ollama#15939); no GPU gate (ggml-cuda's copy has none)
    logged("OLL100", True, "ollama#15939: RTX 5070 Ti, Ollama 0.22.1", "rtx-5070-ti", ("ollama==0.22.1",)),
    logged("OLL100", True, "any GPU: the copy table has no arch gate", H100, ("ollama==0.22.1",)),
    logged("OLL100", False, "check: no log", "rtx-5070-ti", ("ollama==0.22.1",), shown=()),
    logged("OLL100", False, "another rule's line", "rtx-5070-ti", ("ollama==0.22.1",), shown=("OLL080",)),
    # LCPP340: ggml_backend_cuda_device_get_memory's CUDA_CHECK on a 12.1 GPU (llama.cpp#24933)
    logged("LCPP340", True, "llama.cpp#24933: DGX Spark", SPARK, ("llama.cpp==b9333",)),
    logged("LCPP340", False, "RTX PRO 6000 (12.0): a discrete GPU, cudaMemGetInfo is its path", PRO,
           ("llama.cpp==b9333",)),
    logged("LCPP340", False, "H100", H100, ("llama.cpp==b9333",)),
    logged("LCPP340", False, "check: no log", SPARK, ("llama.cpp==b9333",), shown=()),
    logged("LCPP340", False, "another rule's line", SPARK, ("llama.cpp==b9333",), shown=("LCPP310",)),
]
