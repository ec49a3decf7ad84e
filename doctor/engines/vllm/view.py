"""What rules may read about a vLLM run, under the context root `vllm`: the release whose wheel facts stand
for the version, which of the user's flags and environment variables that release accepts or ignores, the
backends it picks (attention, MoE, dense GEMM) and whether they run here, a verdict per compiled kernel family,
the all-reduce it runs at the launch's TP size (`allreduce`), the NCCL and cuDNN the run uses (`nccl`,
`cudnn`), and what the release's own selection decided for this shape class on this GPU (`derived`, from the
oracle's tables), and whether the release registers the model's architecture (`model_support`,
doctor/engines/model_support.py)."""

from __future__ import annotations

import re
from typing import Any

from doctor.engines import model_support, parsers, quant_support
from doctor.engines.spi import EngineRun, closest
from doctor.engines.vllm import (
    allreduce,
    backends,
    cudagraph_pool,
    cudnn,
    dependency,
    derived,
    families,
    flags,
    gemm,
    kernel_images,
    knowledge,
    moe_activation,
    speculative,
)

KEY_FLAGS = ("--attention-backend", "--moe-backend", "--linear-backend", "--attention-config",
             "--disable-custom-all-reduce", "--kv-cache-dtype")
OWN_PREFIXES = ("VLLM_",)


def vllm_view(run: EngineRun) -> dict[str, Any]:
    facts = knowledge.facts_for(run.version)
    release = facts["version"]
    view: dict[str, Any] = {
        "version": run.library.version, "release": release, "exact_release": release == str(run.version),
        "has_flag": {f.lstrip("-").replace("-", "_"): f in facts["flags"] for f in KEY_FLAGS},
        "default_gpu_memory_utilization": _default_utilization(facts),
        "flag_problems": [{"problem": p} for p in flags.check_flags(list(run.launch.args), run.version)],
        **env_view(run, facts),
        "nccl": allreduce.nccl(run),
        "cudnn": cudnn.view(run),
        "flashinfer": flashinfer_view(run),
        "trtllm_attention_off": trtllm_attention_off(run.launch.args),
        "indexer_fp4": indexer_fp4(run.launch.args),
        "speculative": speculative.view(run),
        "parsers": parsers.view("vllm", "vLLM", run.library.version, list(run.launch.args), run.facts.model),
        **cudagraph_view(run, facts),
    }
    if run.gpu is not None:
        view["allreduce"] = allreduce.view(run)
        view["startup"] = startup_view(run, facts)
    if run.gpu is not None and run.facts.model is not None:
        view["attention"] = _choice(backends.attention_backend(run))
        moe = backends.moe_backend(run)
        view["moe"] = _choice(moe) if moe else None
        linear = gemm.linear_backend(run)
        view["linear"] = _linear(linear)
        if view["linear"] is not None:
            view["linear"]["narrow_block_layers"] = gemm.narrow_block_layers(run, linear)
        view["derived"] = derived.view(run)
        view["kernel_images"] = kernel_images.view(run)
    if run.facts.model is not None:
        view["forced_moe"] = moe_activation.view(run)
        view["model_support"] = model_support.view(
            model_support.deployment_for("vllm", "vLLM", run.facts, run.library, run.launch.args), run.facts.model,
            dependency.probed_pin)
        view["quant_support"] = quant_support.view("vllm", run.library.version, run.facts.model,
                                                   tuple(run.launch.args))
    if run.gpu is not None:
        binaries = families.installed_binaries(run.library.details) or facts.get("binaries", {})
        verdicts = families.family_verdicts(binaries, run.gpu.capability)
        view["families"] = verdicts
        view["families_without_code"] = [v for v in verdicts if v["verdict"] == "none" and not v["deliberate"]]
    return view


def cudagraph_view(run: EngineRun, facts: dict[str, Any]) -> dict[str, Any]:
    """`model_runner` (v1/v2, None unsettled) and `cudagraph_pool_reserved`: whether the KV budget leaves out the
    CUDA graphs' pool (doctor/engines/vllm/cudagraph_pool.py); None with --enforce-eager or an unsettled runner."""
    env = dict(run.facts.env)
    estimate = facts["envs"]["table"].get(cudagraph_pool.ESTIMATE_ENV)
    spec = run.launch.get("speculative_config") not in (None, False)
    eager = bool(run.launch.values.get("enforce_eager"))
    return {"model_runner": cudagraph_pool.model_runner(run.library.version, env, run.facts.model, spec),
            "cudagraph_pool_reserved": cudagraph_pool.pool_reserved(
                run.library.version, estimate.get("default", "0") if estimate else None, env, run.facts.model,
                spec, eager)}


def _default_utilization(facts: dict[str, Any]) -> float | None:
    """--gpu-memory-utilization's default in this release's wheel (0.9 up to 0.19.x, 0.92 from 0.20.0)."""
    default = facts["flags"].get("--gpu-memory-utilization", {}).get("default")
    return float(default) if default is not None else None


TRTLLM_OFF = re.compile(r"use_trtllm_attention\W+(?:false|0)\b", re.IGNORECASE)


def trtllm_attention_off(args: tuple[str, ...] | list[str]) -> bool:
    """`--attention-config.use_trtllm_attention=0` (or the JSON form): FlashInfer never takes its TRT-LLM/XQA
    kernels (`force_use_trtllm_attention() is False`, vllm/utils/flashinfer.py)."""
    return bool(TRTLLM_OFF.search(" ".join(str(a) for a in args)))


FP4_INDEXER_CACHE = re.compile(r"use_fp4_indexer_cache\W+(?:true|1)\b", re.IGNORECASE)
MXFP4_INDEXER = re.compile(r"indexer_kv_dtype\W+mxfp4\b", re.IGNORECASE)


def indexer_fp4(args: tuple[str, ...] | list[str]) -> dict[str, bool]:
    """The sparse-attention indexer's MXFP4 key cache, as the launch asks for it: `use_fp4_indexer_cache=True`
    (`--attention-config.use_fp4_indexer_cache=True` or the JSON form; vLLM 0.20.0-0.28.x) or
    `indexer_kv_dtype=mxfp4` (0.28.0 on)."""
    text = " ".join(str(a) for a in args)
    return {"use_fp4_indexer_cache": bool(FP4_INDEXER_CACHE.search(text)),
            "indexer_kv_dtype_mxfp4": bool(MXFP4_INDEXER.search(text))}


def startup_view(run: EngineRun, facts: dict[str, Any]) -> dict[str, Any]:
    """vLLM's startup check (vllm/v1/worker/utils.py in 0.33.0, gpu_worker before it): it asks for
    ceil(total x gpu_memory_utilization) and refuses to start ("Free memory on device ... on startup is less than
    desired GPU memory utilization") when less is free; `headroom_gib` is what the rest of the machine may hold."""
    value = run.launch.values.get("gpu_memory_utilization")
    default = _default_utilization(facts) or 0.9
    util = value if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1 else default
    total = run.gpu.memory_total_bytes if run.gpu is not None else None
    if not total:
        return {"utilization": util, "requested_gib": None, "headroom_gib": None, "total_gib": None}
    requested = total * util
    return {"utilization": util, "requested_gib": round(requested / (1 << 30), 2),
            "headroom_gib": round((total - requested) / (1 << 30), 2), "total_gib": round(total / (1 << 30), 2)}


def flashinfer_view(run: EngineRun) -> dict[str, Any]:
    """The flashinfer-python this run imports: the one installed beside an installed vLLM, else the exact
    version the vLLM wheel requires (a what-if installs that pin); None where neither is known."""
    installed = run.facts.library("flashinfer-python")
    if installed is not None and not installed.what_if and not run.library.what_if:
        return {"version": installed.version, "source": "installed"}
    known, pin = knowledge.flashinfer_pin(run.version)
    if not known:
        return {"version": None, "source": f"vLLM {run.version}'s requirements are not in the doctor's table"}
    if pin is None:
        return {"version": None, "source": f"vLLM {run.version} does not require flashinfer-python"}
    if pin["extra"]:
        return {"version": None, "source": f"vLLM {run.version} requires {pin['requirement']} (only with the "
                                           f"[{pin['extra']}] extra)"}
    return {"version": pin["version"],
            "source": f"vLLM {run.version} requires {pin['requirement']} (wheel METADATA line {pin['line']})"}


def _choice(choice: backends.Choice) -> dict[str, Any]:
    return {"backend": choice.backend, "source": choice.source, "runs": choice.runs, "reason": choice.reason,
            "skipped": list(choice.skipped)}


def _linear(choice: gemm.LinearChoice | None) -> dict[str, Any] | None:
    """The dense GEMM pick: its backend, the condition it holds under ("always" or what decides it), every
    backend of the chain, and why the others were passed over."""
    if choice is None:
        return None
    pick = choice.pick
    return {"backend": choice.backend, "source": choice.source, "when": pick["when"], "scheme": pick["scheme"],
            "online": choice.online, "chain": [link["backend"] for link in pick["chain"]],
            "skipped": list(pick["skipped"])}


def reads_env(facts: dict[str, Any], name: str) -> bool:
    return name in facts["envs"]["table"] or name in facts["envs"]["direct_reads"]


def env_view(run: EngineRun, facts: dict[str, Any]) -> dict[str, Any]:
    """`env_read`: each VLLM_* variable set -> does this release read it; `env_ignored`: the ones it does not,
    with the releases that did read them and the closest name it reads."""
    known = list(facts["envs"]["table"])
    read: dict[str, bool] = {}
    ignored = []
    for name in sorted(run.facts.env):
        if not name.startswith(OWN_PREFIXES):
            continue
        read[name] = reads_env(facts, name)
        if read[name]:
            continue
        history = knowledge.env_history(name)
        close = closest(name, known, cutoff=0.75)
        ignored.append({"name": name, "value": run.facts.env[name],
                        "read_in": knowledge.describe_spans(history) if history else "no release the doctor knows",
                        "closest": close})
    return {"env_read": read, "env_ignored": ignored}
