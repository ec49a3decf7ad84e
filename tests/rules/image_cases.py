"""Positive and boundary cases for container images (rules/images.toml) and build recipes (BLD010-BLD016): the
image and the recipe are read by lint's own functions (doctor/engines/images.py, doctor/lint/recipes.py) from a
reference and from recipe text as launch files write them, and reach the rules the way `lint` hands them over."""

from __future__ import annotations

from typing import Any

from doctor.engines.images import image_facts
from doctor.lint.recipes import recipe_from_text
from doctor.pipeline.facts import Facts
from tests.rules.builders import Case, build, lib

PRO, R5090, SPARK = "rtx-pro-6000-x8", "rtx-5090", "dgx-spark"


def _recipe(text: str | None, kind: str) -> dict[str, Any] | None:
    return recipe_from_text(text, kind).view() if text else None


def case(rule: str, fires: bool, why: str, profile: str, image: str | None = None, recipe: str | None = None,
         kind: str = "dockerfile", driver: tuple[str, str] | None = None) -> Case:
    def facts() -> Facts:
        variables = (_recipe(recipe, kind) or {}).get("variables") or None
        return build(profile, env=variables, driver=driver[0] if driver else None,
                     cuda_driver=driver[1] if driver else None)

    def launch_file() -> dict[str, Any]:
        return {"image": image_facts(image), "recipe": _recipe(recipe, kind)}

    return Case(rule, fires, facts, (), (), why, launch_file)


def with_nvcc(rule: str, fires: bool, why: str, profile: str, env: dict[str, str], nvcc: str) -> Case:
    """A build on the machine itself: the arch list in its environment, the nvcc the probe found."""
    return Case(rule, fires, lambda: build(profile, env=env, libs=(lib("nvcc", nvcc),)), (), (), why)


def llama_build(base: str, archs: str | None, native: str | None = "OFF") -> str:
    defines = f' -DCMAKE_CUDA_ARCHITECTURES="{archs}"' if archs else ""
    defines += f" -DGGML_NATIVE={native}" if native else ""
    return f"""ARG UBUNTU_VERSION=22.04
FROM {base} AS build
RUN apt-get update && apt-get install -y git cmake build-essential
RUN git clone https://github.com/ggml-org/llama.cpp /src && cd /src && \\
    cmake -B build -DGGML_CUDA=ON{defines} -DLLAMA_CURL=OFF && \\
    cmake --build build --config Release -j"$(nproc)"
FROM nvidia/cuda:12.8.1-runtime-ubuntu22.04
COPY --from=build /src/build/bin/llama-server /usr/local/bin/llama-server
ENTRYPOINT ["llama-server", "--host", "0.0.0.0"]
"""


def torch_build(arch_list: str, base: str) -> str:
    return f"""FROM {base}
ENV TORCH_CUDA_ARCH_LIST="{arch_list}"
RUN pip install --no-build-isolation -e .
"""


def pip_torch(index: str, what: str = "torch==2.7.0 torchvision==0.22.0") -> str:
    return f"""#!/usr/bin/env bash
set -euo pipefail
python3 -m venv .venv && source .venv/bin/activate
pip install {what} --index-url https://download.pytorch.org/whl/{index}
pip install vllm==0.9.2
vllm serve Qwen/Qwen3-8B --max-model-len 8192
"""


CUDA = "nvidia/cuda:{}-devel-ubuntu22.04".format
OLD_DRIVER, CUDA13_DRIVER = ("570.133.07", "12.8"), ("580.65.06", "13.0")

IMAGE_CASES: list[Case] = [
    with_nvcc("BLD010", True, "host nvcc 12.8 and 121a-real", SPARK, {"CMAKE_CUDA_ARCHITECTURES": "121a-real"},
              "12.8.93"),
    with_nvcc("BLD010", False, "host nvcc 12.9 and 121a-real", SPARK, {"CMAKE_CUDA_ARCHITECTURES": "121a-real"},
              "12.9.86"),
    with_nvcc("BLD015", True, "host nvcc 12.8 and TORCH_CUDA_ARCH_LIST 12.1a", SPARK, {"TORCH_CUDA_ARCH_LIST": "12.1a"},
              "12.8.93"),
    with_nvcc("BLD015", False, "host nvcc 13.0 and 12.1a", SPARK, {"TORCH_CUDA_ARCH_LIST": "12.1a"}, "13.0.88"),
    case("IMG001", True, "latest", PRO, "vllm/vllm-openai:latest"),
    case("IMG001", True, "no tag", PRO, "docker.io/lmsysorg/sglang"),
    case("IMG001", True, "device tag spark", SPARK, "lmsysorg/sglang:spark"),
    case("IMG001", False, "release tag", PRO, "vllm/vllm-openai:v0.11.0"),
    case("IMG001", False, "nightly by commit", PRO, "vllm/vllm-openai:nightly-2671fedf"),
    case("IMG001", False, "a dated nightly", PRO, "lmcache/vllm-openai:nightly-2025-06-24"),
    case("IMG001", False, "digest", PRO, "vllm/vllm-openai@sha256:" + "0" * 64),
    case("IMG001", False, "not a GPU stack image", PRO, "ubuntu:latest"),
    case("IMG002", True, "tag states engine and CUDA only", PRO, "lmsysorg/sglang:v0.5.7-cu129"),
    case("IMG002", False, "a release whose wheel the table read", PRO, "lmsysorg/sglang:v0.5.8-cu129"),
    case("IMG002", False, "a tag in the table", PRO, "vllm/vllm-openai:v0.11.0"),
    case("IMG002", False, "NGC release in the table", PRO, "nvcr.io/nvidia/vllm:26.01-py3"),
    case("IMG002", False, "floating is IMG001", PRO, "vllm/vllm-openai:latest"),
    case("IMG003", True, "cu13 wheel image on a 12.8 driver", R5090, "vllm/vllm-openai:v0.20.0", driver=OLD_DRIVER),
    case("IMG003", True, "NGC 26.01 (CUDA 13.1.1)", R5090, "nvcr.io/nvidia/vllm:26.01-py3", driver=OLD_DRIVER),
    case("IMG003", False, "driver with CUDA 13.0", R5090, "vllm/vllm-openai:v0.20.0", driver=CUDA13_DRIVER),
    case("IMG003", False, "the release before: cu12", R5090, "vllm/vllm-openai:v0.19.0", driver=OLD_DRIVER),
    case("IMG003", False, "workstation card: IMG004", PRO, "vllm/vllm-openai:v0.20.0", driver=OLD_DRIVER),
    case("IMG003", True, "llama.cpp server-cuda13 on a 12.9 driver", R5090, "ghcr.io/ggml-org/llama.cpp:server-cuda13",
         driver=("577.05", "12.9")),
    case("IMG003", False, "driver not known", R5090, "vllm/vllm-openai:v0.20.0"),
    case("IMG007", True, "nvidia/cuda 13.1.1 on a 13.0 driver", R5090, "nvidia/cuda:13.1.1-cudnn-runtime-ubuntu24.04",
         driver=CUDA13_DRIVER),
    case("IMG007", False, "nvidia/cuda 13.0.1 on a 13.0 driver", R5090, "nvidia/cuda:13.0.1-runtime-ubuntu24.04",
         driver=CUDA13_DRIVER),
    case("IMG007", False, "another major: IMG003", R5090, "nvidia/cuda:13.1.1-runtime-ubuntu24.04",
         driver=OLD_DRIVER),
    case("IMG007", False, "driver not known", R5090, "nvidia/cuda:13.1.1-runtime-ubuntu24.04"),
    case("IMG004", True, "RTX PRO on a 12.8 driver", PRO, "vllm/vllm-openai:v0.20.0", driver=OLD_DRIVER),
    case("IMG004", False, "RTX PRO on a 580 driver", PRO, "vllm/vllm-openai:v0.20.0", driver=CUDA13_DRIVER),
    case("IMG004", False, "GeForce: IMG003", R5090, "vllm/vllm-openai:v0.20.0", driver=OLD_DRIVER),
    case("IMG005", True, "ollama 0.5.12: CUDA 12.4 build without 120", R5090, "ollama/ollama:0.5.12"),
    case("IMG005", True, "ollama 0.5.12 on GB10", SPARK, "ollama/ollama:0.5.12"),
    case("IMG005", False, "ollama 0.5.13: CUDA 12.8 with 120", R5090, "ollama/ollama:0.5.13"),
    case("IMG006", True, "amd64 tag on DGX Spark", SPARK, "lmsysorg/sglang:v0.5.3-cu129-amd64"),
    case("IMG006", False, "arm64 tag on DGX Spark", SPARK, "lmsysorg/sglang:v0.5.3-cu129-arm64"),
    case("IMG006", False, "amd64 tag on an RTX 5090 host", R5090, "lmsysorg/sglang:v0.5.3-cu129-amd64"),
    case("IMG006", False, "multi-platform tag on DGX Spark", SPARK, "lmsysorg/sglang:v0.5.3-cu129"),
    case("BLD010", True, "CUDA 12.6 builds 120a", R5090, recipe=llama_build(CUDA("12.6.3"), "86;120a-real")),
    case("BLD010", False, "CUDA 12.8 builds 120a", R5090, recipe=llama_build(CUDA("12.8.1"), "86;120a-real")),
    case("BLD010", True, "CUDA 12.8 builds 121a for Spark", SPARK, recipe=llama_build(CUDA("12.8.1"), "121a-real")),
    case("BLD010", False, "CUDA 12.9 builds 121a", SPARK, recipe=llama_build(CUDA("12.9.1"), "121a-real")),
    case("BLD010", True, "CUDA 12.8 and a family target", PRO, recipe=llama_build(CUDA("12.8.1"), "90;120f-real")),
    case("BLD010", False, "CUDA 12.9 and a family target", PRO, recipe=llama_build(CUDA("12.9.1"), "90;120f-real")),
    case("BLD010", False, "no toolkit known", PRO, recipe=llama_build("python:3.12-slim", "90;120f-real")),
    case("BLD010", False, "TORCH_CUDA_ARCH_LIST is BLD015", PRO, recipe=torch_build("9.0;12.0f", CUDA("12.8.1"))),
    case("BLD015", True, "CUDA 12.8 and 12.0f in TORCH_CUDA_ARCH_LIST", PRO,
         recipe=torch_build("9.0;12.0f", CUDA("12.8.1"))),
    case("BLD015", True, "vLLM build arg 12.0 12.1 with CUDA 12.8.1", SPARK,
         recipe=torch_build("12.0 12.1", CUDA("12.8.1"))),
    case("BLD015", False, "CUDA 12.9 and 12.0f", PRO, recipe=torch_build("9.0;12.0f", CUDA("12.9.1"))),
    case("BLD015", False, "CUDA 12.8 and 12.0a", PRO, recipe=torch_build("9.0;12.0a", CUDA("12.8.1"))),
    case("BLD016", True, "llama.cpp default archs with CUDA 12.4", R5090, recipe=llama_build(CUDA("12.4.0"), None)),
    case("BLD016", True, "CUDA 12.6 on GB10", SPARK, recipe=llama_build(CUDA("12.6.3"), None)),
    case("BLD016", False, "CUDA 12.8 default archs", R5090, recipe=llama_build(CUDA("12.8.1"), None)),
    case("BLD016", False, "an SM12x target named: BLD010", R5090, recipe=llama_build(CUDA("12.4.0"), "120a-real")),
    case("BLD016", False, "toolkit not known", R5090, recipe=llama_build("ubuntu:22.04", None)),
    case("BLD011", True, "CUDA 13 with sm_70 in CMake", PRO,
         recipe=llama_build(CUDA("13.0.1"), "70;75;80;86;120a-real")),
    case("BLD011", False, "CUDA 12.9 with sm_70", PRO, recipe=llama_build(CUDA("12.9.1"), "70;75;80;86;120a-real")),
    case("BLD011", False, "CUDA 13 from 75 on", PRO, recipe=llama_build(CUDA("13.0.1"), "75;80;86;120a-real")),
    case("BLD011", False, "TORCH_CUDA_ARCH_LIST is intersected", PRO,
         recipe=torch_build("7.0;7.5;8.0;12.0", CUDA("13.0.1"))),
    case("BLD012", True, "cu126 torch", R5090, recipe=pip_torch("cu126"), kind="shell"),
    case("BLD012", True, "cu124 torch on Spark", SPARK, recipe=pip_torch("cu124", "torch"), kind="shell"),
    case("BLD012", False, "cu128 torch", R5090, recipe=pip_torch("cu128"), kind="shell"),
    case("BLD012", False, "cu126 index for another package", R5090, recipe=pip_torch("cu126", "xformers"),
         kind="shell"),
    case("BLD013", True, "cpu torch", PRO, recipe=pip_torch("cpu"), kind="shell"),
    case("BLD013", False, "cu130 torch", PRO, recipe=pip_torch("cu130"), kind="shell"),
    case("BLD014", True, "native by default in an image", R5090, recipe=llama_build(CUDA("12.8.1"), None, None)),
    case("BLD014", True, "native on, arch list given", R5090, recipe=llama_build(CUDA("12.8.1"), "120a-real", "ON")),
    case("BLD014", False, "native off", R5090, recipe=llama_build(CUDA("12.8.1"), None, "OFF")),
    case("BLD014", False, "a host build script", R5090,
         recipe="cmake -B build -DGGML_CUDA=ON\ncmake --build build -j\n./build/bin/llama-server -m m.gguf\n",
         kind="shell"),
]

