"""What TensorRT-LLM does with a run on this GPU: the MoE backend (and what AUTO resolves to), attention, the
GEMM paths its quantization takes, the SM alias on GB10; the options YAML it will read; what rules may see."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from packaging.version import Version

from doctor.engines.spi import EngineAnalysis, EngineRun, release
from doctor.engines.tensorrt_llm import knowledge as kb
from doctor.engines.tensorrt_llm.memory import TensorRTLLMMemory
from doctor.engines.tensorrt_llm.options import TrtLaunch, flag_problems, option_problems, parse

OPTIONS_FILE = "trtllm-options.yaml"
FP8_BLOCK_SM120 = "1.2.0"  # fp8BlockScalingGemm.cpp dispatches SM120 (fp8_block_scale_gemm_blackwell_geforce)


def parsed(run: EngineRun) -> TrtLaunch:
    return parse(list(run.launch.args))


def moe_backend(run: EngineRun, launch: TrtLaunch) -> tuple[str, str, str] | None:
    """(configured, resolved, where from) for a MoE model; None for a dense one."""
    model = run.facts.model
    if model is None or model.moe is None:
        return None
    given = launch.option("moe_config.backend")
    configured = str(given).upper() if given else kb.default_moe_backend(run.version)
    capability = run.gpu.capability if run.gpu else (12, 0)
    resolved = kb.resolve_moe_backend(configured, model.architecture, capability)
    where = f"options file {launch.options_path}" if given else f"TensorRT-LLM {run.library.version} default"
    if configured == "AUTO":
        where += f"; AUTO resolves to {resolved} for {model.architecture} on SM{capability[0]}{capability[1]}"
    return configured, resolved, where


def gemm_path(run: EngineRun) -> str | None:
    model, gpu = run.facts.model, run.gpu
    if model is None or gpu is None:
        return None
    scheme = model.quantization.scheme
    if scheme == "fp8-block":
        if gpu.capability[0] == 12 and release(run.version) < Version(FP8_BLOCK_SM120):
            return "FP8 block-scale GEMM: no SM120 dispatch in this release"
        return "FP8 block-scale GEMM (SM120: fp8_block_scale_gemm_blackwell_geforce)"
    if scheme in ("nvfp4", "mxfp4"):
        return f"{scheme.upper()} GEMM/MoE through CUTLASS SM120 kernels"
    return None


def analyze(run: EngineRun) -> EngineAnalysis:
    launch = parsed(run)
    attention = str(launch.option("attn_backend") or "TRTLLM")
    backends = {"attention": attention}
    sources = {"attention": "options file" if launch.option("attn_backend") else "TorchLlmArgs.attn_backend default"}
    moe = moe_backend(run, launch)
    if moe is not None:
        backends["moe"], sources["moe"] = moe[1], moe[2]
    gemm = gemm_path(run)
    if gemm:
        backends["gemm"], sources["gemm"] = gemm, f"{run.facts.model.quantization.scheme} checkpoint"  # type: ignore[union-attr]
    notes = ["TensorRT-LLM's kernels are compiled CUDA/CUTLASS (and trtllm-gen cubins): no Triton kernel plan",
             f"TensorRT-LLM facts: {kb.SNAPSHOT}; release mapping inferred (see doctor/engines/tensorrt_llm/"
             f"knowledge.py)"]
    if run.gpu and run.gpu.capability == (12, 1):
        notes.append("GB10: TensorRT-LLM's C++ getSMVersion reports 121 as 120, its Python helpers do not (#17126)")
    return EngineAnalysis(backends=backends, backend_sources=sources, notes=tuple(notes))


def memory_model(run: EngineRun) -> TensorRTLLMMemory:
    launch = parsed(run)
    fraction = launch.number("--kv_cache_free_gpu_memory_fraction", "kv_cache_config.free_gpu_memory_fraction")
    batch = launch.number("--max_batch_size", "max_batch_size")
    block = launch.option("kv_cache_config.tokens_per_block")
    tokens = launch.number("--max_num_tokens", "max_num_tokens")
    cap = launch.option("kv_cache_config.max_tokens")
    return TensorRTLLMMemory(run.library.version, fraction, int(batch) if batch else None,
                             block if isinstance(block, int) else None, int(tokens) if tokens else None,
                             cap if isinstance(cap, int) else None, host_use_bytes=host_use(run))


def host_use(run: EngineRun) -> int | None:
    """On unified memory (GB10) what the host holds of the pool when probed (pool - MemAvailable): TensorRT-LLM
    counts it as used outside torch, so it comes off the KV cache; None off unified memory or unprobed."""
    gpu, available = run.gpu, run.facts.host.memory_available_bytes
    if gpu is None or not gpu.unified_memory or available is None or not gpu.memory_total_bytes:
        return None
    return max(0, gpu.memory_total_bytes - available)


def rule_view(run: EngineRun) -> dict[str, Any]:
    launch = parsed(run)
    flag_errors, flag_doubts = flag_problems(launch, list(run.launch.args), run.version)
    option_errors, option_doubts = option_problems(launch.options, run.version)
    moe = moe_backend(run, launch)
    return {
        "version": run.library.version, "options_file": launch.options_path,
        "moe_backend": moe[0] if moe else None, "moe_backend_resolved": moe[1] if moe else None,
        "moe_backend_source": moe[2] if moe else None, "attn_backend": launch.option("attn_backend") or "TRTLLM",
        "allreduce_strategy": str(launch.option("allreduce_strategy") or "AUTO"),  # TorchLlmArgs default
        "flag_errors": flag_errors, "option_errors": option_errors, "doubts": flag_doubts + option_doubts,
        "free_gpu_memory_fraction": memory_model(run).fraction, "gemm": gemm_path(run),
        # trtllm-serve --backend: pytorch (the default), or the legacy TensorRT engine flow (tensorrt/trt)
        "serve_backend": launch.flags.get("--backend"),
        # the options YAML's speculative_config.decoding_type (MTP, Eagle3, ...): None without speculative decoding
        "speculative_type": _text(launch.option("speculative_config.decoding_type")),
    }


def _text(value: Any) -> str | None:
    return str(value) if value is not None else None


def options_for_launch(run: EngineRun, findings: Sequence[Any]) -> tuple[dict[str, Any], list[str]]:
    """The user's options plus every safe `config` fix of the findings for this engine; the IDs applied."""
    launch = parsed(run)
    options = _copy(launch.options)
    applied = []
    for finding in findings:
        for fix in finding.fixes:
            if fix.kind == "config" and fix.is_safe and fix.details.get("engine") == "tensorrt-llm":
                for path, value in dict(fix.details.get("config", {})).items():
                    _set(options, path, value)
                applied.append(finding.id)
                break
    moe = moe_backend(run, launch)
    if moe is not None and "backend" not in options.get("moe_config", {}):
        _set(options, "moe_config.backend", moe[1])  # explicit: the same in every release, AUTO or not
    if "free_gpu_memory_fraction" not in options.get("kv_cache_config", {}):
        _set(options, "kv_cache_config.free_gpu_memory_fraction", memory_model(run).fraction)
    return options, applied


def options_yaml(options: dict[str, Any], version: str) -> str:
    import yaml

    header = f"# TensorRT-LLM {version} LLM-API options (trtllm-serve --extra_llm_api_options), by sm120-doctor\n"
    return header + yaml.safe_dump(options, sort_keys=False, default_flow_style=False)


def _copy(options: dict[str, Any]) -> dict[str, Any]:
    return {k: _copy(v) if isinstance(v, dict) else v for k, v in options.items()}


def _set(options: dict[str, Any], path: str, value: Any) -> None:
    *parents, leaf = path.split(".")
    node = options
    for part in parents:
        node = node.setdefault(part, {})
    node[leaf] = value
