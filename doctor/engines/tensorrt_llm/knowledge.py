"""What each TensorRT-LLM release accepts: `trtllm-serve` flags and the LLM-API options (the YAML given with
`--extra_llm_api_options`) the doctor reads or writes, with their values and defaults.

Provenance. The release wheels are not reachable from here (PyPI's `tensorrt-llm` is a stub that downloads from
pypi.nvidia.com), and tag snapshots of NVIDIA/TensorRT-LLM are too large to fetch, so the facts come from stored
versions of the repository's own source, read statically:
- `tensorrt_llm/commands/serve.py` @ 00209af (click options; `--config` with `--extra_llm_api_options` as
  its alias, `--free_gpu_memory_fraction` / `--kv_cache_free_gpu_memory_fraction` default 0.9);
- `tensorrt_llm/llmapi/llm_args.py`, four stored versions of `class MoeConfig(StrictBaseModel)`, ordered by
  content: (a) backend Literal[CUTLASS, CUTEDSL, WIDEEP, TRTLLM, DEEPGEMM, VANILLA], default CUTLASS; (b) + TRITON;
  (c) + AUTO, default AUTO; (d) + DENSEGEMM, MARLIN, MEGAMOE_DEEPGEMM (and MEGAMOE_CUTEDSL in the 1.3.0rc27 API
  reference, nvidia.github.io/TensorRT-LLM/1.3.0rc27/llm-api/reference/MoeConfig.html);
- `tensorrt_llm/_torch/model_config.py` `resolve_moe_backend`: AUTO resolves, for GptOssForCausalLM, to TRTLLM
  on SM 100-119, TRITON on SM 90-99 and CUTLASS otherwise (SM120/121 included); for other models to CUTLASS;
- the GPT-OSS deployment guide of 1.2.0rc2.post2 still says "The default moe backend is CUTLASS".
The mapping of (a)-(d) onto releases is inferred (1.0 = a, 1.1 = b, 1.2 = c, 1.3 pre-releases = d), not read at
the release tags: where the doctor is unsure whether a value exists in a release, it warns instead of erring.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from packaging.version import Version

from doctor.engines.spi import release

SNAPSHOT = "NVIDIA/TensorRT-LLM stored source (serve.py @ 00209af, llm_args.py MoeConfig versions a-d)"


@dataclass(frozen=True)
class Choice:
    value: str
    added: str = "1.0.0"  # first release (inferred, see the module docstring)
    certain: bool = False  # True where a release is known to have it

    def exists(self, version: Version) -> bool:
        return release(version) >= Version(self.added)


MOE_BACKENDS = {c.value: c for c in (
    Choice("CUTLASS", certain=True), Choice("CUTEDSL"), Choice("WIDEEP"), Choice("TRTLLM", certain=True),
    Choice("DEEPGEMM"), Choice("VANILLA"), Choice("TRITON", "1.1.0"), Choice("AUTO", "1.2.0"),
    Choice("DENSEGEMM", "1.3.0"), Choice("MARLIN", "1.3.0"), Choice("MEGAMOE_DEEPGEMM", "1.3.0"),
    Choice("MEGAMOE_CUTEDSL", "1.3.0"),
)}
# TorchLlmArgs.attn_backend: a str field (default 'TRTLLM'); the PyTorch flow's backends
ATTENTION_BACKENDS = ("TRTLLM", "FLASHINFER", "FLASHINFER_STAR_ATTENTION", "VANILLA")
FREE_GPU_MEMORY_FRACTION = 0.9  # serve.py --free_gpu_memory_fraction default; KvCacheConfig's default too


def default_moe_backend(version: Version) -> str:
    return "AUTO" if release(version) >= Version(MOE_BACKENDS["AUTO"].added) else "CUTLASS"


def resolve_moe_backend(backend: str, architecture: str, capability: tuple[int, int]) -> str:
    """`ModelConfig.resolve_moe_backend`: what AUTO becomes on this GPU for this model."""
    if backend.upper() != "AUTO":
        return backend.upper()
    sm = capability[0] * 10 + capability[1]
    if architecture == "GptOssForCausalLM":
        if 100 <= sm < 120:
            return "TRTLLM"
        if 90 <= sm < 100:
            return "TRITON"
    return "CUTLASS"


@dataclass(frozen=True)
class ServeFlag:
    names: tuple[str, ...]
    takes_value: bool = True
    choices: tuple[str, ...] = ()
    added: str = "1.0.0"
    certain: bool = True  # False: the release it arrived in is not pinned


def _f(*names: str, **kw: object) -> ServeFlag:
    return ServeFlag(names, **kw)  # type: ignore[arg-type]


SERVE_FLAGS = [
    _f("--tokenizer"), _f("--host"), _f("--port"), _f("--log_level"),
    _f("--backend", choices=("pytorch", "tensorrt", "trt", "_autodeploy")), _f("--max_beam_width"),
    _f("--max_batch_size"), _f("--max_num_tokens"), _f("--max_seq_len"), _f("--tensor_parallel_size", "--tp_size"),
    _f("--pipeline_parallel_size", "--pp_size"), _f("--moe_expert_parallel_size", "--ep_size"),
    _f("--moe_cluster_parallel_size", "--cluster_size"), _f("--gpus_per_node"),
    _f("--free_gpu_memory_fraction", "--kv_cache_free_gpu_memory_fraction"), _f("--num_postprocess_workers"),
    _f("--trust_remote_code", takes_value=False), _f("--revision"), _f("--extra_llm_api_options"),
    _f("--config", added="1.3.0", certain=False), _f("--reasoning_parser"), _f("--tool_parser"),
    _f("--metadata_server_config_file"), _f("--server_role"),
    _f("--fail_fast_on_attention_window_too_large", takes_value=False), _f("--otlp_traces_endpoint"),
    _f("--disagg_cluster_uri", certain=False), _f("--enable_chunked_prefill", takes_value=False),
    _f("--media_io_kwargs", certain=False), _f("--chat_template", certain=False),
    _f("--custom_tokenizer", certain=False), _f("--custom_module_dirs", certain=False),
    _f("--context_parallel_size", "--cp_size", certain=False),
]
FLAG_INDEX = {name: flag for flag in SERVE_FLAGS for name in flag.names}
OPTIONS_FLAGS = ("--extra_llm_api_options", "--config")


@dataclass(frozen=True)
class OptionKey:
    """One key of the options YAML: nested keys are dotted (`moe_config.backend`)."""

    path: str
    choices: tuple[str, ...] = ()
    kind: type | tuple[type, ...] = object
    bounds: tuple[float, float] | None = None
    extra: dict[str, object] = field(default_factory=dict)


OPTION_KEYS = {k.path: k for k in (
    OptionKey("moe_config.backend", tuple(MOE_BACKENDS)), OptionKey("moe_config.max_num_tokens", kind=int),
    OptionKey("moe_config.load_balancer"), OptionKey("attn_backend", ATTENTION_BACKENDS, str),
    OptionKey("kv_cache_config.free_gpu_memory_fraction", kind=(int, float), bounds=(0.0, 1.0)),
    OptionKey("kv_cache_config.dtype", ("auto", "fp8", "nvfp4"), str),
    OptionKey("kv_cache_config.max_tokens", kind=int),
    OptionKey("kv_cache_config.enable_block_reuse", kind=bool), OptionKey("kv_cache_config.tokens_per_block", kind=int),
    OptionKey("cuda_graph_config.enable_padding", kind=bool), OptionKey("cuda_graph_config.max_batch_size", kind=int),
    OptionKey("cuda_graph_config.batch_sizes", kind=list), OptionKey("enable_attention_dp", kind=bool),
    OptionKey("max_batch_size", kind=int), OptionKey("max_num_tokens", kind=int), OptionKey("max_seq_len", kind=int),
    OptionKey("tensor_parallel_size", kind=int), OptionKey("pipeline_parallel_size", kind=int),
    OptionKey("moe_expert_parallel_size", kind=int), OptionKey("enable_chunked_prefill", kind=bool),
    OptionKey("disable_overlap_scheduler", kind=bool), OptionKey("print_iter_log", kind=bool),
    OptionKey("trust_remote_code", kind=bool), OptionKey("speculative_config"), OptionKey("stream_interval", kind=int),
    OptionKey("allreduce_strategy", kind=str),
)}
NESTED = {"moe_config", "kv_cache_config", "cuda_graph_config"}
