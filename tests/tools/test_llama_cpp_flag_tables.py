"""llama.cpp's flag tables per release (tools/llama_cpp_flag_tables.py → doctor/data/llama_cpp/flag_tables.json): the
run-length encoding replays to each sample's table, the data spans SM12x-era releases, and a build is matched
to the table that covers it, between two samples or outside them."""

from __future__ import annotations

import itertools
import json

from doctor.engines.llama_cpp.flags import DATA, data_range, server_flags, table_for_build
from tools.llama_cpp_flag_tables import run_length

OLD_ARG_CPP = r'''
    add_opt(common_arg(
        {"-fa", "--flash-attn"},
        "enable Flash Attention",
        [](common_params & params) { params.flash_attn = true; }
    ).set_env("LLAMA_ARG_FLASH_ATTN"));
    add_opt(common_arg(
        {"--no-mmap"},
        "do not memory-map model",
        [](common_params & params) { params.use_mmap = false; }
    ).set_env("LLAMA_ARG_NO_MMAP"));
    add_opt(common_arg(
        {"-ngl", "--gpu-layers", "--n-gpu-layers"}, "N",
        "number of layers to store in VRAM",
        [](common_params & params, int value) { params.n_gpu_layers = value; }
    ).set_env("LLAMA_ARG_N_GPU_LAYERS"));
    add_opt(common_arg(
        {"--port"}, "PORT", "port to listen",
        [](common_params & params, int value) { params.port = value; }
    ).set_examples({LLAMA_EXAMPLE_SERVER}));
'''
OLD_FA = "        [](common_params & params) { params.flash_attn = true; }"
NEW_ARG_CPP = OLD_ARG_CPP.replace(OLD_FA, '''        [](common_params & params, const std::string & value) {
            if (value == "on") {} else if (value == "off") {} else { throw std::invalid_argument("fa"); }
        }''').replace('"--no-mmap"', '"--load-mode"')


def entries(source: str) -> dict:
    from tools.llama_cpp_flag_tables import option_entries

    return option_entries(source)


def replay(segments: list[dict]) -> list[dict]:
    options: dict = {}
    out = []
    for segment in segments:
        for key in segment["drop"]:
            options.pop(key)
        options.update(segment["set"])
        out.append(dict(options))
    return out


def test_option_entries_keep_spellings_values_choices_env_and_examples():
    old, new = entries(OLD_ARG_CPP), entries(NEW_ARG_CPP)
    assert old["-fa,--flash-attn"] == {"names": ["-fa", "--flash-attn"], "value": False, "env": "LLAMA_ARG_FLASH_ATTN"}
    assert new["-fa,--flash-attn"]["value"] is True and new["-fa,--flash-attn"]["choices"] == ["on", "off"]
    assert old["-ngl,--gpu-layers,--n-gpu-layers"]["int"] is True
    assert old["--port"]["examples"] == ["SERVER"]


def test_equal_neighbours_merge_and_each_segment_replays_to_its_table():
    samples = [(100, "a", entries(OLD_ARG_CPP)), (120, "b", entries(OLD_ARG_CPP)), (150, "c", entries(NEW_ARG_CPP)),
               (170, "d", entries(NEW_ARG_CPP))]
    segments = run_length(samples)
    assert [(s["first"], s["last"]) for s in segments] == [(100, 120), (150, 170)]
    assert segments[1]["drop"] == ["--no-mmap"] and set(segments[1]["set"]) == {"--load-mode", "-fa,--flash-attn"}
    assert replay(segments) == [entries(OLD_ARG_CPP), entries(NEW_ARG_CPP)]


def test_committed_data_spans_sm12x_releases_in_order():
    data = json.loads(DATA.read_text("utf-8"))
    builds = [build for build, _ in data["samples"]]
    assert builds == sorted(set(builds)) and len(builds) >= 50
    first, newest = data_range()
    assert first <= 4700 and newest >= 11312  # SM12x support in ggml-cuda came about b4700
    spans = [(s["first"], s["last"]) for s in data["segments"]]
    assert all(a <= b < c for (a, b), (c, _) in itertools.pairwise(spans))
    assert {s["first"] for s in data["segments"]} <= set(builds) and spans[-1][1] == newest


def test_a_build_inside_a_segment_gets_that_table_settled():
    table = table_for_build(10867)
    assert table.known("--no-mmap") and not table.unsettled and table.all_unsettled is None and table.note is None


def test_a_build_between_two_differing_samples_leaves_only_the_changed_flags_unsettled():
    table = table_for_build(10872)  # samples b10867 and b10878 disagree on --no-mmap
    assert "b10867" in table.source and "b10878" in table.source
    assert "--no-mmap" in table.unsettled and "--ctx-size" not in table.unsettled
    assert table.why_unsettled("--no-mmap") == "--no-mmap changed between b10867 and b10878, the samples around b10872"


def test_builds_outside_the_data_are_noted_and_unsettled():
    first, newest = data_range()
    newer = table_for_build(newest + 1)
    assert newer.note is not None and "newer than the newest release" in newer.note
    assert newer.why_unsettled("--anything") == newer.note
    older = table_for_build(first - 1)
    assert older.note is not None and "older than the oldest release" in older.note
    assert table_for_build(None).all_unsettled is not None


def test_server_view_keeps_common_and_server_options_only():
    flags = server_flags([{"names": ["--a"], "value": False}, {"names": ["--b"], "value": True, "examples": ["MAIN"]},
                          {"names": ["--c"], "value": True, "examples": ["SERVER"], "int": True},
                          {"names": ["--d"], "value": False, "excludes": ["SERVER"]},
                          {"names": ["--mmap"], "value": False, "negated": ["--no-mmap"]}])
    assert set(flags) == {"--a", "--c", "--mmap", "--no-mmap"} and flags["--c"]["integer"] is True
