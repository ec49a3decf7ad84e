"""Positive and boundary cases for the sparse-MLA / DSA indexer / sparse MoE kernel rules (task know-sparse):
rules/sparse_mla.toml and rules/sparse_moe.toml. test_rule_cases.py runs them and
tests/rules/test_error_boundaries.py sweeps each error rule's bounds from its positive cases here."""

from __future__ import annotations

from collections.abc import Callable

from doctor.pipeline.facts import Facts
from tests.rules.builders import a, build, lib

PRO, SPARK, R5090, H100, B200 = "rtx-pro-6000-ws-x4", "dgx-spark", "rtx-5090", "h100-sxm-x8", "b200-x8"
GLM5_NVFP4 = "nvidia/GLM-5.2-NVFP4"  # glm_moe_dsa, index_topk 2048
DSV32 = "deepseek-ai/DeepSeek-V3.2"
DSV4 = "deepseek-ai/DeepSeek-V4-Flash"  # index_topk 512: its own FLASHINFER_MLA_SPARSE_DSV4 path
DSV3 = "deepseek-ai/DeepSeek-V3"  # dense MLA: no indexer
FP4_INDEXER = "--attention_config.use_fp4_indexer_cache=True"
MXFP4_INDEXER = ("--attention-config.indexer_kv_dtype", "mxfp4")


def vllm(version: str, model: str, profile: str = PRO, flashinfer: str | None = None,
         env: dict[str, str] | None = None) -> Callable[[], Facts]:
    """vLLM at `version` (a what-if: it brings the flashinfer-python its wheel pins) unless `flashinfer` names
    the flashinfer-python installed beside it."""
    def facts() -> Facts:
        libs = (lib("flashinfer-python", flashinfer),) if flashinfer else ()
        return build(profile, model, (f"vllm=={version}",), libs=libs, env=env)
    return facts


KNOW_SPARSE_CASES = [
    # VLLM100: FLASHINFER_MLA_SPARSE_SM120 / _DSV4 need flashinfer.decode.trtllm_batch_decode_sparse_mla_dsv4 (0.6.12)
    a("VLLM100", True, "GLM-5.2 on 0.24.0 with FlashInfer 0.6.11 (vllm#57932)", vllm("0.24.0", GLM5_NVFP4,
      flashinfer="0.6.11.post3"), "--tensor-parallel-size", "4", "--kv-cache-dtype", "fp8"),
    a("VLLM100", True, "DeepSeek-V3.2 on 0.33.0 on GB10 with FlashInfer 0.6.8", vllm("0.33.0", DSV32, SPARK,
      flashinfer="0.6.8.post1")),
    a("VLLM100", True, "DeepSeek-V4 (FLASHINFER_MLA_SPARSE_DSV4) on 0.28.0 with FlashInfer 0.6.11",
      vllm("0.28.0", DSV4, flashinfer="0.6.11")),
    a("VLLM100", False, "FlashInfer 0.6.12 has the API", vllm("0.24.0", GLM5_NVFP4, flashinfer="0.6.12")),
    a("VLLM100", False, "the release's own pin (0.6.12)", vllm("0.24.0", GLM5_NVFP4)),
    a("VLLM100", False, "0.23.0: no SM12x sparse backend at all (VLLM022)", vllm("0.23.0", GLM5_NVFP4,
      flashinfer="0.6.11")),
    a("VLLM100", False, "dense MLA (no index_topk)", vllm("0.24.0", DSV3, flashinfer="0.6.11")),
    a("VLLM100", False, "Hopper: FLASHMLA_SPARSE", vllm("0.24.0", GLM5_NVFP4, H100, flashinfer="0.6.11")),
    a("VLLM100", False, "B200: FLASHMLA_SPARSE / FLASHINFER_MLA_SPARSE", vllm("0.24.0", GLM5_NVFP4, B200,
      flashinfer="0.6.11")),
    # DG010: the indexer's get_paged_mqa_logits_metadata on a bundled DeepGEMM without sm120 (0.24.0, 0.27.x)
    a("DG010", True, "GLM-5.2-NVFP4 on 0.24.0 (vllm#46726)", vllm("0.24.0", GLM5_NVFP4), "--tensor-parallel-size",
      "4"),
    a("DG010", True, "DeepSeek-V3.2 on 0.27.1 on GB10", vllm("0.27.1", DSV32, SPARK)),
    a("DG010", True, "0.27.0", vllm("0.27.0", DSV32)),
    a("DG010", True, "DeepSeek-V4 on 0.27.1 (its indexer backend subclasses V3.2's)", vllm("0.27.1", DSV4)),
    a("DG010", True, "VLLM_USE_DEEP_GEMM=0 does not gate the indexer", vllm("0.24.0", DSV32,
      env={"VLLM_USE_DEEP_GEMM": "0"})),
    a("DG010", False, "a separately installed deep_gemm is imported before the vendored copy",
      lambda: vllm("0.27.1", DSV32, SPARK)().replace(
          libraries={**vllm("0.27.1", DSV32, SPARK)().libraries, "deep-gemm": lib("deep-gemm", "2.3.0")})),
    a("DG010", False, "0.25.0 bundles sm120 paged MQA logits", vllm("0.25.0", DSV32)),
    a("DG010", False, "0.26.0 bundles them", vllm("0.26.0", DSV32)),
    a("DG010", False, "0.28.0 bundles them again", vllm("0.28.0", DSV32)),
    a("DG010", False, "0.23.0: no sparse backend on SM12x, the indexer never runs", vllm("0.23.0", DSV32)),
    a("DG010", False, "dense MLA has no indexer", vllm("0.24.0", DSV3)),
    a("DG010", False, "Hopper: sm90 kernels", vllm("0.24.0", DSV32, H100)),
    a("DG010", False, "B200: sm100 kernels", vllm("0.27.1", DSV32, B200)),
    # VLLM101: the indexer's FP4 key cache is family-100 only
    a("VLLM101", True, "DeepSeek-V4-Flash 0.20.0 with use_fp4_indexer_cache (vllm#40821)", vllm("0.20.0", DSV4),
      "--tensor-parallel-size", "2", FP4_INDEXER),
    a("VLLM101", True, "GLM-5 on GB10, 0.27.1", vllm("0.27.1", GLM5_NVFP4, SPARK), FP4_INDEXER),
    a("VLLM101", True, "0.28.0 maps it to indexer_kv_dtype=mxfp4", vllm("0.28.0", DSV32), FP4_INDEXER),
    a("VLLM101", True, "indexer_kv_dtype=mxfp4 on 0.33.0", vllm("0.33.0", DSV32), *MXFP4_INDEXER),
    a("VLLM101", True, "JSON form of --attention-config", vllm("0.24.0", DSV32), "--attention-config",
      '{"use_fp4_indexer_cache": true}'),
    a("VLLM101", False, "0.19.1 has no such option", vllm("0.19.1", DSV32), FP4_INDEXER),
    a("VLLM101", False, "use_fp4_indexer_cache from 0.29.0 is not read", vllm("0.29.0", DSV32), FP4_INDEXER),
    a("VLLM101", False, "indexer_kv_dtype before 0.28.0 is not read", vllm("0.27.1", DSV32), *MXFP4_INDEXER),
    a("VLLM101", False, "set to False", vllm("0.24.0", DSV32), "--attention_config.use_fp4_indexer_cache=False"),
    a("VLLM101", False, "dense model: no indexer", vllm("0.24.0", DSV3), FP4_INDEXER),
    a("VLLM101", False, "B200: family 100", vllm("0.24.0", DSV32, B200), FP4_INDEXER),
    a("VLLM101", False, "Hopper is refused too, but is not this rule's", vllm("0.24.0", DSV32, H100), FP4_INDEXER),
]

KNOW_SPARSE_CASES += [
    # VLLM102: has_flashinfer() False without flashinfer-cubin and nvcc: the same refusal with a new FlashInfer
    a("VLLM102", True, "0.33.0 pip install (no cubin pin), no nvcc (vllm#57932)", vllm("0.33.0", GLM5_NVFP4)),
    a("VLLM102", True, "0.26.0, the first wheel without the cubin pin, on GB10", vllm("0.26.0", DSV32, SPARK)),
    a("VLLM102", False, "0.25.0 requires flashinfer-cubin", vllm("0.25.0", DSV32)),
    a("VLLM102", False, "VLLM_HAS_FLASHINFER_CUBIN=1", vllm("0.33.0", DSV32, env={"VLLM_HAS_FLASHINFER_CUBIN": "1"})),
    a("VLLM102", False, "FlashInfer below 0.6.12 is VLLM100's", vllm("0.33.0", DSV32, flashinfer="0.6.11")),
    a("VLLM102", False, "dense MLA", vllm("0.33.0", DSV3)),
    a("VLLM102", False, "nvcc found", lambda: build(PRO, DSV32, ("vllm==0.33.0",), libs=(lib("nvcc", "13.0.88"),))),
    a("VLLM102", False, "B200", vllm("0.33.0", DSV32, B200)),
    a("VLLM102", False, "0.23.0: no SM12x sparse backend (VLLM022)", vllm("0.23.0", DSV32)),
]

NANO_BF16 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"  # mlp_hidden_act relu2, BF16 experts
NANO_NVFP4 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"
QWEN_BF16 = "Qwen/Qwen3-30B-A3B"  # silu experts

KNOW_SPARSE_CASES += [
    # FI020: vLLM's unquantized MoE on FLASHINFER_CUTLASS (derived), relu2, FlashInfer without the Relu2 epilogue
    a("FI020", True, "Nemotron-3 Nano BF16 on GB10, 0.24.0, FlashInfer 0.6.7 (vllm#39825)",
      vllm("0.24.0", NANO_BF16, SPARK, flashinfer="0.6.7")),
    a("FI020", True, "0.33.0 with FlashInfer 0.6.6", vllm("0.33.0", NANO_BF16, SPARK, flashinfer="0.6.6")),
    a("FI020", False, "FlashInfer 0.6.8 has the Relu2 case", vllm("0.24.0", NANO_BF16, SPARK, flashinfer="0.6.8")),
    a("FI020", False, "the release's own pin", vllm("0.24.0", NANO_BF16, SPARK)),
    a("FI020", False, "RTX 5090 (12.0): vllm#39825 kept 12.0 on CUTLASS", vllm("0.24.0", NANO_BF16, R5090,
      flashinfer="0.6.7")),
    a("FI020", False, "0.19.0: unquantized experts on Triton (derived)", vllm("0.19.0", NANO_BF16, SPARK,
      flashinfer="0.6.6")),
    a("FI020", False, "silu experts", vllm("0.24.0", QWEN_BF16, SPARK, flashinfer="0.6.7")),
    a("FI020", False, "NVFP4 experts (ModelOptNvFp4FusedMoE)", vllm("0.24.0", NANO_NVFP4, SPARK, flashinfer="0.6.7")),
    a("FI020", False, "--moe-backend triton", vllm("0.24.0", NANO_BF16, SPARK, flashinfer="0.6.7"),
      "--moe-backend", "triton"),
    a("FI020", False, "B200", vllm("0.24.0", NANO_BF16, B200, flashinfer="0.6.7")),
]


def sglang(version: str, model: str, profile: str = PRO, deep_gemm: str | None = None) -> Callable[[], Facts]:
    """SGLang at `version` (a what-if: it brings the sgl-deep-gemm its wheel pins) unless `deep_gemm` names the
    sgl-deep-gemm installed beside it."""
    def facts() -> Facts:
        libs = (lib("sgl-deep-gemm", deep_gemm),) if deep_gemm else ()
        return build(profile, model, (f"sglang=={version}",), libs=libs)
    return facts


GLM51_NVFP4 = "nvidia/GLM-5.1-NVFP4"

KNOW_SPARSE_CASES += [
    # DG011: SGLang's DSA metadata calls deep_gemm.get_paged_mqa_logits_metadata; sgl-deep-gemm < 0.1.5 has no sm120
    a("DG011", True, "GLM-5.1-NVFP4 on 0.5.12 (sglang#26087)", sglang("0.5.12", GLM51_NVFP4), "--tp", "8"),
    a("DG011", True, "DeepSeek-V3.2 on 0.5.16 on GB10", sglang("0.5.16", DSV32, SPARK)),
    a("DG011", True, "0.5.14", sglang("0.5.14", DSV32)),
    a("DG011", False, "0.5.11: sgl-kernel's DeepGEMM, not read", sglang("0.5.11", DSV32)),
    a("DG011", False, "0.5.17 (sgl-deep-gemm 0.1.5.post1, not read)", sglang("0.5.17", DSV32)),
    a("DG011", False, "0.5.18 pins 0.1.5.post3 with sm120 paged MQA logits", sglang("0.5.18", DSV32)),
    a("DG011", False, "sgl-deep-gemm 0.1.5.post3 installed by hand", sglang("0.5.16", DSV32, deep_gemm="0.1.5.post3")),
    a("DG011", False, "DeepSeek-V4 is DG001's", sglang("0.5.12", DSV4)),
    a("DG011", False, "dense MLA: no indexer", sglang("0.5.12", DSV3)),
    a("DG011", False, "Hopper", sglang("0.5.12", DSV32, H100)),
    a("DG011", False, "B200", sglang("0.5.12", DSV32, B200)),
]


def sglang_env(version: str, model: str, env: dict[str, str], profile: str = PRO) -> Callable[[], Facts]:
    def facts() -> Facts:
        return build(profile, model, (f"sglang=={version}",), env=env)
    return facts


KNOW_SPARSE_CASES += [
    # SGL200: 0.5.15's default SGLANG_OPT_FLASHMLA_SPARSE_PREFILL sends DeepSeek-V4 prefill to flash_mla_sparse_fwd
    a("SGL200", True, "DeepSeek-V4-Flash on 0.5.15.post1 (sglang#31578)", sglang("0.5.15.post1", DSV4), "--tp", "4"),
    a("SGL200", True, "0.5.15 on GB10", sglang("0.5.15", DSV4, SPARK)),
    a("SGL200", True, "the switch set to 1", sglang_env("0.5.15", DSV4, {"SGLANG_OPT_FLASHMLA_SPARSE_PREFILL": "1"})),
    a("SGL200", False, "0.5.14: the switch defaults off", sglang("0.5.14", DSV4)),
    a("SGL200", False, "0.5.16: `not _is_sm120`", sglang("0.5.16", DSV4)),
    a("SGL200", False, "switched off", sglang_env("0.5.15", DSV4, {"SGLANG_OPT_FLASHMLA_SPARSE_PREFILL": "0"})),
    a("SGL200", False, "DeepSeek-V3.2 (the DSA backend)", sglang("0.5.15", DSV32)),
    a("SGL200", False, "Hopper: SM90a kernel", sglang("0.5.15", DSV4, H100)),
    a("SGL200", False, "B200: SM100f kernel", sglang("0.5.15", DSV4, B200)),
]

FORCE = "--attention-backend"

KNOW_SPARSE_CASES += [
    # VLLM103: a forced attention backend that cannot serve sparse MLA on SM12x, where 0.24+ has the SM120 one
    a("VLLM103", True, "FLASHMLA_SPARSE forced on 0.28.0", vllm("0.28.0", GLM5_NVFP4), FORCE, "FLASHMLA_SPARSE"),
    a("VLLM103", True, "TRITON_MLA forced for a sparse model on 0.24.0, GB10", vllm("0.24.0", DSV32, SPARK), FORCE,
      "TRITON_MLA"),
    a("VLLM103", False, "FLASHINFER_MLA_SPARSE_SM120 forced", vllm("0.28.0", DSV32), FORCE,
      "FLASHINFER_MLA_SPARSE_SM120"),
    a("VLLM103", False, "not forced", vllm("0.28.0", DSV32)),
    a("VLLM103", False, "0.23.0: VLLM022's (no sparse backend at all)", vllm("0.23.0", DSV32), FORCE,
      "FLASHMLA_SPARSE"),
    a("VLLM103", False, "dense MLA model: VLLM005's", vllm("0.28.0", DSV3), FORCE, "FLASHMLA"),
    a("VLLM103", False, "Hopper runs FLASHMLA_SPARSE", vllm("0.28.0", DSV32, H100), FORCE, "FLASHMLA_SPARSE"),
    a("VLLM103", False, "B200 runs FLASHMLA_SPARSE", vllm("0.28.0", DSV32, B200), FORCE, "FLASHMLA_SPARSE"),
]

QWEN235_NVFP4, KIMI_NVFP4 = "nvidia/Qwen3-235B-A22B-NVFP4", "nvidia/Kimi-K2.5-NVFP4"

KNOW_SPARSE_CASES += [
    # MOE030: NVFP4 experts on FLASHINFER_CUTLASS (derived) with a FlashInfer that bundles CUTLASS 4.2.1
    a("MOE030", True, "Qwen3-235B NVFP4 on 0.19.0 (pins FlashInfer 0.6.6)", vllm("0.19.0", QWEN235_NVFP4)),
    a("MOE030", True, "Kimi-K2.5 NVFP4 on 0.17.0 on GB10", vllm("0.17.0", KIMI_NVFP4, SPARK)),
    a("MOE030", True, "0.20.0 with FlashInfer 0.6.5 installed", vllm("0.20.0", QWEN235_NVFP4, flashinfer="0.6.5")),
    a("MOE030", False, "0.20.0 pins 0.6.8.post1", vllm("0.20.0", QWEN235_NVFP4)),
    a("MOE030", False, "FlashInfer 0.6.7 (CUTLASS 4.4.2)", vllm("0.19.0", QWEN235_NVFP4, flashinfer="0.6.7")),
    a("MOE030", False, "--moe-backend marlin", vllm("0.19.0", QWEN235_NVFP4), "--moe-backend", "marlin"),
    a("MOE030", False, "BF16 experts", vllm("0.19.0", QWEN_BF16)),
    a("MOE030", False, "B200", vllm("0.19.0", QWEN235_NVFP4, B200)),
]

KV = "--kv-cache-dtype"

KNOW_SPARSE_CASES += [
    # VLLM104: DeepSeek-V4's SM120 attention keeps its KV cache in fp8_ds_mla only
    a("VLLM104", True, "0.28.0, --kv-cache-dtype left at auto", vllm("0.28.0", DSV4)),
    a("VLLM104", True, "0.24.0 on GB10, bfloat16", vllm("0.24.0", DSV4, SPARK), KV, "bfloat16"),
    a("VLLM104", True, "0.33.0, bfloat16 asked for", vllm("0.33.0", DSV4), KV, "bfloat16"),
    a("VLLM104", False, "0.28.0 with fp8", vllm("0.28.0", DSV4), KV, "fp8"),
    a("VLLM104", False, "0.33.0 maps auto to fp8", vllm("0.33.0", DSV4)),
    a("VLLM104", False, "0.29.0 not read", vllm("0.29.0", DSV4)),
    a("VLLM104", False, "0.23.0: no SM120 DeepSeek-V4 path (VLLM080)", vllm("0.23.0", DSV4)),
    a("VLLM104", False, "DeepSeek-V3.2: another attention class", vllm("0.28.0", DSV32)),
    a("VLLM104", False, "Hopper", vllm("0.28.0", DSV4, H100)),
    a("VLLM104", False, "B200: FlashInfer plain-row layout", vllm("0.28.0", DSV4, B200)),
]
