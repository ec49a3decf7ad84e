"""`sm120-doctor lint FILE...`: find engine launch commands in shell scripts, Dockerfiles, docker-compose
files, Kubernetes manifests and systemd units, and check each against a hardware profile or facts snapshot;
findings point at the file and line of the launch."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from doctor.commands import gate_options as gates
from doctor.commands.options import add_host_what_ifs, add_machine_options, environment, facts_file, host_what_if
from doctor.errors import UsageError


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("Find engine launch commands (the launchers every engine declares: python -m MODULE, "
                     "vllm serve, trtllm-serve, llama-server, ...) in launch files and check each one. The engine "
                     "version comes from the file (image tag, pip install NAME==VER), else --engine, else what "
                     "is installed.")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH",
                   help="launch files, or folders to search for them (*.sh, Dockerfile*, *.yaml, *.service)")
    add_machine_options(p, engine_help="engine version where a file pins none, e.g. vllm==0.15.1 (repeatable)")
    add_host_what_ifs(p)
    gates.add_gate_options(p)


def run(args: argparse.Namespace) -> int:
    from doctor.formats.lint import render_lint_json, render_lint_text
    from doctor.gate import gate
    from doctor.lint.analyse import LintRequest, lint

    settings = gates.gate_settings(args)
    gates.apply_target_defaults(args, settings.config)
    if args.hardware is None and args.facts is None:
        raise UsageError("lint needs the target machine: --hardware PROFILE or --facts FILE (or hardware/facts in "
                         "the project config)")
    found = lint(LintRequest(paths=args.paths, hardware=args.hardware, facts_file=facts_file(args), engines=args.engine,
                             offline=args.offline, environ=environment(), stated=host_what_if(args)))
    if settings.update_baseline:
        return gates.update_baseline(gate(found.targets, settings.config), settings)
    result = gate(found.targets, settings.config, settings.baseline)
    counts = gates.summary(result, found.files)
    json_text = render_lint_json(result.targets, found.problems, counts)
    gates.write_outputs(result, args, found.problems, json_text)
    if args.format == "console":
        print(render_lint_text(result.targets, found.problems, counts))
    elif args.format == "json":
        print(json_text)
    if not found.targets and not found.problems:
        print(f"sm120-doctor: no engine launch found in {found.files} file(s)", file=sys.stderr)
    for problem in found.problems:
        print(f"sm120-doctor: error: {problem.span.path}:{problem.span.line}: {problem.message}", file=sys.stderr)
    if found.problems:
        return 2
    return 1 if result.fails(settings.fail_on) else 0
