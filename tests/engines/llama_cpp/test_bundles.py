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
