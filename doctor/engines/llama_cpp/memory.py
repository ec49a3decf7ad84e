"""Where llama.cpp puts each byte: weights per device from the GGUF tensor table, the KV cache from the
GGUF's heads and the cache types, and an estimate of the compute buffer.

Placement follows `llama_model::load_tensors` (src/llama-model.cpp, ggml-org/llama.cpp@0c1e57098): the
input layer (token_embd) stays on the CPU; with N = -ngl, layers il >= n_layer + 1 - N go to GPUs (the
output layer counts as layer n_layer), each to the GPU whose cumulative split (-ts, default: free memory)
first exceeds (il - start) / N; a tensor matching an `-ot` override (also what --cpu-moe / --n-cpu-moe
add) goes to that buffer instead. The KV cache (`llama_kv_cache`, src/llama-kv-cache.cpp) holds, per layer,
ggml_row_size(type_k, n_embd_head_k * n_head_kv) bytes per cell (no V for MLA) on the layer's device,
for pad(n_ctx, 256) cells, and sliding-window layers pad(min(n_ctx, n_swa * slots + n_ubatch), 256)
(src/llama-kv-cache-iswa.cpp) unless --swa-full. Hybrid models (Gated DeltaNet, Mamba) keep KV only in their
attention layers and a recurrent state per sequence in the others (layer_memory.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from doctor.engines.llama_cpp.layer_memory import KV, RECURRENT, layer_kinds, recurrent_bytes_per_sequence
from doctor.engines.llama_cpp.options import ALL, AUTO, LlamaOptions
from doctor.probe.gguf import GgufModel, GgufTensor
from doctor.probe.gguf_model import sliding_window, swa_layers

CPU = "CPU"
KV_PAD = 256
F32 = 4


@dataclass
class DeviceUse:
    name: str
    weights: int = 0
    kv: int = 0
    recurrent: int = 0  # Gated DeltaNet / Mamba conv + SSM state of the hybrid layers here
    compute: int = 0  # an estimate, not read from llama.cpp
    layers: list[int] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.weights + self.kv + self.recurrent + self.compute


@dataclass(frozen=True)
class Usage:
    devices: dict[str, DeviceUse]
    n_ctx: int
    kv_cells: int
    kv_bytes_per_token: int
    gpu_layers: int

    def gpus(self) -> list[DeviceUse]:
        return [d for name, d in self.devices.items() if name != CPU]


def gpu_name(index: int) -> str:
    return f"CUDA{index}"


def row_size(type_name: str, n: int) -> int:
    """ggml_row_size: bytes of `n` elements of a GGML type (block size and type size from `gguf`)."""
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    block, size = GGML_QUANT_SIZES[GGMLQuantizationType[type_name.upper()]]
    return n * size // block


def effective_gpu_layers(options: LlamaOptions, n_layer: int, n_gpus: int) -> int:
    if n_gpus == 0:
        return 0
    if options.n_gpu_layers in (AUTO, ALL) or options.n_gpu_layers < 0:
        return n_layer + 1
    return min(options.n_gpu_layers, n_layer + 1)


def layer_devices(options: LlamaOptions, n_layer: int, gpu_free: list[int]) -> list[str]:
    """The device of layers 0..n_layer (the last is the output layer)."""
    n_gpus = len(gpu_free)
    act = effective_gpu_layers(options, n_layer, n_gpus)
    start = max(n_layer + 1 - act, 0)
    weights = list(options.tensor_split[:n_gpus]) if any(options.tensor_split) else [float(f) for f in gpu_free]
    weights += [0.0] * (n_gpus - len(weights))
    total = sum(weights) or 1.0
    cumulative, running = [], 0.0
    for w in weights:
        running += w
        cumulative.append(running / total)
    out = []
    for il in range(n_layer + 1):
        if il < start or il - start >= act:
            out.append(CPU)
        elif options.split_mode == "none":
            out.append(gpu_name(options.main_gpu))
        else:
            position = (il - start) / act
            out.append(gpu_name(min(n_gpus - 1, next(i for i, c in enumerate(cumulative) if c > position))))
    return out


def place_weights(gguf: GgufModel, options: LlamaOptions, devices: list[str],
                  uses: dict[str, DeviceUse]) -> None:
    n_layer = len(devices) - 1
    overrides = [(re.compile(p), buffer) for p, buffer in options.overrides]
    has_output = any(t.name == "output.weight" for t in gguf.tensors)
    for tensor in gguf.tensors:
        device = _device_of(tensor, devices, n_layer, overrides)
        uses[device].weights += tensor.n_bytes
        if tensor.layer is not None and tensor.layer not in uses[device].layers:
            uses[device].layers.append(tensor.layer)
        if tensor.name == "token_embd.weight" and not has_output and devices[n_layer] != CPU:
            uses[devices[n_layer]].weights += tensor.n_bytes  # tied output: duplicated on the output device


def _device_of(tensor: GgufTensor, devices: list[str], n_layer: int,
               overrides: list[tuple[re.Pattern[str], str]]) -> str:
    for pattern, buffer in overrides:
        if pattern.search(tensor.name):
            return buffer.upper() if buffer.upper().startswith("CUDA") and buffer[4:].isdigit() else CPU
    if tensor.layer is not None:
        return devices[min(tensor.layer, n_layer - 1)]
    return devices[n_layer] if tensor.name.startswith("output") else CPU


def context_cells(gguf: GgufModel, options: LlamaOptions) -> int:
    n_ctx = options.ctx_size or int(gguf.arch_value("context_length", 4096) or 4096)
    return -(-n_ctx // KV_PAD) * KV_PAD


def swa_cells(gguf: GgufModel, options: LlamaOptions, full: int) -> int:
    window = sliding_window(gguf)
    if options.swa_full or not window:
        return full
    per_stream = window * (options.slots if options.unified else 1) + options.n_ubatch
    cells = -(-min(full, per_stream) // KV_PAD) * KV_PAD
    return cells if options.unified else cells * options.slots


def kv_row_bytes(gguf: GgufModel, options: LlamaOptions) -> list[int]:
    """Bytes one KV cell takes in each layer (K plus V)."""
    kv_lora = int(gguf.arch_value("attention.kv_lora_rank", 0) or 0)
    heads = gguf.per_layer("attention.head_count")
    kv_heads = [k or h for k, h in zip(gguf.per_layer("attention.head_count_kv", 0), heads, strict=True)]
    hidden = int(gguf.arch_value("embedding_length", 0))
    key = int(gguf.arch_value("attention.key_length", 0) or 0)
    value = int(gguf.arch_value("attention.value_length", 0) or 0)
    # Gemma 3n/4: sliding-window layers have their own head size (llama_hparams::n_embd_head_k(il))
    key_swa = int(gguf.arch_value("attention.key_length_swa", 0) or 0) or key
    value_swa = int(gguf.arch_value("attention.value_length_swa", 0) or 0) or value
    swa = swa_layers(gguf)
    out = []
    for il in range(gguf.block_count):
        if kv_lora:
            rope = int(gguf.arch_value("rope.dimension_count", 64))
            out.append(row_size(options.cache_type_k, kv_lora + rope) + indexer_row(gguf, options, il))
            continue
        k_len, v_len = (key_swa, value_swa) if swa[il] else (key, value)
        k_dim = (k_len or hidden // heads[il]) * kv_heads[il]
        v_dim = (v_len or k_len or hidden // heads[il]) * kv_heads[il]
        out.append(row_size(options.cache_type_k, k_dim) + row_size(options.cache_type_v, v_dim))
    return out


def indexer_row(gguf: GgufModel, options: LlamaOptions, il: int) -> int:
    """DeepSeek sparse attention's lightning-indexer key cache (llama_kv_cache_dsa, src/llama-kv-cache-dsa.cpp:38-53:
    one key head of indexer.key_length in the K cache type) in the layers that carry an indexer (GLM-5.2's
    indexer.types; all layers otherwise, src/llama-model.cpp:2438)."""
    key = int(gguf.arch_value("attention.indexer.key_length", 0) or 0)
    if not key:
        return 0
    types = gguf.arch_value("attention.indexer.types")
    if isinstance(types, list) and il < len(types) and not types[il]:
        return 0
    return row_size(options.cache_type_k, key)


def place_kv(gguf: GgufModel, options: LlamaOptions, devices: list[str], uses: dict[str, DeviceUse]) -> tuple[int, int]:
    """KV bytes per device, in the layers that keep a KV cache; returns (cells of the full-attention layers, bytes
    per token over those layers)."""
    full = context_cells(gguf, options)
    swa = swa_layers(gguf)
    kinds = layer_kinds(gguf)
    window_cells = swa_cells(gguf, options, full)
    per_token = 0
    for il, row in enumerate(kv_row_bytes(gguf, options)):
        if kinds[il] != KV:
            continue
        cells = window_cells if swa[il] else full
        device = CPU if options.no_kv_offload else devices[il]
        uses[device].kv += row * cells
        per_token += row
    return full, per_token


def place_recurrent(gguf: GgufModel, options: LlamaOptions, devices: list[str], uses: dict[str, DeviceUse]) -> int:
    """The recurrent state of each recurrent layer on its device (llama_memory_recurrent: max(1, n_seq_max) rows,
    offloaded with the KV unless --no-kv-offload); returns the bytes over all layers."""
    per_layer = recurrent_bytes_per_sequence(gguf) * max(1, options.slots)
    total = 0
    for il, kind in enumerate(layer_kinds(gguf)):
        if kind == RECURRENT:
            device = CPU if options.no_kv_offload else devices[min(il, len(devices) - 1)]
            uses[device].recurrent += per_layer
            total += per_layer
    return total


def compute_estimate(gguf: GgufModel, options: LlamaOptions, uses: dict[str, DeviceUse], output_device: str,
                     cells: int, flash_attention: bool) -> None:
    """Estimate of each GPU's compute buffer (llama.cpp sizes it by reserving a worst-case graph; the doctor
    does not run that): f32 activations of one ubatch, the KQ matrix without flash attention, and the logits
    on the output device; the graph allocator reuses memory, so the peak is the larger of logits and KQ."""
    hidden = int(gguf.arch_value("embedding_length", 0))
    heads = max(gguf.per_layer("attention.head_count"), default=1)
    ff = max(gguf.per_layer("feed_forward_length"), default=0)
    expert_ff = int(gguf.arch_value("expert_feed_forward_length", 0) or 0) * int(
        gguf.arch_value("expert_used_count", 0) or 0)
    vocab = int(gguf.arch_value("vocab_size", 0) or gguf.array_lengths.get("tokenizer.ggml.tokens", 0))
    ub = options.n_ubatch
    activations = F32 * ub * (3 * hidden + max(ff, expert_ff))
    kq = 0 if flash_attention else F32 * ub * cells * heads
    for use in uses.values():
        if use.name == CPU or (not use.layers and use.name != output_device):
            continue
        logits = F32 * ub * vocab if use.name == output_device else 0
        use.compute = max(logits, kq if use.layers else 0) + activations


def usage(gguf: GgufModel, options: LlamaOptions, gpu_free: list[int], flash_attention: bool = True) -> Usage:
    n_layer = gguf.block_count
    devices = layer_devices(options, n_layer, gpu_free)
    uses = {name: DeviceUse(name) for name in [CPU, *(gpu_name(i) for i in range(len(gpu_free)))]}
    place_weights(gguf, options, devices, uses)
    cells, per_token = place_kv(gguf, options, devices, uses)
    place_recurrent(gguf, options, devices, uses)
    compute_estimate(gguf, options, uses, devices[n_layer], cells, flash_attention)
    gpu_layers = sum(1 for d in devices[:n_layer] if d != CPU)
    return Usage(devices=uses, n_ctx=cells, kv_cells=cells, kv_bytes_per_token=per_token, gpu_layers=gpu_layers)
