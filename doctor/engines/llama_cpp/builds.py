"""The cmake line that builds llama.cpp right for the GPU, and the lowest CUDA toolkit that can (finding and
reading an installed build is the probe's: doctor/probe/llama_cpp.py)."""

from __future__ import annotations

# Lowest toolkit that can emit each arch: sm_120/120a came with CUDA 12.8, sm_121/121a and `f` targets 12.9
# (NVIDIA CUDA 12.8 and 12.9 release notes).
MIN_TOOLKIT = {"120": "12.8", "120a": "12.8", "121": "12.9", "121a": "12.9", "120f": "12.9", "121f": "12.9"}


def arch_target(capability: tuple[int, int]) -> str:
    """The CMAKE_CUDA_ARCHITECTURES entry for a GPU: arch-specific `a` for 12.x (block-scaled MMA)."""
    major, minor = capability
    return f"{major}{minor}a-real" if major == 12 else f"{major}{minor}-real"


def cmake_line(capabilities: list[tuple[int, int]]) -> str:
    archs = ";".join(dict.fromkeys(arch_target(c) for c in capabilities)) or "120a-real"
    quoted = f'"{archs}"' if ";" in archs else archs
    return (f"cmake -B build -DGGML_CUDA=ON -DGGML_NATIVE=OFF -DCMAKE_CUDA_ARCHITECTURES={quoted} && "
            f"cmake --build build --config Release -j --target llama-server")


def min_toolkit(capabilities: list[tuple[int, int]]) -> str:
    needed = [MIN_TOOLKIT.get(arch_target(c).removesuffix("-real"), "12.8") for c in capabilities]
    return max(needed, key=lambda v: tuple(int(p) for p in v.split(".")), default="12.8")

