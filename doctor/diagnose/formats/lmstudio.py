"""LM Studio logs and dialogs: the runtime that loaded the model ("CUDA 12 llama.cpp (Windows) v2.27.1", its
extension folder llama.cpp-linux-arm64-nvidia-cuda13@2.8.0 or llm_engine_cuda12.node), the app's release
("LM Studio 0.4.15 (Build 2)"), and its markers: the "Failed to load the model" dialog with its exit code, the
`[LM Studio]` and `[LMSInternal]` prefixes, its AppImage mount and llmworker paths, llmster (its headless
daemon and the build path of its engine) and the `lms` CLI. Its runtimes run llama.cpp (llama_cpp.py reads
llama.cpp's own lines); the runtime's llama.cpp build is not derived (doctor/engines/llama_cpp/lmstudio.py), so
the runtime is recorded as the `lmstudio` package and llama.cpp is the engine, evaluated at each of its releases
unless a `build:` line states it."""

from __future__ import annotations

from typing import Any

from doctor.diagnose.formats.base import LineRule
from doctor.diagnose.logfacts import LogFacts
from doctor.engines.llama_cpp.lmstudio import parse_runtime

FMT = "lmstudio"
PACKAGE = "lmstudio"
ENGINE = "llama.cpp"  # what every LM Studio runtime for NVIDIA GPUs runs


def _seen(line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine(ENGINE, line)


def _runtime(m: Any, line: int, facts: LogFacts) -> None:
    runtime = parse_runtime(m.group(0))
    if runtime is None:
        return
    _seen(line, facts)
    facts.version(PACKAGE, runtime.version, line)
    for key, value in runtime.details().items():
        if value is not None:
            facts.detail(PACKAGE, key, value, line)


def _app(m: Any, line: int, facts: LogFacts) -> None:
    _seen(line, facts)
    facts.detail(PACKAGE, "app_version", m.group("app") + (f" build {m.group('build')}" if m.group("build") else ""),
                 line)


def _marker(_m: Any, line: int, facts: LogFacts) -> None:
    _seen(line, facts)


def _gpu(m: Any, line: int, facts: LogFacts) -> None:
    """`[LM Studio] Live GPU memory info`'s device lines: `GPU 0: NVIDIA GeForce RTX 5090 (Used: 1.68 GB, Total:
    34.19 GB, ...)`, sizes in decimal GB."""
    _seen(line, facts)
    facts.gpu(int(m.group("index")), m.group("name"), None, int(float(m.group("total")) * 1e9 / (1 << 20)), line)


def _survey_gpu(m: Any, line: int, facts: LogFacts) -> None:
    """LM Studio's hardware survey (its runtime JSON, `"gpuInfo": [{"name": "NVIDIA GeForce RTX 5090 Laptop GPU",
    "deviceId": 0, ...`): the GPU's name, one entry per device."""
    _seen(line, facts)
    facts.gpu(len(facts.gpus), m.group("name"), None, None, line)


def _exit_code(m: Any, line: int, facts: LogFacts) -> None:
    """The load dialog's `(Exit code: N)`: LM Studio prints the engine process' status as a float, so a Windows
    NTSTATUS sign-extended to 64 bits (0xC0000409, the abort of a GGML_ABORT or CUDA error) reads
    18446744072635812000; the cause is in the engine's own lines, when the report has them."""
    _seen(line, facts)
    facts.detail(PACKAGE, "logged_exit_code", m.group("code"), line)
    facts.error(line, m.group(0))


RULES = (
    LineRule(FMT, r"(?:CUDA(?: ?1[0-9])?|Vulkan|ROCm|CPU) llama\.cpp \([\w -]{2,30}\)(?: runtime)?,? v?\d+\.\d+\.\d+",
             _runtime),
    LineRule(FMT, r"llama\.cpp-(?:win|linux|mac)-(?:x86_64|arm64)(?:-[a-z0-9]+)*?[-@]\d+\.\d+\.\d+\b", _runtime),
    LineRule(FMT, r"\bLM Studio v?(?P<app>\d+\.\d+(?:\.\d+)?)(?:[ ,(]{1,3}[Bb]uild (?P<build>\d+)\)?)?", _app),
    LineRule(FMT, r"^\s*GPU (?P<index>\d{1,2}): (?P<name>NVIDIA [\w .-]{2,60}?) \(Used: [\d.]+ GB, "
                  r"Total: (?P<total>\d{1,4}(?:\.\d{1,3})?) GB", _gpu, once=False),
    LineRule(FMT, r'^\s*"name": "(?P<name>NVIDIA (?:GeForce |RTX |Tesla |DGX |GB\d|[ABHL]\d)[^"]{1,60})",?\s*$',
             _survey_gpu, once=False),
    LineRule(FMT, r"\(Exit code: (?P<code>-?\d+|null)\)\.?[^\n]{0,120}", _exit_code),
    LineRule(FMT, r"Failed to load the model|\[LM Studio\]|\[LMSInternal\]|Client=LM Studio\]|\bllmster\b|"
                  r"\bllm_engine(?:_cuda\d*)?\.node\b|\.mount_LM-Stu|[\\/]llmworker\b|"
                  r"\.lmstudio[\\/]extensions[\\/]backends|Engine protocol runtime llama-server|"
                  r"\blms (?:load|server start|runtime (?:select|get|ls))\b",
             _marker),
)
