"""Positive and boundary cases for the FlashInfer GDN prefill, TensorRT-LLM 1.3 rc and CuTe DSL rules of task
know-fi3 (rules/know_fi3.toml). test_rule_cases.py runs them; tests/rules/test_error_boundaries.py sweeps each error
rule's bounds from its positive cases here."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib
from tests.rules.log_line_cases import logged

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000-x8", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
QWEN3_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"  # Qwen3NextForCausalLM: 36 Gated DeltaNet layers
QWEN35 = "Qwen/Qwen3.5-27B"  # qwen3_5_text: 48 Gated DeltaNet layers
LLAMA = "meta-llama/Llama-3.1-8B-Instruct"  # no linear attention
DSV4 = "deepseek-ai/DeepSeek-V4-Flash"  # DeepseekV4ForCausalLM
DSV32 = "deepseek-ai/DeepSeek-V3.2"  # a sparse indexer, but not vLLM's deepseek_v4 package
FI_BACKEND = ("--linear-attn-backend", "flashinfer")
FI_PREFILL = ("--linear-attn-prefill-backend", "flashinfer")


def trtllm(version: str, model: str = QWEN3_NEXT, profile: str = PRO, flashinfer: str | None = None,
           env: dict[str, str] | None = None) -> Callable[[], Facts]:
    libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
    return lambda: build(profile, model, (f"tensorrt-llm=={version}",), libs=libs, env=env)


def sglang(version: str, model: str = QWEN35, profile: str = PRO, flashinfer: str | None = None,
           torch_cuda: str | None = None) -> Callable[[], Facts]:
    """SGLang at `version`; `flashinfer` states the flashinfer-python installed beside it (else its wheel's pin),
    `torch_cuda` a torch 2.9.1 built for that CUDA."""
    libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
    if torch_cuda:
        libs += (lib("torch", f"2.9.1+cu{torch_cuda.replace('.', '')}", cuda_version=torch_cuda),)
    return lambda: build(profile, model, (f"sglang=={version}",), libs=libs)


def vllm_fi(version: str, flashinfer: str | None, model: str = DSV4, profile: str = PRO) -> Callable[[], Facts]:
    """vLLM at `version` with flashinfer-python `flashinfer` installed beside it (None: the wheel's own pin)."""
    libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
    return lambda: build(profile, model, (f"vllm=={version}",), libs=libs)


def vllm_dsl(version: str, dsl: str | None, model: str = DSV4, profile: str = SPARK) -> Callable[[], Facts]:
    """vLLM at `version` with nvidia-cutlass-dsl `dsl` installed beside it (None: the wheel's own pin)."""
    libs = (lib("nvidia-cutlass-dsl", dsl),) if dsl else ()
    return lambda: build(profile, model, (f"vllm=={version}",), libs=libs)


KNOW_FI3_CASES = [
    # FI040 / CUT020: a log line only
    logged("FI040", True, "FlashInfer's GDN launcher line on an RTX PRO 6000", PRO),
    logged("FI040", True, "the same line on GB10", SPARK),
    logged("FI040", False, "check: no log", PRO, shown=()),
    logged("FI040", False, "another rule's line", PRO, shown=("TRI010",)),
    logged("CUT020", True, "ThrMma AttributeError on GB10", SPARK),
    logged("CUT020", True, "the same line on a B200: a DSL version mismatch on any GPU", B200),
    logged("CUT020", False, "check: no log", SPARK, shown=()),
    logged("CUT020", False, "another rule's line", SPARK, shown=("FI040",)),
    logged("SGL282", True, "the FA4 CuTe epilogue line on GB10 (sglang PR #36649)", SPARK),
    logged("SGL282", True, "the same line on an RTX 5090 (sglang#36531's GPU)", R5090),
    logged("SGL282", False, "Hopper: FA4's own target", H100),
    logged("SGL282", False, "B200: FA4's own target", B200),
    logged("SGL282", False, "check: no log", SPARK, shown=()),

    # TRT060: TensorRT-LLM#15634, 1.3.0rc19 NGC container with flashinfer-python 0.6.12, Qwen3-Next on an RTX PRO 6000
    a("TRT060", True, "1.3.0rc19, Qwen3-Next, FlashInfer 0.6.12 (TensorRT-LLM#15634)", trtllm("1.3.0rc19",
      flashinfer="0.6.12")),
    a("TRT060", True, "1.3.0rc19, FlashInfer not stated", trtllm("1.3.0rc19")),
    a("TRT060", True, "Qwen3.5 on GB10 (the same gdn_mixer)", trtllm("1.3.0rc19", QWEN35, SPARK)),
    a("TRT060", True, "TLLM_USE_FLASHINFER_GDN_PREFILL=1 is the default", trtllm("1.3.0rc19",
      env={"TLLM_USE_FLASHINFER_GDN_PREFILL": "1"})),
    a("TRT060", False, "opt-out set", trtllm("1.3.0rc19", env={"TLLM_USE_FLASHINFER_GDN_PREFILL": "0"})),
    a("TRT060", True, "FlashInfer 0.6.13: its wheel's gdn_prefill.py has no SM12x branch", trtllm("1.3.0rc19",
      flashinfer="0.6.13")),
    a("TRT060", False, "FlashInfer 0.6.14 has the SM12x GDN prefill", trtllm("1.3.0rc19", flashinfer="0.6.14")),
    a("TRT060", False, "1.3.0rc20: after the one reported", trtllm("1.3.0rc20", flashinfer="0.6.12")),
    a("TRT060", False, "1.2.1: before the 1.3 release candidates", trtllm("1.2.1", flashinfer="0.6.12")),
    a("TRT060", False, "no Gated DeltaNet layers", trtllm("1.3.0rc19", LLAMA)),
    a("TRT060", False, "Hopper runs FlashInfer's GDN prefill", trtllm("1.3.0rc19", profile=H100)),
    a("TRT060", False, "B200 has FlashInfer's SM100 GDN prefill", trtllm("1.3.0rc19", profile=B200)),

    # SGL280: SGLang 0.5.10-0.5.12.post1 raise NotImplementedError for FlashInfer GDN prefill off Hopper
    a("SGL280", True, "0.5.12 --linear-attn-backend flashinfer", sglang("0.5.12"), *FI_BACKEND),
    a("SGL280", True, "0.5.10 --linear-attn-prefill-backend flashinfer on GB10", sglang("0.5.10", profile=SPARK),
      *FI_PREFILL),
    a("SGL280", True, "0.5.12.post1, Qwen3-Next", sglang("0.5.12.post1", QWEN3_NEXT), *FI_BACKEND),
    a("SGL280", False, "0.5.13 calls FlashInfer instead (SGL281)", sglang("0.5.13"), *FI_BACKEND),
    a("SGL280", False, "0.5.9 has no --linear-attn-backend", sglang("0.5.9"), *FI_BACKEND),
    a("SGL280", False, "prefill kept on triton", sglang("0.5.12"), *FI_BACKEND,
      "--linear-attn-prefill-backend", "triton"),
    a("SGL280", False, "no flashinfer linear-attention backend named", sglang("0.5.12")),
    a("SGL280", False, "flashinfer for decode only", sglang("0.5.12"), "--linear-attn-decode-backend", "flashinfer"),
    a("SGL280", False, "no Gated DeltaNet layers", sglang("0.5.12", LLAMA), *FI_BACKEND),
    a("SGL280", False, "Hopper runs it", sglang("0.5.12", profile=H100), *FI_BACKEND),
    a("SGL280", False, "B200: a different failure, not claimed", sglang("0.5.12", profile=B200), *FI_BACKEND),

    # SGL281: SGLang >= 0.5.13 calls FlashInfer's GDN prefill, which FlashInfer < 0.6.14 runs on Hopper only
    a("SGL281", True, "0.5.14 with FlashInfer 0.6.12 (its pin) installed", sglang("0.5.14", flashinfer="0.6.12"),
      *FI_BACKEND),
    a("SGL281", True, "0.5.13 prefill flag with FlashInfer 0.6.13 on GB10", sglang("0.5.13", QWEN3_NEXT, SPARK,
      flashinfer="0.6.13"), *FI_PREFILL),
    a("SGL281", True, "0.5.16 downgraded to FlashInfer 0.6.12", sglang("0.5.16", flashinfer="0.6.12"), *FI_BACKEND),
    a("SGL281", True, "0.5.15 on its pin (a warning: the pin is assumed)", sglang("0.5.15"), *FI_BACKEND),
    a("SGL281", False, "FlashInfer 0.6.14 has the SM12x kernel", sglang("0.5.14", flashinfer="0.6.14"), *FI_BACKEND),
    a("SGL281", False, "0.5.16 on its pin (0.6.14)", sglang("0.5.16"), *FI_BACKEND),
    a("SGL281", False, "0.5.12 raises in SGLang itself (SGL280)", sglang("0.5.12", flashinfer="0.6.12"),
      *FI_BACKEND),
    a("SGL281", False, "prefill kept on triton", sglang("0.5.14", flashinfer="0.6.12"), *FI_BACKEND,
      "--linear-attn-prefill-backend", "triton"),
    a("SGL281", False, "no flashinfer linear-attention backend named", sglang("0.5.14", flashinfer="0.6.12")),
    a("SGL281", False, "no Gated DeltaNet layers", sglang("0.5.14", LLAMA, flashinfer="0.6.12"), *FI_BACKEND),
    a("SGL281", False, "Hopper runs FlashInfer's SM90 GDN prefill", sglang("0.5.14", profile=H100,
      flashinfer="0.6.12"), *FI_BACKEND),
    a("SGL281", False, "B200 has FlashInfer's SM100 GDN prefill", sglang("0.5.14", profile=B200,
      flashinfer="0.6.12"), *FI_BACKEND),

    # CUT021: vLLM 0.21.0-0.25.1 DeepSeek-V4 indexer kernels with nvidia-cutlass-dsl >= 4.6 (AEON-7 PR #4)
    a("CUT021", True, "0.24.0 image with cutlass-dsl 4.6.0 on GB10 (AEON-7/vllm-ultimate-dgx-spark PR #4)",
      vllm_dsl("0.24.0", "4.6.0")),
    a("CUT021", True, "0.22.0 with 4.6.2 on an RTX PRO 6000", vllm_dsl("0.22.0", "4.6.2", profile=PRO)),
    a("CUT021", True, "0.25.1 with 4.7.1 on an H100: not a GPU matter", vllm_dsl("0.25.1", "4.7.1", profile=H100)),
    a("CUT021", False, "cutlass-dsl 4.5.2, the wheel's pin", vllm_dsl("0.24.0", "4.5.2")),
    a("CUT021", False, "cutlass-dsl not stated (the pin, 4.5.2)", vllm_dsl("0.24.0", None)),
    a("CUT021", False, "0.26.0 names cute.ThrMma", vllm_dsl("0.26.0", "4.6.0")),
    a("CUT021", True, "0.21.0 (pins 4.4.2; indexer under v1/attention/ops) with 4.6.0", vllm_dsl("0.21.0", "4.6.0")),
    a("CUT021", False, "0.20.2 has no DeepSeek-V4 CuTe DSL indexer", vllm_dsl("0.20.2", "4.6.0")),
    a("CUT021", False, "not DeepSeek-V4", vllm_dsl("0.24.0", "4.6.0", LLAMA)),
    a("CUT021", False, "DeepSeek-V3.2 does not load the deepseek_v4 package", vllm_dsl("0.24.0", "4.6.0", DSV32)),

    # FI041: vLLM 0.24.0-0.25.1 DeepSeek-V4 on SM12x call FlashInfer's sparse MLA kernel with 0.6.14's keywords
    a("FI041", True, "0.25.0 with its pin, 0.6.13, stated", vllm_fi("0.25.0", "0.6.13"), "--kv-cache-dtype", "fp8"),
    a("FI041", True, "0.24.0 image on GB10 with 0.6.12 (AEON-7 PR #4)", vllm_fi("0.24.0", "0.6.12", profile=SPARK)),
    a("FI041", True, "0.25.1 on its pin (a warning: assumed)", vllm_fi("0.25.1", None), "--kv-cache-dtype", "fp8"),
    a("FI041", True, "FLASHINFER_MLA_SPARSE_DSV4 named", vllm_fi("0.25.0", "0.6.13"), "--attention-backend",
      "FLASHINFER_MLA_SPARSE_DSV4"),
    a("FI041", False, "FlashInfer 0.6.14 takes the keywords", vllm_fi("0.25.0", "0.6.14")),
    a("FI041", False, "0.26.0 on its pin (0.6.14)", vllm_fi("0.26.0", None)),
    a("FI041", False, "0.23.0 does not pass them", vllm_fi("0.23.0", "0.6.12")),
    a("FI041", False, "B200 keeps FlashMLA for DeepSeek-V4", vllm_fi("0.25.0", "0.6.13", profile=B200)),
    a("FI041", False, "H100 keeps FlashMLA for DeepSeek-V4", vllm_fi("0.25.0", "0.6.13", profile=H100)),
    a("FI041", False, "DeepSeek-V3.2 is not the deepseek_v4 package", vllm_fi("0.25.0", "0.6.13", DSV32)),
    a("FI041", False, "FlashMLA sparse forced: another failure", vllm_fi("0.25.0", "0.6.13"), "--attention-backend",
      "FLASHMLA_SPARSE_DSV4"),

    # SGL283: FlashInfer 0.6.14-0.6.15.post1 build the SM12x GDN prefill for sm_120a only; GB10 (12.1) cannot load it
    a("SGL283", True, "0.5.16 on its pin (0.6.14) on GB10", sglang("0.5.16", profile=SPARK), *FI_BACKEND),
    a("SGL283", True, "0.5.17 with 0.6.15.post1 stated on GB10", sglang("0.5.17", QWEN3_NEXT, SPARK,
      flashinfer="0.6.15.post1"), *FI_PREFILL),
    a("SGL283", True, "0.5.14 upgraded to FlashInfer 0.6.14 on GB10", sglang("0.5.14", profile=SPARK,
      flashinfer="0.6.14"), *FI_BACKEND),
    a("SGL283", False, "12.0 runs sm_120a", sglang("0.5.16", profile=PRO, flashinfer="0.6.14"), *FI_BACKEND),
    a("SGL283", False, "FlashInfer 0.6.16 targets sm_121a", sglang("0.5.16", profile=SPARK, flashinfer="0.6.16"),
      *FI_BACKEND),
    a("SGL283", False, "FlashInfer 0.6.13 has no SM12x GDN prefill at all (SGL281)", sglang("0.5.16", profile=SPARK,
      flashinfer="0.6.13"), *FI_BACKEND),
    a("SGL283", False, "0.5.18 on its pin (0.6.17)", sglang("0.5.18", profile=SPARK), *FI_BACKEND),
    a("SGL283", False, "prefill kept on triton", sglang("0.5.16", profile=SPARK), *FI_BACKEND,
      "--linear-attn-prefill-backend", "triton"),
    a("SGL283", False, "no flashinfer linear-attention backend named", sglang("0.5.16", profile=SPARK)),
    a("SGL283", False, "no Gated DeltaNet layers", sglang("0.5.16", LLAMA, SPARK), *FI_BACKEND),

    # SGL284: SGLang >= 0.5.13 refuses the FlashInfer linear-attention prefill on major >= 10 with torch for CUDA 12
    a("SGL284", True, "0.5.16 with torch cu128 on an RTX PRO 6000", sglang("0.5.16", torch_cuda="12.8"), *FI_BACKEND),
    a("SGL284", True, "0.5.13 prefill flag with torch cu129 on GB10", sglang("0.5.13", profile=SPARK,
      torch_cuda="12.9"), *FI_PREFILL),
    a("SGL284", True, "0.5.23, a model without GDN layers: still argument handling", sglang("0.5.23", LLAMA,
      torch_cuda="12.8"), *FI_BACKEND),
    a("SGL284", False, "torch cu130", sglang("0.5.16", torch_cuda="13.0"), *FI_BACKEND),
    a("SGL284", False, "0.5.12 has no such check (SGL280)", sglang("0.5.12", torch_cuda="12.8"), *FI_BACKEND),
    a("SGL284", False, "prefill kept on triton", sglang("0.5.16", torch_cuda="12.8"), *FI_BACKEND,
      "--linear-attn-prefill-backend", "triton"),
    a("SGL284", False, "decode only", sglang("0.5.16", torch_cuda="12.8"), "--linear-attn-decode-backend",
      "flashinfer"),
    a("SGL284", False, "Hopper passes the check", sglang("0.5.16", profile=H100, torch_cuda="12.8"), *FI_BACKEND),
]
