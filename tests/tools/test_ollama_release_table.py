"""tools/ollama_llama_cpp_builds.py on a small ollama/ollama-shaped git history: two release tags, one vendoring
llama.cpp through Makefile.sync (with its sync commit naming a build, then a revert), one through
LLAMA_CPP_VERSION with llama/server's CMake presets; and the table in doctor/data agrees with the source facts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tools.ollama_llama_cpp_builds import release_row, release_tags

CMAKE_12_13 = {"configurePresets": [
    {"name": "CUDA 12", "cacheVariables": {"CMAKE_CUDA_ARCHITECTURES": "50;90a;120"}},
    {"name": "CUDA 13", "cacheVariables": {"CMAKE_CUDA_ARCHITECTURES": "75-virtual;120-virtual;121-virtual"}},
    {"name": "ROCm 6", "cacheVariables": {"AMDGPU_TARGETS": "gfx1100"}},
]}
SERVER_PRESETS = {"configurePresets": [
    {"name": "llama_cuda_v13_linux", "cacheVariables": {"CMAKE_CUDA_ARCHITECTURES": "90-virtual;120-virtual"}},
]}
GGML_GO = 'func (kv KV) OllamaEngineRequired() bool {\n\treturn slices.Contains([]string{\n\t\t"gemma3",\n' \
          '\t\t"gptoss", "gpt-oss",\n\t}, kv.Architecture())\n}\n'


def _commit(repo: Path, files: dict[str, str], message: str, tag: str | None = None) -> None:
    for name, text in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", message, "--date", "2026-01-02T00:00:00"], check=True)
    if tag:
        subprocess.run([*git, "tag", tag], check=True)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> str:
    repo = tmp_path_factory.mktemp("ollama")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _commit(repo, {"Makefile.sync": "FETCH_HEAD=7f8ef50cce40e3e7e4526a3696cb45658190e69a\n",
                   "CMakePresets.json": json.dumps(CMAKE_12_13), "fs/ggml/ggml.go": GGML_GO},
            "ggml update to b7108 (#12992)", "v0.13.2")
    _commit(repo, {"Makefile.sync": "FETCH_HEAD=a5bb8ba4\n"}, "Update vendored llama.cpp to b7847")
    _commit(repo, {"Makefile.sync": "FETCH_HEAD=7f8ef50cce40e3e7e4526a3696cb45658190e69a\n"},
            'Revert "Update vendored llama.cpp to b7847"', "v0.14.0")
    _commit(repo, {"LLAMA_CPP_VERSION": "b9452\n", "llama/server/CMakePresets.json": json.dumps(SERVER_PRESETS)},
            "runner: llama-server", "v0.30.0")
    _commit(repo, {"README.md": "x"}, "docs", "v0.5.13")  # before the table's first release: left out
    return str(repo / ".git")


def test_tags_from_0_6_in_order(history: str):
    assert release_tags(history) == ["v0.13.2", "v0.14.0", "v0.30.0"]


def test_a_vendored_commit_and_the_build_its_sync_names(history: str):
    row = release_row(history, "v0.13.2")
    assert row["runner"] == "ollama-engine+llama-runner"
    assert row["llama_cpp"]["build"] == "7108" and row["llama_cpp"]["commit"].startswith("7f8ef50c")
    assert row["ollama_engine_architectures"] == ["gemma3", "gpt-oss", "gptoss"]
    assert row["cuda_presets"] == {"CUDA 12": ["50", "90a", "120"],
                                   "CUDA 13": ["75-virtual", "120-virtual", "121-virtual"]}


def test_the_first_sync_of_a_commit_names_its_build_not_a_revert(history: str):
    assert release_row(history, "v0.14.0")["llama_cpp"]["build"] == "7108"


def test_llama_server_from_llama_cpp_version(history: str):
    row = release_row(history, "v0.30.0")
    assert (row["runner"], row["llama_cpp"]["build"]) == ("llama-server", "9452")
    assert row["ollama_engine_architectures"] == []
    assert row["cuda_presets"] == {"llama_cuda_v13_linux": ["90-virtual", "120-virtual"]}


def test_the_shipped_table_matches_the_source_facts():
    from doctor.engines.llama_cpp.bundles import ollama_release

    assert ollama_release("0.30.0")["llama_cpp"]["build"] == "9452"  # LLAMA_CPP_VERSION @ v0.30.0
    assert ollama_release("0.13.5")["llama_cpp"]["commit"] == "ec98e2002"  # Makefile.sync @ v0.13.5
    assert "gemma4" in ollama_release("0.20.0")["ollama_engine_architectures"]  # fs/ggml/ggml.go @ v0.20.0
    assert ollama_release("0.20.0")["cuda_presets"]["CUDA 12"][-1] == "120"
