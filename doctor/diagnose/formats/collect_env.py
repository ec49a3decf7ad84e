"""Environment dumps: PyTorch's `collect_env`, `vllm collect-env`, `python -m sglang.check_env`, `pip list` /
`pip freeze` lines, nvidia-smi's banner and GPU rows, PyTorch's capability warnings, environment variables."""

from __future__ import annotations

import re
from typing import Any

from doctor.diagnose.formats.base import VERSION, LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "collect_env"
# pip/conda names → the doctor's library names (doctor/engines/versions.py)
PACKAGES = {"torch": "torch", "vllm": "vllm", "sglang": "sglang", "triton": "triton", "pytorch-triton": "triton",
            "flashinfer-python": "flashinfer-python", "flashinfer": "flashinfer-python",
            "flashinfer-cubin": "flashinfer-cubin", "flashinfer-jit-cache": "flashinfer-jit-cache",
            "sgl-kernel": "sgl-kernel", "sglang-kernel": "sgl-kernel", "tensorrt-llm": "tensorrt-llm",
            "tensorrt_llm": "tensorrt-llm", "transformers": "transformers", "nvidia-nccl-cu12": "nccl",
            "nvidia-nccl-cu13": "nccl", "nvidia-cutlass-dsl": "nvidia-cutlass-dsl", "nvidia-cudnn-cu12": "cudnn",
            "nvidia-cudnn-cu13": "cudnn", "llama-cpp-python": "llama-cpp-python"}
_NAMES = "|".join(sorted((re.escape(n).replace("\\-", "[-_]") for n in PACKAGES), key=len, reverse=True))
ENV_PREFIXES = r"(?:VLLM|SGLANG|SGL|NCCL|CUDA|TORCH|TRITON|FLASHINFER|TRTLLM|TLLM|PYTORCH|CUTE|GGML|OLLAMA)"


def _package(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    name = m.group("pkg").lower().replace("_", "-")
    key = PACKAGES.get(name) or PACKAGES.get(name.replace("-", "_"))
    if key:
        version = m.group("version")
        facts.version(key, version, line)
        if key == "torch":
            _torch_build(version, line, facts)


def _torch_build(version: str, line: int, facts: LogFacts) -> None:
    cu = re.search(r"\+cu(\d+)(\d)$", version)
    if cu:
        facts.detail("torch", "cuda_version", f"{cu.group(1)}.{cu.group(2)}", line)


def _torch_cuda(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.detail("torch", "cuda_version", m.group("version"), line)


def _driver(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.set_once("driver", m.group("version"), line)
    if m.groupdict().get("cuda"):
        facts.set_once("cuda_driver", m.group("cuda"), line)


def _gpu(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.gpu(int(m.group("index")), m.group("name"), None, None, line)


def _smi_gpu(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("nvidia_smi", line)
    facts.gpu(int(m.group("index")), m.group("name"), None, None, line)


def _incompatible(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("torch", line)
    cc = m.group("cc")
    facts.gpu(len(facts.gpus) if m.group("name") not in {g.name for g in facts.gpus.values()} else
              next(g.index for g in facts.gpus.values() if g.name == m.group("name")),
              m.group("name"), f"{cc[:-1]}.{cc[-1]}", None, line)


def _found_gpu(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("torch", line)
    facts.gpu(int(m.group("index")), m.group("name"), m.group("cc"), None, line)


def _supports(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("torch", line)
    facts.detail("torch", "arch_list", m.group("archs").split(), line)


def _env(m: Any, line: int, facts: LogFacts) -> None:
    name, value = m.group("name"), m.group("value").strip("'\"")
    if name not in facts.env:
        from doctor.diagnose.logfacts import Stated

        facts.env[name] = Stated(value, line)


def _nccl_device(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("nccl", line)
    facts.gpu(int(m.group("index")), m.group("name"), None, None, line)


def _nccl_version(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("nccl", line)
    facts.version("nccl", m.group("version"), line)


def _cmake(m: Any, line: int, facts: LogFacts) -> None:
    from doctor.diagnose.logfacts import Stated

    facts.saw("build", line)
    facts.env.setdefault(m.group("name"), Stated(m.group("value"), line))


RULES = (
    LineRule(FMT, r"NCCL version " + VERSION, _nccl_version),
    LineRule(FMT, r"#\s+Rank\s+\d+ .*device\s+(?P<index>\d+) \[[^\]]*\] (?P<name>NVIDIA .+?)\s*$",
             _nccl_device, once=False),
    LineRule(FMT, r"-D(?P<name>CMAKE_CUDA_ARCHITECTURES)=[\"']?(?P<value>[\w;.-]+)", _cmake, once=False),
    LineRule(FMT, r"(?:^|[\s\[(`])(?P<pkg>" + _NAMES + r")(?:\s*==\s*|: |\s+)v?" + VERSION + r"(?:\s|$|\))",
             _package, once=False),
    LineRule(FMT, r"PyTorch version\s*: (?P<pkg>)" + VERSION, lambda m, line, f: _package_named("torch", m, line, f)),
    LineRule(FMT, r"CUDA used to build PyTorch\s*: " + VERSION, _torch_cuda),
    LineRule(FMT, r"(?:Nvidia driver version|Driver Version)\s*: (?P<version>\d+\.\d+(?:\.\d+)?)"
                  r"(?:\s+CUDA Version: (?P<cuda>\d+\.\d+))?", _driver),
    LineRule(FMT, r"(?:^|configuration\s*:\s*)GPU (?P<index>\d+): (?P<name>NVIDIA [^(\n]*?|Tesla [^(\n]*?)"
                  r"\s*(?:\(UUID|$)", _gpu, once=False),
    LineRule(FMT, r"^\|\s+(?P<index>\d+)\s+(?P<name>NVIDIA .+?)\s{2,}(?:On|Off)\s+\|", _smi_gpu, once=False),
    LineRule(FMT, r"(?P<name>NVIDIA [\w -]+?) with CUDA capability sm_(?P<cc>\d+) is not compatible",
             _incompatible, once=False),
    LineRule(FMT, r"Found GPU(?P<index>\d+) (?P<name>.+?) which is of cuda capability (?P<cc>\d+\.\d+)",
             _found_gpu, once=False),
    LineRule(FMT, r"supports CUDA capabilities (?P<archs>(?:sm_\d+\w* ?)+)", _supports),
    LineRule(FMT, r"(?:^|\s|export |-e |ENV |\[)(?P<name>" + ENV_PREFIXES + r"_[A-Z0-9_]+)=(?P<value>[^\s,\]]*)",
             _env, once=False),
)


def _package_named(name: str, m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.version(name, m.group("version"), line)
    if name == "torch":
        _torch_build(m.group("version"), line, facts)
