"""GGUF models read with the `gguf` package: files written by GGUFWriter, byte sizes checked against the
reader's own sizes and against where the data actually lie in the file."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from gguf import GGMLQuantizationType as Q
from gguf import GGUFReader

from doctor.errors import InputError
from doctor.probe.gguf import gguf_files, read_gguf
from doctor.probe.gguf_model import model_from_gguf
from doctor.probe.model import is_gguf_spec, load_model
from tests.engines.llama_cpp.gguf_files import Spec, tensors, write_gguf


def test_tensor_bytes_are_gguf_own_sizes_and_the_file_layout(tmp_path: Path):
    path = write_gguf(tmp_path / "m.gguf", Spec())[0]
    model = read_gguf(path)
    reader = GGUFReader(path)
    assert [(t.name, t.n_bytes) for t in model.tensors] == [(t.name, int(t.n_bytes)) for t in reader.tensors]
    alignment = int(reader.alignment)
    ordered = sorted(reader.tensors, key=lambda t: t.data_offset)
    for this, following in itertools.pairwise(ordered):
        gap = following.data_offset - this.data_offset
        assert this.n_bytes <= gap < this.n_bytes + alignment  # the data really take n_bytes, then padding
    assert path.stat().st_size - ordered[-1].data_offset == ordered[-1].n_bytes
    assert model.file_bytes == path.stat().st_size


def test_quant_type_sizes(tmp_path: Path):
    model = read_gguf(write_gguf(tmp_path / "m.gguf", Spec(hidden=256, ff=512))[0])
    by_name = {t.name: t for t in model.tensors}
    q = by_name["blk.0.attn_q.weight"]  # 256 x 256 Q4_K: 256-element blocks of 144 bytes
    assert (q.type, q.n_elements, q.n_bytes) == ("Q4_K", 65536, 65536 // 256 * 144)
    embd = by_name["token_embd.weight"]  # Q8_0: 32-element blocks of 34 bytes
    assert embd.n_bytes == 256 * 512 // 32 * 34
    assert by_name["output_norm.weight"].n_bytes == 256 * 4
    assert model.tensor_bytes == sum(t.n_bytes for t in model.tensors)
    assert model.type_counts["Q4_K"] == 4 * 5 + 0  # q, k, o, gate, up per layer


def test_header_becomes_the_model_fact(tmp_path: Path):
    spec = Spec(arch="gpt-oss", layers=6, hidden=512, heads=8, kv_heads=2, experts=16, experts_used=4, expert_ff=256,
                sliding_window=128, context=131072)
    path = write_gguf(tmp_path / "oss.gguf", spec)[0]
    model = load_model(str(path), {})
    assert (model.source, model.architecture, model.num_layers, model.hidden_size) == ("gguf", "gpt-oss", 6, 512)
    assert (model.attention.num_heads, model.attention.num_kv_heads, model.attention.head_dim) == (8, 2, 64)
    assert model.attention.sliding_window == 128 and model.attention.sliding_window_layers == 3  # pattern 2
    assert model.attention.sinks
    assert model.moe is not None and (model.moe.routed_experts, model.moe.top_k, model.moe.intermediate_size) == (
        16, 4, 256)
    assert model.max_position_embeddings == 131072 and model.vocab_size == spec.vocab
    assert model.quantization.scheme == "gguf" and model.quantization.method == "Q4_K_M"


def test_split_set_reads_every_part_from_any_part(tmp_path: Path):
    whole = read_gguf(write_gguf(tmp_path / "one.gguf", Spec())[0])
    parts = write_gguf(tmp_path / "split.gguf", Spec(), split_max_tensors=8)
    assert len(parts) > 2 and parts[0].name == f"split-00001-of-{len(parts):05d}.gguf"
    for part in (parts[0], parts[-1]):
        model = read_gguf(part)
        assert len(model.paths) == len(parts)
        assert model.tensor_bytes == whole.tensor_bytes
        assert [t.name for t in model.tensors] == [name for name, _, _ in tensors(Spec())]
    parts[1].unlink()
    with pytest.raises(InputError, match="incomplete"):
        read_gguf(parts[0])


def test_directory_holds_one_model_or_says_which(tmp_path: Path):
    write_gguf(tmp_path / "model-Q4_K_M.gguf", Spec())
    (tmp_path / "mmproj-model-f16.gguf").write_bytes(b"")  # a projector is not the model
    assert is_gguf_spec(str(tmp_path))
    assert gguf_files(tmp_path) == [tmp_path / "model-Q4_K_M.gguf"]
    write_gguf(tmp_path / "model-Q8_0.gguf", Spec(weight_type=Q.Q8_0))
    with pytest.raises(InputError, match="holds 2 GGUF models"):
        gguf_files(tmp_path)


def test_bad_files_are_one_clear_error(tmp_path: Path):
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"GGUF" + b"\xff" * 64)
    with pytest.raises(InputError, match="not a readable GGUF file"):
        read_gguf(bad)
    with pytest.raises(InputError, match="does not exist"):
        read_gguf(tmp_path / "missing.gguf")
    empty = write_gguf(tmp_path / "nolayers.gguf", Spec(arch="llama", layers=0))[0]
    with pytest.raises(InputError, match="block_count"):
        model_from_gguf(read_gguf(empty), "nolayers.gguf")
