"""`diagnose` on logs and pasted reports that name the container image: the image's pins (an NGC release's
vLLM, its CUDA) join the deployment, and the image rules judge it like `lint` does."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from doctor.pipeline.facts import Driver, Facts, Source


def _diagnose(log: str):
    base = Facts(source=Source(kind="live", name="this machine"), driver=Driver(present=False, error="no NVML"))
    return diagnose(io.BufferedReader(io.BytesIO(log.encode())), "t", base, "this machine", {},
                    judge_on_log_only=True)


SMI_570 = ("| NVIDIA-SMI 570.133.07             Driver Version: 570.133.07     CUDA Version: 12.8     |\n"
           "|   0  NVIDIA GeForce RTX 5090        Off |   00000000:01:00.0  On |                  N/A |\n")


def test_an_ngc_image_on_a_cuda_12_driver_pins_vllm_and_is_an_error_on_geforce():
    log = SMI_570 + ("$ docker run --gpus all --rm -p 8000:8000 nvcr.io/nvidia/vllm:26.01-py3 vllm serve "
                     "meta-llama/Llama-3.1-8B-Instruct\n"
                     "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 803: system has unsupported "
                     "display driver / cuda driver combination\n")
    diagnosis = _diagnose(log)
    assert diagnosis.deployment.engine == "vllm"
    assert diagnosis.report.facts.library("vllm").version == "0.11.1"
    assert diagnosis.report.facts.library("flashinfer-python").version == "0.5.2"
    assert "IMG003" in {f.id for f in diagnosis.report.findings}


def test_the_same_image_on_a_580_driver_is_not_flagged():
    log = SMI_570.replace("570.133.07", "580.95.05").replace("CUDA Version: 12.8", "CUDA Version: 13.1")
    log += "docker run --gpus all nvcr.io/nvidia/vllm:26.01-py3 vllm serve meta-llama/Llama-3.1-8B-Instruct\n"
    assert not {"IMG003", "IMG007"} & {f.id for f in _diagnose(log).report.findings}


def test_a_container_runtime_requirement_error_is_explained_by_img003():
    log = ("| NVIDIA-SMI 577.05                 Driver Version: 577.05         CUDA Version: 12.9     |\n"
           "|   0  NVIDIA GeForce RTX 5090      WDDM  |   00000000:01:00.0  On |                  N/A |\n"
           "docker run --gpus all -p 8080:8080 ghcr.io/ggml-org/llama.cpp:server-cuda13 -m /models/m.gguf\n"
           "docker: Error response from daemon: failed to create task for container: nvidia-container-cli: "
           "requirement error: unsatisfied condition: cuda>=13.1, please update your driver to a newer version, "
           "or use an earlier cuda container: unknown.\n")
    diagnosis = _diagnose(log)
    assert diagnosis.explanations and diagnosis.explanations[0].rule == "IMG003", diagnosis.explanations


def test_python_paths_under_site_packages_nvidia_are_no_image():
    log = ("  File \"/usr/local/lib/python3.12/site-packages/nvidia/cuda_runtime/lib/x.py\", line 3\n"
           "ImportError: libcudart.so.13: cannot open shared object file\n")
    diagnosis = _diagnose(log)
    assert diagnosis.deployment.image is None
    assert not {f.id for f in diagnosis.report.findings if f.id.startswith("IMG")}


def test_a_floating_tag_in_a_pasted_command_is_a_warning():
    log = "docker run --runtime nvidia --gpus all vllm/vllm-openai:latest --model meta-llama/Llama-3.1-8B-Instruct\n"
    assert "IMG001" in {f.id for f in _diagnose(log).report.findings}
