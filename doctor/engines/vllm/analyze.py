"""What vLLM decides for a run: its attention, MoE and dense-linear (GEMM) backends (with where each choice
came from), the Triton kernels those backends launch, sized for the GPU, and its all-reduce plan at the launch's
TP size (doctor.engines.vllm.allreduce)."""

from __future__ import annotations

from doctor.engines.run import EngineAnalysis, EngineRun
from doctor.engines.vllm import allreduce, backends, gemm, kernel_plan, mla_prefill
from doctor.kernels.check import KernelCheck


def analyze(run: EngineRun) -> EngineAnalysis:
    if run.gpu is None:
        return EngineAnalysis(notes=("no GPU in the facts: kernel analysis needs a GPU, a --hardware profile or a "
                                     "--facts snapshot",))
    if run.facts.model is None:
        return EngineAnalysis(notes=("no model given: kernel analysis needs a model",))
    chosen: dict[str, str] = {}
    sources: dict[str, str] = {}
    notes: list[str] = []
    kernels: list[KernelCheck] = []
    attention = backends.attention_backend(run)
    chosen["attention"], sources["attention"] = attention.backend, attention.source
    if not attention.runs:
        notes.append(f"attention backend {attention.backend} cannot run here: {attention.reason}")
    if attention.backend == "TRITON_MLA":
        kernels += kernel_plan.mla_decode_kernels(run)
        flashinfer = run.facts.library("flashinfer-python")
        notes.append(mla_prefill.prefill_note(run.version, dict(run.facts.env),
                                              None if flashinfer is None else not flashinfer.what_if or None))
    elif attention.backend == "TRITON_ATTN":
        checks, refused = kernel_plan.unified_attention_kernels(run)
        kernels += checks
        notes += refused
    moe = backends.moe_backend(run)
    if moe is not None:
        chosen["moe"], sources["moe"] = moe.backend, moe.source
        if not moe.runs:
            notes.append(f"MoE backend {moe.backend} cannot run here: {moe.reason}")
        if moe.backend == "triton":
            checks, moe_notes = kernel_plan.moe_kernels(run)
            kernels += checks
            notes += moe_notes
        else:
            notes.append(f"MoE experts run on {moe.backend}, not the Triton fused_moe kernel")
    linear = gemm.linear_backend(run)
    if linear is not None:
        chosen["linear"], sources["linear"] = linear.backend, linear.source
        notes.append(linear.note)
    notes += allreduce.notes(run)
    return EngineAnalysis(backends=chosen, backend_sources=sources, kernels=tuple(kernels), notes=tuple(notes))
