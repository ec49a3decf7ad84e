"""llama.cpp's placement and KV arithmetic on real GGUF tensor tables: every byte expected here is summed from
the file's tensors independently of the placement code."""

from __future__ import annotations

import pytest
from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

from doctor.engines.llama_cpp.flags import known_release_table
from doctor.engines.llama_cpp.memory import CPU, layer_devices, usage
from doctor.engines.llama_cpp.options import ALL, LlamaOptions, parse_options
from doctor.engines.llama_cpp.plan import MARGIN, best_offload, evaluate
from doctor.probe.gguf import GgufModel, read_gguf
from tests.engines.llama_cpp.gguf_files import Spec, write_gguf

GiB = 1 << 30
BIG = [32 * GiB]


@pytest.fixture(scope="module")
def dense(tmp_path_factory) -> GgufModel:
    return read_gguf(write_gguf(tmp_path_factory.mktemp("d") / "dense.gguf", Spec(hidden=512, layers=4))[0])


@pytest.fixture(scope="module")
def moe(tmp_path_factory) -> GgufModel:
    spec = Spec(arch="gpt-oss", layers=6, hidden=512, experts=32, experts_used=4, expert_ff=2048, sliding_window=128,
                context=131072)
    return read_gguf(write_gguf(tmp_path_factory.mktemp("m") / "moe.gguf", spec)[0])


def opts(*argv: str) -> LlamaOptions:
    return parse_options(list(argv), known_release_table())


def layer_bytes(model: GgufModel, layers: set[int], name_part: str = "") -> int:
    return sum(t.n_bytes for t in model.tensors if t.layer in layers and name_part in t.name)


def test_all_layers_on_the_gpu_but_the_input_embedding(dense: GgufModel):
    use = usage(dense, opts("-ngl", "all"), BIG)
    embd = next(t.n_bytes for t in dense.tensors if t.name == "token_embd.weight")
    assert use.devices[CPU].weights == embd
    assert use.devices["CUDA0"].weights == dense.tensor_bytes - embd
    assert use.gpu_layers == 4


def test_ngl_counts_the_output_layer_from_the_end(dense: GgufModel):
    use = usage(dense, opts("-ngl", "2"), BIG)  # layers start at n_layer + 1 - 2 = 3: blk.3 and the output
    output = sum(t.n_bytes for t in dense.tensors if t.name.startswith("output"))
    assert use.devices["CUDA0"].weights == layer_bytes(dense, {3}) + output
    assert use.gpu_layers == 1


def test_tensor_split_follows_upper_bound_of_the_cumulative_split(dense: GgufModel):
    devices = layer_devices(opts("-ngl", "all", "-ts", "3,1"), 4, [GiB, GiB])
    # (il - 0) / 5 against [0.75, 1.0]: 0, .2, .4, .6 -> CUDA0; .8 (the output) -> CUDA1
    assert devices == ["CUDA0", "CUDA0", "CUDA0", "CUDA0", "CUDA1"]
    even = layer_devices(opts("-ngl", "all"), 4, [GiB, GiB])
    assert even == ["CUDA0", "CUDA0", "CUDA0", "CUDA1", "CUDA1"]
    assert layer_devices(opts("-ngl", "all", "-sm", "none", "-mg", "1"), 4, [GiB, GiB]) == ["CUDA1"] * 5


def test_n_cpu_moe_and_override_move_expert_tensors(moe: GgufModel):
    use = usage(moe, opts("-ngl", "99", "--n-cpu-moe", "2"), BIG)
    experts_0_1 = layer_bytes(moe, {0, 1}, "_exps")
    embd = next(t.n_bytes for t in moe.tensors if t.name == "token_embd.weight")
    assert use.devices[CPU].weights == embd + experts_0_1
    assert use.devices["CUDA0"].weights == moe.tensor_bytes - embd - experts_0_1
    regex = usage(moe, opts("-ngl", "99", "-ot", "exps=CPU"), BIG)
    assert regex.devices[CPU].weights == embd + layer_bytes(moe, set(range(6)), "_exps")
    assert usage(moe, opts("--cpu-moe"), BIG).devices[CPU].weights == regex.devices[CPU].weights


def row(type_name: str, n: int) -> int:
    block, size = GGML_QUANT_SIZES[GGMLQuantizationType[type_name.upper()]]
    return n * size // block


def test_kv_from_heads_cache_types_and_padding(dense: GgufModel):
    kv_dim = 512 // 8 * 2  # head_dim 64 x 2 KV heads
    use = usage(dense, opts("-c", "1000"), BIG)
    assert use.kv_cells == 1024  # padded to 256
    assert use.kv_bytes_per_token == 4 * 2 * kv_dim * 2
    assert use.devices["CUDA0"].kv == 1024 * 4 * 2 * kv_dim * 2
    q8 = usage(dense, opts("-c", "1024", "-ctk", "q8_0", "-ctv", "q4_0"), BIG)
    assert q8.kv_bytes_per_token == 4 * (row("q8_0", kv_dim) + row("q4_0", kv_dim))
    assert usage(dense, opts("-c", "1024", "-nkvo"), BIG).devices[CPU].kv == 1024 * 4 * 2 * kv_dim * 2


def test_sliding_window_layers_keep_a_short_cache(moe: GgufModel):
    use = usage(moe, opts("-c", "65536"), BIG)  # server default: 4 slots, unified: min(65536, 128*4 + 512)
    per_layer = 2 * 2 * 64 * 2
    assert use.devices["CUDA0"].kv == 3 * 65536 * per_layer + 3 * 1024 * per_layer
    full = usage(moe, opts("-c", "65536", "--swa-full"), BIG)
    assert full.devices["CUDA0"].kv == 6 * 65536 * per_layer


def test_plan_fits_or_finds_the_least_expert_offload(moe: GgufModel):
    whole = evaluate(moe, opts(), BIG, True)
    assert whole["fits"] and whole["weights_per_gpu_bytes"] == moe.tensor_bytes - next(
        t.n_bytes for t in moe.tensors if t.name == "token_embd.weight")
    small = [int(0.3 * GiB) + MARGIN]
    tight = evaluate(moe, opts("-c", "4096"), small, True)
    assert not tight["fits"] and "short" in tight["verdict"]
    best = best_offload(moe, opts("-c", "4096"), small, True, None)
    assert best is not None and best["fits"] and best["n_cpu_moe"] >= 1
    assert "--n-cpu-moe" in best["flags"]
    fewer = evaluate(moe, opts("-c", "4096", "--n-cpu-moe", str(best["n_cpu_moe"] - 1)), small, True)
    assert not fewer["fits"]  # the least offload: one layer fewer does not fit


def test_dense_model_offloads_layers(dense: GgufModel):
    whole = usage(dense, opts("-c", "4096"), BIG).devices["CUDA0"].total
    small = [MARGIN + whole - layer_bytes(dense, {3}) // 2]
    best = best_offload(dense, opts("-c", "4096"), small, True, None)
    assert best is not None and 0 < best["gpu_layers"] < 4
    assert opts("-ngl", "all").n_gpu_layers == ALL
