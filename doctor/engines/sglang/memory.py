"""SGLang's memory arithmetic per version: the defaults `ServerArgs` derives from the GPU's size and the
KV-pool sizing of `ModelRunner.profile_max_num_token`.

Read from the released wheels (0.5.8 and 0.5.9 `python/sglang/srt/server_args.py`
`_handle_gpu_memory_settings` and `adjust_mem_fraction_for_vlm`; `model_executor/model_runner_kv_cache_mixin.py`
`profile_max_num_token`, `init_memory_pool`): every "GB" SGLang logs there is GiB (`/ (1 << 30)`), and
`gpu_mem` is `nvidia-smi --query-gpu=memory.total` in MiB (the minimum over the visible GPUs).
Nothing here imports SGLang or torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from doctor.engines.sglang.flags import release_choices
from doctor.engines.spi import ExpertSplit, LayoutShape, MemoryModel, Model
from doctor.plan.arch import Piece
from doctor.plan.kv import engine_spelling

if TYPE_CHECKING:
    from doctor.engines.spi import Comm

GiB = 1 << 30
MiB = 1 << 20

# Memory gone before the weights load, per GPU (NVML total - "Load weight begin. avail mem"), fitted to the
# public startup logs in fixtures/sglang/memory_logs.json (tests/engines/sglang/test_memory_logs.py prints
# each log's error). Two terms:
# - the CUDA context plus what the driver holds back from the board: 0.73 GiB + 0.33 % of the board, the
#   least-squares line through the single-process figures (L4 0.73, RTX 4090 0.83, RTX PRO 6000 1.19,
#   H200 1.10 and 1.19 GiB; sglang#3419, sglang#40558, sglang#4826, sglang PR #11716, llms-in-clouds L4 log);
# - `init_torch_distributed` ("Init torch distributed ends. mem usage=X GB"), which the logs show does not
#   grow with the world size: 0.13-0.39 GiB over PCIe at TP2 and TP4 (sglang#16920, xorbitsai/inference#3373,
#   the L4 log, sglang#40558; their mean, 0.24 GiB) and 2.01 GiB over NVLink at TP8 (PR #11716, custom
#   all-reduce's buffers included). NCCL's buffers sit in device memory with the P2P transport NVLink uses
#   and in host memory with the SHM transport PCIe boards without P2P fall back to, hence the gap. One NVLink
#   log cannot tell a flat term from one per peer; the flat one is kept because vllm#21348 (SGLang, 4x H100,
#   TP4) needs 2.7 GiB gone before load to print its 367,404 KV tokens with the weights this planner computes:
#   per peer the model would say 1.9 GiB (KV +4.6 %), flat 3.0 GiB (KV -1.9 %).
# SGLang leaves NVLS off unless --enable-nccl-nvls (0.5.9 entrypoints/engine.py `_set_envs_and_config`
# sets NCCL_NVLS_ENABLE=0), so NVLink SHARP buffers are not part of it.
# Unified memory (GB10): from 0.5.9 `get_available_gpu_memory` reads the host's available memory
# (`psutil.virtual_memory().available`, MemAvailable) when `props.is_integrated` (utils/common.py; absent in the
# 0.5.3-0.5.8 wheels, present in 0.5.9 and 0.5.23), so what the host holds of the pool (its own use, other
# engines, unreclaimable memory) comes off SGLang's base. With the host probed the doctor starts from MemAvailable;
# before 0.5.9 SGLang reads cudaMemGetInfo's free (MemFree, which the probe does not record) and the total-based
# estimate stands in.
INTEGRATED_AVAILABLE_FROM = Version("0.5.9")
CONTEXT_BASE_BYTES = int(0.73 * GiB)
CONTEXT_SHARE_OF_BOARD = 0.0033
# custom_all_reduce.py (0.5.9, `CustomAllreduce.__init__`): meta (meta_size + max_size), the registered IPC
# buffer and rank_data, each max_size = _MAX_CAR_SIZE = 8 MiB on CUDA.
CUSTOM_ALL_REDUCE_BYTES = 3 * 8 * MiB
CUSTOM_ALL_REDUCE_WORLD_SIZES = (2, 4, 6, 8)  # `CustomAllreduce._SUPPORTED_WORLD_SIZES`
NCCL_BYTES = {True: int(2.01 * GiB) - CUSTOM_ALL_REDUCE_BYTES, False: int(0.24 * GiB)}  # over NVLink, over PCIe

# ReqToTokenPool: int32 [max_num_reqs, context_len + 4], allocated after the KV budget is profiled
# but before the KV pool, so it is not part of the budget: it comes out of the reserved share.
REQ_TO_TOKEN_EXTRA = 4
# The one release where the default tiers move (20-35 GiB GPUs such as the 32 GB RTX 5090: 4096 chunk, 48/160
# graph batch; 2048 and 24/80 before). Read in the wheels: server_args.py `_handle_gpu_memory_settings` of 0.5.9 to
# 0.5.18 and arg_groups/memory_hook.py `handle_gpu_memory_settings` of 0.5.19 keep 2048 and 24/80; 0.5.20 to 0.5.23
# have 4096 and 48/160.
TIER_CHANGE = Version("0.5.20")


@dataclass(frozen=True)
class MemoryDefaults:
    """SGLang's memory defaults for one release and GPU."""

    version: str
    gpu_mem_mib: float
    chunked_prefill_size: int
    cuda_graph_max_bs: int
    reserved_mib: float
    mem_fraction_static: float
    vlm_factor: float = 1.0
    page_size: int = 1

    def to_dict(self) -> dict[str, object]:
        return {"version": self.version, "gpu_mem_mib": self.gpu_mem_mib,
                "chunked_prefill_size": self.chunked_prefill_size, "cuda_graph_max_bs": self.cuda_graph_max_bs,
                "reserved_mib": self.reserved_mib, "mem_fraction_static": round(self.mem_fraction_static, 4),
                "vlm_factor": round(self.vlm_factor, 4), "page_size": self.page_size}


def tiers(version: Version, gpu_mem_mib: float, tp: int) -> tuple[int, int]:
    """(chunked_prefill_size, cuda_graph_max_bs) for this GPU size, as `_handle_gpu_memory_settings`."""
    big_tp = tp >= 4
    if gpu_mem_mib < 20 * 1024:
        return 2048, 8
    if gpu_mem_mib < 35 * 1024:
        if version >= TIER_CHANGE:  # arg_groups/memory_hook.py `handle_gpu_memory_settings`: 4096 and 48/160
            return 4096, 160 if big_tp else 48
        return 2048, 80 if big_tp else 24
    if gpu_mem_mib < 60 * 1024:
        return 4096, 160 if big_tp else 32
    if gpu_mem_mib < 160 * 1024:
        return 8192, 512 if big_tp else 256
    return 16384, 512


def vlm_factor(vision_layers: int, vision_hidden: int) -> float:
    """`adjust_mem_fraction_for_vlm`: 0.95 times a factor from the ViT's size against ViT-L/14."""
    ratio = vision_layers * vision_hidden**2 / (24 * 1024**2)
    dynamic = max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))
    return 0.95 * dynamic


def memory_defaults(version: str, gpu_mem_mib: float, *, tp: int, pp: int, dp_attention_size: int = 1,
                    speculative: bool = False, vision: tuple[int, int] | None = None,
                    chunked_prefill_size: int | None = None, cuda_graph_max_bs: int | None = None,
                    mem_fraction_static: float | None = None, page_size: int | None = None) -> MemoryDefaults:
    """What SGLang `version` sets when the user leaves these flags unset; user values win."""
    v = Version(version)
    chunk_default, bs_default = tiers(v, gpu_mem_mib, tp)
    chunk = chunked_prefill_size if chunked_prefill_size is not None else chunk_default
    bs = cuda_graph_max_bs if cuda_graph_max_bs is not None else bs_default
    reserved = 512 + max(chunk if chunk > 0 else 16384, 2048) * 1.5 + bs * 2 + tp * pp / 8 * 1024
    if dp_attention_size > 1:
        reserved += bs * dp_attention_size * 3
        if bs > 300:
            reserved += bs * dp_attention_size * 1.5
    if gpu_mem_mib > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    if speculative:
        reserved += 2 * 1024
    factor = vlm_factor(*vision) if vision else 1.0
    if mem_fraction_static is None:
        fraction = round((gpu_mem_mib - reserved) / gpu_mem_mib, 3) * factor
    else:
        fraction, factor = mem_fraction_static, 1.0
    return MemoryDefaults(version=version, gpu_mem_mib=gpu_mem_mib, chunked_prefill_size=chunk,
                          cuda_graph_max_bs=bs, reserved_mib=reserved, mem_fraction_static=fraction,
                          vlm_factor=factor, page_size=page_size or 1)


def context_bytes(total_bytes: int) -> int:
    """CUDA context and the driver's reservation, as seen against NVML's total."""
    return CONTEXT_BASE_BYTES + int(CONTEXT_SHARE_OF_BOARD * total_bytes)


def custom_all_reduce_on(world_size: int, nvlink: bool) -> bool:
    """SGLang's own rule (custom_all_reduce.py): a supported world size, and full NVLink past two GPUs."""
    return world_size in CUSTOM_ALL_REDUCE_WORLD_SIZES and (world_size == 2 or nvlink)


def distributed_init_bytes(world_size: int, nvlink: bool | None = None, custom_all_reduce: bool | None = None) -> int:
    """What `init_torch_distributed` takes; an unknown link is taken as NVLink, the larger figure."""
    if world_size <= 1:
        return 0
    nvlink = True if nvlink is None else nvlink
    if custom_all_reduce is None:
        custom_all_reduce = custom_all_reduce_on(world_size, nvlink)
    return NCCL_BYTES[nvlink] + (CUSTOM_ALL_REDUCE_BYTES if custom_all_reduce else 0)


def preload_overhead_bytes(total_bytes: int, world_size: int, nvlink: bool | None = None,
                           custom_all_reduce: bool | None = None) -> int:
    """Memory gone before the weights load: GPU total - SGLang's "Load weight begin. avail mem"."""
    return context_bytes(total_bytes) + distributed_init_bytes(world_size, nvlink, custom_all_reduce)


def preload_free_bytes(total_bytes: int, world_size: int, unified_memory: bool = False, nvlink: bool | None = None,
                       custom_all_reduce: bool | None = None) -> int:
    """Free memory when SGLang measures it (after distributed init, before weights): the budget base."""
    return max(0, total_bytes - preload_overhead_bytes(total_bytes, world_size, nvlink, custom_all_reduce))


def kv_budget_bytes(preload_free: int, weights: int, mem_fraction_static: float) -> int:
    """`profile_max_num_token`: rest = available_after_weights - pre_load_free * (1 - mem_fraction_static)."""
    available_after_weights = preload_free - weights
    return int(available_after_weights - preload_free * (1 - mem_fraction_static))


def max_running_requests(max_total_tokens: int, context_len: int) -> int:
    """`init_memory_pool` default when --max-running-requests is unset."""
    return min(max(int(max_total_tokens / context_len * 512), 2048), 4096)


def req_to_token_bytes(max_total_tokens: int, context_len: int) -> int:
    return max_running_requests(max_total_tokens, context_len) * (context_len + REQ_TO_TOKEN_EXTRA) * 4


def load_extra_pieces(model: Model) -> list[Piece]:
    """What SGLang allocates at load beyond the checkpoint: MLA's absorbed w_kc/w_vc, a bf16 copy of each
    layer's kv_b_proj (`post_load_weights`; fp8 kv_b_proj is dequantized to bf16 for it)."""
    a = model.attention
    if a.kind != "mla":
        return []
    nope = a.qk_nope_head_dim or 128
    per_layer = a.num_heads * (nope + a.v_head_dim) * (a.kv_lora_rank or 512) * 2
    return [Piece("engine", per_layer, "tp", layer) for layer in range(model.num_layers)]


class SGLangMemory(MemoryModel):
    """SGLang's formula behind the planner's interface; the user's memory flags (None: SGLang's default)."""

    engine = "SGLang"

    def __init__(self, version: str, mem_fraction_static: float | None = None,
                 chunked_prefill_size: int | None = None, cuda_graph_max_bs: int | None = None,
                 page_size: int | None = None, host_available_bytes: int | None = None) -> None:
        """`host_available_bytes`: on unified memory, the host's MemAvailable when probed (SGLang's base there)."""
        self.version = version
        self.knobs = {"mem_fraction_static": mem_fraction_static, "chunked_prefill_size": chunked_prefill_size,
                      "cuda_graph_max_bs": cuda_graph_max_bs, "page_size": page_size}
        self.host_available = host_available_bytes

    def cache_key(self) -> tuple[Any, ...]:
        return ("sglang", self.version, tuple(sorted(self.knobs.items())), self.host_available)

    def arithmetic_key(self) -> tuple[Any, ...]:
        """The 0.5.20 tier change (`tiers`) and, on unified memory, the 0.5.9 switch to the host's available memory
        move SGLang's memory arithmetic between releases."""
        return ("sglang", Version(self.version) >= TIER_CHANGE, tuple(sorted(self.knobs.items())),
                self.reads_host_available() and self.host_available)

    def reads_host_available(self) -> bool:
        return self.host_available is not None and Version(self.version) >= INTEGRATED_AVAILABLE_FROM

    def load_extras(self, model: Model) -> list[Piece]:
        return load_extra_pieces(model)

    def kernel_shape_problems(self, model: Model, tp: int, ep: int) -> list[str]:
        """Compressed-tensors WNA16 shards SGLang's Marlin repack rejects (doctor/engines/sglang/marlin_shapes.py)."""
        from doctor.engines.sglang.marlin_shapes import problems

        return problems(model, self.version, tp, ep)

    def kernel_shape_risks(self, model: Model, tp: int, ep: int) -> list[str]:
        from doctor.engines.sglang.marlin_shapes import risks

        return risks(model, self.version, tp, ep)

    def loads_expert_split(self, split: ExpertSplit) -> bool:
        """MXFP4 experts: `Mxfp4MoEMethod.create_weights` pads the per-rank intermediate (to 32 with
        triton_kernels on SM120 in 0.5.8; 32/64/128/256 by backend in 0.5.23) and models/gpt_oss.py loads
        ceil(2880/32/TP) blocks per rank (python/sglang/srt/layers/quantization/mxfp4.py, models/gpt_oss.py in
        the 0.5.8 and 0.5.23 wheels)."""
        return split.scheme == "mxfp4"

    def settings(self, total_bytes: int, layout: LayoutShape, model: Model, speculative: bool) -> dict[str, Any]:
        from doctor.plan.weights import vision_of

        return memory_defaults(self.version, total_bytes / MiB, tp=layout.tp, pp=layout.pp, speculative=speculative,
                               vision=vision_of(model), **self.knobs).to_dict()

    def preload_free(self, total_bytes: int, world_size: int, unified_memory: bool) -> int:
        return self.unified_base(preload_free_bytes(total_bytes, world_size, unified_memory), total_bytes,
                                 unified_memory)

    def unified_base(self, preload_free: int, total_bytes: int, unified_memory: bool) -> int:
        """On unified memory from 0.5.9, the host's available memory less what the total-based estimate spends
        before the weights (CUDA context, distributed init): never more than that estimate."""
        if not unified_memory or not self.reads_host_available():
            return preload_free
        assert self.host_available is not None
        return max(0, min(preload_free, self.host_available - (total_bytes - preload_free)))

    def preload_free_with(self, total_bytes: int, world_size: int, unified_memory: bool, comm: Comm | None) -> int:
        """The distributed term depends on the link and on custom all-reduce. Any NVLink group (a TP group on
        NVLink inside nodes joined by a network, too) takes NVLink's figure; no link known, the same."""
        if comm is None:
            return self.preload_free(total_bytes, world_size, unified_memory)
        links = [link for link in (comm.tp_link, comm.pp_link) if link]
        nvlink = "NV" in links if links else None
        return self.unified_base(preload_free_bytes(total_bytes, world_size, unified_memory, nvlink,
                                                    comm.custom_all_reduce), total_bytes, unified_memory)

    def kv_budget(self, preload_free: int, weights: int, settings: dict[str, Any]) -> int:
        return kv_budget_bytes(preload_free, weights, settings["mem_fraction_static"])

    def max_requests(self, tokens: int, context: int) -> int:
        return max_running_requests(tokens, context)

    def describe(self, weights: int, total: int, preload_free: int, settings: dict[str, Any]) -> str:
        fraction = settings["mem_fraction_static"]
        return (f"weights {weights / GiB:.2f} GiB on the fullest GPU of {total / GiB:.2f} GiB; SGLang "
                f"{self.version} keeps {fraction:.3f} of the {preload_free / GiB:.2f} GiB free at load "
                f"= {preload_free * fraction / GiB:.2f} GiB for weights + KV")

    def shortfall_hint(self) -> str:
        return "SGLang: 'Not enough memory. Please try to increase --mem-fraction-static'"

    def layout_flags(self, layout: LayoutShape, settings: dict[str, Any], kv_dtype: str, explicit_kv: bool,
                     context_length: int | None, custom_all_reduce_off: bool) -> tuple[str, ...]:
        flags = ["--tp-size", str(layout.tp)]
        if layout.pp > 1:
            flags += ["--pp-size", str(layout.pp)]
        if layout.ep > 1:
            flags += ["--ep-size", str(layout.ep)]
        flags += ["--mem-fraction-static", f"{settings['mem_fraction_static']:.3f}"]
        if explicit_kv or kv_dtype.startswith("fp8"):
            accepted, _ = release_choices("--kv-cache-dtype", Version(self.version))
            flags += ["--kv-cache-dtype", engine_spelling(kv_dtype, accepted)]
        if context_length:
            flags += ["--context-length", str(context_length)]
        if custom_all_reduce_off:
            flags.append("--disable-custom-all-reduce")
        return tuple(flags)
