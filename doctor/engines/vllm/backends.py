"""Which attention and MoE backends vLLM picks on the GPU of a run, per release.

Attention, from 0.12: the order `_get_backend_priorities` gives this capability (evaluated on the wheel's
source, doctor/data/vllm), minus the backends whose own `supports_compute_capability` says no, minus
the feature limits vLLM checks next (attention sinks, FP8 KV cache) as they stand on SM12x: FLASH_ATTN runs
FlashAttention 2 there (`get_flash_attn_version`: FA3 is Hopper-only), which has neither sinks nor an FP8 KV
cache, and FlashInfer has no sinks on SM12x (vllm#40153). Before 0.12 the same outcome comes from the
if-chain of `CudaPlatform.get_attn_backend_cls` (line in the data): MLA -> TRITON_MLA (CUTLASS and FlashInfer
MLA need capability 10.x, FlashMLA Hopper, FlashAttention MLA FA3), sinks or FP8 KV -> TRITON_ATTN, else
FLASH_ATTN.

MoE on SM12x by checkpoint format: unquantized and FP8 experts run the Triton fused-MoE kernel, except where
the release's FP8 MoE method considers vLLM's CUTLASS grouped GEMM (see `fp8_moe_cutlass_path`) while
`cutlass_group_gemm_supported` defers to the compiled op for capability 12.x: that GEMM has no SM12x kernel
(vllm#32109; vllm#33285 makes the gate answer False from 0.15.1); INT4/AWQ/GPTQ experts and MXFP4 (gpt-oss)
run Marlin; NVFP4 runs CUTLASS FP4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from packaging.version import Version

from doctor.engines.run import EngineRun
from doctor.engines.vllm import knowledge
from doctor.pipeline.facts import Quantization

NO_SINKS_ON_SM12X = {"FLASH_ATTN": "FlashAttention 2 on SM12x has no attention sinks",
                     "FLASHINFER": "FlashInfer has no attention sinks on SM12x (vllm#40153)"}
NO_FP8_KV_ON_SM12X = {"FLASH_ATTN": "FlashAttention 2 on SM12x has no FP8 KV cache"}
MLA_BACKENDS_SPARSE_ONLY = {"FLASHMLA_SPARSE", "FLASHINFER_MLA_SPARSE", "FLASHINFER_MLA_SPARSE_SM120",
                            "FLASHINFER_MLA_SPARSE_SM90"}
NOT_IN_ORDER_BEFORE_012 = "CudaPlatform.get_attn_backend_cls if-chain"
MARLIN_MOE = {"int4-w4a16", "awq", "gptq", "mxfp4"}
TRITON_MOE_DTYPE = {"bf16": None, "fp16": None, "fp8-channel": "fp8_w8a8", "fp8-tensor": "fp8_w8a8",
                    "fp8-block": "fp8_w8a8", "int8-w8a8": "int8_w8a8", "int8-w8a16": "int8_w8a16"}


@dataclass(frozen=True)
class Choice:
    backend: str
    source: str
    runs: bool = True  # False: this backend cannot run here (the reason says why)
    reason: str = ""
    skipped: tuple[str, ...] = ()  # backends passed over before this one, with why


def capability_label(run: EngineRun) -> str:
    major, minor = run.gpu.capability if run.gpu else (0, 0)
    return f"{major}.{minor}"


def kv_is_fp8(run: EngineRun) -> bool:
    chosen = str(run.launch.get("kv_cache_dtype") or "")
    model = run.facts.model
    declared = model.quantization.kv_cache_dtype if model else None
    if chosen and chosen != "auto":
        return chosen.startswith("fp8")
    return bool(declared and declared.startswith("fp8"))


def forced_attention(run: EngineRun, facts: dict[str, Any]) -> tuple[str, str] | None:
    chosen = run.launch.get("attention_backend")
    if chosen and "--attention-backend" in facts["flags"]:
        return str(chosen).upper(), "--attention-backend"
    env = run.facts.env.get("VLLM_ATTENTION_BACKEND")
    if env and "VLLM_ATTENTION_BACKEND" in facts["envs"]["table"]:
        # before 0.11 the V1 engine's backends carry a suffix (TRITON_ATTN_VLLM_V1): the same kernels
        return env.upper().removesuffix("_VLLM_V1"), "VLLM_ATTENTION_BACKEND"
    return None


def why_not(run: EngineRun, facts: dict[str, Any], backend: str) -> str | None:
    """Why `backend` cannot serve this model on this GPU in this release (None: it can)."""
    model = run.facts.model
    assert model is not None
    label = capability_label(run)
    mla = model.attention.kind == "mla"
    if "MLA" in backend:
        if not mla:
            return f"{backend} is an MLA backend and {model.id} does not use MLA"
        sparse_backend = backend in MLA_BACKENDS_SPARSE_ONLY or "SPARSE" in backend
        if sparse_backend and not model.attention.sparse:
            return f"{backend} serves sparse MLA only"
        if model.attention.sparse and not sparse_backend:
            return f"{backend} has no sparse MLA, which {model.id} needs (index_topk in its config)"
    elif mla:
        return f"{model.id} uses MLA and {backend} is not an MLA backend"
    answer = facts["attention"]["supports_capability"].get(backend, {}).get(label)
    if answer is False:
        return f"{backend}.supports_compute_capability({label}) is False in vLLM {facts['version']}"
    if not facts["attention"].get("priorities") and backend in OLD_CAPABILITY_LIMITS:
        return OLD_CAPABILITY_LIMITS[backend]
    if model.attention.sinks and backend in NO_SINKS_ON_SM12X:
        return NO_SINKS_ON_SM12X[backend]
    if kv_is_fp8(run) and backend in NO_FP8_KV_ON_SM12X:
        return NO_FP8_KV_ON_SM12X[backend]
    return None


OLD_CAPABILITY_LIMITS = {
    "CUTLASS_MLA": "CUTLASS MLA needs capability 10.x", "FLASHINFER_MLA": "FlashInfer MLA needs capability 10.x",
    "FLASHMLA": "FlashMLA is built for Hopper only", "FLASH_ATTN_MLA": "FlashAttention MLA needs FA3 (Hopper)",
}


def attention_backend(run: EngineRun) -> Choice:
    facts = knowledge.facts_for(run.version)
    forced = forced_attention(run, facts)
    if forced is not None:
        backend, source = forced
        reason = why_not(run, facts, backend)
        return Choice(backend, source, reason is None, reason or "")
    order, source = default_order(run, facts)
    skipped = []
    for backend in order:
        reason = why_not(run, facts, backend)
        if reason is None:
            return Choice(backend, source, skipped=tuple(skipped))
        skipped.append(f"{backend}: {reason}")
    return Choice("none", source, False, "No valid attention backend found: " + "; ".join(skipped),
                  tuple(skipped))


def default_order(run: EngineRun, facts: dict[str, Any]) -> tuple[list[str], str]:
    model = run.facts.model
    assert model is not None
    mla = model.attention.kind == "mla"
    label = capability_label(run)
    priorities = facts["attention"].get("priorities")
    if priorities and isinstance(priorities.get(f"{'mla' if mla else 'default'}@{label}"), list):
        where = f"{priorities['file']}:{priorities['line']}"
        return list(priorities[f"{'mla' if mla else 'default'}@{label}"]), \
            f"vLLM {facts['version']} priority order for {label} ({where})"
    selector = facts["attention"].get("selector", {})
    where = f"{selector.get('file')}:{selector.get('line')}"
    order = ["CUTLASS_MLA", "FLASHINFER_MLA", "FLASHMLA", "FLASH_ATTN_MLA", "TRITON_MLA"] if mla else \
        ["FLASH_ATTN", "TRITON_ATTN"]
    return order, f"vLLM {facts['version']} {NOT_IN_ORDER_BEFORE_012} ({where})"


def moe_backend(run: EngineRun) -> Choice | None:
    model = run.facts.model
    if model is None or model.moe is None:
        return None
    facts = knowledge.facts_for(run.version)
    forced = run.launch.get("moe_backend")
    if forced and "--moe-backend" in facts["flags"]:
        return Choice(str(forced).lower().replace("-", "_"), "--moe-backend")
    scheme = model.quantization.for_experts().scheme
    if scheme in MARLIN_MOE:
        return Choice("marlin", f"vLLM {facts['version']}: {scheme} experts on SM12x")
    if scheme == "nvfp4":
        return Choice("cutlass_fp4", f"vLLM {facts['version']}: NVFP4 experts (CUTLASS FP4 MoE, sm_120 build)")
    if scheme.startswith("fp8"):
        return fp8_moe_choice(run, facts)
    if scheme in TRITON_MOE_DTYPE:
        return Choice("triton", f"vLLM {facts['version']}: unquantized experts run the Triton fused MoE")
    return Choice("unknown", f"the doctor does not model {scheme} experts in vLLM", True)


# Where each release's FP8 MoE method may take vLLM's CUTLASS grouped GEMM (cutlass_moe_mm) on SM12x, read from
# the wheels. Compressed-tensors W8A8 FP8 (per-tensor or per-channel weights):
#   0.9.2-0.13.x: CompressedTensorsW8A8Fp8MoE(Cutlass)Method only where `_is_fp8_w8a8_sm90`/`_sm100` hold, and
#     `_check_scheme_supported(..., match_exact=True)` compares the capability for equality (90, 100; 0.9.2: 90
#     only): SM12x takes CompressedTensorsW8A8Fp8MoEMethod, the Triton fused MoE.
#   0.14.x: `select_fp8_moe_backend(..., allow_vllm_cutlass=True)` (fused_moe/oracle/fp8.py) returns
#     VLLM_CUTLASS for any non-block scheme once `cutlass_group_gemm_supported()` says yes.
#   0.15.0: the oracle asks `CutlassExpertsFp8`: `_supports_current_device` is `cutlass_group_gemm_supported()`,
#     `_supports_quant_scheme` takes (channel weights, dynamic per-token activations) and (per-tensor weights,
#     static per-tensor activations); the method maps dynamic per-tensor activations to kFp8Dynamic128Sym and
#     per-token ones on per-tensor weights to kFp8DynamicTokenSym, neither of which it takes.
# Fp8MoEMethod (quant_method fp8: block FP8 such as DeepSeek-V3) and ModelOpt FP8 never pass
# allow_vllm_cutlass (0.14.0-0.15.x) and before 0.14 use CUTLASS only on capability 9.0/10.x families.
CT_FP8_CUTLASS_FROM, CT_FP8_CUTLASS_ORACLE = Version("0.14.0"), Version("0.15.0")
CUTLASS_EXPERTS_FP8_SCHEMES = {("fp8-channel", "float8-token-dynamic"), ("fp8-tensor", "float8-tensor-static")}


def fp8_moe_cutlass_path(version: Version, quant: Quantization) -> str | None:
    """Where this release's FP8 MoE method considers vLLM's CUTLASS grouped GEMM for these experts (None: never
    on SM12x; the Triton fused MoE runs them)."""
    if quant.method != "compressed-tensors" or quant.scheme not in ("fp8-channel", "fp8-tensor"):
        return None
    activation = quant.activation or ""
    if not activation.startswith("float8"):
        return None  # weight-only FP8 is not CompressedTensorsW8A8Fp8MoEMethod
    if version < CT_FP8_CUTLASS_FROM:
        return None
    if version < CT_FP8_CUTLASS_ORACLE:
        return "select_fp8_moe_backend(allow_vllm_cutlass=True), fused_moe/oracle/fp8.py"
    if (quant.scheme, activation) not in CUTLASS_EXPERTS_FP8_SCHEMES:
        return None
    return "CutlassExpertsFp8 via select_fp8_moe_backend(allow_vllm_cutlass=True), fused_moe/oracle/fp8.py"


def fp8_moe_choice(run: EngineRun, facts: dict[str, Any]) -> Choice:
    assert run.facts.model is not None
    quant = run.facts.model.quantization.for_experts()
    path = fp8_moe_cutlass_path(release(run.version), quant)
    if path is None:
        return Choice("triton", f"vLLM {facts['version']}: {quant.method} {quant.scheme} experts take no vLLM "
                                "CUTLASS MoE on SM12x: Triton fused MoE")
    gate = facts["gates"].get("cutlass_group_gemm_supported", {})
    answer = gate.get(str(capability_label(run).replace(".", "")))
    where = f"{gate.get('file')}:{gate.get('line')}"
    if answer == "compiled":
        return Choice("cutlass", f"{path}; cutlass_group_gemm_supported defers to the compiled op ({where})", False,
                      "vLLM's CUTLASS grouped GEMM (cutlass_moe_mm) has no SM12x kernel: 'No compiled "
                      "cutlass_scaled_mm for CUDA device capability: 120' (vllm#32109)")
    return Choice("triton", f"cutlass_group_gemm_supported answers {answer} for SM12x ({where}): Triton fused MoE")


def release(version: Version) -> Version:
    """The release a version belongs to (0.14.0rc1 and 0.14.0.dev5 count as 0.14.0)."""
    return Version(version.base_version)
