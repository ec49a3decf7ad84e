"""TensorRT-LLM behind the Engine interface: `trtllm-serve` flags and the LLM-API options YAML per release
(knowledge.py, with provenance), the MoE/attention/GEMM backends it picks on SM12x, its free-memory-fraction
memory model, and a `trtllm-serve` command whose YAML `--fix` writes beside the launch script."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from doctor.engines.spi import Engine, EngineRun, Launch, LaunchCommand, Launcher
from doctor.engines.tensorrt_llm.releases import RELEASES as TENSORRT_LLM

if TYPE_CHECKING:
    from doctor.engines.spi import Action, Finding, KernelCheck, MultiNode, NodeLaunch


class TensorRTLLM(Engine):
    name = "tensorrt-llm"
    display_name = "TensorRT-LLM"
    package = "tensorrt-llm"
    distributions = ("tensorrt-llm", "tensorrt_llm")
    scan_binaries = True
    releases = TENSORRT_LLM
    launchers = (Launcher(command="trtllm-serve", subcommand="serve", positional_model=True),
                 Launcher(command="trtllm-serve", positional_model=True))
    images = (r"tensorrt[-_]?llm|trtllm",)
    log_module = "doctor.engines.tensorrt_llm.logs"
    analysis_module = "doctor.engines.tensorrt_llm.analyze"

    # --- launch ------------------------------------------------------------------------------------
    def parse_launch(self, argv: Sequence[str]) -> Launch:
        return _options().launch_values(_options().parse(list(argv)), list(argv))

    def is_switch(self, flag: str) -> bool:
        return _options().is_switch(flag)

    def normalise_flag(self, flag: str) -> str:
        return _options().canonical(flag)

    def check_flags(self, argv: Sequence[str], version: Version) -> list[str]:
        parsed = _options().parse(list(argv))
        return _options().flag_problems(parsed, list(argv), version)[0]

    def accepts_launch(self, argv: Sequence[str]) -> bool:
        return self.accepted_at_some_release(argv)

    def base_command(self, model: str) -> list[str]:
        return ["trtllm-serve", model]

    def tp_flag(self) -> str:
        return "--tp_size"

    def option_flags(self, options: Mapping[str, int]) -> list[str]:
        """trtllm-serve's spellings (tensorrt_llm/commands/serve.py): --tp_size, --pp_size, --ep_size, --max_seq_len."""
        names = {"tp": "--tp_size", "pp": "--pp_size", "ep": "--ep_size", "context_length": "--max_seq_len"}
        return [part for key, flag in names.items() if options.get(key) for part in (flag, str(options[key]))]

    def node_launches(self, run: EngineRun, base: LaunchCommand, layout: MultiNode) -> list[NodeLaunch]:
        from doctor.engines.tensorrt_llm.multinode import node_launches

        return node_launches(self, run, base, layout)

    def compose(self, run: EngineRun, findings: Sequence[Any], recheck: Any = None) -> LaunchCommand:
        from doctor.engines.spi import compose_generic
        from doctor.engines.tensorrt_llm.analyze import OPTIONS_FILE, options_for_launch, options_yaml

        options, applied = options_for_launch(run, findings)
        # the options file is named after composing: the recheck runs the flags with the fixes, not the old YAML
        args = _without_options_flags(list(run.launch.args)) + _expert_parallel(run)
        command = compose_generic(self, dataclasses.replace(run, launch=Launch(values=run.launch.values,
                                                                                 args=tuple(args),
                                                                                 given=run.launch.given)),
                                  findings, recheck)
        command.argv.extend(["--extra_llm_api_options", OPTIONS_FILE])
        command.files[OPTIONS_FILE] = options_yaml(options, run.library.version)
        command.applied.extend(i for i in applied if i not in command.applied)
        problems, _ = _options().option_problems(options, run.version)
        command.notes.extend(f"still wrong in {OPTIONS_FILE}: {p}" for p in problems)
        return command

    # --- fixes -------------------------------------------------------------------------------------
    def config_files(self, run: EngineRun, kernels: Sequence[KernelCheck], fix_dir: Path,
                     findings: Sequence[Finding] = ()) -> list[Action]:
        """The options YAML of the composed launch, beside the launch script (a new file the user owns)."""
        from doctor.engines.spi import Action, Safety
        from doctor.engines.tensorrt_llm.analyze import OPTIONS_FILE, options_for_launch, options_yaml

        options, applied = options_for_launch(run, findings)
        path = fix_dir / OPTIONS_FILE
        summary = ("TensorRT-LLM options for trtllm-serve --extra_llm_api_options"
                   + (f" (fixes from {', '.join(applied)})" if applied else ""))
        return [Action(applied[0] if applied else "launch", Safety.SAFE, summary, path=path,
                       new_bytes=options_yaml(options, run.library.version).encode(),
                       old_bytes=path.read_bytes() if path.is_file() else None, mode=0o644)]


def _expert_parallel(run: EngineRun) -> list[str]:
    """`--ep_size N` when the MoE experts only split evenly that way and the user chose no layout."""
    from doctor.engines.spi import Layout, invalid_reasons
    from doctor.engines.tensorrt_llm.memory import loads_expert_split

    model = run.facts.model
    if model is None or model.moe is None or {"tp", "pp", "ep"} & set(run.launch.values):
        return []
    tp = run.tp
    pads = loads_expert_split
    if tp > 1 and invalid_reasons(model, Layout(tp, 1, 1), pads) and \
            not invalid_reasons(model, Layout(tp, 1, tp), pads):
        return ["--ep_size", str(tp)]
    return []


def _without_options_flags(args: list[str]) -> list[str]:
    out, skip = [], False
    for token in args:
        if skip:
            skip = False
            continue
        name = token.partition("=")[0]
        if name in _options().kb.OPTIONS_FLAGS:
            skip = "=" not in token
            continue
        out.append(token)
    return out


def _options() -> Any:
    """Flag and YAML handling, imported when a TensorRT-LLM run is analysed (not at registry start-up)."""
    from doctor.engines.tensorrt_llm import options

    return options
