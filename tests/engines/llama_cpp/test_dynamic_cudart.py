"""A llama.cpp install shaped like the normal build: `libggml-cuda.so` linked against libcudart dynamically
(`-cudart shared`, a DT_NEEDED libcudart.so.N), next to a `llama-server` that answers `--version`, checked
through the CLI. The cudart major is read from the library while its mapping is open."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from doctor.probe.llama_cpp import ENV, find_build
from tests.conftest import cli_env
from tests.engines.llama_cpp.gguf_files import fixture
from tests.engines.llama_cpp.test_builds import KERNEL, NVCC

pytestmark = [pytest.mark.slow, pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")]


@pytest.fixture(scope="module")
def install(tmp_path_factory) -> Path:
    """bin/llama-server + bin/libggml-cuda.so (sm_120a, libcudart linked dynamically), as a release archive."""
    root = tmp_path_factory.mktemp("llama-dynamic-cudart")
    source = root / "k.cu"
    source.write_text(KERNEL)
    folder = root / "bin"
    folder.mkdir()
    library = folder / "libggml-cuda.so"
    subprocess.run([str(NVCC), "-shared", "-Xcompiler", "-fPIC", "-cudart", "shared",
                    "-gencode", "arch=compute_120a,code=sm_120a", str(source), "-o", str(library)],
                   check=True, capture_output=True, timeout=300)
    server = folder / "llama-server"
    server.write_text("#!/bin/sh\n[ \"$1\" = --version ] && echo 'version: 7551 (a52dc60)' >&2\nexit 0\n")
    server.chmod(0o755)
    return folder


def needed_cudart(library: Path) -> int:
    """The libcudart.so.N the dynamic linker would load for it (readelf's NEEDED entries)."""
    dynamic = subprocess.run(["readelf", "-d", str(library)], capture_output=True, text=True, check=True).stdout
    line = next(line for line in dynamic.splitlines() if "NEEDED" in line and "libcudart.so." in line)
    return int(line.split("libcudart.so.")[1].split("]")[0])


def test_the_library_really_links_cudart_dynamically(install: Path):
    found = find_build({ENV: str(install)})
    assert found is not None and found.cudart_major == needed_cudart(install / "libggml-cuda.so")
    assert found.sass == ("sm_120a",) and found.build == "7551"


def test_check_through_the_cli_reads_the_build(install: Path):
    result = subprocess.run([sys.executable, "-m", "doctor", "check", str(fixture("tiny")), "--hardware", "rtx-5090",
                             "--format", "json"], capture_output=True, text=True, timeout=120,
                            env=cli_env(**{ENV: str(install)}))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["analysis"]["engine_version"] == "7551"
    library = report["facts"]["libraries"]["llama.cpp"]["details"]
    assert library["cudart_major"] == needed_cudart(install / "libggml-cuda.so")
    assert library["cuda_archs"] == ["sm_120a"]
    assert not {"LCPP001", "LCPP002", "LCPP004", "LCPP005"} & {f["id"] for f in report["findings"]}
