"""Real, small GGUF files written with ggml's `gguf` package (GGUFWriter): the headers and tensor tables
llama.cpp would load, with zero-filled tensor data of exactly the size each quant type needs."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType, GGUFWriter, LlamaFileType
from gguf.quants import quant_shape_to_byte_shape

Q = GGMLQuantizationType


@dataclass
class Spec:
    arch: str = "llama"
    layers: int = 4
    hidden: int = 256
    heads: int = 8
    kv_heads: int = 2
    ff: int = 512
    vocab: int = 512
    context: int = 8192
    experts: int = 0
    experts_used: int = 0
    expert_ff: int = 0
    weight_type: GGMLQuantizationType = Q.Q4_K
    expert_type: GGMLQuantizationType = Q.MXFP4
    sliding_window: int = 0
    extra: dict[str, int] = field(default_factory=dict)
    file_type: LlamaFileType = LlamaFileType.MOSTLY_Q4_K_M


def tensors(spec: Spec) -> list[tuple[str, tuple[int, ...], GGMLQuantizationType]]:
    """(name, GGUF shape (row first), type) as a llama-architecture converter writes them."""
    h, kv = spec.hidden, spec.hidden // spec.heads * spec.kv_heads
    out = [("token_embd.weight", (h, spec.vocab), Q.Q8_0), ("output_norm.weight", (h,), Q.F32),
           ("output.weight", (h, spec.vocab), Q.Q6_K)]
    for il in range(spec.layers):
        b = f"blk.{il}."
        out += [(b + "attn_norm.weight", (h,), Q.F32), (b + "attn_q.weight", (h, h), spec.weight_type),
                (b + "attn_k.weight", (h, kv), spec.weight_type), (b + "attn_v.weight", (h, kv), Q.Q6_K),
                (b + "attn_output.weight", (h, h), spec.weight_type), (b + "ffn_norm.weight", (h,), Q.F32)]
        if spec.experts:
            e, ff = spec.experts, spec.expert_ff
            out += [(b + "ffn_gate_inp.weight", (h, e), Q.F32),
                    (b + "ffn_gate_exps.weight", (h, ff, e), spec.expert_type),
                    (b + "ffn_up_exps.weight", (h, ff, e), spec.expert_type),
                    (b + "ffn_down_exps.weight", (ff, h, e), spec.expert_type)]
        else:
            out += [(b + "ffn_gate.weight", (h, spec.ff), spec.weight_type),
                    (b + "ffn_up.weight", (h, spec.ff), spec.weight_type),
                    (b + "ffn_down.weight", (spec.ff, h), Q.Q6_K)]
    return out


def write_gguf(path: Path, spec: Spec, split_max_tensors: int = 0) -> list[Path]:
    """Write the model; with `split_max_tensors`, as a `-0000i-of-0000N.gguf` split set. Returns the files."""
    writer = GGUFWriter(path, spec.arch, split_max_tensors=split_max_tensors)
    writer.add_name("tiny-test")
    writer.add_block_count(spec.layers)
    writer.add_context_length(spec.context)
    writer.add_embedding_length(spec.hidden)
    writer.add_feed_forward_length(spec.ff)
    writer.add_head_count(spec.heads)
    writer.add_head_count_kv(spec.kv_heads)
    writer.add_vocab_size(spec.vocab)
    writer.add_file_type(spec.file_type)
    if spec.experts:
        writer.add_expert_count(spec.experts)
        writer.add_expert_used_count(spec.experts_used)
        writer.add_expert_feed_forward_length(spec.expert_ff)
    if spec.sliding_window:
        writer.add_sliding_window(spec.sliding_window)
    for key, value in spec.extra.items():
        writer.add_uint32(f"{spec.arch}.{key}", value)
    writer.add_array("tokenizer.ggml.tokens", [f"t{i}" for i in range(spec.vocab)])
    for name, shape, qtype in tensors(spec):
        numpy_shape = tuple(reversed(shape))
        if qtype == Q.F32:
            writer.add_tensor(name, np.zeros(numpy_shape, dtype=np.float32))
        else:
            data = np.zeros(quant_shape_to_byte_shape(numpy_shape, qtype), dtype=np.uint8)
            writer.add_tensor(name, data, raw_dtype=qtype)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    if split_max_tensors:
        return sorted(path.parent.glob(path.stem + "-*-of-*.gguf"))
    return [path]


FIXTURES = {
    "tiny": Spec(hidden=512),  # head_dim 64: ggml-cuda has flash-attention kernels for it
    "iq3s": Spec(hidden=512, weight_type=Q.IQ3_S, file_type=LlamaFileType.MOSTLY_IQ3_S),
    "moe": Spec(arch="gpt-oss", layers=6, hidden=512, experts=32, experts_used=4, expert_ff=2048, sliding_window=128,
                context=131072),
}


def fixture(name: str) -> Path:
    """A named GGUF model, written once per test cache (the files are generated, never committed)."""
    from tests.wheels import cache_root

    digest = hashlib.sha256(repr(FIXTURES[name]).encode()).hexdigest()[:12]
    path = cache_root() / "gguf" / f"{name}-{digest}.gguf"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{name}.{os.getpid()}.partial.gguf")
        write_gguf(partial, FIXTURES[name])
        partial.replace(path)
    return path
