"""The types of one engine run, below the Engine interface (base.py) and everything that composes, plans or
checks with it: what the pipeline gives an engine (EngineRun), what it answers (EngineAnalysis, ExactJobs,
LaunchCommand), and how launch files start it (Launcher)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import InvalidVersion, Version

from doctor.launch import Launch
from doctor.pipeline.facts import Facts, Gpu, Library

if TYPE_CHECKING:
    from doctor.kernels.check import KernelCheck
    from doctor.kernels.exact import Job


@dataclass(frozen=True)
class Launcher:
    """One way a launch file starts the engine, as `lint` recognises it: `python -m MODULE [WORDS] ...` or
    `COMMAND [WORDS] ...`, and where the model goes (a flag, or the first positional argument). `subcommand`
    is one word (`vllm serve`) or several (`lmdeploy serve api_server`: ("serve", "api_server"))."""

    module: str | None = None
    command: str | None = None
    subcommand: str | tuple[str, ...] | None = None
    model_flags: tuple[str, ...] = ()
    positional_model: bool = False
    names_tool: bool = False  # the command is one of the engine's tools (llama-bench): its argv keeps the word first

    def engine_args(self, args: list[str]) -> list[str]:
        """The engine's own argv from the words after the command (the model already taken out)."""
        return [self.command, *args] if self.names_tool and self.command else args

    @property
    def words(self) -> tuple[str, ...]:
        """The subcommand words that must follow the command or module, in order."""
        if self.subcommand is None:
            return ()
        return (self.subcommand,) if isinstance(self.subcommand, str) else tuple(self.subcommand)


@dataclass(frozen=True)
class EngineRun:
    """One engine at one version on one machine: the input of every per-run question."""

    facts: Facts
    library: Library
    version: Version
    launch: Launch
    environ: Mapping[str, str] = field(default_factory=dict)

    @property
    def gpu(self) -> Gpu | None:
        return self.facts.gpus[0] if self.facts.gpus else None

    @property
    def tp(self) -> int:
        return self.launch.tp(len(self.facts.gpus))

    @property
    def site(self) -> Path | None:
        """The installed package's site-packages directory; None for a what-if version."""
        lib = self.library
        return Path(lib.location) if lib.location and not lib.what_if else None


@dataclass(frozen=True)
class EngineAnalysis:
    """What an engine decided for a run: backends with where each choice came from, kernels, notes."""

    backends: dict[str, str] = field(default_factory=dict)
    backend_sources: dict[str, str] = field(default_factory=dict)
    kernels: tuple[KernelCheck, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExactJobs:
    """How `--exact` compiles a run's kernels: one compile job per KernelCheck (same order), each naming the
    engine's own kernel file and launch, and the Triton the release pins (used when none is installed)."""

    jobs: tuple[Job, ...]
    triton: str


@dataclass(frozen=True)
class LaunchCommand:
    """A complete launch for one engine version: argv, environment, and how it was composed."""

    engine: str
    version: str
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)  # finding IDs whose fixes are in the command
    files: dict[str, str] = field(default_factory=dict)  # extra files the launch needs (name -> text)

    def shell(self) -> str:
        import shlex

        prefix = " ".join(f"{k}={shlex.quote(v)}" for k, v in self.env.items())
        return (prefix + " " if prefix else "") + shlex.join(self.argv)

    def to_dict(self) -> dict[str, Any]:
        return {"engine": self.engine, "version": self.version, "command": self.shell(), "argv": self.argv,
                "env": self.env, "notes": self.notes, "applied": self.applied, "files": self.files}


def parse_version(text: str | None) -> Version | None:
    try:
        return Version(text) if text else None
    except InvalidVersion:
        return None
