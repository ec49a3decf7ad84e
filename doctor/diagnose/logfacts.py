"""What a log states, each fact with the line that stated it. The first statement wins: a log that restarts
or pastes two runs is read as its first."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_ERRORS = 8  # error lines kept: the first few and the last few (a hostile log may print millions)
MAX_GPUS = 64
MAX_LOGGED = 32  # ERROR/WARNING lines kept for the raise-site tables (doctor/diagnose/raise_sites.py)
MAX_QUOTED = 32  # lines holding a word a public report's quoted line turns on (doctor/diagnose/reports.py)


@dataclass(frozen=True)
class Stated:
    value: Any
    line: int


@dataclass(frozen=True)
class LoggedGpu:
    index: int
    name: str
    capability: str | None
    memory_mib: int | None
    line: int


@dataclass
class LogFacts:
    formats: dict[str, int] = field(default_factory=dict)  # format → first line that showed it
    engine_hints: dict[str, int] = field(default_factory=dict)  # engine → first line that showed it
    versions: dict[str, Stated] = field(default_factory=dict)  # package (doctor's name) → version
    details: dict[str, dict[str, Stated]] = field(default_factory=dict)  # package → detail → value
    gpus: dict[int, LoggedGpu] = field(default_factory=dict)
    # GPUs a report names in its own words (`- **GPU**: RTX 5070 Ti`): used only where neither a tool's line
    # (collect_env, nvidia-smi, the engine) nor the user's `--hardware` names the GPUs
    labelled_gpus: list[LoggedGpu] = field(default_factory=list)
    capability: Stated | None = None  # a GPU capability stated without the GPU (ptxas' --gpu-name, Triton's GPUTarget)
    # the opt-in shared memory per block the driver reported, where the log quotes it (a driver bug's 0x100000001)
    smem_optin: Stated | None = None
    gpu_mentioned: Stated | None = None  # a line that names a GPU or SM12x target, parsed into a GPU or not
    driver: Stated | None = None
    cuda_driver: Stated | None = None
    model: Stated | None = None
    argv: Stated | None = None  # launch flags, as the engine would take them
    image: Stated | None = None  # the container image the log or report names first
    wsl: Stated | None = None  # a WSL2 kernel or vLLM's WSL warning (formats/host.py)
    host_os: Stated | None = None  # "Windows" where the log shows native Windows paths or statuses (formats/host.py)
    host_arch: Stated | None = None  # x86_64 | aarch64, as a dump's OS line states it (formats/host.py)
    container: Stated | None = None  # True where an issue's OS answer says Docker (formats/host.py)
    links: dict[tuple[int, int], Stated] = field(default_factory=dict)  # GPU pair → `nvidia-smi topo -m` kind
    topology_gpus: int = 0  # GPU columns of the last `nvidia-smi topo -m` header read (its rows follow it)
    env: dict[str, Stated] = field(default_factory=dict)
    observed: dict[str, Stated] = field(default_factory=dict)  # what the engine said it chose (backends)
    errors: list[tuple[int, str]] = field(default_factory=list)
    logged: list[tuple[int, str]] = field(default_factory=list)  # the first ERROR / WARNING lines, prefix dropped
    quoted: list[tuple[int, str]] = field(default_factory=list)  # lines a public report may quote (RPT001)
    error_count: int = 0
    memory_phases: dict[str, int] = field(default_factory=dict)  # startup phase a traceback frame shows → line
    oom_parts: list[str] = field(default_factory=list)  # torch's OOM message re-wrapped one sentence a line

    def saw(self, fmt: str, line: int) -> None:
        self.formats.setdefault(fmt, line)

    def hint_engine(self, engine: str, line: int) -> None:
        self.engine_hints.setdefault(engine, line)

    def version(self, package: str, version: str, line: int) -> None:
        if version and package not in self.versions:
            self.versions[package] = Stated(version, line)

    def detail(self, package: str, key: str, value: Any, line: int) -> None:
        self.details.setdefault(package, {}).setdefault(key, Stated(value, line))

    def gpu(self, index: int, name: str, capability: str | None, memory_mib: int | None, line: int) -> None:
        known = self.gpus.get(index)
        if known is None and len(self.gpus) < MAX_GPUS:
            self.gpus[index] = LoggedGpu(index, name.strip(), capability, memory_mib, line)
        elif known is not None and known.capability is None and capability and known.name == name.strip():
            self.gpus[index] = LoggedGpu(index, known.name, capability, known.memory_mib or memory_mib, known.line)

    def gpu_capability(self, index: int, capability: str, line: int) -> None:
        """A capability stated apart from the GPU's name (check_env's `GPU 0,1 Compute Capability: 12.0`)."""
        known = self.gpus.get(index)
        if known is None:
            self.set_once("capability", capability, line)
        elif known.capability is None:
            self.gpus[index] = LoggedGpu(index, known.name, capability, known.memory_mib, known.line)

    def set_once(self, attribute: str, value: Any, line: int) -> None:
        if value not in (None, "") and getattr(self, attribute) is None:
            setattr(self, attribute, Stated(value, line))

    def error(self, line: int, text: str) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append((line, text))
        else:  # keep the first half and the latest ones
            self.errors[MAX_ERRORS // 2:] = [*self.errors[MAX_ERRORS // 2 + 1:], (line, text)]

    def quoted_line(self, line: int, text: str) -> None:
        if len(self.quoted) < MAX_QUOTED:
            self.quoted.append((line, text))

    def logged_line(self, line: int, text: str) -> None:
        if len(self.logged) < MAX_LOGGED:
            self.logged.append((line, text))

    @property
    def engine(self) -> Stated | None:
        """The engine that wrote the log: of those its lines show, the first whose version it states, else the
        first shown. A version in a package list alone (pip freeze) names no engine."""
        hinted = sorted((line, name) for name, line in self.engine_hints.items())
        for line, name in hinted:
            if name in self.versions:
                return Stated(name, line)
        return Stated(hinted[0][1], hinted[0][0]) if hinted else None
