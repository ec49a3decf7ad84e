"""A GGUF model of a report, at its real shapes, from a short TOML spec (`gguf.toml` in a model folder): the
header and tensor table llama.cpp would read, written with ggml's own `gguf` package, and the data section left
as a hole (a sparse file: gigabytes on paper, a few kilobytes on disk). The doctor reads only the header and the
tensor table, never the data.

The spec names the architecture, the `{arch}.*` metadata (block count, widths, heads, experts) and the GGML type
of each tensor group; the tensors are the ones a llama.cpp converter writes for a transformer block: attention
q/k/v/output (head size `attention.key_length`), norms, and a dense FFN or routed experts
(`ffn_{gate,up,down}_exps`, `ffn_gate_inp`). The vocabulary is `{arch}.vocab_size`, not a token list."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

SPEC_FILE = "gguf.toml"
WRITER_VERSION = b"2"  # part of the cache key: a change to what is written rewrites the files
TYPE_GROUPS = {"embd", "output", "attn", "attn_v", "ffn", "ffn_down", "experts", "experts_down"}


def gguf_for(folder: Path) -> Path:
    """The folder's spec written once per test cache (keyed by the spec's bytes)."""
    from tests.wheels import cache_root

    text = (folder / SPEC_FILE).read_bytes()
    spec = tomllib.loads(text.decode("utf-8"))
    name = spec.get("file", folder.name + ".gguf")
    path = cache_root() / "gguf-specs" / hashlib.sha256(WRITER_VERSION + text).hexdigest()[:12] / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.stem}.{os.getpid()}.partial.gguf")
        write_sparse_gguf(partial, spec)
        partial.replace(path)
    return path


def write_sparse_gguf(path: Path, spec: dict[str, Any]) -> None:
    import numpy as np
    from gguf import GGMLQuantizationType, GGUFWriter
    from gguf.quants import quant_shape_to_byte_shape

    arch, meta = spec["arch"], spec["metadata"]
    types = {group: GGMLQuantizationType[name] for group, name in spec["types"].items()}
    assert set(types) <= TYPE_GROUPS, sorted(set(types) - TYPE_GROUPS)
    writer = GGUFWriter(path, arch)
    writer.add_name(spec.get("name", path.stem))
    for key, value in meta.items():
        _add_value(writer, f"{arch}.{key}", value)
    if "file_type" in spec:
        writer.add_file_type(int(spec["file_type"]))
    # The vocabulary size as metadata, not a token list of that length: reading 200k strings takes the gguf
    # package seconds per file, and the doctor needs only the count.
    writer.add_uint32(f"{arch}.vocab_size", int(spec["vocab"]))
    total = 0
    for name, shape, qtype in _tensors(spec, types):
        numpy_shape = tuple(reversed(shape))
        if qtype == GGMLQuantizationType.F32:
            nbytes = int(np.prod(numpy_shape)) * 4
            writer.add_tensor_info(name, numpy_shape, np.dtype(np.float32), nbytes)
        else:
            byte_shape = quant_shape_to_byte_shape(numpy_shape, qtype)
            nbytes = int(np.prod(byte_shape))
            writer.add_tensor_info(name, byte_shape, np.dtype(np.uint8), nbytes, raw_dtype=qtype)
        total += GGUFWriter.ggml_pad(nbytes, writer.data_alignment)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    fout = writer.fout[0]
    start = GGUFWriter.ggml_pad(fout.tell(), writer.data_alignment)
    fout.truncate(start + total)  # the data section: a hole of exactly the tensors' size
    writer.close()


def _add_value(writer: Any, key: str, value: Any) -> None:
    if isinstance(value, bool):
        writer.add_bool(key, value)
    elif isinstance(value, int):
        writer.add_uint32(key, value)
    elif isinstance(value, float):
        writer.add_float32(key, value)
    elif isinstance(value, list):
        writer.add_array(key, value)
    else:
        writer.add_string(key, str(value))


def _tensors(spec: dict[str, Any], types: dict[str, Any]) -> list[tuple[str, tuple[int, ...], Any]]:
    """(name, GGUF shape with the row first, type) for every tensor of the model."""
    from gguf import GGMLQuantizationType as Q

    meta = spec["metadata"]
    h, vocab = int(meta["embedding_length"]), int(spec["vocab"])
    heads, kv_heads = int(meta["attention.head_count"]), int(meta["attention.head_count_kv"])
    head_dim = int(meta.get("attention.key_length", h // heads))
    out = [("token_embd.weight", (h, vocab), types["embd"]), ("output_norm.weight", (h,), Q.F32)]
    if not spec.get("tied_embeddings", False):
        out.append(("output.weight", (h, vocab), types["output"]))
    experts = int(meta.get("expert_count", 0))
    for il in range(int(meta["block_count"])):
        b = f"blk.{il}."
        out += [(b + "attn_norm.weight", (h,), Q.F32), (b + "ffn_norm.weight", (h,), Q.F32),
                (b + "attn_q.weight", (h, heads * head_dim), types["attn"]),
                (b + "attn_k.weight", (h, kv_heads * head_dim), types["attn"]),
                (b + "attn_v.weight", (h, kv_heads * head_dim), types.get("attn_v", types["attn"])),
                (b + "attn_output.weight", (heads * head_dim, h), types["attn"])]
        if experts:
            ff = int(meta["expert_feed_forward_length"])
            out += [(b + "ffn_gate_inp.weight", (h, experts), Q.F32),
                    (b + "ffn_gate_exps.weight", (h, ff, experts), types["experts"]),
                    (b + "ffn_up_exps.weight", (h, ff, experts), types["experts"]),
                    (b + "ffn_down_exps.weight", (ff, h, experts), types.get("experts_down", types["experts"]))]
        else:
            ff = int(meta["feed_forward_length"])
            out += [(b + "ffn_gate.weight", (h, ff), types["ffn"]), (b + "ffn_up.weight", (h, ff), types["ffn"]),
                    (b + "ffn_down.weight", (ff, h), types.get("ffn_down", types["ffn"]))]
    return out
