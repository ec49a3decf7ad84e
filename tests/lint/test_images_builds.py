"""`lint` on launch files that name container images and carry build recipes: the image's pins and the recipe's
arch lists, toolkit and torch index reach the rules at the launch they belong to."""

from __future__ import annotations

from pathlib import Path

from doctor.lint.analyse import LintRequest, lint


def _lint(tmp_path: Path, name: str, text: str, hardware: str = "rtx-5090", engines: tuple[str, ...] = ()):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = lint(LintRequest(paths=[path], hardware=hardware, engines=engines, offline=True))
    assert not result.problems, result.problems
    return result.targets


def _ids(target) -> set[str]:
    return {f.id for f in target.report.findings}


COMPOSE = """services:
  vllm:
    image: vllm/vllm-openai:latest
    ipc: host
    command: ["--model", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192"]
  ngc:
    image: nvcr.io/nvidia/vllm:26.01-py3
    command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
"""


def test_compose_images_float_or_pin_their_stack(tmp_path):
    latest, ngc = _lint(tmp_path, "docker-compose.yml", COMPOSE, hardware="rtx-pro-6000-x8")
    assert "IMG001" in _ids(latest) and latest.launch["image"]["floating"] is True
    assert "IMG001" not in _ids(ngc)
    assert ngc.launch["version"] == "0.11.1" and ngc.launch["image"]["cuda"] == "13.1.1"
    flashinfer = ngc.report.facts.library("flashinfer-python")
    assert flashinfer is not None and flashinfer.version == "0.5.2" and flashinfer.what_if


KUBE = """apiVersion: apps/v1
kind: Deployment
metadata: {name: sglang}
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.3-cu129-amd64
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "meta-llama/Llama-3.1-8B-Instruct", "--tp", "1"]
"""


def test_a_platform_tag_on_dgx_spark_is_an_error_at_the_container(tmp_path):
    (target,) = _lint(tmp_path, "deploy.yaml", KUBE, hardware="dgx-spark")
    assert {"IMG006", "IMG002"} <= _ids(target)
    assert target.launch["version"] == "0.5.3" and target.launch["image"]["cuda"] == "12.9"
    (on_5090,) = _lint(tmp_path, "deploy.yaml", KUBE, hardware="rtx-5090")
    assert "IMG006" not in _ids(on_5090)


LLAMA_BUILD = """ARG CUDA_VERSION={cuda}
FROM nvidia/cuda:${{CUDA_VERSION}}-devel-ubuntu22.04 AS build
RUN apt-get update && apt-get install -y git cmake build-essential
RUN git clone https://github.com/ggml-org/llama.cpp /src && cd /src && \\
    cmake -B build -DGGML_CUDA=ON {flags} && \\
    cmake --build build -j"$(nproc)"
FROM nvidia/cuda:${{CUDA_VERSION}}-runtime-ubuntu22.04
COPY --from=build /src/build/bin/llama-server /usr/local/bin/llama-server
ENTRYPOINT ["llama-server", "--host", "0.0.0.0", "-ngl", "99"]
"""


def test_a_dockerfile_build_for_120_with_cuda_12_6_fails_and_native_warns(tmp_path):
    text = LLAMA_BUILD.format(cuda="12.6.3", flags='-DCMAKE_CUDA_ARCHITECTURES="86;120"')
    (target,) = _lint(tmp_path, "Dockerfile", text)
    ids = _ids(target)
    assert {"BLD010", "BLD014", "BLD002"} <= ids, ids
    assert target.report.facts.env["CMAKE_CUDA_ARCHITECTURES"] == "86;120"
    bld010 = next(f for f in target.report.findings if f.id == "BLD010")
    assert "FROM nvidia/cuda:12.6.3-devel-ubuntu22.04 (line 2)" in bld010.message


def test_the_same_build_with_cuda_12_8_and_native_off_is_clean(tmp_path):
    text = LLAMA_BUILD.format(cuda="12.8.1", flags='-DGGML_NATIVE=OFF -DCMAKE_CUDA_ARCHITECTURES="86;120a-real"')
    (target,) = _lint(tmp_path, "Dockerfile", text)
    assert not {"BLD010", "BLD014", "BLD002", "BLD016"} & _ids(target)


def test_llama_cpp_default_archs_with_cuda_12_4_reach_sm120_by_ptx_only(tmp_path):
    (target,) = _lint(tmp_path, "Dockerfile", LLAMA_BUILD.format(cuda="12.4.0", flags="-DGGML_NATIVE=OFF"))
    assert "BLD016" in _ids(target) and "BLD010" not in _ids(target)


SCRIPT = """#!/usr/bin/env bash
set -euo pipefail
pip install torch==2.7.0 --index-url https://download.pytorch.org/whl/cu126
pip install vllm==0.10.1
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192
"""


def test_a_script_installing_torch_from_cu126_is_an_error_on_sm120(tmp_path):
    (target,) = _lint(tmp_path, "serve.sh", SCRIPT)
    assert "BLD012" in _ids(target) and target.launch["version"] == "0.10.1"
    (cu128,) = _lint(tmp_path, "serve.sh", SCRIPT.replace("cu126", "cu128"))
    assert "BLD012" not in _ids(cu128)
    (hopper,) = _lint(tmp_path, "serve.sh", SCRIPT, hardware="h100-sxm-x8")
    assert "BLD012" not in _ids(hopper)


def test_a_llama_cpp_image_build_number_pins_the_engine(tmp_path):
    run = "docker run --gpus all ghcr.io/ggml-org/llama.cpp:server-cuda-b7551 llama-server --port 8080\n"
    (target,) = _lint(tmp_path, "run.sh", run)
    assert target.launch["version"] == "7551", target.launch
    assert target.launch["image"]["floating"] is False


def test_a_docker_run_of_an_unknown_image_is_left_alone(tmp_path):
    run = "docker run --gpus all myorg/tools:1.0 vllm serve meta-llama/Llama-3.1-8B-Instruct\n"
    (target,) = _lint(tmp_path, "run.sh", run, engines=("vllm==0.11.0",))
    assert target.launch["image"] is None
    assert not {f.id for f in target.report.findings if f.id.startswith("IMG")}


PYTORCH_BASE = """FROM pytorch/pytorch:{tag}
RUN pip install vllm==0.10.1
CMD ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
"""


def test_an_official_pytorch_base_image_pins_its_torch_build(tmp_path):
    (old,) = _lint(tmp_path, "Dockerfile", PYTORCH_BASE.format(tag="2.5.1-cuda12.4-cudnn9-runtime"))
    torch = old.report.facts.library("torch")
    assert torch is not None and torch.version == "2.5.1+cu124" and torch.what_if
    assert {"TORCH001", "TORCH002"} <= _ids(old)
    (new,) = _lint(tmp_path, "Dockerfile", PYTORCH_BASE.format(tag="2.7.0-cuda12.8-cudnn9-runtime"))
    assert not {"TORCH001", "TORCH002"} & _ids(new)


BUILD_AND_RUN = """#!/bin/bash
DOCKER_BUILDKIT=1 sudo docker build . --target vllm-openai --tag myvllm --file docker/Dockerfile \\
  --build-arg max_jobs=4 --build-arg torch_cuda_arch_list="{archs}" --build-arg RUN_WHEEL_CHECK=false
sudo docker run --runtime nvidia --gpus all myvllm vllm serve meta-llama/Llama-3.1-8B-Instruct
"""


def test_a_docker_build_argument_is_the_arch_list_of_the_image_the_script_runs(tmp_path):
    (target,) = _lint(tmp_path, "build.sh", BUILD_AND_RUN.format(archs="7.0 7.5 8.0 8.6 8.9 9.0+PTX"),
                      engines=("vllm==0.9.2",))
    assert "BLD003" in _ids(target)
    assert target.report.facts.env["TORCH_CUDA_ARCH_LIST"] == "7.0 7.5 8.0 8.6 8.9 9.0+PTX"
    (with_120,) = _lint(tmp_path, "build.sh", BUILD_AND_RUN.format(archs="8.9 9.0 12.0"), engines=("vllm==0.9.2",))
    assert not {"BLD001", "BLD003"} & _ids(with_120)


def test_an_sglang_release_image_brings_the_flashinfer_its_wheel_pins(tmp_path):
    compose = ("services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.8-cu130\n"
               "    command: python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct\n")
    (target,) = _lint(tmp_path, "compose.yaml", compose, hardware="dgx-spark")
    assert target.launch["version"] == "0.5.8" and target.launch["image"]["cuda"] == "13.0"
    assert target.report.facts.library("flashinfer-python").version == "0.6.1"
    assert "IMG002" not in _ids(target)


COMPOSE_BUILD = """services:
  vllm:
    build:
      context: .
      dockerfile: docker/Dockerfile
      args:
        torch_cuda_arch_list: "{archs}"
    command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
"""


def test_compose_build_args_are_the_arch_list_of_the_image_the_service_builds(tmp_path):
    (target,) = _lint(tmp_path, "compose.yml", COMPOSE_BUILD.format(archs="8.0 8.6 8.9 9.0+PTX"),
                      engines=("vllm==0.10.1",))
    assert "BLD003" in _ids(target) and target.launch["recipe"]["lines"]["TORCH_CUDA_ARCH_LIST"] == 7
    (with_120,) = _lint(tmp_path, "compose.yml", COMPOSE_BUILD.format(archs="8.9 9.0 12.0"), engines=("vllm==0.10.1",))
    assert not {"BLD001", "BLD003"} & _ids(with_120)


def test_a_container_command_script_that_installs_cu126_torch_is_read(tmp_path):
    compose = ('services:\n  vllm:\n    image: python:3.12\n    command: bash -c "pip install torch==2.7.0 '
               '--index-url https://download.pytorch.org/whl/cu126 && pip install vllm==0.9.2 && '
               'vllm serve meta-llama/Llama-3.1-8B-Instruct"\n')
    (target,) = _lint(tmp_path, "compose.yml", compose)
    assert "BLD012" in _ids(target) and target.launch["version"] == "0.9.2"
