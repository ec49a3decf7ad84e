"""`--engine ollama==X`: the llama.cpp build the Ollama release runs as llama-server comes with it
(doctor/data/llama_cpp/ollama-builds.json, from ollama/ollama's LLAMA_CPP_VERSION at each release tag)."""

from __future__ import annotations

from doctor.engines.llama_cpp.bundles import ollama_build
from doctor.hardware import load_profile
from doctor.pipeline.gather import with_engines


def test_release_builds_from_the_tags():
    assert ollama_build("0.30.0") == "9452"  # the first release with the llama-server runner
    assert ollama_build("0.32.6") == "10242"  # the first with --load-mode dio on integrated GPUs
    assert ollama_build("0.29.9") is None


def test_ollama_brings_its_llama_cpp():
    facts = with_engines(load_profile("rtx-5090"), ["ollama==0.32.10"])
    llama = facts.libraries["llama.cpp"]
    assert (llama.version, llama.what_if, llama.details["bundled_by"]) == ("10380", True, "Ollama 0.32.10")


def test_a_named_llama_cpp_wins():
    facts = with_engines(load_profile("rtx-5090"), ["ollama==0.32.10", "llama.cpp==b11312"])
    assert facts.libraries["llama.cpp"].version == "11312"


def test_no_runner_no_llama_cpp():
    facts = with_engines(load_profile("rtx-5090"), ["ollama==0.29.9"])
    assert "llama.cpp" not in facts.libraries and facts.libraries["ollama"].version == "0.29.9"


def test_an_ollama_log_brings_its_llama_cpp():
    import io

    from doctor.diagnose.diagnosis import diagnose
    from tests.diagnose.corpus import empty_base

    log = (b'time=2026-06-08T10:00:00.000Z level=INFO source=routes.go:1560 msg="Listening on 127.0.0.1:11434 '
           b'(version 0.30.6)"\n')
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "nothing (test)", {})
    libraries = diagnosis.report.facts.libraries
    assert libraries["llama.cpp"].version == "9509" and libraries["llama.cpp"].details["bundled_by"] == "Ollama 0.30.6"


def test_every_release_from_0_6_has_a_row():
    from doctor.engines.llama_cpp.bundles import ollama_release, ollama_releases

    releases = ollama_releases()
    assert releases[0] == "0.6.0" and "0.20.0" in releases and "0.32.15" in releases
    assert ollama_release("0.5.13") is None  # before the table's first release


def test_before_0_30_the_runner_is_ollamas_own():
    from doctor.engines.llama_cpp.bundles import ollama_build, release_details

    details = release_details("0.20.0")
    assert details["runner"] == "ollama-engine+llama-runner" and details["llama_cpp_commit"] == "ec98e2002"
    assert details["llama_cpp_build"] is None and ollama_build("0.20.0") is None
    assert release_details("0.13.2")["llama_cpp_build"] == "7108"  # named by the sync commit's subject
    assert ollama_build("0.13.2") is None  # vendored through cgo: no llama-server build to analyse


def test_cuda_presets_per_release():
    from doctor.engines.llama_cpp.bundles import release_details

    assert release_details("0.20.0")["cuda_v12_sm12x"] == "sass"  # CUDA 12 preset: ...;90a;120
    assert release_details("0.20.0")["cuda_v13_sm12x"] == "ptx"  # CUDA 13 preset: 120-virtual;121-virtual
    assert "cuda_v13_archs" not in release_details("0.11.0")  # no CUDA 13 build yet
    assert release_details("0.30.0")["cuda_v13_archs"][-1] == "121-virtual"


def test_the_ollama_what_if_carries_its_release():
    facts = with_engines(load_profile("dgx-spark"), ["ollama==0.20.0"])
    assert facts.libraries["ollama"].details["runner"] == "ollama-engine+llama-runner"
    assert "llama.cpp" not in facts.libraries


def test_ollamas_environment_becomes_llama_server_flags():
    from doctor.engines.llama_cpp.bundles import ollama_server_flags

    assert ollama_server_flags({}) == ["--flash-attn", "auto"]
    flags = ollama_server_flags({"OLLAMA_CONTEXT_LENGTH": "32768", "OLLAMA_NUM_PARALLEL": "2",
                                 "OLLAMA_KV_CACHE_TYPE": "Q8_0", "OLLAMA_FLASH_ATTENTION": "false"})
    assert flags == ["-c", "65536", "-np", "2", "--cache-type-k", "q8_0", "--cache-type-v", "q8_0",
                     "--flash-attn", "off"]
    assert ollama_server_flags({"OLLAMA_FLASH_ATTENTION": "1"})[-1] == "on"
    assert ollama_server_flags({"OLLAMA_FLASH_ATTENTION": "yes"})[-1] == "auto"  # not a ParseBool value


def test_the_llama_cpp_run_of_an_ollama_release_takes_its_flags():
    import dataclasses

    from doctor.pipeline.analysis import engine_runs

    facts = with_engines(load_profile("rtx-5090"), ["ollama==0.31.0"])
    facts = dataclasses.replace(facts, env={**facts.env, "OLLAMA_KV_CACHE_TYPE": "q4_0"})
    (run,) = engine_runs(facts, ["--cache-type-v", "f16"])
    assert run.launch.values["cache_type_k"] == "q4_0" and run.launch.values["cache_type_v"] == "f16"
    plain = with_engines(load_profile("rtx-5090"), ["llama.cpp==b9840"])
    (own,) = engine_runs(dataclasses.replace(plain, env={"OLLAMA_KV_CACHE_TYPE": "q4_0"}), [])
    assert own.launch.values.get("cache_type_k") != "q4_0"  # a llama.cpp of its own ignores Ollama's settings


def test_a_release_after_the_table_says_so():
    facts = with_engines(load_profile("rtx-5090"), ["ollama==0.33.3"])
    assert "llama.cpp" not in facts.libraries
    assert any("not in the doctor's release table" in note for note in facts.source.notes)
    known = with_engines(load_profile("rtx-5090"), ["ollama==0.32.15"])
    assert not any("release table" in note for note in known.source.notes)
