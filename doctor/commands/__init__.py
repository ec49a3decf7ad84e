"""The command layer: one module per subcommand, each with `register(parser)` (its arguments) and
`run(args) -> int`. The only code that parses arguments or formats for the console; library packages
never import it. doctor/cli.py imports just the module of the subcommand being run."""

from __future__ import annotations

import importlib
from types import ModuleType

# subcommand → (module under doctor.commands, one-line help), in the order `--help` lists them
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check", "check a model against this machine, a profile or a snapshot"),
    "diagnose": ("diagnose", "name the cause of a failure from an engine log, traceback or collect_env output"),
    "lint": ("lint", "find engine launches in scripts, Dockerfiles, compose and Kubernetes files; check each"),
    "snapshot": ("snapshot", "record this machine's facts to a JSON file"),
    "kernels": ("kernels", "Triton kernels the engine launches for MODEL, bytes of shared memory each"),
    "plan": ("plan", "plan TP/PP/EP layouts: weights and KV cache per GPU, what fits"),
    "moe-config": ("moe_config", "write smem-safe fused-MoE config files for a model and GPU"),
    "smem": ("smem", "shared memory of one Triton kernel config on a target (or every entry of a tuned file)"),
    "binaries": ("binaries", "check which GPU archs the installed CUDA binaries were compiled for"),
    "revert": ("revert", "undo changes made by --fix (all, or the given journal entries)"),
    "rules": ("rules", "list the knowledge base (rule IDs and titles)"),
    "explain": ("explain", "explain one rule: what it detects, why, the fix and its safety"),
    "engines": ("engines", "list the engines the doctor knows and the releases its knowledge covers"),
    "hardware": ("hardware", "list built-in hardware profiles"),
    "models": ("models", "list model configs bundled with the doctor"),
}


def load(name: str) -> ModuleType:
    return importlib.import_module(f"doctor.commands.{COMMANDS[name][0]}")
