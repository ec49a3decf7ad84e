"""What SGLang decides for a run: its attention backend, and the Triton kernels it launches with their tiles."""

from __future__ import annotations

from doctor.engines.sglang import attention as sglang_attention
from doctor.engines.sglang import flags as sglang_flags
from doctor.engines.sglang import kernel_plan
from doctor.engines.spi import EngineAnalysis, EngineRun
from doctor.kernels.check import KernelCheck


def analyze(run: EngineRun) -> EngineAnalysis:
    gpu, model = run.gpu, run.facts.model
    if gpu is None:
        return EngineAnalysis(notes=("no GPU in the facts: kernel analysis needs a GPU, a --hardware profile or a "
                                     "--facts snapshot",))
    if model is None:
        return EngineAnalysis(notes=("no model given: kernel analysis needs a model",))
    backend, source = attention_backend(run)
    target = kernel_plan.target_for(run.facts, gpu, run.version, run.launch.values, run.tp)
    planned: list[KernelCheck] = []
    if backend == "triton":
        planned += kernel_plan.extend_kernels(target)
    if (run.launch.get("decode_attention_backend") or backend) == "triton":
        planned += kernel_plan.decode_kernels(target)
    mm_backend = run.launch.get("mm_attention_backend") or kernel_plan.default_mm_backend(run.version, gpu.capability)
    if mm_backend == "triton_attn":
        planned += kernel_plan.vision_kernels(target)
    moe_checks, notes = kernel_plan.moe_kernels(target)
    return EngineAnalysis(backends={"attention": backend}, backend_sources={"attention": source},
                          kernels=(*planned, *moe_checks), notes=tuple(notes))


def attention_backend(run: EngineRun) -> tuple[str, str]:
    chosen = run.launch.get("prefill_attention_backend") or run.launch.get("attention_backend")
    refused = chosen and sglang_flags.choice_valid("--attention-backend", str(chosen), run.version) is False
    if chosen and not refused:
        return str(chosen), "launch flags"
    assert run.facts.model is not None and run.gpu is not None
    default = sglang_attention.default_attention_backend(
        run.version, run.facts.model, run.gpu.capability,
        flashinfer_available="flashinfer-python" in run.facts.libraries or run.library.what_if,
        no_spec_or_topk_one=no_spec_or_topk_one(run.launch.args, run.launch.get("page_size")))
    if refused:  # SGLang would refuse to start (SGL119): analyse what it runs once the value is fixed or dropped
        return default, f"SGLang {run.library.version} default (your value {chosen!r} is not one of its choices)"
    return default, f"SGLang {run.library.version} default for this GPU and model"


def no_spec_or_topk_one(args: tuple[str, ...], page_size: object) -> bool:
    """SGLang's `is_no_spec_infer_or_topk_one`: no --speculative-eagle-topk, or 1 with page size 1 (or unset)."""
    topk = None
    for i, arg in enumerate(args):
        flag, _, value = arg.partition("=")
        if flag.replace("_", "-") == "--speculative-eagle-topk":
            topk = value or (args[i + 1] if i + 1 < len(args) else None)
    if topk is None:
        return True
    return str(topk) == "1" and page_size in (None, 1)
