"""llama.cpp logs (llama-server, llama-cli, and Ollama's runner): `ggml_cuda_init` device lines with the compute
capability, the `build:` / `version:` line, `system_info` with the CUDA archs it was built for, and the free
memory ggml-cuda read from /proc/meminfo when it took its unified-memory path."""

from __future__ import annotations

from typing import Any

from doctor.engines.spi import LineRule, LogFacts, hint

FMT = "llama_cpp"


def _device(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("llama.cpp", line)
    mib = m.group("mib")
    facts.gpu(int(m.group("index")), m.group("name"), m.group("cc"), int(mib) if mib else None, line)


def _build(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("llama.cpp", line)
    facts.version("llama.cpp", m.group("build"), line)
    facts.detail("llama.cpp", "commit", m.group("commit"), line)


def _archs(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.hint_engine("llama.cpp", line)
    facts.detail("llama.cpp", "logged_cuda_archs", [a for a in m.group("archs").split(",") if a], line)


def _uma_probe(m: Any, line: int, facts: LogFacts) -> None:
    """ggml-cuda read the device's free memory from /proc/meminfo (its unified-memory path), as it logs."""
    facts.saw(FMT, line)
    facts.hint_engine("llama.cpp", line)
    facts.detail("llama.cpp", "logged_uma_available_kb", int(m.group("kb")), line)


def _failure(m: Any, line: int, facts: LogFacts) -> None:
    """What ggml-cuda's abort names: the op `ggml_cuda_compute_forward` failed on, the CUDA error text and the
    function it was raised in (the first of each: later lines are the aftermath). Only the op line is ggml's
    own: a bare `CUDA error:` line names no engine (torch prints it too)."""
    if m.group("op"):
        facts.saw(FMT, line)
        facts.hint_engine("llama.cpp", line)
    for group, key in (("op", "logged_failed_op"), ("error", "logged_cuda_error"),
                       ("function", "logged_cuda_error_function")):
        if m.group(group):
            facts.detail("llama.cpp", key, m.group(group).strip(), line)


def _mmq_no_tile(m: Any, line: int, facts: LogFacts) -> None:
    """MMQ found no tile within the shared-memory ceiling ggml-cuda read (`mmq_x_best=0`, `J_best=0` from
    b10001) and aborted: every MMQ tile fits SM12x's 99 KiB, so the ceiling itself was read wrong."""
    facts.saw(FMT, line)
    facts.hint_engine("llama.cpp", line)
    facts.detail("llama.cpp", "logged_mmq_no_tile", m.group("var"), line)
    facts.error(line, m.group(0))


def _unknown_arch(m: Any, line: int, facts: LogFacts) -> None:
    """llama.cpp refused the GGUF's `general.architecture` (llama_model_create; Ollama's runner and LM Studio
    print llama.cpp's words): an error line, and the name the rules look the build up with."""
    facts.saw(FMT, line)
    facts.hint_engine("llama.cpp", line)
    facts.detail("llama.cpp", "logged_unknown_arch", m.group("arch"), line)
    facts.error(line, m.group(0))


def _kv_types(m: Any, line: int, facts: LogFacts) -> None:
    """The K and V cache types llama_kv_cache logs with its size (`K (q8_0): 544.00 MiB, V (q4_0): 288.00 MiB`)."""
    facts.saw(FMT, line)
    facts.detail("llama.cpp", "logged_kv_types", f"{m.group('k')}-{m.group('v')}", line)


def _model_arch(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.detail("llama.cpp", "logged_model_arch", m.group("arch"), line)


def _model(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    facts.set_once("model", m.group("model"), line)


def _smem_optin(m: Any, line: int, facts: LogFacts) -> None:
    facts.set_once("smem_optin", int(m.group("smem"), 0), line)


# pip names of this engine's packages as environment dumps list them → the doctor's library names
PACKAGES = {"llama-cpp-python": "llama-cpp-python"}

RULES = (
    LineRule(FMT, r"Device (?P<index>\d+): (?P<name>[^,]+), compute capability (?P<cc>\d+\.\d+)"
                  r"(?:, VMM: \w+)?(?:, VRAM: (?P<mib>\d+) MiB)?", _device, once=False),
    LineRule(FMT, r"ggml_cuda_init|ggml_cuda_compute_forward|ggml-cuda\.cu|ggml-cuda/|llama_model_load|load_tensors:",
             hint(FMT, "llama.cpp")),
    LineRule(FMT, r"(?:^|\s)(?:build|version): (?P<build>\d{3,6}) \((?P<commit>[0-9a-f]{6,40})\)", _build),
    LineRule(FMT, r"CUDA : ARCHS = (?P<archs>[\d,]+)", _archs),
    LineRule(FMT, r"ggml_backend_cuda_get_available_uma_memory: final available_memory_kb: (?P<kb>\d+)", _uma_probe),
    LineRule(FMT, r"ggml_cuda_compute_forward: (?P<op>[A-Z_0-9]+) failed|CUDA error: (?P<error>[a-z][a-z ]+[a-z])"
                  r"|current device: \d+, in function (?P<function>\w+) at", _failure, once=False),
    LineRule(FMT, r"(?:^|[\s:,])(?P<var>mmq_x_best|J_best)=0\s*$", _mmq_no_tile),
    # the driver's misreported opt-in shared memory as reports quote it (llama.cpp#23385, #25060, PR #27215):
    # the value ggml-cuda read, which the capability table must not overrule (LCPP040, HW002)
    LineRule(FMT, r"sharedMemPerBlockOptin\D{0,60}?(?P<smem>4294967297|0x100000001)\b", _smem_optin),
    LineRule(FMT, r"llama_kv_cache\w*: +size = .*, K \((?P<k>\w{2,8})\): +[\d.]+ MiB, "
                  r"V \((?P<v>\w{2,8})\): +[\d.]+ MiB", _kv_types),
    LineRule(FMT, r"llama_model_loader: loaded meta data .* from (?P<model>\S+\.gguf)", _model),
    LineRule(FMT, r"unknown model architecture: '(?P<arch>[^'\s]{1,64})'.*", _unknown_arch),
    LineRule(FMT, r"llama_model_loader: - kv +\d+: +general\.architecture +str += (?P<arch>[\w.-]{1,64})", _model_arch),
)
