"""What a llama.cpp log says of the build that wrote it, judged by `diagnose`: the `CUDA : ARCHS` list (LCPP050,
LCPP051) and the unified-memory read on a discrete GPU (LCPP053). The log lines are the reports' own."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from tests.diagnose.corpus import empty_base

# llama.cpp#17536: `llama-server --version` and `--list-devices` on an RTX 5090 (build 7166)
UMA_ON_5090 = b"""version: 7166 (eec1e33a9)
ggml_cuda_init: GGML_CUDA_FORCE_MMQ:    no
ggml_cuda_init: GGML_CUDA_FORCE_CUBLAS: no
ggml_cuda_init: found 1 CUDA devices:
  Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: yes
Available devices:
ggml_backend_cuda_get_available_uma_memory: final available_memory_kb: 56701456
  CUDA0: NVIDIA GeForce RTX 5090 (32106 MiB, 55372 MiB free)
"""


def _findings(log: bytes) -> dict[str, object]:
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "nothing (test)", {})
    return {f.id: f for f in diagnosis.report.findings}


def test_uma_read_on_a_discrete_gpu():
    found = _findings(UMA_ON_5090)
    assert "LCPP053" in found
    assert found["LCPP053"].evidence["llama_cpp.logged_uma_available_gib"] == 54.1


def test_uma_read_on_gb10_is_its_own_path():
    gb10 = UMA_ON_5090.replace(b"NVIDIA GeForce RTX 5090, compute capability 12.0",
                               b"NVIDIA GB10, compute capability 12.1")
    assert "LCPP053" not in _findings(gb10)


def test_archs_below_12x_on_a_5090():
    log = (b"build: 9835 (a4107133a) with MSVC 19.44.35225.0 for x64\n"
           b"  Device 0: NVIDIA GeForce RTX 5090, compute capability 12.0, VMM: yes, VRAM: 32606 MiB\n"
           b"system_info: n_threads = 8 (n_threads_batch = 8) / 16 | CUDA : ARCHS = 500,610,700,750,800,860,890,900 |"
           b" USE_GRAPHS = 1 |\n")
    found = _findings(log)
    assert "LCPP050" in found and "LCPP051" not in found
    assert "LCPP050" not in _findings(log.replace(b"890,900", b"890,900,1200"))


def test_gb10_with_1200_only():
    log = (b"build: 9835 (a4107133a) with GNU 13.3.0 for Linux aarch64\n"
           b"  Device 0: NVIDIA GB10, compute capability 12.1, VMM: yes\n"
           b"system_info: n_threads = 20 | CUDA : ARCHS = 890,1200 | USE_GRAPHS = 1 |\n")
    assert "LCPP051" in _findings(log)
    assert "LCPP051" not in _findings(log.replace(b"890,1200", b"890,1200,1210"))
