"""A log that shows native Windows (a drive-letter path to a program's files, a `.dll` CUDA backend, a Windows
exception status) says the host runs Windows, whatever the base profile says; a WSL2 log stays WSL2's."""

from __future__ import annotations

import io

import pytest

from doctor.diagnose.diagnosis import diagnose
from doctor.hardware import load_profile
from tests.diagnose.corpus import LOGS


def _host(text: bytes):
    base = load_profile("rtx-5090")  # a Linux profile
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(text)), "t", base, "profile rtx-5090", {})
    return diagnosis.report.facts.host


@pytest.mark.parametrize("line", [
    rb"load_backend: loaded CUDA backend from C:\Users\USER\AppData\Local\Programs\Ollama\lib\ollama\cuda_v13"
    rb"\ggml-cuda.dll",
    rb"C:\a\ollama\ollama\build\llama-server-cuda_v13\_deps\llama_cpp-src\ggml\src\ggml-cuda\ggml-cuda.cu:108: "
    rb"CUDA error",
    b'time=2026-03-11T17:42:09.504-04:00 level=ERROR source=server.go:304 msg="llama runner terminated" '
    b'error="exit status 0xc0000409"',
])
def test_windows_lines(line: bytes):
    assert _host(line + b"\n").os == "Windows"


@pytest.mark.parametrize("line", [
    b"/build/llama-server-cuda_v13/_deps/llama_cpp-src/ggml/src/ggml-cuda/ggml-cuda.cu:106: CUDA error",
    b"llama runner terminated: exit status 2",
    b"Linux version 6.6.87.2-microsoft-standard-WSL2 (root@439a258ad544) C:\\Users\\me\\model.gguf",
])
def test_not_windows(line: bytes):
    assert _host(line + b"\n").os == "Linux"


def test_the_18232_log_confirms_lcpp042_on_a_linux_profile():
    text = (LOGS / "ollama-18232-5060ti-fattn-shared-object.log").read_bytes()
    base = load_profile("rtx-5090")
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(text)), "t", base, "profile rtx-5090", {})
    assert diagnosis.explanations[0].rule == "LCPP042" and diagnosis.report.facts.host.os == "Windows"
