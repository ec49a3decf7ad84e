"""Package versions: the names packages are filed under, parsing, and the release a version behaves as (an
`--engine NAME==VERSION` spec, which may name any registered engine, is read by doctor/engines/registry.py)."""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from doctor.pipeline.facts import Library

KNOWN_PACKAGES = {
    "sglang": "sglang", "vllm": "vllm", "triton": "triton", "torch": "torch",
    "tensorrt-llm": "tensorrt-llm", "tensorrt_llm": "tensorrt-llm", "trtllm": "tensorrt-llm",
    "flashinfer": "flashinfer-python", "flashinfer-python": "flashinfer-python",
    "flashinfer-cubin": "flashinfer-cubin", "sgl-kernel": "sgl-kernel",
    "nvidia-cutlass-dsl": "nvidia-cutlass-dsl", "cutlass-dsl": "nvidia-cutlass-dsl",
    "transformers": "transformers", "cudnn": "cudnn", "nvidia-cudnn-cu12": "cudnn", "nvidia-cudnn-cu13": "cudnn",
    "llama.cpp": "llama.cpp", "llama-cpp": "llama.cpp",
    "nvcc": "nvcc", "cuda-toolkit": "nvcc", "flashinfer-jit-cache": "flashinfer-jit-cache",
    "nccl": "nccl", "nvidia-nccl-cu12": "nccl", "nvidia-nccl-cu13": "nccl", "sglang-kernel": "sgl-kernel",
    "sgl-deep-gemm": "sgl-deep-gemm", "ollama": "ollama", "lmdeploy": "lmdeploy",
    "lmstudio": "lmstudio", "lm-studio": "lmstudio", "lm_studio": "lmstudio", "llmster": "lmstudio",
    "llama-cpp-python": "llama-cpp-python", "llama_cpp_python": "llama-cpp-python",
    "flash-attn-4": "flash-attn-4", "flash_attn_4": "flash-attn-4", "fa4": "flash-attn-4",
    "humming-kernels": "humming-kernels", "humming_kernels": "humming-kernels", "humming": "humming-kernels",
    # packages the rules read beside an engine (LMCache's wheel archs, bitsandbytes' CUDA builds, a DeepGEMM or
    # b12x built beside vLLM, Ray for its executor), so a what-if can state them as a probe would find them
    "lmcache": "lmcache", "bitsandbytes": "bitsandbytes", "deep-gemm": "deep-gemm", "deep_gemm": "deep-gemm",
    "b12x": "b12x", "ray": "ray",
}


def version_of(library: Library | None) -> Version | None:
    if library is None:
        return None
    try:
        return Version(library.version)
    except InvalidVersion:
        return None


def minor_release(text: str) -> tuple[int, int] | None:
    """(major, minor) of a version string (`2.9.1+cu130` -> (2, 9)); None where it has no minor or does not parse.
    Torch builds break their C++ ABI between minor releases, so kernels and torch are compared at this depth."""
    try:
        parts = Version(text).release
    except InvalidVersion:
        return None
    return (parts[0], parts[1]) if len(parts) >= 2 else None


def release(version: Version) -> Version:
    """0.5.8.post1 and 0.5.10rc0 behave like their release for feature gates: compare on the release."""
    return Version(".".join(str(p) for p in version.release))
