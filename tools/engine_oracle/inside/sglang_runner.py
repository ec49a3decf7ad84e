"""Run SGLang's own dispatch on the emulated device: `python sglang_runner.py JOB.json OUT.jsonl`, with the
engine's Python. For each query (a config.json directory and `sglang.launch_server` flags) it parses the flags
the way `launch_server` does (`prepare_server_args(argv)`: SGLang's own argparse, then
`ServerArgs.__post_init__` with its backend selection), records every field the construction changed and
the lines SGLang logged, then sets up what the scheduler sets up before it builds a model (the MoE and GEMM
runner globals, a one-rank gloo world, DP-attention groups) and builds the model's skeleton on `meta` with
SGLang's own loader function, recording each layer's quantization method and the kernels it holds. Every
exception is kept with its stage and SGLang source line.

One process per capability: `is_sm100_supported()` and friends are `lru_cache`d for the process."""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import gc
import inspect
import json
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import emulated_device
import import_watch
import layer_groups

emulated_device.fake_torch_cuda()

import torch  # noqa: E402

LOG_LINES: list[dict[str, str]] = []
WATCH_HITS = import_watch.install(os.environ.get("ORACLE_WATCH_IMPORTS", ""))
KERNEL_WORDS = ("Kernel", "Experts", "Backend", "Impl", "Method", "Runner", "linear", "gemm", "Gemm", "moe", "MoE")
# ServerArgs fields that name a dispatch decision (each recorded when the release has it).
DECISIONS = (
    "attention_backend", "prefill_attention_backend", "decode_attention_backend", "mm_attention_backend",
    "moe_runner_backend", "moe_a2a_backend", "fp8_gemm_runner_backend", "fp4_gemm_runner_backend",
    "sampling_backend", "grammar_backend", "nsa_prefill_backend", "nsa_decode_backend",
    "mamba_backend", "mamba_ssm_dtype", "linear_attn_backend", "kv_cache_dtype", "page_size", "dtype",
    "quantization", "disable_cuda_graph", "disable_overlap_schedule", "disable_radix_cache",
    "disable_chunked_prefix_cache", "enable_piecewise_cuda_graph", "disable_piecewise_cuda_graph",
    "chunked_prefill_size", "cuda_graph_max_bs", "mem_fraction_static", "speculative_algorithm",
    "enable_dp_attention", "disable_shared_experts_fusion", "enable_flashinfer_allreduce_fusion",
    "swa_full_tokens_ratio", "disable_hybrid_swa_memory", "enable_deterministic_inference",
)


class Capture(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        LOG_LINES.append({"logger": record.name, "level": record.levelname, "msg": message})


def _error(stage: str, error: BaseException) -> dict[str, Any]:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/sglang/" in f.filename]
    where = f"{frames[-1].filename.split('/site-packages/')[-1]}:{frames[-1].lineno}" if frames else ""
    # a bare `assert` says nothing: its source line is the message
    code = (frames[-1].line or "") if frames else ""
    if os.environ.get("ORACLE_TRACEBACKS"):
        traceback.print_exception(error, file=sys.stderr)
    return {"stage": stage, "type": type(error).__name__, "message": str(error)[:2000] or code, "where": where}


def _plain(value: Any) -> Any:
    if isinstance(value, enum.Enum):
        return value.value if isinstance(value.value, (str, int)) else value.name
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value][:64]
    return str(value)[:200]


def _server_args(argv: list[str]) -> tuple[Any, dict[str, Any]]:
    """`prepare_server_args` as `launch_server` calls it, keeping the parsed namespace to tell which fields
    `__post_init__` changed."""
    import argparse

    from sglang.srt.server_args import ServerArgs
    parser = argparse.ArgumentParser()
    ServerArgs.add_cli_args(parser)
    raw = parser.parse_args(argv)
    given = {name: getattr(raw, name) for name in vars(raw)}
    args = ServerArgs.from_cli_args(raw)
    if callable(getattr(args, "resolve_once", None)):  # 0.5.2x: launch_server resolves the record explicitly
        args.resolve_once()
    return args, given


def _values(args: Any) -> dict[str, Any]:
    """Every field as resolved: the record's own `resolved_dict()` where it has one (0.5.2x arg groups), else the
    dataclass fields `__post_init__` wrote."""
    if callable(getattr(args, "resolved_dict", None)):
        return dict(args.resolved_dict())
    return {f.name: getattr(args, f.name) for f in dataclasses.fields(args)}


# Fields __post_init__ fills that depend on the path or a random draw, not on the device or model.
NOT_DECISIONS = ("model_path", "tokenizer_path", "served_model_name", "random_seed", "cuda_graph_bs",
                 "piecewise_cuda_graph_tokens", "custom_weight_loader", "mm_process_config")


def _decisions(args: Any, given: dict[str, Any]) -> dict[str, Any]:
    values = _values(args)
    chosen = {name: _plain(values[name]) for name in DECISIONS if name in values}
    changed = {name: {"given": _plain(given[name]), "now": _plain(values[name])}
               for name in sorted(set(values) & set(given))
               if _plain(given[name]) != _plain(values[name]) and name not in NOT_DECISIONS}
    return {"server_args": chosen, "changed": changed}


def _model_config(args: Any) -> Any:
    from sglang.srt.configs.model_config import ModelConfig
    return ModelConfig.from_server_args(args)


def _model_summary(config: Any) -> dict[str, Any]:
    attention_arch = getattr(config, "attention_arch", None)
    return {"architecture": (config.hf_config.architectures or [None])[0],
            "dtype": str(config.dtype).replace("torch.", ""), "quantization": getattr(config, "quantization", None),
            "attention_arch": _plain(attention_arch), "is_hybrid_swa": getattr(config, "is_hybrid_swa", None),
            "head_dim": getattr(config, "head_dim", None)}


class _SchedulerShim:
    """What Scheduler's init_* methods read from `self` before the model is built."""

    def __init__(self, args: Any, config: Any) -> None:
        self.server_args = args
        self.model_config = config


def _scheduler_globals(args: Any, config: Any) -> list[str]:
    """The scheduler's own set-up of the runner globals (MoE runner backend, FP8/FP4 GEMM backend, the Mamba
    kernels), by its own methods where the release has them."""
    from sglang.srt.managers import scheduler
    done = []
    shim = _SchedulerShim(args, config)
    for name in ("init_mamba_backend", "init_moe_gemm_config", "init_moe_config"):
        method = getattr(scheduler.Scheduler, name, None)
        if method is not None:
            method(shim)
            done.append(name)
    if "init_moe_gemm_config" not in done and "init_moe_config" not in done:
        from sglang.srt.layers.moe import initialize_moe_config
        initialize_moe_config(args)
        done.append("initialize_moe_config")
    return done


def _resolved_globals() -> dict[str, Any]:
    """The runner backends as the layers read them after the scheduler's set-up."""
    found: dict[str, Any] = {}
    probes = (("sglang.srt.layers.moe.utils", "get_moe_runner_backend"),
              ("sglang.srt.layers.moe.utils", "get_moe_a2a_backend"),
              ("sglang.srt.layers.quantization.fp8_utils", "get_fp8_gemm_runner_backend"),
              ("sglang.srt.layers.quantization.fp4_utils", "get_fp4_gemm_runner_backend"))
    for module_name, function in probes:
        with contextlib.suppress(Exception):
            module = __import__(module_name, fromlist=[function])
            found[function.removeprefix("get_")] = _plain(getattr(module, function)())
    with contextlib.suppress(Exception):
        from sglang.srt.layers import deep_gemm_wrapper
        found["jit_deepgemm"] = bool(deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM)
    return found


class Session:
    """The one-rank gloo world, set up once for the process."""

    def __init__(self) -> None:
        self.ready = False

    def ensure(self) -> None:
        if self.ready:
            return
        from sglang.srt.distributed import parallel_state
        port = os.environ.get("ORACLE_PORT", "29533")
        with emulated_device.CudaToMeta():  # the groups place a marker tensor on their device
            parallel_state.init_distributed_environment(
                backend="gloo", world_size=1, rank=0, local_rank=0,
                distributed_init_method=f"tcp://127.0.0.1:{port}")
            parallel_state.initialize_model_parallel()
        self.ready = True


def _describe(value: Any) -> str | None:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    if inspect.isfunction(value) or inspect.ismethod(value):
        return value.__name__
    if isinstance(value, type):
        return value.__name__ if any(w in value.__name__ for w in KERNEL_WORDS) else None
    name = type(value).__name__
    return name if any(word in name for word in KERNEL_WORDS) else None


def _kernels_of(owner: Any, depth: int = 0) -> dict[str, str]:
    found: dict[str, str] = {}
    for attr, value in list(vars(owner).items()) if hasattr(owner, "__dict__") else []:
        if attr.startswith("__") or isinstance(value, (torch.nn.Module, torch.Tensor)):
            continue
        described = _describe(value)
        if described is None:
            continue
        found[attr] = described
        if depth == 0 and hasattr(value, "__dict__") and not isinstance(value, (type, enum.Enum)) \
                and not inspect.isroutine(value):
            for sub, sub_value in _kernels_of(value, 1).items():
                found[f"{attr}.{sub}"] = sub_value
    return found


# Switches a quantization method holds that pick its kernel at run time (block FP8, Marlin, FlashInfer, CUTLASS).
SWITCH_PREFIXES = ("use_", "enable_", "block_quant", "is_checkpoint_")


def _switches(method: Any) -> dict[str, str]:
    return {f"quant_method.{k}": str(v) for k, v in (vars(method).items() if hasattr(method, "__dict__") else ())
            if isinstance(v, bool) and k.startswith(SWITCH_PREFIXES)}


def _layer_decision(module: torch.nn.Module) -> dict[str, Any] | None:
    decision: dict[str, Any] = {}
    method = getattr(module, "quant_method", None)
    if method is not None:
        decision["quant_method"] = type(method).__name__
        decision.update({f"quant_method.{k}": v for k, v in _kernels_of(method).items()})
        decision.update(_switches(method))
    for attr in ("moe_runner_config", "runner", "moe_runner_backend", "attn_backend", "backend"):
        value = getattr(module, attr, None)
        if value is not None and not isinstance(value, (torch.nn.Module, torch.Tensor)):
            decision[attr] = _describe(value) or type(value).__name__
    return decision or None


def _build(args: Any, config: Any) -> torch.nn.Module:
    """SGLang's loader function on `meta`, as DummyModelLoader.load_model calls it (without loading)."""
    from sglang.srt.configs.load_config import LoadConfig
    from sglang.srt.model_loader import loader
    from sglang.srt.model_loader.utils import set_default_torch_dtype
    load_config = LoadConfig(load_format=args.load_format)
    # the model registry imports every model module on first use: outside meta (module-level tensors)
    loader.get_model_architecture(config)
    initialize = loader._initialize_model
    params = inspect.signature(initialize).parameters
    with set_default_torch_dtype(config.dtype), torch.device("meta"), emulated_device.CudaToMeta():
        if "quant_config" in params:
            quant = loader._get_quantization_config(config, load_config)
            return initialize(config, load_config, quant)
        return initialize(config, load_config)


def _publish_for_scheduler(args: Any, config: Any) -> str:
    """What the launcher does before a scheduler process builds anything. From 0.5.2x `run_scheduler_process`
    publishes the record with the process's place in the topology (`SpawnRanks`: world rank from TP/PP rank, DP
    rank, GPU id), and the layers read their ranks from `get_parallel()`; the legacy
    `set_global_server_args_for_scheduler` shim publishes without ranks; before that shim (0.5.2, 0.5.3) the
    layers read `schedule_batch.global_server_args_dict`, which `ModelRunner.__init__` fills. Here: TP rank 0,
    PP rank 0, no DP controller, GPU 0, as `launch_server` spawns a one-GPU server."""
    from sglang.srt import server_args as server_args_module
    context = sys.modules.get("sglang.srt.runtime_context") or _optional_import("sglang.srt.runtime_context")
    if context is not None and hasattr(context, "SpawnRanks"):
        world_rank = context.spawn_world_rank(args, tp_rank=0, pp_rank=0)
        context.publish(args, role="scheduler", ranks=context.SpawnRanks(world_rank=world_rank, dp_rank=None,
                                                                           gpu_id=0))
        return "publish(role=scheduler, ranks=SpawnRanks)"
    if hasattr(server_args_module, "set_global_server_args_for_scheduler"):
        server_args_module.set_global_server_args_for_scheduler(args)
        return "set_global_server_args_for_scheduler"
    return _fill_global_server_args_dict(args, config)


def _fill_global_server_args_dict(args: Any, config: Any) -> str:
    """`ModelRunner.__init__` of 0.5.2/0.5.3 (model_runner.py: `global_server_args_dict.update(...)`): the
    listed server args, whether the model takes the MLA backend, and the speculative algorithm."""
    from sglang.srt.configs.model_config import AttentionArch
    from sglang.srt.managers import schedule_batch
    from sglang.srt.speculative.spec_info import SpeculativeAlgorithm
    schedule_batch.global_server_args_dict.update(
        {key: getattr(args, key) for key in schedule_batch.GLOBAL_SERVER_ARGS_KEYS}
        | {"use_mla_backend": config.attention_arch == AttentionArch.MLA,
           "speculative_algorithm": SpeculativeAlgorithm.from_string(args.speculative_algorithm)})
    return "global_server_args_dict.update"


def _optional_import(name: str) -> Any:
    try:
        return __import__(name, fromlist=["_"])
    except ImportError:
        return None


def _prepare_build(session: Session, args: Any, config: Any) -> list[str]:
    published = _publish_for_scheduler(args, config)
    session.ensure()
    with contextlib.suppress(ImportError):
        from sglang.srt.layers.dp_attention import initialize_dp_attention
        params = inspect.signature(initialize_dp_attention).parameters
        with emulated_device.CudaToMeta():  # 0.5.8 builds the attention-TP group here, marker tensor included
            initialize_dp_attention(**{k: v for k, v in (("server_args", args), ("model_config", config))
                                       if k in params})
    return [published, *_scheduler_globals(args, config)]


def run_query(session: Session, query: dict[str, Any]) -> dict[str, Any]:
    LOG_LINES.clear()
    result: dict[str, Any] = {"id": query["id"], "flags": query["flags"], "env": query.get("env", {}), "errors": []}
    saved = {name: os.environ.get(name) for name in query.get("env", {})}
    os.environ.update(query.get("env", {}))
    started = time.monotonic()
    try:
        _configure_and_build(session, query, result)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    result["seconds"] = round(time.monotonic() - started, 2)
    result["log"] = [line for line in LOG_LINES if line["level"] != "DEBUG"]
    if WATCH_HITS:
        result["watched_imports"] = sorted(set(WATCH_HITS))
    gc.collect()
    return result


def _configure_and_build(session: Session, query: dict[str, Any], result: dict[str, Any]) -> None:
    try:
        args, given = _server_args(["--model-path", query["model_dir"], *query["flags"]])
    except BaseException as error:  # SystemExit from argparse is SGLang refusing a flag value
        result["errors"].append(_error("server_args", error))
        return
    result.update(_decisions(args, given))
    # stages: SGLang's model config, the oracle's own set-up of what the scheduler sets up (its failures are
    # the emulation's limits, never SGLang's answer), then SGLang's loader building the model
    stage = "model_config"
    try:
        config = _model_config(args)
        result["model_config"] = _model_summary(config)
        stage = "setup"
        result["scheduler_init"] = _prepare_build(session, args, config)
        result["resolved"] = _resolved_globals()
        stage = "build"
        model = _build(args, config)
        result["resolved_after_build"] = _resolved_globals()
        result["layers"] = layer_groups.walk_layers(model, _layer_decision)
        del model
    except BaseException as error:
        result["errors"].append(_error(stage, error))


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    for name in ("sglang", "flashinfer", "sgl_kernel"):
        logger = logging.getLogger(name)
        logger.addHandler(Capture())
        logger.setLevel(logging.INFO)
    started = time.monotonic()
    import sglang
    import sglang.srt.server_args  # the imports that select at import time
    setup = {"sglang": getattr(sglang, "__version__", None), "capability": list(emulated_device.CAPABILITY),
             "torch_cuda": torch.version.cuda, "import_s": round(time.monotonic() - started, 2),
             "import_log": list(LOG_LINES), "watched_imports": WATCH_HITS}
    LOG_LINES.clear()
    session = Session()
    with Path(sys.argv[2]).open("w") as out:
        out.write(json.dumps({"setup": setup}) + "\n")
        out.flush()
        for query in job["queries"]:
            out.write(json.dumps(run_query(session, query), default=str) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
