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

Besides this module a plug-in may import the toolkit libraries named in `TOOLKIT`: they know nothing of
engines (tests/test_architecture.py checks both that and that the built-in engines import nothing else).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from doctor.engines.base import Engine
from doctor.engines.run import EngineAnalysis, EngineRun, ExactJobs, LaunchCommand, Launcher, parse_version
from doctor.errors import InputError, UsageError
from doctor.launch import SWITCHES, Launch, closest, flag_pairs, normal_flag
from doctor.pipeline.facts import Facts, Gpu, Library, Model, Quantization

if TYPE_CHECKING:
    from doctor.cluster.node_commands import MultiNode, NodeLaunch, command, flags_without
    from doctor.diagnose.formats.base import VERSION, LineRule, args_to_argv, hint, scalar, version_of
    from doctor.diagnose.logfacts import LogFacts, Stated
    from doctor.engines.compose import Flags, compose_generic
    from doctor.engines.flagtable import Flag, FlagSet, FlagTable
    from doctor.findings import Action, Finding, Safety
    from doctor.fix.journal import FixError
    from doctor.fix.patches import MARK, SM12X_TEST, Patch
    from doctor.kernels.check import KernelCheck
    from doctor.kernels.exact import Job
    from doctor.plan.kv import KV_DTYPES, suggest
    from doctor.plan.layouts import Comm, ExpertSplit, Layout, invalid_reasons
    from doctor.plan.memory import LayoutShape, MemoryModel
    from doctor.plan.stock import FreeFractionMemory, LayoutFlags, StockMemory, UtilisationMemory
    from doctor.versions import minor_release, release

# Loaded on first use (PEP 562), so a `check` that needs no flag table or stock model does not import them.
_LAZY = {"Flag": "doctor.engines.flagtable", "FlagSet": "doctor.engines.flagtable",
         "FlagTable": "doctor.engines.flagtable", "KV_DTYPES": "doctor.plan.kv", "suggest": "doctor.plan.kv",
         "LayoutShape": "doctor.plan.memory", "MemoryModel": "doctor.plan.memory",
         "StockMemory": "doctor.plan.stock", "FreeFractionMemory": "doctor.plan.stock",
         "UtilisationMemory": "doctor.plan.stock", "LayoutFlags": "doctor.plan.stock",
         "KernelCheck": "doctor.kernels.check", "Job": "doctor.kernels.exact",
         # for engines that compose their own commands, write files on --fix or launch over several nodes
         "Flags": "doctor.engines.compose", "compose_generic": "doctor.engines.compose",
         "Action": "doctor.findings", "Finding": "doctor.findings", "Patch": "doctor.fix.patches",
         "Safety": "doctor.findings", "FixError": "doctor.fix.journal",
         "MARK": "doctor.fix.patches", "SM12X_TEST": "doctor.fix.patches",
         "MultiNode": "doctor.cluster.node_commands", "NodeLaunch": "doctor.cluster.node_commands",
         "command": "doctor.cluster.node_commands", "flags_without": "doctor.cluster.node_commands",
         # the release a version behaves as for feature gates (0.5.8.post1 -> 0.5.8)
         "release": "doctor.versions", "minor_release": "doctor.versions",
         # for an engine's `log_module`: the line rules `diagnose` runs over its server log
         "LineRule": "doctor.diagnose.formats.base", "VERSION": "doctor.diagnose.formats.base",
         "args_to_argv": "doctor.diagnose.formats.base", "hint": "doctor.diagnose.formats.base",
         "scalar": "doctor.diagnose.formats.base", "version_of": "doctor.diagnose.formats.base",
         "LogFacts": "doctor.diagnose.logfacts", "Stated": "doctor.diagnose.logfacts",
         # which TP x PP x EP layouts a model allows at all (heads, layers and experts divide)
         "Layout": "doctor.plan.layouts", "invalid_reasons": "doctor.plan.layouts",
         # how TP cuts a model's routed experts, as MemoryModel.loads_expert_split is asked
         "ExpertSplit": "doctor.plan.layouts",
         # the links a layout's collectives cross, as a memory model's layout_flags is told
         "Comm": "doctor.plan.layouts"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

ENTRY_POINT_GROUP = "sm120_doctor.engines"  # = doctor.engines.registry.ENTRY_POINT_GROUP
GiB = 1 << 30

# Libraries a plug-in may import directly besides this module: they know nothing of engines (each imports only
# modules of a stage before the engines'), so using them ties a plug-in to no other engine's code.
TOOLKIT = (
    "doctor.kernels",            # shared-memory and launch estimators of the Triton/CUDA kernels engines run
    "doctor.plan.arch",          # a model's weight pieces by architecture
    "doctor.plan.kv",            # KV cache bytes per token (KvShape, cell_bytes)
    "doctor.plan.weights",       # weight bytes per rank (RankWeights), vision towers
    "doctor.plan.quant_shapes",  # each quantized layer's per-rank (N, K) shard; Marlin's repack and thread tiles
    "doctor.hardware",           # GPU tables: shared memory per block, SM counts
    "doctor.binaries",           # CUDA archs of compiled extensions and whether they run on a GPU
    "doctor.probe.gguf",         # GGUF reader
    "doctor.probe.gguf_model",   # GGUF metadata as a model (sliding-window layers)
    "doctor.probe.hf_gguf",      # hub GGUF names as llama.cpp's -hf takes them; their tensor tables estimated
    "doctor.probe.llama_cpp",    # where a llama.cpp build is found ($SM120_DOCTOR_LLAMA_CPP, llama-server)
    "doctor.engines.pysource",   # evaluates functions and assignments of an engine's installed source, unimported
    "doctor.engines.derived_tables",  # the oracle's dispatch tables: shape class, KV class, reading a table
    "doctor.engines.pins",       # what each engine release's wheel pins (doctor/data/engine_pins.json)
    "doctor.engines.model_support",  # which architectures a release registers, which types transformers knows
    "doctor.engines.parsers",    # which tool-call / reasoning parser names a release registers, per model family
    "doctor.engines.quant_support",  # which quant_methods and ModelOpt quant_algos a release's loader reads
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "KV_DTYPES",
    "MARK",
    "SM12X_TEST",
    "SWITCHES",
    "TOOLKIT",
    "VERSION",
    "Action",
    "Comm",
    "Engine",
    "EngineAnalysis",
    "EngineRun",
    "ExactJobs",
    "ExpertSplit",
    "Facts",
    "Finding",
    "FixError",
    "Flag",
    "FlagSet",
    "FlagTable",
    "Flags",
    "FreeFractionMemory",
    "GiB",
    "Gpu",
    "InputError",
    "Job",
    "KernelCheck",
    "Launch",
    "LaunchCommand",
    "Launcher",
    "Layout",
    "LayoutFlags",
    "LayoutShape",
    "Library",
    "LineRule",
    "LogFacts",
    "MemoryModel",
    "Model",
    "MultiNode",
    "NodeLaunch",
    "Patch",
    "Quantization",
    "Safety",
    "Stated",
    "StockMemory",
    "UsageError",
    "UtilisationMemory",
    "args_to_argv",
    "closest",
    "command",
    "compose_generic",
    "flag_pairs",
    "flags_without",
    "hint",
    "invalid_reasons",
    "minor_release",
    "normal_flag",
    "parse_version",
    "release",
    "scalar",
    "suggest",
    "version_of",
]
