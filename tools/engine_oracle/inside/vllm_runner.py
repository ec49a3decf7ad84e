"""Run vLLM's own dispatch on the emulated device: `python vllm_runner.py JOB.json OUT.json`, with the
engine's Python. For each query (a config.json directory and `vllm serve` flags) it parses the flags with
vLLM's EngineArgs, builds the engine config, builds the model's skeleton on `meta` as TP rank 0, and records
every decision: the attention selections (with rejected candidates and reasons), the backend lines vLLM logs,
each layer's quantization method and kernels, and every exception with the stage it came from.

One process per capability: vLLM caches capability checks (functools.cache) for the life of the process."""

from __future__ import annotations

import contextlib
import enum
import functools
import gc
import io
import json
import logging
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import emulated_device
import layer_groups

emulated_device.fake_torch_cuda()

import torch  # noqa: E402

# vllm_platform is imported by vLLM itself, through the plug-in entry point, when it first resolves its
# platform (0.24 does so while `import vllm` runs): importing it here first would be a circular import.
vllm_platform: Any = None

LOG_LINES: list[dict[str, str]] = []
KERNEL_ATTRS = ("Kernel", "Experts", "Backend", "Impl", "Method", "Runner")


class Capture(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:
            message = str(record.msg)
        line = {"logger": record.name, "level": record.levelname, "msg": message}
        if record.exc_info and record.exc_info[1] is not None:  # logger.exception: what was raised, not only that
            line["exc"] = "".join(traceback.format_exception_only(*record.exc_info[:2])).strip()[-2000:]
        LOG_LINES.append(line)


KEEP_CACHES = ("vllm.platforms", "vllm.distributed", "vllm.envs")


def _forget_memoised() -> None:
    """vLLM memoises selections (`_cached_get_attn_backend`) and logs each once per process (`info_once`):
    each query must make and log its own. The device and distributed caches stay: they hold for the process."""
    for name, module in list(sys.modules.items()):
        if not name.startswith("vllm") or name.startswith(KEEP_CACHES) or module is None:
            continue
        for value in list(vars(module).values()):
            # the type test, not hasattr: vLLM's lazy placeholders import optional packages on attribute access
            if isinstance(value, functools._lru_cache_wrapper) and getattr(value, "__module__", "") == name:
                value.cache_clear()


def _envs_attributes() -> set[str]:
    envs = sys.modules.get("vllm.envs")
    return set(vars(envs)) if envs is not None else set()


def _forget_envs_assignments(before: set[str]) -> None:
    """vLLM 0.12.0 assigns its MLA default onto the `vllm.envs` module (`envs.VLLM_ATTENTION_BACKEND =
    "CUTLASS_MLA"` on Blackwell, platforms/cuda.py): the attribute then shadows the module's `__getattr__` for the
    rest of the process, and every later query on 10.0 read it as the user's forced backend. A `vllm serve`
    process serves one model; here each query starts from the environment, as a fresh process would."""
    envs = sys.modules.get("vllm.envs")
    known = getattr(envs, "environment_variables", None)
    if envs is None or not isinstance(known, dict):
        return
    for name in [n for n in vars(envs) if n in known and n not in before]:
        delattr(envs, name)


def _error(stage: str, error: BaseException) -> dict[str, Any]:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if "/vllm/" in f.filename]
    where = f"{frames[-1].filename.split('/site-packages/')[-1]}:{frames[-1].lineno}" if frames else ""
    return {"stage": stage, "type": type(error).__name__, "message": str(error)[:2000], "where": where}


def _describe(value: Any) -> str | None:
    if isinstance(value, enum.Enum):
        return f"{type(value).__name__}.{value.name}"
    name = type(value).__name__
    if isinstance(value, type):
        name = value.__name__
    return name if any(part in name for part in KERNEL_ATTRS) else None


def _kernels_of(owner: Any, depth: int = 0) -> dict[str, str]:
    """The kernel, experts and backend objects an owner holds (one level into each), by attribute path."""
    found: dict[str, str] = {}
    for attr, value in list(vars(owner).items()) if hasattr(owner, "__dict__") else []:
        if attr.startswith("__") or isinstance(value, torch.nn.Module):
            continue
        described = _describe(value)
        if described is None:
            continue
        found[attr] = described
        if depth == 0 and hasattr(value, "__dict__") and not isinstance(value, (type, enum.Enum)):
            for sub, sub_value in _kernels_of(value, 1).items():
                found[f"{attr}.{sub}"] = sub_value
    return found


def _layer_decision(module: torch.nn.Module) -> dict[str, Any] | None:
    decision: dict[str, Any] = {}
    method = getattr(module, "quant_method", None)
    if method is not None:
        decision["quant_method"] = type(method).__name__
        decision.update({f"quant_method.{k}": v for k, v in _kernels_of(method).items()})
    backend = getattr(module, "attn_backend", None)
    if backend is not None:
        decision["attn_backend"] = backend.get_name() if hasattr(backend, "get_name") else str(backend)
    if backend is None and callable(getattr(module, "get_attn_backend", None)):
        # Mamba and linear-attention layers name their backend through a method; one that cannot say is
        # recorded without it
        with contextlib.suppress(Exception):
            decision["attn_backend"] = module.get_attn_backend().get_name()
    impl = getattr(module, "impl", None)
    if impl is not None and not isinstance(impl, torch.nn.Module):
        decision["impl"] = type(impl).__name__
    for attr in ("moe_kernel", "kernel", "scheme"):
        value = getattr(module, attr, None)
        if value is not None and not isinstance(value, torch.nn.Module):
            decision[attr] = type(value).__name__
    return decision or None


# A tensor-parallel query: ORACLE_TP processes, one per rank, each asks the same queries; rank 0's records are kept.
TP = int(os.environ.get("ORACLE_TP", "1"))
RANK = int(os.environ.get("ORACLE_RANK", "0"))
BASE_COMMUNICATOR = "vllm.distributed.device_communicators.base_device_communicator.DeviceCommunicatorBase"


def _base_communicator() -> None:
    """With more than one rank, vLLM's groups open the platform's device communicator (CudaCommunicator: NCCL
    on a real device, custom all-reduce), which the emulation cannot. Building a model never communicates, so
    the groups get vLLM's own base communicator (torch.distributed on the gloo group) instead: the parallel state,
    ranks and shard sizes are vLLM's; the all-reduce path is not derived."""
    from vllm.platforms import current_platform
    type(current_platform).get_device_communicator_cls = classmethod(lambda cls: BASE_COMMUNICATOR)


class Session:
    """The distributed world (gloo: one rank, or ORACLE_TP ranks in as many processes) is set up once for the
    process and reused by every query."""

    def __init__(self) -> None:
        self.ready = False

    def ensure(self, config: Any) -> None:
        if self.ready:
            return
        from vllm.config import set_current_vllm_config
        from vllm.distributed import parallel_state
        port = os.environ.get("ORACLE_PORT", "29533")
        if TP > 1:
            _base_communicator()
        with set_current_vllm_config(config):
            parallel_state.init_distributed_environment(
                world_size=TP, rank=RANK, local_rank=RANK, distributed_init_method=f"tcp://127.0.0.1:{port}",
                backend="gloo")
            parallel_state.initialize_model_parallel(TP, 1)
        with contextlib.suppress(ImportError):  # the worker sets it up before the model runner (0.2x and later)
            from vllm.v1.worker.workspace import init_workspace_manager
            init_workspace_manager(torch.device("meta"))
        self.ready = True


def _engine_config(flags: list[str]) -> Any:
    from vllm.engine.arg_utils import EngineArgs
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser
    parser = EngineArgs.add_cli_args(FlexibleArgumentParser())
    said = io.StringIO()
    try:
        with contextlib.redirect_stderr(said):
            args = parser.parse_args(flags)
    except SystemExit as exit_:  # argparse prints why and exits: keep its words (a flag this release lacks)
        lines = said.getvalue().strip().splitlines()
        raise ValueError(f"argument error: {lines[-1] if lines else exit_}") from None
    return EngineArgs.from_cli_args(args).create_engine_config()


def _build(config: Any) -> torch.nn.Module:
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.model_loader.utils import initialize_model
    try:
        from vllm.utils.torch_utils import set_default_torch_dtype
    except ImportError:
        from vllm.model_executor.model_loader.utils import set_default_torch_dtype
    with set_current_vllm_config(config), set_default_torch_dtype(config.model_config.dtype), \
            torch.device("meta"), emulated_device.CudaToMeta():
        return initialize_model(vllm_config=config)


def _draft_vllm_config(config: Any) -> Any:
    """The VllmConfig vLLM's spec-decode proposer builds its drafter under: the proposer's own
    `_create_draft_vllm_config` where the release has one (the speculative config's MoE backend, attention
    backend and KV dtype replace the target's), else the target's config as it is (older EagleProposer.load_model
    passes `self.vllm_config`)."""
    from types import SimpleNamespace
    proposer = None
    with contextlib.suppress(ImportError):
        from vllm.v1.spec_decode.eagle import EagleProposer as proposer
    make = getattr(proposer, "_create_draft_vllm_config", None)
    if make is None:
        return config
    return make(SimpleNamespace(vllm_config=config, speculative_config=config.speculative_config))


def _build_drafter(config: Any) -> torch.nn.Module:
    """The MTP drafter as the proposer's `load_model` builds it: `get_model(vllm_config=<draft config>,
    model_config=speculative_config.draft_model_config)`, whose loader calls `initialize_model` with both;
    here on `meta`, without loading weights (what the dummy loader would do next)."""
    from vllm.config import set_current_vllm_config
    from vllm.model_executor.model_loader.utils import initialize_model
    try:
        from vllm.utils.torch_utils import set_default_torch_dtype
    except ImportError:
        from vllm.model_executor.model_loader.utils import set_default_torch_dtype
    speculative = config.speculative_config
    if speculative is None or speculative.draft_model_config is None:
        raise ValueError("no drafter model: the speculative config names none")
    draft_config = _draft_vllm_config(config)
    draft_model = speculative.draft_model_config
    with set_current_vllm_config(draft_config), set_default_torch_dtype(draft_model.dtype), \
            torch.device("meta"), emulated_device.CudaToMeta():
        return initialize_model(vllm_config=draft_config, model_config=draft_model)


def _drafter_summary(config: Any) -> dict[str, Any]:
    speculative = config.speculative_config
    draft = speculative.draft_model_config if speculative is not None else None
    return {"method": getattr(speculative, "method", None),
            "architecture": (draft.architectures or [None])[0] if draft is not None else None,
            "quantization": getattr(draft, "quantization", None) if draft is not None else None}


def _summary(config: Any) -> dict[str, Any]:
    model = config.model_config
    quant = getattr(config, "quant_config", None)
    return {"tensor_parallel_size": config.parallel_config.tensor_parallel_size,
            "dtype": str(model.dtype).replace("torch.", ""), "quantization": model.quantization,
            "quant_config": type(quant).__name__ if quant is not None else None,
            "kv_cache_dtype": str(config.cache_config.cache_dtype),
            "architecture": (model.architectures or [None])[0]}


def run_query(session: Session, query: dict[str, Any]) -> dict[str, Any]:
    LOG_LINES.clear()
    vllm_platform.ATTENTION_CALLS.clear()
    _forget_memoised()
    result: dict[str, Any] = {"id": query["id"], "flags": query["flags"], "env": query.get("env", {})}
    started = time.monotonic()
    saved = {name: os.environ.get(name) for name in query.get("env", {})}
    preset = {name for name in os.environ if name.startswith("VLLM_")}
    envs_before = _envs_attributes()
    os.environ.update(query.get("env", {}))
    try:
        result.update(_configure_and_build(session, query, started))
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        # vLLM 0.10 and earlier write their engine choice into os.environ (VLLM_USE_V1=1 after the first config);
        # the next query would then read it as the user's and raise where a fresh `vllm serve` falls back to V0
        for name in [n for n in os.environ if n.startswith("VLLM_") and n not in preset]:
            os.environ.pop(name)
        _forget_envs_assignments(envs_before)
    result["attention_calls"] = list(vllm_platform.ATTENTION_CALLS)
    result["log"] = [line for line in LOG_LINES if line["level"] != "DEBUG" or "backend" in line["msg"].lower()]
    gc.collect()
    return result


def _configure_and_build(session: Session, query: dict[str, Any], started: float) -> dict[str, Any]:
    result: dict[str, Any] = {"errors": []}
    try:
        config = _engine_config(["--model", query["model_dir"], *query["flags"]])
    except BaseException as error:
        result["errors"].append(_error("config", error))
        config = None
    result["config_s"] = round(time.monotonic() - started, 2)
    if config is not None:
        result["engine_config"] = _summary(config)
        try:
            session.ensure(config)
            if query.get("drafter"):
                result["drafter"] = _drafter_summary(config)
                model = _build_drafter(config)
            else:
                model = _build(config)
            result["layers"] = layer_groups.walk_layers(model, _layer_decision)
            del model
        except BaseException as error:
            result["errors"].append(_error("build", error))
    result["build_s"] = round(time.monotonic() - started - result["config_s"], 2)
    return result


def _inspect_in_process() -> None:
    """vLLM inspects each new architecture in a fresh Python (`_run_in_subprocess`, to keep CUDA out of the
    parent), which re-imports vLLM and torch once per architecture and process: 20-50 s each on a loaded
    machine. Here CUDA is the emulation, so the same `_ModelInfo` is computed in process."""
    with contextlib.suppress(ImportError, AttributeError):
        from vllm.model_executor.models import registry
        if callable(getattr(registry, "_run_in_subprocess", None)):
            registry._run_in_subprocess = lambda fn: fn()


def main() -> None:
    job = json.loads(Path(sys.argv[1]).read_text())
    for name in ("vllm",):
        logger = logging.getLogger(name)
        logger.addHandler(Capture())
        logger.setLevel(logging.DEBUG)
    started = time.monotonic()
    import vllm
    from vllm.platforms import current_platform

    _inspect_in_process()
    global vllm_platform
    import vllm_platform as plugin
    vllm_platform = plugin
    setup = {"vllm": vllm.__version__, "platform": type(current_platform).__name__, "tp": TP, "rank": RANK,
             "capability": list(emulated_device.CAPABILITY), "import_s": round(time.monotonic() - started, 2)}
    session = Session()
    with Path(sys.argv[2]).open("w") as out:
        out.write(json.dumps({"setup": setup}) + "\n")
        out.flush()
        for query in job["queries"]:
            out.write(json.dumps(run_query(session, query)) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
