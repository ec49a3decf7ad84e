"""Installed `.so` files the binary scan cannot open (a dangling link, a link loop) are named in a note with
why, in a real site-packages-like tree with real links; so is a llama.cpp build whose libggml-cuda.so link
dangles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from doctor.pipeline.analysis import analyze_all, skipped_binary_notes
from doctor.pipeline.facts import Library
from doctor.probe.binaries import with_binary_facts
from doctor.probe.llama_cpp import ENV, find_build
from tests.conftest import cli_env
from tests.engines.llama_cpp.gguf_files import fixture
from tests.rules.builders import build


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """site-packages with vllm 0.15.1: one readable .so, one dangling link, two links that point at each other;
    and another package's dangling link, which is not vllm's to report."""
    root = tmp_path / "site-packages"
    package = root / "vllm"
    package.mkdir(parents=True)
    (package / "_C.abi3.so").write_bytes(b"\x7fELF" + b"\0" * 60)  # no device code: counted, not listed
    os.symlink("_moe_C.abi3.so.1", package / "_moe_C.abi3.so")  # target never installed
    os.symlink("_loop_b.so", package / "_loop_a.so")
    os.symlink("_loop_a.so", package / "_loop_b.so")
    info = root / "vllm-0.15.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: vllm\nVersion: 0.15.1\n")
    (info / "RECORD").write_text("".join(f"vllm/{name},,\n" for name in
                                         ("_C.abi3.so", "_moe_C.abi3.so", "_loop_a.so", "_loop_b.so")))
    other = root / "otherpkg"
    other.mkdir()
    os.symlink("/nonexistent/libother.so", other / "libother.so")
    return root


def test_dangling_and_looping_links_are_listed_with_why(site: Path):
    libraries = with_binary_facts({"vllm": Library(name="vllm", version="0.15.1", location=str(site),
                                                   details={"distribution": "vllm"})}, engines=("vllm",))
    skipped = {entry["path"]: entry["why"] for entry in libraries["vllm"].details["skipped_binaries"]}
    assert set(skipped) == {"vllm/_moe_C.abi3.so", "vllm/_loop_a.so", "vllm/_loop_b.so"}
    assert skipped["vllm/_moe_C.abi3.so"] == "dangling symlink to _moe_C.abi3.so.1"
    assert skipped["vllm/_loop_a.so"].startswith("symlink loop")


def test_the_analysis_says_which_links_were_skipped_and_why(site: Path):
    libraries = with_binary_facts({"vllm": Library(name="vllm", version="0.15.1", location=str(site),
                                                   details={"distribution": "vllm"})}, engines=("vllm",))
    facts = build("rtx-5090", model="meta-llama/Llama-3.1-8B-Instruct", libs=(libraries["vllm"],))
    notes = analyze_all(facts, [])[0].notes
    dangling = [n for n in notes if "_moe_C.abi3.so" in n]
    assert dangling == ["vllm: vllm/_moe_C.abi3.so not read (dangling symlink to _moe_C.abi3.so.1): its CUDA "
                        "archs are not checked"]
    assert len([n for n in notes if "symlink loop" in n]) == 2
    assert not [n for n in skipped_binary_notes(facts) if "libother" in n]


def test_a_clean_tree_gives_no_note(tmp_path: Path):
    package = tmp_path / "site-packages" / "vllm"
    package.mkdir(parents=True)
    (package / "_C.abi3.so").write_bytes(b"\x7fELF" + b"\0" * 60)
    libraries = with_binary_facts({"vllm": Library(name="vllm", version="0.15.1", location=str(package.parent),
                                                   details={"distribution": "vllm"})}, engines=("vllm",))
    assert "skipped_binaries" not in libraries["vllm"].details


def test_a_llama_cpp_build_whose_cuda_library_link_dangles(tmp_path: Path):
    folder = tmp_path / "llama-b7551" / "bin"
    folder.mkdir(parents=True)
    server = folder / "llama-server"
    server.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'version: 7551 (a52dc60)' >&2\nexit 0\n")
    server.chmod(0o755)
    os.symlink("libggml-cuda.so.0", folder / "libggml-cuda.so")
    found = find_build({ENV: str(folder)})
    assert found is not None
    # the script stands in for a server binary, so reading it as a static build gets a note of its own
    assert found.notes[0] == f"{folder / 'libggml-cuda.so'} skipped: dangling symlink to libggml-cuda.so.0"
    done = subprocess.run([sys.executable, "-m", "doctor", "check", str(fixture("tiny")), "--hardware", "rtx-5090",
                           "--format", "json"], capture_output=True, text=True, timeout=120,
                          env=cli_env(**{ENV: str(folder)}))
    assert done.returncode == 0, done.stderr
    notes = json.loads(done.stdout)["analysis"]["notes"]
    assert f"llama.cpp build: {folder / 'libggml-cuda.so'} skipped: dangling symlink to libggml-cuda.so.0" in notes
