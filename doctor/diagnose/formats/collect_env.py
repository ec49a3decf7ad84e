"""Environment dumps: PyTorch's `collect_env` and the engines' versions of it, `pip list` /
`pip freeze` lines, nvidia-smi's banner and GPU rows, PyTorch's capability warnings, environment variables."""

from __future__ import annotations

import itertools
import re
from typing import Any

from doctor.diagnose.formats.base import VERSION, LineRule, compiled
from doctor.diagnose.logfacts import LogFacts
from doctor.probe.env import PREFIXES as PROBED_PREFIXES

FMT = "collect_env"
MAX_PACKAGES_A_LINE = 64
# pip/conda names → the doctor's library names (doctor/versions.py)
PACKAGES = {"torch": "torch", "triton": "triton", "pytorch-triton": "triton",
            "flashinfer-python": "flashinfer-python", "flashinfer": "flashinfer-python",
            "flashinfer-cubin": "flashinfer-cubin", "flashinfer-jit-cache": "flashinfer-jit-cache",
            "transformers": "transformers", "nvidia-nccl-cu12": "nccl", "nvidia-nccl-cu13": "nccl",
            "nvidia-cutlass-dsl": "nvidia-cutlass-dsl", "nvidia-cudnn-cu12": "cudnn", "nvidia-cudnn-cu13": "cudnn"}
# the prefixes the probe keeps (doctor/probe/env.py), and a few more that logs print
ENV_PREFIXES = "(?:" + "|".join(p.rstrip("_") for p in (*PROBED_PREFIXES, "PYTORCH_", "CUTE_", "GGML_", "OLLAMA_",
                                                         "TLLM_")) + ")"


def _names(packages: dict[str, str]) -> str:
    return "|".join(sorted((re.escape(n).replace("\\-", "[-_]") for n in packages), key=len, reverse=True))


def _package_handler(packages: dict[str, str], engines: frozenset[str], pattern: str):
    """Every package the line states: a check_env dump pasted into a quote loses its newlines and runs
    `PyTorch: 2.9.1+cu130 ... triton: 3.5.1 transformers: 4.57.1 ...` on one line."""

    def handle(m: Any, line: int, facts: LogFacts) -> None:
        for match in itertools.islice(compiled(pattern).finditer(m.string), MAX_PACKAGES_A_LINE):
            _package(packages, engines, match, line, facts)

    return handle


def _package(packages: dict[str, str], engines: frozenset[str], m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    name = m.group("pkg").lower().replace("_", "-")
    key = packages.get(name) or packages.get(name.replace("-", "_"))
    if key and key in engines and m.group("label"):
        facts.hint_engine(key, line)
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


def _driver_too_old(m: Any, line: int, facts: LogFacts) -> None:
    """torch's `The NVIDIA driver on your system is too old (found version 12080)`: the driver's CUDA version as
    cudaDriverGetVersion encodes it (major * 1000 + minor * 10)."""
    facts.saw("torch", line)
    found = int(m.group("found"))
    facts.set_once("cuda_driver", f"{found // 1000}.{found % 1000 // 10}", line)


def _gpu(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    for index in m.group("index").split(",")[:64]:
        facts.gpu(int(index), m.group("name"), None, None, line)


def _sm_gpu(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw(FMT, line)
    sm = m.group("sm")
    facts.gpu(int(m.group("index")), m.group("name"), f"{sm[:-1]}.{sm[-1]}", None, line)


def _labelled_gpu(m: Any, line: int, facts: LogFacts) -> None:
    """A GPU the report names in its own words (`2x RTX 5090`, `RTX 5090 x2`): GPUs 0..count-1 of that model,
    weaker than a tool's line or `--hardware` (doctor/diagnose/deployment.py)."""
    from doctor.diagnose.gpus import capability_of
    from doctor.diagnose.logfacts import LoggedGpu

    if facts.labelled_gpus:
        return
    facts.saw("issue", line)
    name = m.group("name").strip().rstrip(".*:")
    count = int(m.group("count") or m.group("times") or 1)
    if capability_of(name) == "12.1":  # `2x DGX Spark` is two machines of one GB10 each, not one with two
        count = 1
    facts.labelled_gpus = [LoggedGpu(index, name, None, None, line) for index in range(min(count, 64))]
    facts.set_once("gpu_mentioned", name, line)


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
    if value.count(")") > value.count("("):
        return  # advice inside an error's parenthesis ("(set VLLM_MARLIN_INPUT_DTYPE=int8)."), not the environment
    if name not in facts.env:
        from doctor.diagnose.logfacts import Stated

        facts.env[name] = Stated(value, line)


def _nccl_device(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("nccl", line)
    facts.gpu(int(m.group("index")), m.group("name"), None, None, line)


def _nccl_version(m: Any, line: int, facts: LogFacts) -> None:
    facts.saw("nccl", line)
    facts.version("nccl", m.group("version"), line)


LINK_KINDS = ("X", "PIX", "PXB", "PHB", "NODE", "SYS", "SOC")


def _topology_header(m: Any, line: int, facts: LogFacts) -> None:
    """`nvidia-smi topo -m`'s header (collect_env's `GPU Topology:`, check_env's `NVIDIA Topology:`): the GPU
    columns come first, then NICs and the CPU affinity."""
    facts.saw("nvidia_smi", line)
    facts.topology_gpus = len(m.group("gpus").split())


def _topology_row(m: Any, line: int, facts: LogFacts) -> None:
    """A GPU's row of the matrix: its link to each GPU column (`X` itself, `NV18`, `PIX` ... `SYS`)."""
    from doctor.diagnose.logfacts import Stated

    a = int(m.group("gpu"))
    cells = m.group("cells").split()[:facts.topology_gpus]
    for b, kind in enumerate(cells):
        if b != a and kind != "X" and (kind in LINK_KINDS or re.fullmatch(r"NV\d{1,2}", kind)):
            facts.links.setdefault((min(a, b), max(a, b)), Stated(kind, line))


def _cmake(m: Any, line: int, facts: LogFacts) -> None:
    from doctor.diagnose.logfacts import Stated

    facts.saw("build", line)
    facts.env.setdefault(m.group("name"), Stated(m.group("value"), line))


def rules(engine_packages: dict[str, str], engines: frozenset[str] = frozenset()) -> tuple[LineRule, ...]:
    """The dump's line rules, with the engines' own packages (their `PACKAGES`) among the ones it reads.
    `engines`: the doctor's names of the serving engines: a labelled statement of one (`vLLM Version: 0.19.1`,
    `- Ollama version: 0.13.1`, as issue forms and collect_env print them) names the engine the report is about;
    a package list alone (`[pip3] vllm==0.9.2`, pip freeze) does not."""
    packages = {**PACKAGES, **engine_packages}
    pattern = (r"(?i)(?:^|[\s\[(`])(?P<pkg>" + _names(packages) + r")(?P<label>[ _-]?version)?"
               r"(?:\s*==\s*|\s*[:=]\s*|\s+is\s+|\s+)v?" + VERSION + r"(?:[\s`,;)]|$)")
    return (LineRule(FMT, pattern, _package_handler(packages, engines, pattern), once=False), *RULES)


RULES = (
    LineRule(FMT, r"NCCL version " + VERSION, _nccl_version),
    LineRule(FMT, r"^\s+(?P<gpus>GPU0(?:\s+GPU\d+)*)(?:\s+(?:NIC|mlx)\w*)*\s+CPU Affinity", _topology_header),
    LineRule(FMT, r"^GPU(?P<gpu>\d{1,2})\s+(?P<cells>(?:(?:X|NV\d{1,2}|PIX|PXB|PHB|NODE|SYS|SOC)\s+){2,})",
             _topology_row, once=False),
    LineRule(FMT, r"#\s+Rank\s+\d+ .*device\s+(?P<index>\d+) \[[^\]]*\] (?P<name>NVIDIA .+?)\s*$",
             _nccl_device, once=False),
    LineRule(FMT, r"-D(?P<name>CMAKE_CUDA_ARCHITECTURES)=[\"']?(?P<value>[\w;.-]+)", _cmake, once=False),
    LineRule(FMT, r"PyTorch version\s*: (?P<pkg>)" + VERSION, lambda m, line, f: _package_named("torch", m, line, f)),
    LineRule(FMT, r"CUDA used to build PyTorch\s*: " + VERSION, _torch_cuda),
    # collect_env's `Nvidia driver version`, nvidia-smi's banner, check_env's `CUDA Driver Version`, FlashInfer's
    # `Driver version`, and an issue's `- **GPU Driver**: 580.95.05` / `NVIDIA driver version: 575.57.08` /
    # `driver 595.97` (a driver's release has three digits before the dot: never a CUDA version)
    LineRule(FMT, r"(?i)(?:nvidia[ -])?(?:gpu )?driver(?: version)?(?:\s*[:=]\s*|\s+)"
                  r"(?P<version>\d{3}\.\d{1,3}(?:\.\d{1,3})?)\b(?:\s+CUDA Version: (?P<cuda>\d+\.\d+))?", _driver),
    LineRule(FMT, r"The NVIDIA driver on your system is too old \(found version (?P<found>\d{4,5})\)", _driver_too_old),
    # collect_env / nvidia-smi -L `GPU 0: NAME`; a check_env groups like GPUs: `GPU 0,1,2,3: NAME`
    LineRule(FMT, r"(?:^|configuration\s*:\s*)GPU (?P<index>\d+(?:,\d+)*): (?P<name>NVIDIA [^(\n]*?|Tesla [^(\n]*?)"
                  r"\s*(?:\(UUID|$)", _gpu, once=False),
    # FlashInfer's collect_env: `GPU 0 (CUDA order)   : NVIDIA RTX PRO 6000 ... | SM120 | 97887 MiB`
    LineRule(FMT, r"GPU (?P<index>\d+) \(CUDA order\)\s*: (?P<name>[^|]+?)\s*\|\s*SM(?P<sm>\d{2,3})\b", _sm_gpu,
             once=False),
    # an issue's own words: `- **GPU**: NVIDIA GeForce RTX 5070 Ti (16GB VRAM)`, `GPU name: RTX PRO 6000`,
    # `Hardware: 2x RTX 5090` (Ollama's form answers `GPU: Nvidia`, which names no model)
    LineRule(FMT, r"(?i)^[\s*+-]*(?:GPUs?|GPU (?:name|model|type)s?|Graphics cards?|Hardware)"
                  r"(?: \([^)]{0,60}\))?\s*[:=]\s*"
                  r"(?:(?P<count>\d{1,2})\s*[x×]\s*)?(?P<name>(?:NVIDIA )?(?:GeForce )?(?:RTX|GB10|DGX Spark|Tesla|"
                  r"Quadro|GTX|TITAN|[ABHL]\d{2,3}\b|B[23]00|GB[23]00)[^,;(|\n]{0,60}?)(?:\s*[x×]\s*(?P<times>\d{1,2}))?"
                  r"\s*(?:[,;(|]|$)", _labelled_gpu),
    LineRule(FMT, r"^\|\s+(?P<index>\d+)\s+(?P<name>NVIDIA .+?)\s{2,}(?:On|Off|WDDM|TCC)\s+\|", _smi_gpu, once=False),
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
