"""The engine plug-in interface: everything an engine (built-in or third-party) may use of the doctor, in one
module. docs/PLUGINS.md is the guide; this module is its reference. Nothing else in `doctor` is promised
to stay where it is.

An engine is a subclass of `Engine` registered under the entry-point group `sm120_doctor.engines` (built-ins
are listed in doctor/engines/registry.py and use this module like any plug-in). It declares:

- who it is: `name` (the registry key, `--engine NAME==VERSION`, the context root `<name>.*` with dots and
  dashes as underscores, and the namespace of its rule IDs), `display_name`, `package` (the key its version
  is filed under in `lib.*`), `releases` (oldest first) and `releases_complete`;
- what to probe: `distributions` (PyPI names whose installed version is the engine's) and `scan_binaries`
  (read the CUDA archs of its compiled extensions into `lib.<package>.cuda_binaries`);
- its rules: `rules_folder`, a folder of TOML files next to the engine's module, shipped as package data;
  IDs are `<name>/ABC123` and `area` is the engine's context root;
- its CLI: `flag_table` (a `FlagTable` of `Flag`s per release: parse, check, tokenise) and `launchers`
  (`Launcher(command=..., subcommand=(WORDS...), positional_model=...)`, what `lint` recognises and what the
  default `base_command` composes);
- its memory: `memory_model(run)` returning a `MemoryModel`, usually a stock one (`FreeFractionMemory`,
  `UtilisationMemory`, configured with `LayoutFlags`), overriding only what differs;
- what rules may read about it: `rule_view(run)` (a dict under `<name>.*`).

Data contracts the pipeline reads (see docs/PLUGINS.md for the full list): `Launch.values` keys `tp`, `pp`,
`ep`, `dp`, `kv_cache_dtype` (one of `KV_DTYPES`, int8 and int4 included), `context_length`; a memory model's
`settings()` holds `page_size`; `layout_problems(tp, ep, pp)` rejects what the engine cannot launch;
`loads_expert_split(ExpertSplit)` says where the engine pads or refines experts that TP cuts mid-group.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from doctor.engines.base import Engine
from doctor.engines.run import EngineAnalysis, EngineRun, ExactJobs, LaunchCommand, Launcher, parse_version
from doctor.launch import Launch
from doctor.pipeline.facts import Facts, Gpu, Library, Model

if TYPE_CHECKING:
    from doctor.cluster.node_commands import MultiNode, NodeLaunch
    from doctor.engines.compose import Flags, compose_generic
    from doctor.engines.flagtable import Flag, FlagSet, FlagTable
    from doctor.findings import Action, Finding, Safety
    from doctor.fix.patches import Patch
    from doctor.kernels.check import KernelCheck
    from doctor.kernels.exact import Job
    from doctor.plan.kv import KV_DTYPES
    from doctor.plan.layouts import ExpertSplit, Layout, invalid_reasons
    from doctor.plan.memory import LayoutShape, MemoryModel
    from doctor.plan.stock import FreeFractionMemory, LayoutFlags, StockMemory, UtilisationMemory

# Loaded on first use (PEP 562), so a `check` that needs no flag table or stock model does not import them.
_LAZY = {"Flag": "doctor.engines.flagtable", "FlagSet": "doctor.engines.flagtable",
         "FlagTable": "doctor.engines.flagtable", "KV_DTYPES": "doctor.plan.kv",
         "LayoutShape": "doctor.plan.memory", "MemoryModel": "doctor.plan.memory",
         "StockMemory": "doctor.plan.stock", "FreeFractionMemory": "doctor.plan.stock",
         "UtilisationMemory": "doctor.plan.stock", "LayoutFlags": "doctor.plan.stock",
         "KernelCheck": "doctor.kernels.check", "Job": "doctor.kernels.exact",
         # for engines that compose their own commands, write files on --fix or launch over several nodes
         "Flags": "doctor.engines.compose", "compose_generic": "doctor.engines.compose",
         "Action": "doctor.findings", "Finding": "doctor.findings", "Patch": "doctor.fix.patches",
         "Safety": "doctor.findings",
         "MultiNode": "doctor.cluster.node_commands", "NodeLaunch": "doctor.cluster.node_commands",
         # which TP x PP x EP layouts a model allows at all (heads, layers and experts divide)
         "Layout": "doctor.plan.layouts", "invalid_reasons": "doctor.plan.layouts",
         # how TP cuts a model's routed experts, as MemoryModel.loads_expert_split is asked
         "ExpertSplit": "doctor.plan.layouts"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

ENTRY_POINT_GROUP = "sm120_doctor.engines"  # = doctor.engines.registry.ENTRY_POINT_GROUP
GiB = 1 << 30

__all__ = [
    "ENTRY_POINT_GROUP",
    "KV_DTYPES",
    "Action",
    "Engine",
    "EngineAnalysis",
    "EngineRun",
    "ExactJobs",
    "ExpertSplit",
    "Facts",
    "Finding",
    "Flag",
    "FlagSet",
    "FlagTable",
    "Flags",
    "FreeFractionMemory",
    "GiB",
    "Gpu",
    "Job",
    "KernelCheck",
    "Launch",
    "LaunchCommand",
    "Launcher",
    "Layout",
    "LayoutFlags",
    "LayoutShape",
    "Library",
    "MemoryModel",
    "Model",
    "MultiNode",
    "NodeLaunch",
    "Patch",
    "Safety",
    "StockMemory",
    "UtilisationMemory",
    "compose_generic",
    "invalid_reasons",
    "parse_version",
]
