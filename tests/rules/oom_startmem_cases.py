"""Cases of OOM040 (rules/oom_startmem.toml): a torch out-of-memory line in vLLM's CUDA-graph capture, on a release
or setting whose profiler did not reserve the graph pool (before 0.18.0; 0.18.0-0.19.x without
VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1; 0.20.0+ with it set to 0; Model Runner V2 from 0.22.0 to 0.28.x).
Built like tests/rules/oom_cases.py."""

from __future__ import annotations

from types import SimpleNamespace

from doctor.diagnose.logfacts import LogFacts
from doctor.diagnose.oom import oom_view
from tests.rules.builders import Case, build
from tests.rules.oom_cases import torch_line

R5090 = "rtx-5090"
LLAMA, QWEN3, QWEN3_MOE = "meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "Qwen/Qwen3-30B-A3B"
CAPTURE = torch_line("1.10 GiB", "31.37 GiB", "612.00 MiB", "30.41 GiB", "29.70 GiB", "120.00 MiB")


def capture_oom(fires: bool, why: str, engine: str, env: dict[str, str] | None = None, phase: str | None = "cuda_graph",
                line: str | None = CAPTURE, profile: str = R5090, model: str | None = None) -> Case:
    def facts():
        return build(profile, model, engines=(engine,), env=env)

    def launch_file():
        log_facts = LogFacts(memory_phases={phase: 1} if phase else {})
        hit = SimpleNamespace(line=1, text=line)
        return {"image": None, "recipe": None, "log": {"signatures": ["OOM040"], **oom_view([hit], log_facts, facts())}}

    return Case("OOM040", fires, facts, (), (), why, launch_file if line is not None else None)


OOM_STARTMEM_CASES = [
    capture_oom(True, "0.19.0, the estimate off by default", "vllm==0.19.0"),
    capture_oom(True, "0.18.0, the first release with the switch, left off", "vllm==0.18.0",
                {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0"}),
    capture_oom(True, "0.17.0: no estimate at all", "vllm==0.17.0"),
    capture_oom(True, "0.20.0 with the estimate turned off", "vllm==0.20.0",
                {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "0"}),
    capture_oom(True, "0.19.0 on GB10", "vllm==0.19.0", profile="dgx-spark",
                line=torch_line("2.00 GiB", "119.70 GiB", "1.20 GiB", "118.30 GiB", "117.00 GiB", "0.50 GiB")),
    capture_oom(False, "0.20.0: the pool is reserved by default", "vllm==0.20.0"),
    capture_oom(False, "0.33.0: reserved by default", "vllm==0.33.0"),
    capture_oom(False, "0.19.0 with VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS=1", "vllm==0.19.0",
                {"VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS": "1"}),
    capture_oom(False, "0.19.0, the OOM in the sampler warm-up", "vllm==0.19.0", phase="sampler"),
    capture_oom(False, "0.19.0, no phase in the traceback", "vllm==0.19.0", phase=None),
    capture_oom(False, "0.19.0, check: no log", "vllm==0.19.0", line=None),
    capture_oom(False, "SGLang 0.5.9 capturing (its own rule: OOM006)", "sglang==0.5.9"),
    capture_oom(True, "0.25.0, a dense Llama: Model Runner V2 by default, its estimate 0", "vllm==0.25.0", model=LLAMA),
    capture_oom(True, "0.24.0, Llama listed for V2", "vllm==0.24.0", model=LLAMA),
    capture_oom(True, "0.22.0, Qwen3 (the one architecture V2 takes)", "vllm==0.22.0", model=QWEN3),
    capture_oom(True, "0.28.0, the last release with the placeholder", "vllm==0.28.0", model=QWEN3),
    capture_oom(True, "0.21.0 with VLLM_USE_V2_MODEL_RUNNER=1", "vllm==0.21.0", {"VLLM_USE_V2_MODEL_RUNNER": "1"},
                model=LLAMA),
    capture_oom(False, "0.29.0: V2 measures the pool", "vllm==0.29.0", model=QWEN3),
    capture_oom(False, "0.25.0, an MoE model stays on V1, which measures it", "vllm==0.25.0", model=QWEN3_MOE),
    capture_oom(False, "0.24.0 with VLLM_USE_V2_MODEL_RUNNER=0", "vllm==0.24.0", {"VLLM_USE_V2_MODEL_RUNNER": "0"},
                model=LLAMA),
    capture_oom(False, "0.22.0, Llama not yet listed for V2", "vllm==0.22.0", model=LLAMA),
    capture_oom(False, "0.21.0, V2 opt-in only", "vllm==0.21.0", model=QWEN3),
    capture_oom(False, "0.25.0, no model: the runner is not settled", "vllm==0.25.0"),
    capture_oom(False, "0.19.0, 17.95 GiB held by other processes", "vllm==0.19.0", profile="rtx-pro-6000",
                line=torch_line("2.00 GiB", "79.25 GiB", "1.20 GiB", "60.10 GiB", "58.00 GiB", "1.50 GiB")),
]
