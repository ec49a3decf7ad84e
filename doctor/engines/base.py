"""The Engine interface: everything the doctor knows about one serving engine, behind one class.

The pipeline asks an engine, for the version installed (or given with `--engine NAME==VERSION`):
- which launch flags the user gave and how that version spells and accepts them (`parse_launch`,
  `check_flags`, `compose`);
- which backends it picks for this GPU, model and flags, and which kernels it launches (`analyze`);
- how it divides GPU memory (`memory_model`, for the planner);
- which files its `--fix` writes (`config_files`) and which source patches it declares (`patches`);
- how its Triton kernels compile ahead of time for `--exact` (`exact_jobs`);
- what rules may read about it (`rule_view`, under the context root named after the engine).

An engine that does not know something says so (`None`, an empty list, a note): the doctor never fills a
gap with another engine's knowledge. Engines, built-in or third-party, import this class from the public
plug-in interface, doctor.engines.spi; third parties register theirs through the entry-point group
`sm120_doctor.engines` (docs/PLUGINS.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from packaging.version import Version

from doctor.engines.run import EngineAnalysis, EngineRun, ExactJobs, LaunchCommand, Launcher
from doctor.launch import GENERIC_OPTION_FLAGS, SWITCHES, Launch, normal_flag, parse_launch
from doctor.pipeline.facts import Facts, Library

if TYPE_CHECKING:
    from doctor.cluster.node_commands import MultiNode, NodeLaunch
    from doctor.engines.compose import Flags
    from doctor.engines.flagtable import FlagTable
    from doctor.findings import Action, Finding
    from doctor.fix.patches import Patch
    from doctor.kernels.check import KernelCheck
    from doctor.plan.memory import MemoryModel


class Engine:
    """Base class: the defaults say "this engine does not know that yet"; engines override what they know."""

    name: ClassVar[str]  # registry key and rule-context root (dots and dashes become underscores)
    display_name: ClassVar[str]
    package: ClassVar[str]  # the distribution (or tool) name in Facts.libraries
    releases: ClassVar[tuple[str, ...]] = ()  # releases this engine's knowledge covers, oldest first
    releases_complete: ClassVar[bool] = False  # True when `releases` lists every published release

    # --- what the doctor probes and loads for it ---------------------------------------------------------
    # Distribution names whose installed version is `package`'s (the first found wins); () for an engine that
    # is no Python distribution (llama.cpp: its probe finds the binary).
    distributions: ClassVar[tuple[str, ...]] = ()
    scan_binaries: ClassVar[bool] = False  # read its compiled extensions' CUDA archs (lib.<package>.cuda_binaries)
    # A folder of rule files (*.toml), relative to the folder of the module that defines the class: a plug-in's
    # own rules, IDs namespaced `<name>/ABC123` (built-ins keep theirs in the doctor's rules/).
    rules_folder: ClassVar[str | None] = None
    flag_table: ClassVar[FlagTable | None] = None  # its CLI's flags per release (doctor.engines.flagtable)

    # --- version -----------------------------------------------------------------------------------
    def library(self, facts: Facts) -> Library | None:
        return facts.library(self.package)

    def knowledge_range(self) -> tuple[str, str] | None:
        return (self.releases[0], self.releases[-1]) if self.releases else None

    def knowledge_note(self, version: Version) -> str | None:
        """Where the doctor's knowledge of this engine ends, when `version` lies beyond it."""
        known = self.knowledge_range()
        if known is None:
            return f"{self.display_name}: the doctor has no per-version knowledge of this engine"
        first, last = (Version(v) for v in known)
        if version > last:
            return (f"{self.display_name} {version} is newer than the newest release the doctor knows ({last}): "
                    f"findings use {last}'s knowledge and may miss changes since")
        if version < first:
            return (f"{self.display_name} {version} is older than the oldest release the doctor knows ({first}): "
                    f"findings use {first}'s knowledge")
        return None

    def unstated_releases(self) -> tuple[str, ...]:
        """The releases to evaluate when the user names this engine without one (`--engine NAME`): by default
        every release its knowledge covers; the pipeline adds the version boundaries its rules name."""
        return self.releases

    # --- launch files (`lint`) ---------------------------------------------------------------------
    launchers: ClassVar[tuple[Launcher, ...]] = ()  # how launch files start it, most specific first
    images: ClassVar[tuple[str, ...]] = ()  # regexes on an image repository's last component naming it
    # (image repository, its ENTRYPOINT): what runs when a file gives such an image only flags
    image_entrypoints: ClassVar[tuple[tuple[str, tuple[str, ...]], ...]] = ()

    def serves(self, model: Any) -> bool:
        """Can this engine load the model as given? (Checked when picking installed engines to analyse.)"""
        return model is None or getattr(model, "source", None) != "gguf"

    def assumed_library(self, model: Any) -> Library | None:
        """A what-if version to analyse when no installed engine serves the model (None: do not assume)."""
        return None

    # --- launch ------------------------------------------------------------------------------------
    def parse_launch(self, argv: Sequence[str]) -> Launch:
        if self.flag_table is not None:
            return self.flag_table.parse(argv)
        return parse_launch(list(argv))

    def check_flags(self, argv: Sequence[str], version: Version) -> list[str]:
        """Problems with the user's flags for this version (unknown flag, bad value, removed spelling)."""
        return self.flag_table.check(argv, version) if self.flag_table is not None else []

    def accepts_launch(self, argv: Sequence[str]) -> bool | None:
        """Would some release this engine's knowledge covers take every flag in `argv`, as given? None: this
        engine has no flag vocabulary to tell (the doctor then never infers it from flags)."""
        if self.flag_table is None:
            return None
        return self.accepted_at_some_release(argv)

    def accepted_at_some_release(self, argv: Sequence[str]) -> bool:
        """`check_flags` finds nothing wrong with `argv` at one of `unstated_releases` (at least one asked)."""
        releases = self.unstated_releases() or ("0",)
        return any(not self.check_flags(argv, Version(release)) for release in releases)

    def base_command(self, model: str) -> list[str]:
        launcher = next((la for la in self.launchers if la.command), None)
        if launcher is None:
            raise NotImplementedError(f"{self.display_name}: no base_command and no command launcher")
        where = [model] if launcher.positional_model or not launcher.model_flags else [launcher.model_flags[0], model]
        return [launcher.command, *launcher.words, *where]  # type: ignore[list-item]

    def is_switch(self, flag: str) -> bool:
        """Does this flag take no value (so the next token is not its value)?"""
        if self.flag_table is not None:
            found = self.flag_table.any_release(flag)
            return found is not None and found.switch
        return normal_flag(flag) in SWITCHES

    def normalise_flag(self, flag: str) -> str:
        return flag

    def rewrite_flags(self, given: Flags, version: Version, notes: list[str]) -> None:
        """Rewrite the user's flags to what this version accepts (renamed, removed, abbreviated)."""

    def tp_flag(self) -> str | None:
        if self.flag_table is None:
            return None
        return next((f.name for f in self.flag_table.at(None).flags if f.key == "tp"), None)

    def option_flags(self, options: Mapping[str, int]) -> list[str]:
        """The doctor's layout options (tp, pp, ep, context_length) as this engine's launch flags; by default
        `tp_flag` for TP and the spelling doctor.launch.parse_launch reads for the rest."""
        flags: list[str] = []
        for key, value in options.items():
            flag = (self.tp_flag() if key == "tp" else None) or GENERIC_OPTION_FLAGS.get(key)
            if flag and value:
                flags += [flag, str(value)]
        return flags

    def compose(self, run: EngineRun, findings: Sequence[Any], recheck: Any = None) -> LaunchCommand:
        from doctor.engines.compose import compose_generic

        return compose_generic(self, run, findings, recheck)

    def node_launches(self, run: EngineRun, base: LaunchCommand, layout: MultiNode) -> list[NodeLaunch] | None:
        """What each node runs for `layout`, from the composed single-node command `base` (the user's flags
        and the safe fixes); None: the doctor does not know how this engine launches over several nodes."""
        return None

    # --- logs (`diagnose`) --------------------------------------------------------------------------
    # A module whose `RULES` (doctor.diagnose.formats.base.LineRule) read what this engine's own log states and
    # whose `PACKAGES` (pip name → library name) are its packages as environment dumps list them.
    log_module: ClassVar[str | None] = None

    # --- analysis ----------------------------------------------------------------------------------
    # An engine may name one module with `analyze`, `memory_model` and `rule_view` functions of a run; it is
    # imported on first use, so building the registry stays cheap.
    analysis_module: ClassVar[str | None] = None

    def _analysis(self) -> Any:
        import importlib

        return importlib.import_module(self.analysis_module) if self.analysis_module else None

    def analyze(self, run: EngineRun) -> EngineAnalysis:
        if self.analysis_module:
            return self._analysis().analyze(run)
        return EngineAnalysis(notes=(f"{self.display_name}: no kernel plan yet (the doctor does not model which "
                                     f"kernels it launches)",))

    def memory_model(self, run: EngineRun) -> MemoryModel | None:
        return self._analysis().memory_model(run) if self.analysis_module else None

    def rule_view(self, run: EngineRun) -> dict[str, Any] | None:
        return self._analysis().rule_view(run) if self.analysis_module else {"version": run.library.version}

    # --- exact mode (`kernels --exact`) --------------------------------------------------------------
    def exact_jobs(self, run: EngineRun, checks: Sequence[KernelCheck]) -> ExactJobs | None:
        """The compile jobs for `checks` (the engine's kernel sources fetched or found installed); None: this
        engine has no exact mode. Raises doctor.kernels.exact.ExactError when a source cannot be had."""
        return None

    # --- fixes -------------------------------------------------------------------------------------
    def config_files(self, run: EngineRun, kernels: Sequence[KernelCheck], fix_dir: Path,
                     findings: Sequence[Finding] = ()) -> list[Action]:
        """Files `--fix` writes for this run; `findings`: the run's findings (their safe fixes may go into
        the files)."""
        return []

    def patches(self) -> Mapping[str, Patch]:
        return {}

    # --- rules -------------------------------------------------------------------------------------
    @classmethod
    def rule_files(cls) -> list[Path]:
        """The engine's own rule files (`rules_folder`), sorted; none for an engine without one."""
        if cls.rules_folder is None:
            return []
        import sys

        module = sys.modules.get(cls.__module__)
        here = Path(module.__file__).resolve().parent if module and module.__file__ else None
        return sorted((here / cls.rules_folder).glob("*.toml")) if here else []

