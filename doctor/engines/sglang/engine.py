"""SGLang behind the Engine interface: the pieces in this folder, wired to the questions the pipeline asks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packaging.version import Version

from doctor.engines.sglang import flags as sglang_flags
from doctor.engines.sglang import launch as sglang_launch
from doctor.engines.sglang.releases import RELEASES
from doctor.engines.spi import Engine, EngineAnalysis, EngineRun, ExactJobs, LaunchCommand, Launcher

EXTERNAL_MODELS = "SGLANG_EXTERNAL_MODEL_PACKAGE"  # models registered from another package (0.5.9 on)

if TYPE_CHECKING:
    from doctor.engines.spi import Action, Finding, Flags, KernelCheck, MemoryModel, MultiNode, NodeLaunch, Patch

MOE_CONFIG_ENV = "SGLANG_MOE_CONFIG_DIR"


class SGLang(Engine):
    name = "sglang"
    display_name = "SGLang"
    package = "sglang"
    distributions = ("sglang",)
    releases = RELEASES
    releases_complete = True
    # `--model` is an alias of `--model-path` (srt/server_args.py); `sglang serve` is sglang/cli/serve.py
    launchers = (Launcher(module="sglang.launch_server", model_flags=("--model-path", "--model")),
                 Launcher(command="sglang", subcommand="serve", model_flags=("--model-path", "--model")))
    images = (r"sglang",)
    log_module = "doctor.engines.sglang.logs"

    def base_command(self, model: str) -> list[str]:
        return ["python", "-m", "sglang.launch_server", "--model-path", model]

    def tp_flag(self) -> str:
        return "--tp-size"

    def is_switch(self, flag: str) -> bool:
        return sglang_launch.is_switch(flag)

    def normalise_flag(self, flag: str) -> str:
        return flag.replace("_", "-") if flag.startswith("--") else flag

    def rewrite_flags(self, given: Flags, version: Version, notes: list[str]) -> None:
        sglang_launch.rewrite_flags(given, version, notes)

    def check_flags(self, argv: Sequence[str], version: Version) -> list[str]:
        return sglang_flags.check_flags(list(argv), version)

    def accepts_launch(self, argv: Sequence[str]) -> bool:
        from doctor.engines.sglang.vocabulary import accepted_somewhere

        return accepted_somewhere(argv)

    def node_launches(self, run: EngineRun, base: LaunchCommand, layout: MultiNode) -> list[NodeLaunch]:
        from doctor.engines.sglang.multinode import node_launches

        return node_launches(self, run, base, layout)

    def analyze(self, run: EngineRun) -> EngineAnalysis:
        from doctor.engines.sglang.analyze import analyze

        return analyze(run)

    def exact_jobs(self, run: EngineRun, checks: Sequence[KernelCheck]) -> ExactJobs:
        from doctor.engines.sglang.exact import exact_jobs

        return exact_jobs(run, checks)

    def memory_model(self, run: EngineRun) -> MemoryModel:
        from doctor.engines.sglang.memory import SGLangMemory

        launch = run.launch

        def knob(key: str) -> Any:
            value = launch.get(key)
            return value if isinstance(value, int | float) and value > 0 else None

        unified = run.gpu is not None and run.gpu.unified_memory
        return SGLangMemory(run.library.version, mem_fraction_static=knob("mem_fraction_static"),
                            chunked_prefill_size=launch.get("chunked_prefill_size"),  # type: ignore[arg-type]
                            cuda_graph_max_bs=knob("cuda_graph_max_bs"), page_size=knob("page_size"),
                            host_available_bytes=run.facts.host.memory_available_bytes if unified else None)

    def rule_view(self, run: EngineRun) -> dict[str, Any]:
        from doctor.engines import model_support, quant_support
        from doctor.engines.sglang.defaults import sglang_view
        from doctor.engines.sglang.multinode import world_over_nodes

        view = sglang_view(run.facts, run.launch, run.version)
        view["multinode"] = world_over_nodes(run.launch)
        external = run.facts.env.get(EXTERNAL_MODELS) or run.environ.get(EXTERNAL_MODELS)
        deployment = model_support.deployment_for("sglang", self.display_name, run.facts, run.library, run.launch.args,
                                                  f"{EXTERNAL_MODELS}={external}" if external else None)
        view["model_support"] = model_support.view(deployment, run.facts.model)
        view["quant_support"] = quant_support.view("sglang", run.library.version, run.facts.model)
        if view["quant_support"] is not None:
            from doctor.engines.sglang.loader import mixed_view

            view["quant_support"]["mixed"] = mixed_view(run)
        if run.gpu is not None and run.facts.model is not None:
            from doctor.engines.sglang.derived import view as derived_view

            view["derived"] = derived_view(run)
        return view

    def config_files(self, run: EngineRun, kernels: Sequence[KernelCheck], fix_dir: Path,
                     findings: Sequence[Finding] = ()) -> list[Action]:
        from doctor.engines.sglang.moe_files import config_file_changes

        return config_file_changes(run, kernels, fix_dir)

    def patches(self) -> Mapping[str, Patch]:
        from doctor.engines.sglang.patches import PATCHES

        return PATCHES
