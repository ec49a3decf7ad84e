"""llama.cpp behind the Engine interface: GGUF models, llama-server flags (the build's `--help`, else
common/arg.cpp at the release that covers the build, doctor/data/llama_cpp/flag_tables.json), the build's CUDA archs,
its own tensor-by-tensor memory plan and a `llama-server` command. Versions are llama.cpp build numbers
(`--engine llama.cpp==11312` or `==b11312`, what `llama-server --version` prints)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from doctor.engines.spi import Engine, EngineRun, Launch, LaunchCommand, Launcher, Library

if TYPE_CHECKING:
    from doctor.engines.llama_cpp.flags import FlagTable

KNOWN_BUILD = "11312"  # ggml-org/llama.cpp@0c1e57098: the defaults modelled, and the build assumed when none is found


class LlamaCpp(Engine):
    name = "llama.cpp"
    display_name = "llama.cpp"
    package = "llama.cpp"
    launchers = (Launcher(command="llama-server", model_flags=("-hf", "--hf-repo", "-m", "--model")),
                 *(Launcher(command=tool, model_flags=("-hf", "--hf-repo", "-m", "--model"), names_tool=True)
                   for tool in ("llama-bench", "llama-cli", "llama-completion")))
    images = (r"llama[.-]?cpp",)
    log_module = "doctor.engines.llama_cpp.logs"
    releases = (KNOWN_BUILD,)
    analysis_module = "doctor.engines.llama_cpp.analyze"

    def knowledge_note(self, version: Version) -> str | None:
        from doctor.engines.llama_cpp.analyze import build_number
        from doctor.engines.llama_cpp.flags import table_for_build

        if str(version) == KNOWN_BUILD:
            return None
        build = build_number(str(version))
        if build is None:
            return (f"llama.cpp build number unknown (no llama-server --version to ask): defaults of build "
                    f"{KNOWN_BUILD} assumed; flag problems against its table are warnings, not errors")
        coverage = table_for_build(build).note or f"flags from {table_for_build(build).source}"
        return (f"llama.cpp build {version}: flags are checked against the build's own --help when it is found, "
                f"else against common/arg.cpp at the release that covers it ({coverage}); memory defaults are "
                f"those of build {KNOWN_BUILD}")

    def unstated_releases(self) -> tuple[str, ...]:
        """Build numbers have no release list: one build per flag vocabulary of the stored tables, and the
        known build."""
        from doctor.engines.llama_cpp.flags import sampled_builds

        return tuple(str(build) for build in sorted({*sampled_builds(), int(KNOWN_BUILD)}))

    def serves(self, model: Any) -> bool:
        return model is None or getattr(model, "source", None) == "gguf"

    def assumed_library(self, model: Any) -> Library | None:
        if getattr(model, "source", None) != "gguf":
            return None
        return Library(name=self.package, version=KNOWN_BUILD, what_if=True,
                       details={"assumed": True, "source": "no llama.cpp build found: known release assumed"})

    # --- launch ------------------------------------------------------------------------------------
    def parse_launch(self, argv: Sequence[str]) -> Launch:
        from doctor.engines.llama_cpp.options import launch_values, parse_options

        return launch_values(parse_options(list(argv), _table(argv)), list(argv))

    def option_flags(self, options: Mapping[str, int]) -> list[str]:
        """llama-server has no tensor/pipeline/expert-parallel sizes (it places each tensor on a device: the
        plan answers that); the context is `--ctx-size`."""
        return ["--ctx-size", str(options["context_length"])] if options.get("context_length") else []

    def is_switch(self, flag: str) -> bool:
        table = _table(())
        return table.known(flag) and not table.takes_value(flag)

    def normalise_flag(self, flag: str) -> str:
        return _table(()).canonical(flag)

    def check_flags(self, argv: Sequence[str], version: Version) -> list[str]:
        from doctor.engines.llama_cpp.flags import check_flags

        return check_flags(list(argv), _table(argv))

    def accepts_launch(self, argv: Sequence[str]) -> bool:
        """llama-server's flags are checked against one table (the known release's): one question."""
        return not self.check_flags(argv, Version(KNOWN_BUILD))

    def base_command(self, model: str) -> list[str]:
        from doctor.engines.llama_cpp.analyze import model_file
        from doctor.probe.hf_gguf import is_hf_gguf_spec

        if is_hf_gguf_spec(model):  # the launch's own -hf names it
            return ["llama-server"]
        return ["llama-server", "-m", model_file(model)]

    def compose(self, run: EngineRun, findings: Sequence[Any], recheck: Any = None) -> LaunchCommand:
        from doctor.engines.llama_cpp.analyze import plan_flags_to_add
        from doctor.engines.llama_cpp.flags import split_tool
        from doctor.engines.spi import compose_generic

        extra = plan_flags_to_add(run)
        tool, given = split_tool(list(run.launch.args))
        args = [*([tool] if tool else []), *given, *extra]  # the tool word stays first, so rechecks see it
        command = compose_generic(self, dataclasses.replace(run, launch=self.parse_launch(args)), findings, recheck)
        if tool is not None:  # the command is that tool's: its word leads instead of llama-server's
            command.argv[:] = [tool, *[word for word in command.argv[1:] if word != tool]]
        if extra:
            command.notes.insert(0, "added from the memory plan: " + " ".join(extra))
        # "still wrong" against the build found (its --help), not the known release's table
        from doctor.engines.llama_cpp.analyze import flag_table
        from doctor.engines.llama_cpp.flags import check_flags

        command.notes[:] = [n for n in command.notes if not n.startswith("still wrong:")]
        command.notes.extend(f"still wrong: {p}" for p in check_flags(command.argv[3:], flag_table(run)))
        return command


def _table(argv: Sequence[str]) -> FlagTable:
    """The known release's flags of the tool argv names first (llama-server when none), loaded when a llama.cpp
    run is analysed."""
    from doctor.engines.llama_cpp.flags import SERVER, known_release_table, split_tool, table_for_build

    tool = split_tool(list(argv))[0] or SERVER
    return known_release_table() if tool == SERVER else table_for_build(int(KNOWN_BUILD), tool)
