"""Python tracebacks and native failures from Triton, PyTorch, FlashInfer, NCCL, ptxas and CUDA: the lines that
say something failed. A log prefix (`(VllmWorker rank=0 pid=1) ERROR 06-20 12:27:37 [file.py:527] `,
`[2025-07-29 15:06:51 TP0] `) is dropped from what is kept."""

from __future__ import annotations

import re
from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts

FMT = "traceback"
PREFIX = re.compile(
    r"^(?:\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z?\s+)?"  # `docker logs --timestamps`
    r"(?:\((?:\w+)(?: rank=\d+)? pid=\d+(?:, ip=[\w.:-]+)?\)\s*)?"  # a vLLM process, or a Ray actor with its node
    r"(?:(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \[[^\]]*\]\s*)?"
    r"(?:\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d[^\]]*\]\s*)?")
MAX_SHOWN = 400  # characters of an error line kept for the report


def strip_prefix(text: str) -> str:
    return PREFIX.sub("", text, count=1).strip()


def _error(_m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.error(line, strip_prefix(_m.string)[:MAX_SHOWN])


def _logged(_m: Any, line: int, facts: LogFacts) -> None:
    """An engine's ERROR or WARNING line, prefix kept (its level and file): what the raise-site tables may name the
    source of."""
    facts.logged_line(line, _m.string[:MAX_SHOWN])


def _ptxas_arch(m: Any, line: int, facts: LogFacts) -> None:
    """ptxas assembles for the GPU Triton found: its --gpu-name is that GPU's capability."""
    facts.saw(FMT, line)
    sm = m.group("sm")
    facts.set_once("capability", f"{sm[:-1]}.{sm[-1]}", line)


# An exception line (`pkg.mod.SomeError: message`, `OutOfResources: ...`) or a native failure.
ERROR = (r"(?:^|[\s:'\"(])(?:[A-Za-z_]\w*\.)*\w*(?:Error|Exception|OutOfResources)(?::|$)"
         r"|CUDA error|NCCL error|NCCL WARN|ncclUnhandled|ncclInternalError|ncclSystemError|ptxas (?:fatal|error)"
         r"|nvcc fatal|Segmentation fault|core dumped|terminate called after throwing|Assertion .{0,200} failed"
         r"|Assertion failed\b|\[E\] (?:\[TRT\] )?(?:\d+: )?(?:Error\[\d+\]|\[)|Error Code \d+:"
         r"|GGML_ASSERT|ggml_cuda_compute_forward: \w+ failed|Unsupported SM version|Fatal Python error"
         r"|\[TensorRT-LLM\]\[ERROR\]|\[TRT-LLM\] \[E\]"
         r"|failed to initialize CUDA|not supported on \.target|Unknown CUDA Architecture Name|CMake Error"
         r"|cudaErrorNoKernelImageForDevice|CUBLAS_STATUS_\w+|CUDNN_STATUS_\w+"
         r"|\bKilled\b|Engine core initialization failed|EngineCore failed to start|Scheduler hit an exception"
         r"|no kernel image is available for execution|CUDA_ERROR_[A-Z_]{4,}|Arch conditional MMA instruction used"
         r"|NVRM: Xid ")

# A logging line at ERROR or WARNING level (vLLM's `WARNING 06-20 12:27:37 [file.py:527]`, Python's `WARNING:name:`)
LOGGED = r"(?:^|[\s(\]])(?:ERROR|WARNING)(?: \d\d-\d\d \d\d:|:[\w.]*:| \[|\]| -)"

# The capability an arch-gate message names, as SM digits (90, 100, 120)
ARCH_GATE_CAPABILITY = (r"(?:device compute capability is|does not support backend '\w+' with capability"
                        r"|does not support compute capability|requires SM1\d\d[^,\n]{0,30},? got SM"
                        r"|Unsupported compute capability:|CUDA device capability:|No compiled [\w+ -]{1,60} for SM"
                        r"|expects arch to be one of \[[^\]]*\], but got (?:Arch\.)?sm_)"
                        r" ?(?P<sm>[89]\d|1[0-2]\d)(?:[af]\b|\b)")


def _gpu_mentioned(m: Any, line: int, facts: LogFacts) -> None:
    facts.set_once("gpu_mentioned", m.group(0), line)


# Any line that shows the log comes from a machine with an NVIDIA GPU (even one no parser reads whole)
GPU_MENTION = (r"NVIDIA (?:GeForce|RTX|GB\d|[A-H]\d)|GeForce|RTX ?(?:PRO )?\d{4}|\bGB10\b|DGX Spark"
               r"|[Cc]apability:? (?:sm_)?\d+\.?\d|device sm_\d+|\bsm_12[01][af]?\b")

RULES = (
    LineRule(FMT, GPU_MENTION, _gpu_mentioned),
    LineRule(FMT, r"Value 'sm_(?P<sm>1[0-2]\d)[af]?' is not defined for option 'gpu-name'", _ptxas_arch),
    LineRule(FMT, r"ptxas\S* .*--gpu-name=sm_(?P<sm>1[0-2]\d)[af]?\b", _ptxas_arch),
    # a build log: ptxas rejects an instruction for the target the user builds for, their GPU's
    LineRule(FMT, r"not supported on \.target 'sm_(?P<sm>12\d)[af]?'", _ptxas_arch),
    # Triton's compile target, printed with its errors: the GPU it compiled for
    LineRule(FMT, r"GPUTarget\(backend=.cuda., arch=(?P<sm>1[0-2]\d)\b", _ptxas_arch),
    # a kernel library's arch gate naming the device it refused (rules/arch_gates.toml): FlashInfer's
    # `with capability 120` / `got SM121`, the TensorRT-LLM DeepGEMM JIT's `current device compute capability is 120`
    LineRule(FMT, ARCH_GATE_CAPABILITY, _ptxas_arch),
    LineRule(FMT, ERROR, _error, once=False),
    LineRule(FMT, LOGGED, _logged, once=False),
)
