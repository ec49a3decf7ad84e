"""LM Studio as a program that runs llama.cpp: its GGUF models load in a versioned "runtime" (an engine extension
pack such as "CUDA 12 llama.cpp (Windows) v2.27.1", installed as ~/.lmstudio/extensions/backends/
llama.cpp-win-x86_64-nvidia-cuda12-avx2-2.27.1 or llama.cpp-linux-arm64-nvidia-cuda13@2.8.0), each built from
some llama.cpp commit. LM Studio is closed source and its runtime release notes do not state that commit: no
public source read for this table (lmstudio-ai's bug tracker, its lms and lmstudio-js repositories, its docs)
maps a runtime version to a llama.cpp build, so every runtime's build is "not derived" and llama.cpp is
evaluated at each of its releases (a finding of only some is at most a warning). What the runtime's name
states (platform, CPU architecture, GPU framework and CUDA major) is read from the name itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from doctor.engines.spi import Engine

RUNS = "llama.cpp"
NOT_DERIVED = ("the llama.cpp build an LM Studio runtime is made from is not derived: no public source maps LM "
               "Studio's runtime versions to llama.cpp builds")

# "CUDA 12 llama.cpp (Windows) v2.27.1", "CUDA llama.cpp (Linux ARM64) v2.8.0", "Vulkan llama.cpp (Windows) v1.52.0"
DISPLAY_NAME = re.compile(r"(?P<framework>CUDA(?: ?(?P<cuda>1[0-9]))?|Vulkan|ROCm|Metal|CPU) llama\.cpp "
                          r"\((?P<platform>[\w -]{2,30})\)(?: runtime)?,? v?(?P<version>\d+\.\d+\.\d+)")
# llama.cpp-win-x86_64-nvidia-cuda12-avx2-2.7.1, llama.cpp-linux-arm64-nvidia-cuda13@2.8.0
FOLDER_NAME = re.compile(r"llama\.cpp-(?P<platform>win|linux|mac)-(?P<cpu>x86_64|arm64)(?P<flavour>(?:-[a-z0-9]+)*?)"
                         r"[-@](?P<version>\d+\.\d+\.\d+)\b")


@dataclass(frozen=True)
class Runtime:
    """What an LM Studio llama.cpp runtime's name states."""

    version: str
    platform: str | None  # Windows | Linux | macOS
    cpu: str | None  # x86_64 | arm64
    framework: str | None  # CUDA | Vulkan | ROCm | Metal | CPU
    cuda_major: int | None  # 12, 13; None when the name does not say

    def details(self) -> dict[str, Any]:
        return {"runtime_version": self.version, "runtime_platform": self.platform, "runtime_cpu": self.cpu,
                "runtime_framework": self.framework, "runtime_cuda_major": self.cuda_major,
                "llama_cpp_build": None, "llama_cpp_build_note": NOT_DERIVED}


def parse_runtime(text: str) -> Runtime | None:
    """The runtime a display name or extension folder names, None for any other text."""
    if (m := DISPLAY_NAME.search(text)) is not None:
        platform = m.group("platform").lower()
        cpu = "arm64" if "arm" in platform else ("x86_64" if "x64" in platform or "windows" in platform else None)
        framework = m.group("framework").split()[0].rstrip("0123456789")
        return Runtime(m.group("version"), _platform(platform), cpu, framework,
                       int(m.group("cuda")) if m.group("cuda") else None)
    if (m := FOLDER_NAME.search(text)) is not None:
        flavour = m.group("flavour")
        cuda = re.search(r"-cuda(\d+)", flavour)
        return Runtime(m.group("version"), _platform(m.group("platform")), m.group("cpu"), _framework(flavour),
                       int(cuda.group(1)) if cuda else None)
    return None


def _platform(text: str) -> str | None:
    for word, name in (("win", "Windows"), ("linux", "Linux"), ("mac", "macOS")):
        if word in text:
            return name
    return None


def _framework(flavour: str) -> str:
    for word, name in (("cuda", "CUDA"), ("vulkan", "Vulkan"), ("rocm", "ROCm"), ("metal", "Metal")):
        if word in flavour:
            return name
    return "CPU"


def runtime_details(version: str) -> dict[str, Any]:
    """What the doctor knows of LM Studio runtime `version` given alone (`--engine lmstudio==2.27.1`): its build
    is not derived; a runtime name (`lmstudio==llama.cpp-linux-arm64-nvidia-cuda13@2.8.0` is no version, so
    only the number reaches here)."""
    return {"runtime_version": version.removeprefix("v"), "llama_cpp_build": None, "llama_cpp_build_note": NOT_DERIVED}


def runtime_note(version: str | None) -> str:
    named = f"LM Studio runtime {version}" if version else "LM Studio (runtime not stated)"
    return (f"{named}: {NOT_DERIVED}; llama.cpp is evaluated at each of its releases (a finding of only some is at "
            f"most a warning). The runtime's llama.cpp build, where known, is stated with --engine llama.cpp==bNNNN")


class LMStudio(Engine):
    """LM Studio as a program that runs llama.cpp in its runtimes: never analysed itself; with no runtime's build
    derived, naming it (with or without a runtime version) evaluates llama.cpp at each of its releases."""

    name = "lmstudio"
    display_name = "LM Studio"
    package = "lmstudio"
    runs_unstated = RUNS  # the engine evaluated, release not stated, where the runtime's build is not derived

    def unstated_releases(self) -> tuple[str, ...]:
        return ()
