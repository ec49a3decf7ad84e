"""The signatures of rules/fixpr_lcpp.toml on the lines the code prints. Ollama logs `msg="server config"
env="map[...]"` (server/routes.go, envconfig.Values()) and, when discovery finds no GPU, one `msg="inference
compute" id=cpu library=cpu ...` line (discover/types.go LogDetails, v0.12.4 to v0.33.0-rc2); no public log of
an OLLAMA_LLM_LIBRARY that names no runner directory was found, so these lines are the source's format, not a
report's. ggml-cuda's MMQ abort is `mmq_x_best=0` (b8390) or `J_best=0` (b10001 on), then `mmq.cuh:N: fatal error`."""

from __future__ import annotations

from tests.diagnose.corpus import diagnose_text, profile_base, rules_named

CONFIG = ('time=2025-11-14T09:12:03.101Z level=INFO source=routes.go:1544 msg="server config" '
          'env="map[CUDA_VISIBLE_DEVICES: GPU_DEVICE_ORDINAL: HIP_VISIBLE_DEVICES: OLLAMA_CONTEXT_LENGTH:4096 '
          'OLLAMA_DEBUG:INFO '
          'OLLAMA_FLASH_ATTENTION:false OLLAMA_HOST:http://0.0.0.0:11434 OLLAMA_KEEP_ALIVE:5m0s '
          'OLLAMA_LLM_LIBRARY:{library} OLLAMA_LOAD_TIMEOUT:5m0s OLLAMA_MAX_LOADED_MODELS:0 '
          'OLLAMA_MODELS:/root/.ollama/models ROCR_VISIBLE_DEVICES:]"\n')
LISTENING = ('time=2025-11-14T09:12:03.104Z level=INFO source=routes.go:1597 msg="Listening on [::]:11434 '
             '(version {version})"\n')
DISCOVERY = 'time=2025-11-14T09:12:03.105Z level=INFO source=runner.go:67 msg="discovering available GPUs..."\n'
CPU_ONLY = ('time=2025-11-14T09:12:03.588Z level=INFO source=types.go:60 msg="inference compute" id=cpu library=cpu '
            'compute="" name=cpu description=cpu libdirs=ollama driver="" pci_id="" type="" total="119.7 GiB" '
            'available="112.4 GiB"\n')
ON_GPU = ('time=2025-11-14T09:12:03.588Z level=INFO source=types.go:42 msg="inference compute" '
          'id=GPU-6a1f0c3e-0000-0000-0000-000000000000 filter_id="" library=CUDA compute=12.1 name=CUDA0 '
          'description="NVIDIA GB10" libdirs=ollama,cuda_v13 driver=13.0 pci_id=000f:01:00.0 type=iGPU '
          'total="119.7 GiB" available="112.4 GiB"\n')


def ollama_log(library: str, version: str = "0.12.11", compute: str = CPU_ONLY) -> str:
    return CONFIG.format(library=library) + LISTENING.format(version=version) + DISCOVERY + compute


def test_a_library_name_no_runner_has_with_a_cpu_only_discovery_is_oll060s():
    assert "OLL060" in rules_named(diagnose_text(ollama_log("cuda")))
    assert "OLL060" in rules_named(diagnose_text(ollama_log("cuda_v12.4", "0.33.0")))


def test_a_runner_directorys_name_is_not_claimed():
    for library in ("cuda_v13", "cuda_v12", "vulkan", "cpu", ""):
        assert "OLL060" not in rules_named(diagnose_text(ollama_log(library)))


def test_a_gpu_that_was_discovered_is_not_claimed():
    assert "OLL060" not in rules_named(diagnose_text(ollama_log("cuda", compute=ON_GPU)))


def test_before_0_12_4_ollama_ignored_the_value():
    assert "OLL060" not in rules_named(diagnose_text(ollama_log("cuda", "0.12.3")))
    assert "OLL060" not in rules_named(diagnose_text(ollama_log("cuda", "0.9.6")))


def test_on_a_stated_gb10_the_log_confirms_it():
    diagnosis = diagnose_text(ollama_log("cuda"), profile_base("dgx-spark"))
    assert rules_named(diagnosis)[:1] == ["OLL060"]


def test_the_mmq_abort_on_both_spellings_is_lcpp100s():
    for variable in ("mmq_x_best", "J_best"):
        log = f"{variable}=0\n/src/llama.cpp/ggml/src/ggml-cuda/template-instances/../mmq.cuh:1562: fatal error\n"
        assert rules_named(diagnose_text(log))[:1] == ["LCPP100"]


def test_the_mmq_abort_beside_an_older_gpu_is_not_claimed():
    log = ("ggml_cuda_init: found 1 CUDA devices:\n"
           "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
           "J_best=0\n/src/llama.cpp/ggml/src/ggml-cuda/template-instances/../mmq.cuh:1562: fatal error\n")
    assert "LCPP100" not in rules_named(diagnose_text(log))


def test_the_mmq_abort_in_ollamas_journal_is_lcpp100s():
    """Ollama's runner prints ggml's lines into the journal (`ollama[PID]: ` prefixes, ollama#14188's shape)."""
    log = ("Feb 10 06:52:34 ollama ollama[5962]: J_best=0\n"
           "Feb 10 06:52:34 ollama ollama[5962]: /go/src/github.com/ollama/ollama/ml/backend/ggml/ggml/src/ggml-cuda/"
           "template-instances/../mmq.cuh:1562: fatal error\n")
    assert rules_named(diagnose_text(log))[:1] == ["LCPP100"]
