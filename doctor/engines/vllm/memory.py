"""vLLM's memory arithmetic (v1 worker, every release the doctor knows), behind the planner's MemoryModel.

`Worker.determine_available_memory` (line per release in the wheel data, `modelled_functions`):

    requested = ceil(total_memory x gpu_memory_utilization)      # a share of TOTAL memory, not of free
    kv        = requested - (weights + peak activation + non-torch increase) [- CUDA-graph pool estimate]

`weights` is what `Model loading took X GiB` reports: the checkpoint as vLLM lays it out (MXFP4 experts on
Marlin padded to n % 256 and k % 128: gpt-oss's 2880 becomes 3072 / 2944, `Mxfp4MoEMethod.create_weights`).
The activation peak is the profile run's: a forward of `max_num_batched_tokens` tokens and the dummy sampler
run over `max_num_seqs` rows of full-vocabulary logits, whose bytes per logit depend on the sampler path the
release takes (`sampler_sorts`); checked against published startup logs in tests/engines/vllm/test_memory_logs.py.
The CUDA-graph pool is subtracted only where the release measures it (`VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`,
read from 0.18.0, default from the data) and the model runner measures it (not Model Runner V2 from 0.22.0 to
0.28.x: cudagraph_pool.py); elsewhere graphs are captured after the KV cache, out of the `1 - utilization` headroom.
KV tokens are counted as `get_kv_cache_config_from_groups` and `_report_kv_cache_config` do: blocks =
budget // (page bytes x layers per group), "GPU KV cache size" = blocks // groups x block_size; for a model with
linear-attention/Mamba layers the plan keeps what the pool holds and `logged_kv_cache_size` gives the log line.
The activation, non-torch and graph figures are estimates from the model's shapes (the runtime measures
them); the weights and the formula are vLLM's.
"""

from __future__ import annotations

import math
from typing import Any

from packaging.version import Version

from doctor.engines.spi import ExpertSplit, LayoutShape, MemoryModel, Model
from doctor.engines.vllm import knowledge
from doctor.engines.vllm.cudagraph_pool import pool_reserved
from doctor.engines.vllm.encoder_profile import encoder_profile
from doctor.engines.vllm.flags import accepted_values
from doctor.plan.kv import KvShape, engine_spelling
from doctor.plan.weights import RankWeights

GiB = 1 << 30
BLOCK_SIZE = 16  # CacheConfig.block_size on CUDA when the backend does not ask for another
BIG_GPU = 70 * GiB  # `_set_default_max_num_seqs_and_batched_tokens_args`: >= 70 GiB (not A100) gets the big defaults
SERVE_DEFAULTS = {True: (8192, 1024), False: (2048, 256)}  # (max_num_batched_tokens, max_num_seqs) for `vllm serve`
NON_TORCH = {1: int(0.15 * GiB), 2: int(0.35 * GiB)}  # cuBLAS workspaces; NCCL/custom all-reduce buffers with TP
GRAPH_POOL_BASE = int(0.25 * GiB)
CUDAGRAPH_ENV = "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"


def round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def mxfp4_expert_scale(model: Model, tp: int, marlin: bool) -> float:
    """Experts' bytes as laid out over the checkpoint's: Marlin pads intermediate/TP to 128 and hidden to 256."""
    assert model.moe is not None
    inter = model.moe.intermediate_size // max(tp, 1)
    if marlin:
        return (round_up(inter, 128) / inter) * (round_up(model.hidden_size, 256) / model.hidden_size)
    return round_up(inter, 64) / inter


# vLLM 0.12.0-0.18.x on Hopper run gpt-oss's MXFP4 experts on OpenAI's triton_kernels (Mxfp4Backend.TRITON,
# the default without VLLM_MXFP4_USE_MARLIN or VLLM_USE_FLASHINFER_MOE_MXFP4_BF16; torch >= 2.8.1 turns the
# swizzle on). `process_weights_after_loading` re-lays each expert weight (the old one is deleted), keeps the
# checkpoint's scales on the layer beside their swizzled copy (HopperMXScaleLayout pads the rows to 2 x 8 warps x
# 2 x 8 = 256, the K/32 columns to 2), and replaces the bf16 biases with float32 ones (read in the 0.12.0, 0.14.1,
# 0.15.1, 0.17.0 and 0.18.0 wheels: vllm/model_executor/layers/quantization/mxfp4.py, the TRITON branch, and
# vllm/third_party/triton_kernels/tensor_details/layout_details/hopper_scale.py).
HOPPER_TRITON_MXFP4 = (Version("0.12.0"), Version("0.19.0"))
SWIZZLED_SCALE_ROWS = 256


def hopper_triton_mxfp4_extra(model: Model, tp: int, experts_per_rank: int) -> int:
    """Bytes triton_kernels' Hopper layout adds over the checkpoint on a rank: the swizzled scales of the
    gate/up ([2 x inter, hidden / 32]) and down ([hidden, inter / 32]) weights, and the biases widened to f32."""
    assert model.moe is not None
    inter = round_up(model.moe.intermediate_size // max(tp, 1), 64)
    hidden = model.hidden_size

    def swizzled(rows: int, k: int) -> int:
        return round_up(rows, SWIZZLED_SCALE_ROWS) * round_up(-(-k // 32), 2)

    per_expert = swizzled(2 * inter, hidden) + swizzled(hidden, inter) + (2 * inter + hidden) * 2
    moe_layers = model.num_layers - model.moe.first_dense_layers
    return moe_layers * experts_per_rank * per_expert


def forward_activation(model: Model, tokens: int, tp: int) -> int:
    """Peak bytes of one forward over `tokens` tokens on a rank: the residual stream and norms, QKV and the
    attention output, the MLP or the fused-MoE workspaces (bf16)."""
    a = model.attention
    hidden = tokens * model.hidden_size * 2 * 4
    heads = max(a.num_heads // tp, 1)
    kv_heads = max(a.num_kv_heads // tp, 1)
    attention = tokens * (heads * a.head_dim * 2 + kv_heads * (a.head_dim + a.v_head_dim)) * 2
    if model.moe is not None:
        n = model.moe.intermediate_size // max(tp, 1)
        k = model.moe.top_k
        mlp = tokens * k * (max(2 * n, model.hidden_size) + n) * 2 + tokens * k * model.hidden_size * 2
    else:
        mlp = tokens * 3 * (model.intermediate_size or 4 * model.hidden_size) // max(tp, 1) * 2
    return hidden + max(attention, mlp)


# Bytes alive per logit at the sampler's peak in `_dummy_sampler_run` (top_k = vocab - 1 and top_p = 0.9 on every
# row). On the PyTorch path `apply_top_k_top_p` runs `logits.sort(dim=-1)`: the bf16 logits of `compute_logits`
# (2), their float32 copy (4), the sorted float32 values and int64 indices (12), and PyTorch's segmented radix
# sort's int64 index input and key/value scratch (8 + 12). It matches the H100 logs: 1024 dummy rows of gpt-oss's
# 201088-entry vocabulary leave the 0.10.1 profile ~7.3 GiB above the weights. FlashInfer's
# `top_k_top_p_sampling_from_logits` (masked logits, softmax) and, from 0.17.0, the in-place Triton top-k/top-p
# kernel (`vllm/v1/sample/ops/topk_topp_triton.py` first ships) peak at the bf16 and float32 logits plus two
# float32 rows (2 + 4 + 4 + 4). Which path runs (`TopKTopPSampler.__init__`): up to 0.11.x FlashInfer whenever
# it is installed and VLLM_USE_FLASHINFER_SAMPLER is not 0 (the vllm-openai images ship it; the wheels list it as
# an extra until 0.11.x); 0.12.0-0.16.x only with VLLM_USE_FLASHINFER_SAMPLER=1; from 0.17.0 the Triton kernel for
# batches of 8+ rows, and from 0.24.0 FlashInfer by default.
SORT_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 12 + 8 + 12
INPLACE_SAMPLER_BYTES_PER_LOGIT = 2 + 4 + 4 + 4
FLASHINFER_SAMPLER_ENV = "VLLM_USE_FLASHINFER_SAMPLER"
FLASHINFER_SAMPLER_OPT_IN_FROM = Version("0.12.0")
INPLACE_TOP_K_TOP_P_FROM = Version("0.17.0")


def sampler_sorts(release: str, env: dict[str, str], flashinfer_installed: bool | None) -> bool:
    """Whether `_dummy_sampler_run` takes the PyTorch sort path. `flashinfer_installed` None: as a plain pip
    install of that release (FlashInfer is an extra up to 0.11.x and a requirement from 0.12.0)."""
    release_version = Version(release)
    if release_version >= INPLACE_TOP_K_TOP_P_FROM:
        return False
    installed = flashinfer_installed if flashinfer_installed is not None else \
        release_version >= FLASHINFER_SAMPLER_OPT_IN_FROM
    switch = env.get(FLASHINFER_SAMPLER_ENV)
    if release_version >= FLASHINFER_SAMPLER_OPT_IN_FROM:
        return not (installed and switch is not None and switch.strip() not in ("", "0"))
    return not (installed and (switch is None or switch.strip() not in ("", "0")))


def sampler_activation(model: Model, seqs: int, sorts: bool) -> int:
    """`_dummy_sampler_run` over `seqs` rows of full-vocabulary logits."""
    return seqs * model.vocab_size * (SORT_SAMPLER_BYTES_PER_LOGIT if sorts else INPLACE_SAMPLER_BYTES_PER_LOGIT)


def hybrid_state_groups(attention_layers: int, state_layers: int) -> tuple[int, int]:
    """(layers per group, groups) of a model whose linear-attention/Mamba layers share the KV pool with its
    attention layers. `_get_kv_cache_groups_uniform_page_size` (kv_cache_utils.py in the 0.13.0, 0.14.0 and
    0.24.0 wheels): one type per spec, the group size is the smallest type's layer count (the largest's when it
    is under 1.5x that), each type split into cdiv(layers, group size) groups; the state layers' pages are padded
    to the attention page. Qwen3.5/3.6-35B-A3B: 10 attention and 30 Gated-DeltaNet layers, 4 groups of 10."""
    counts = [count for count in (attention_layers, state_layers) if count]
    group = min(counts)
    if max(counts) < 1.5 * group:
        group = max(counts)
    return group, sum(-(-count // group) for count in counts)


# From 0.24.0 (`get_kv_cache_capacity` in the 0.24.0 and 0.29.0 wheels) "GPU KV cache size" is max concurrency x
# max_model_len; 0.19-0.23 were not read, the older count is assumed there.
CAPACITY_REPORT_FROM = Version("0.24.0")


def logged_kv_cache_size(release: str, capacity_tokens: int, shape: KvShape) -> int:
    """The "GPU KV cache size" line for a pool that holds `capacity_tokens` of attention context. Up to 0.23.x it is
    num_blocks // len(kv_cache_groups) x block size (`_report_kv_cache_config`, 0.13.0 and 0.14.0 wheels): a hybrid
    model's state groups divide the figure by their count although each takes one page per request, so the log
    understates what the pool holds (Qwen3.5-35B-A3B on a Spark: 581,856 tokens logged for a pool vLLM itself
    gives 2.21 requests of 1,048,576). The doctor plans with the capacity; this is only the log line."""
    if not shape.linear_layers or Version(release) >= CAPACITY_REPORT_FROM:
        return capacity_tokens
    return capacity_tokens // hybrid_state_groups(shape.layers, shape.linear_layers)[1]


FP8_BLOCK_REFINE_FROM = Version("0.29.0")


class VLLMMemory(MemoryModel):
    engine = "vLLM"

    def __init__(self, version: Version, capability: tuple[int, int] | None, device_name: str = "",
                 utilization: float | None = None,
                 max_num_batched_tokens: int | None = None, max_num_seqs: int | None = None,
                 enforce_eager: bool = False, env: dict[str, str] | None = None,
                 flashinfer_installed: bool | None = None, encoder_profiled: bool = True,
                 state_options: dict[str, Any] | None = None, marlin_moe: str | None = None,
                 speculative: bool = False) -> None:
        self.version = str(version)
        self.marlin_moe = marlin_moe  # why the routed experts run on Marlin (None: they do not)
        self.release = knowledge.known_release(version)
        self.capability = capability or (0, 0)
        self.device_name = device_name
        self.knobs = {"utilization": utilization, "max_num_batched_tokens": max_num_batched_tokens,
                      "max_num_seqs": max_num_seqs}
        self.enforce_eager = enforce_eager
        self.env = env or {}
        self.flashinfer_installed = flashinfer_installed
        self.encoder_profiled = encoder_profiled
        self.state_options = state_options or {}
        self.speculative = speculative

    def layout_problems(self, tp: int, ep: int, pp: int = 1) -> list[str]:
        if ep in (1, tp):
            return []
        return [f"vLLM has no EP size: --enable-expert-parallel runs the experts with EP = TP x DP ({tp} here), "
                f"not EP {ep}"]

    def kernel_shape_problems(self, model: Model, tp: int, ep: int) -> list[str]:
        """Expert shards the release's Marlin MoE repack rejects (doctor/engines/vllm/marlin_shapes.py)."""
        if self.marlin_moe is None:
            return []
        from doctor.engines.vllm.marlin_shapes import problems

        return problems(model, self.version, tp, ep, self.marlin_moe)

    def kernel_shape_risks(self, model: Model, tp: int, ep: int) -> list[str]:
        if self.marlin_moe is None:
            return []
        from doctor.engines.vllm.marlin_shapes import risks

        return risks(model, self.version, tp, ep, self.marlin_moe)

    def loads_expert_split(self, split: ExpertSplit) -> bool:
        """MXFP4 experts: every backend's `create_weights` rounds the per-rank intermediate up (64 Triton, 128
        Marlin/CUTLASS, 256 FlashInfer TRT-LLM; from 0.2x `mxfp4_round_up_hidden_size_and_intermediate_size`) and
        gpt_oss.py loads whole 32-blocks per rank (cdiv), so gpt-oss-120b at TP4 holds 736/672 of 2880, padded to
        768 (vllm/model_executor/layers/quantization/mxfp4.py and models/gpt_oss.py in the 0.10.1.1, 0.11.0,
        0.15.1 and 0.33.0 wheels; vllm/model_executor/layers/fused_moe/oracle/mxfp4.py in 0.33.0).
        FP8 block experts: up to 0.28.x `Fp8MoEMethod.create_weights` raises "not divisible by weight quantization
        block_n"; from 0.29.0 `refine_fp8_moe_block_shape` refines the scales to gcd(block_n, block_k, per-rank
        intermediate, hidden) when that is at least 32 (fused_moe/oracle/fp8.py in the 0.29.0-0.33.0 wheels)."""
        if split.scheme == "mxfp4":
            return True
        if split.scheme == "fp8-block" and Version(self.release) >= FP8_BLOCK_REFINE_FROM:
            block_n, block_k = (split.block or (128, 128))[:2]
            return math.gcd(block_n, block_k, split.per_rank, split.hidden) >= 32
        return False

    # --- the release's defaults ----------------------------------------------------------------------------
    def gb10(self) -> bool:
        """GB10 (DGX Spark) always gets the small serve defaults: through 0.3x its NVML memory query raises,
        `_set_default_max_num_seqs_and_batched_tokens_args` catches it and takes device_memory = 0 (arg_utils.py
        and platforms/cuda.py in the 0.13.0 and 0.23.0 wheels; vllm PR 57378); 0.33.0 falls back to torch's
        total and keeps GB10 on the small tier by name (`is_gb10`)."""
        return tuple(self.capability) == (12, 1)

    def default_utilization(self) -> float:
        entry = knowledge.facts(self.release)["flags"].get("--gpu-memory-utilization", {})
        return float(entry.get("default", 0.9))

    def graphs_subtracted(self, model: Model | None = None) -> bool:
        """Whether the KV budget leaves out the graph pool (cudagraph_pool.py): the release's switch, and from
        0.22.0 to 0.28.x not where Model Runner V2 runs the model (its estimate is a placeholder 0)."""
        table = knowledge.facts(self.release)["envs"]["table"]
        estimate = table.get(CUDAGRAPH_ENV)
        reserved = pool_reserved(self.version, estimate.get("default", "0") if estimate else None, self.env, model,
                                 self.speculative, self.enforce_eager)
        if reserved is not None:
            return reserved
        if estimate is None or self.enforce_eager:
            return False
        value = self.env.get(CUDAGRAPH_ENV, estimate.get("default", "0"))
        return value.strip().lower() not in ("0", "false", "")

    def sampler_sorts(self) -> bool:
        return sampler_sorts(self.release, self.env, self.flashinfer_installed)

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        big = total_bytes >= BIG_GPU and "a100" not in self.device_name.lower() and not self.gb10()
        tokens_default, seqs_default = SERVE_DEFAULTS[big]
        tokens = self.knobs["max_num_batched_tokens"] or tokens_default
        seqs = self.knobs["max_num_seqs"] or seqs_default
        util = self.knobs["utilization"] or self.default_utilization()
        sampler = sampler_activation(model, int(seqs), self.sampler_sorts()) + int(tokens) * model.hidden_size * 2
        encoder_peak, encoder_outputs = encoder_profile(model, int(tokens)) if self.encoder_profiled else (0, 0)
        activation = max(forward_activation(model, int(tokens), layout.tp) + encoder_outputs,
                         sampler + encoder_outputs, encoder_peak)
        graph_tokens = min(2 * int(seqs), 512)
        graphs = 0 if self.enforce_eager else GRAPH_POOL_BASE + forward_activation(model, graph_tokens, layout.tp)
        subtracted = self.graphs_subtracted(model)
        return {"page_size": BLOCK_SIZE, "gpu_memory_utilization": util,
                "requested_bytes": math.ceil(total_bytes * util), "max_num_batched_tokens": int(tokens),
                "max_num_seqs": int(seqs), "activation_bytes": activation, "encoder_profile_bytes": encoder_peak,
                "non_torch_bytes": NON_TORCH[min(layout.tp * layout.pp, 2)], "cudagraph_bytes": graphs,
                "cudagraph_subtracted": subtracted, "release": self.release}

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        return total_bytes  # vLLM sizes from total memory; what others hold must fit in the 1 - util headroom

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        graphs = settings["cudagraph_bytes"] if settings["cudagraph_subtracted"] else 0
        return settings["requested_bytes"] - weights - settings["activation_bytes"] - settings["non_torch_bytes"] \
            - graphs

    def weights_bytes(self, rank: RankWeights, model: Model, layout: LayoutShape) -> int:
        experts = rank.by_kind.get("routed_experts", 0)
        if not experts or model.moe is None or model.quantization.for_experts().scheme != "mxfp4":
            return rank.bytes
        if self.hopper_triton_mxfp4():
            return rank.bytes + hopper_triton_mxfp4_extra(model, layout.tp, model.moe.routed_experts // layout.ep)
        marlin = self.capability[0] == 12 or self.capability < (9, 0) or \
            (self.capability[0] in (9, 10) and Version(self.release) < Version("0.11.0"))
        return rank.bytes - experts + int(experts * mxfp4_expert_scale(model, layout.tp, marlin))

    def hopper_triton_mxfp4(self) -> bool:
        """MXFP4 experts on triton_kernels with its Hopper layout (see HOPPER_TRITON_MXFP4)."""
        first, past = HOPPER_TRITON_MXFP4
        forced = any(self.env.get(name, "").strip().lower() in ("1", "true")
                     for name in ("VLLM_MXFP4_USE_MARLIN", "VLLM_USE_FLASHINFER_MOE_MXFP4_BF16"))
        return self.capability == (9, 0) and first <= Version(self.release) < past and not forced

    def kv_tokens(self, budget: int, shape: KvShape, settings: dict[str, Any]) -> int:
        if budget <= 0 or shape.cell_bytes <= 0 or shape.layers <= 0:
            return 0
        per_layer = shape.cell_bytes // shape.layers
        if shape.swa_layers and shape.full_layers:
            group = math.gcd(shape.full_layers, shape.swa_layers)
            groups = shape.layers // group
        else:
            group = shape.layers
            groups = 1
        block = settings["page_size"]
        blocks = budget // (per_layer * block) // group
        return blocks // groups * block

    def max_requests(self, tokens: int, context: int) -> int:
        return int(self.knobs["max_num_seqs"] or SERVE_DEFAULTS[True][1])

    def state_cache(self, budget: int, shape: KvShape, model: Model, layout: LayoutShape,
                    settings: dict[str, Any]) -> dict[str, Any] | None:
        from doctor.engines.vllm.state_cache import state_cache

        options = {**self.state_options, "full_cudagraphs": self.state_options.get("full_cudagraphs", True)
                   and not self.enforce_eager}
        state = state_cache(self.release, budget, shape, model, layout, settings, options)
        return None if state is None else {**state, "max_num_seqs_stated": bool(self.knobs["max_num_seqs"])}

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        graphs = settings["cudagraph_bytes"]
        graph_text = (f", CUDA graphs {graphs / GiB:.2f}" if settings["cudagraph_subtracted"] else
                      f"; CUDA graphs (~{graphs / GiB:.2f} GiB) come out of the headroom")
        encoder = settings.get("encoder_profile_bytes", 0)
        encoder_text = f", the vision tower's profile ~{encoder / GiB:.2f}" if encoder else ""
        return (f"vLLM {self.version} requests {settings['gpu_memory_utilization']:.2f} x {total / GiB:.2f} GiB = "
                f"{settings['requested_bytes'] / GiB:.2f} GiB: weights {weights / GiB:.2f}, activation peak "
                f"~{settings['activation_bytes'] / GiB:.2f} ({settings['max_num_batched_tokens']} batched tokens, "
                f"{settings['max_num_seqs']} sequences{encoder_text}), "
                f"non-torch ~{settings['non_torch_bytes'] / GiB:.2f}{graph_text}")

    def shortfall_hint(self) -> str:
        return ("vLLM: 'No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
                "initializing the engine.'")

    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        flags = ["--tensor-parallel-size", str(layout.tp)]
        if layout.pp > 1:
            flags += ["--pipeline-parallel-size", str(layout.pp)]
        if layout.ep > 1:
            flags.append("--enable-expert-parallel")
        flags += ["--gpu-memory-utilization", f"{settings['gpu_memory_utilization']:.2f}"]
        if explicit_kv or kv_dtype.startswith("fp8"):
            accepted = accepted_values(self.release, "--kv-cache-dtype")
            flags += ["--kv-cache-dtype", engine_spelling(kv_dtype, accepted, prefer=("fp8",))]
        if context_length:
            flags += ["--max-model-len", str(context_length)]
        if custom_all_reduce_off:
            flags.append("--disable-custom-all-reduce")
        return tuple(flags)
