"""Cases for the out-of-memory rules (rules/oom.toml, task oomdiag). Each rule reads `log.oom`, what
doctor/diagnose/oom.py computes from the out-of-memory line a signature matched (and the traceback's phase), so a
case builds that view from a real line on a profile's facts: it fires on its own cause and phase, and stays silent
in `check` (no log), on the neighbouring cause or phase, and just outside its bound (GB10 against 9.0/10.0/12.0,
memory held outside just under the 1 GiB floor, reserved-unallocated just under the request)."""

from __future__ import annotations

from types import SimpleNamespace

from doctor.diagnose.logfacts import LogFacts
from doctor.diagnose.oom import oom_view
from tests.rules.builders import Case, build


def torch_line(request="1.74 GiB", total="15.48 GiB", free="953.94 MiB", own="14.53 GiB", allocated="12.19 GiB",
               unallocated="368.65 MiB") -> str:
    return (f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate {request}. GPU 0 has a total capacity of "
            f"{total} of which {free} is free. Including non-PyTorch memory, this process has {own} memory in use. "
            f"Of the allocated memory {allocated} is allocated by PyTorch, and {unallocated} is reserved by PyTorch "
            "but unallocated.")


GB10 = torch_line("2.00 GiB", "119.70 GiB", "1.20 GiB", "60.10 GiB", "58.00 GiB", "1.50 GiB")
ELSEWHERE = torch_line("2.00 GiB", "79.25 GiB", "1.20 GiB", "60.10 GiB", "58.00 GiB", "1.50 GiB")
VLLM_KV = ("ValueError: To serve at least one request with the model's max seq len (180000), (3.05 GiB KV cache is "
           "needed, which is larger than the available KV cache memory (2.17 GiB). Based on the available memory, the "
           "estimated maximum model length is 111456.")
STARTUP = ("ValueError: Free memory on device cuda:0 (67.92/121.69 GiB) on startup is less than desired GPU memory "
           "utilization (0.7, 85.18 GiB).")
LLAMA = ("ggml_backend_cuda_buffer_type_alloc_buffer: allocating 4480.00 MiB on device 3: cudaMalloc failed: out of "
         "memory")


def oom(rule: str, fires: bool, why: str, profile: str, line: str | None, phase: str | None = None) -> Case:
    """`profile`'s facts with the view of `line` (None: `check`, no log) and the phase a traceback frame showed."""
    def facts():
        return build(profile)

    def launch_file():
        log_facts = LogFacts(memory_phases={phase: 1} if phase else {})
        hit = SimpleNamespace(line=1, text=line)
        return {"image": None, "recipe": None, "log": {"signatures": [rule], **oom_view([hit], log_facts, facts())}}

    return Case(rule, fires, facts, (), (), why, launch_file if line is not None else None)


OTHER = ("h100-sxm-x8", "b200-x8", "rtx-pro-6000")
ESTIMATE = " Based on the available memory, the estimated maximum model length is 111456."
VLLM_KV_NO_ESTIMATE = VLLM_KV.replace(ESTIMATE, "")

OOM_CASES = [
    oom("OOM001", True, "discrete GPU, 17.95 GiB held outside", "rtx-pro-6000", ELSEWHERE),
    oom("OOM001", False, "GB10's pool", "dgx-spark", GB10),
    oom("OOM001", False, "0.90 GiB outside: under the floor", "rtx-5090",
        torch_line("512.00 MiB", "31.37 GiB", "204.80 MiB", "30.27 GiB", "29.90 GiB", "19.41 MiB")),
    oom("OOM001", True, "1.10 GiB outside: over the floor and the shortfall", "rtx-5090",
        torch_line("512.00 MiB", "31.37 GiB", "204.80 MiB", "30.07 GiB", "29.90 GiB", "19.41 MiB")),
    oom("OOM001", False, "check: no log", "rtx-pro-6000", None),
    oom("OOM002", True, "GB10 stated", "dgx-spark", GB10),
    *(oom("OOM002", False, f"the pool's total on {p}: not GB10", p, GB10) for p in OTHER),
    oom("OOM002", False, "check: no log", "dgx-spark", None),
    oom("OOM003", True, "own budget while loading weights", "rtx-5080", torch_line(), "weights"),
    oom("OOM003", False, "own budget in the profile run", "rtx-5080", torch_line(), "profile"),
    oom("OOM004", True, "own budget in the profile run", "rtx-5080", torch_line(), "profile"),
    oom("OOM004", False, "own budget, no phase", "rtx-5080", torch_line()),
    oom("OOM005", True, "own budget allocating the KV cache", "rtx-5080", torch_line(), "kv_cache"),
    oom("OOM005", False, "memory held outside", "rtx-pro-6000", ELSEWHERE, "kv_cache"),
    oom("OOM006", True, "own budget capturing CUDA graphs", "rtx-5080", torch_line(), "cuda_graph"),
    oom("OOM006", False, "the sampler warm-up", "rtx-5080", torch_line(), "sampler"),
    oom("OOM007", True, "own budget in the sampler warm-up", "rtx-5080", torch_line(), "sampler"),
    oom("OOM007", False, "CUDA-graph capture", "rtx-5080", torch_line(), "cuda_graph"),
    oom("OOM008", True, "own budget, no phase", "rtx-5080", torch_line()),
    oom("OOM008", False, "own budget, weights", "rtx-5080", torch_line(), "weights"),
    oom("OOM009", True, "2.96 GiB reserved-unallocated for a 2.96 GiB request", "b200-x8",
        torch_line("2.96 GiB", "79.25 GiB", "1.16 GiB", "78.08 GiB", "68.35 GiB", "2.96 GiB")),
    oom("OOM009", False, "2.95 GiB reserved-unallocated: under the request", "b200-x8",
        torch_line("2.96 GiB", "79.25 GiB", "1.16 GiB", "78.08 GiB", "68.35 GiB", "2.95 GiB")),
    oom("OOM010", True, "the process's use printed as 0 bytes", "rtx-5090",
        torch_line("1.88 GiB", "21.96 GiB", "1.29 GiB", "0 bytes", "19.02 GiB", "1.32 GiB")),
    oom("OOM010", False, "the process's use printed", "rtx-5090", torch_line()),
    oom("OOM011", True, "vLLM prints the length that fits", "rtx-5090", VLLM_KV),
    oom("OOM011", False, "no estimate printed", "rtx-5090",
        VLLM_KV_NO_ESTIMATE),
    oom("OOM012", True, "no estimate printed", "rtx-5090",
        VLLM_KV_NO_ESTIMATE),
    oom("OOM012", False, "vLLM prints the length that fits", "rtx-5090", VLLM_KV),
    oom("OOM013", True, "a B200 with 67.92 of 178.36 GiB free", "b200-x8", STARTUP.replace("121.69", "178.36")),
    oom("OOM013", False, "GB10", "dgx-spark", STARTUP),
    oom("OOM014", True, "GB10", "dgx-spark", STARTUP),
    *(oom("OOM014", False, f"{p}: not GB10", p, STARTUP.replace("121.69", "178.36")) for p in OTHER),
    oom("OOM014", False, "check: no log", "dgx-spark", None),
    oom("OOM015", True, "125537 GiB on a 23.64 GiB GPU", "rtx-5090",
        torch_line("125537.24 GiB", "23.64 GiB", "8.26 GiB", "14.56 GiB", "13.86 GiB", "213.20 MiB")),
    oom("OOM015", False, "8.30 GiB on the same GPU", "rtx-5090",
        torch_line("8.30 GiB", "23.64 GiB", "8.26 GiB", "14.56 GiB", "13.86 GiB", "213.20 MiB")),
    oom("OOM016", True, "pytorch#182286's figures: 50.40 GiB free for 3.48 GiB", "rtx-pro-6000",
        torch_line("3.48 GiB", "95.59 GiB", "50.40 GiB", "17179869184.00 GiB", "42.49 GiB", "47.72 MiB")),
    oom("OOM016", False, "3.48 GiB free for 3.49 GiB", "rtx-pro-6000",
        torch_line("3.49 GiB", "95.59 GiB", "3.48 GiB", "91.50 GiB", "88.49 GiB", "47.72 MiB")),
    oom("OOM010", False, "free memory over the request is OOM016's", "rtx-pro-6000",
        torch_line("3.48 GiB", "95.59 GiB", "50.40 GiB", "17179869184.00 GiB", "42.49 GiB", "47.72 MiB")),
    oom("OOM017", True, "vLLM's sampler warm-up line", "rtx-5080",
        "RuntimeError: CUDA out of memory occurred when warming up sampler with 1024 dummy requests."),
    oom("OOM017", False, "torch's line in the sampler warm-up is OOM007's", "rtx-5080", torch_line(), "sampler"),
    oom("OOM025", True, "69.0 GiB needed, 65.6 GiB free", "rtx-5090",
        "Error: 500 Internal Server Error: model requires more system memory (69.0 GiB) than is available (65.6 GiB)"),
    oom("OOM025", False, "a llama.cpp buffer line", "rtx-5090", LLAMA, "llama_weights"),
    Case("OOM026", True, lambda: build("rtx-pro-6000"), (), (), "its line",
         lambda: {"image": None, "recipe": None, "log": {"signatures": ["OOM026"]}}),
    Case("OOM026", False, lambda: build("rtx-pro-6000"), (), (), "another rule's line",
         lambda: {"image": None, "recipe": None, "log": {"signatures": ["MEM001"]}}),
    oom("OOM020", True, "the weights' buffer", "rtx-5090", LLAMA, "llama_weights"),
    oom("OOM020", False, "the KV cache's buffer", "rtx-5090", LLAMA, "llama_kv"),
    oom("OOM021", True, "the KV cache's buffer", "rtx-5090", LLAMA, "llama_kv"),
    oom("OOM021", False, "the compute buffer", "rtx-5090", LLAMA, "llama_compute"),
    oom("OOM022", True, "the compute buffer", "rtx-5090", LLAMA, "llama_compute"),
    oom("OOM022", False, "the weights' buffer", "rtx-5090", LLAMA, "llama_weights"),
]
