"""`sm120-doctor diagnose FILE|-`: name the cause of a failure from the engine's own log, with the fix."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import BinaryIO

from doctor.commands.options import add_host_what_ifs, add_machine_options, host_what_if
from doctor.errors import InputError

FORMATS = ("console", "json", "markdown")
FAIL_ON = ("error", "warning", "info", "never")


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("Read an engine log, traceback or collect_env output (FILE, or - for stdin): rebuild the "
                     "deployment it states, check it, and name the rule that explains the logged error. What the "
                     "log does not state comes from this machine, --hardware, --facts or --engine.")
    p.add_argument("log", metavar="FILE|-", help="the log file (gzip is read too), or - for standard input")
    add_machine_options(p, engine_help="where the log states no version: as if this one were installed (repeatable); "
                                       "a serving engine's NAME alone: every release the doctor knows, merged")
    add_host_what_ifs(p)
    p.add_argument("--local-env", action="store_true",
                   help="with --hardware: the log was written on this machine, so its installed Python libraries and "
                        "environment variables count too (by default a profile's log is judged on the log's own "
                        "libraries and --engine, never on the environment diagnose runs in)")
    p.add_argument("--format", choices=FORMATS, default="console",
                   help="console (default), json, or markdown (a redacted bug report / job summary)")
    p.add_argument("--output", type=Path, metavar="FILE", help="also write the JSON diagnosis to FILE")
    p.add_argument("--fail-on", choices=FAIL_ON, default="error",
                   help="exit 1 when a finding that explains the error is at or above this severity (default error)")


def run(args: argparse.Namespace) -> int:
    from doctor.diagnose.diagnosis import diagnose
    from doctor.formats.diagnosis import render_diagnosis_console, render_diagnosis_markdown
    from doctor.output import json_text

    if getattr(args, "local_env", False) and not args.hardware:
        raise InputError("--local-env goes with --hardware PROFILE (without a profile diagnose reads this machine)")
    environ = dict(os.environ)
    from doctor.engines.registry import split_engine_specs

    versioned, unstated = split_engine_specs(args.engine)
    base, base_name = base_facts(args, environ, versioned)
    with _open(args.log) as stream:
        diagnosis = diagnose(stream, "stdin" if args.log == "-" else args.log, base, base_name, environ,
                             judge_on_log_only=not (args.hardware or args.facts or args.engine), engines=unstated)
    json_doc = json_text(diagnosis.to_dict()) if args.format == "json" or args.output else None
    if args.output is not None:
        args.output.write_text(json_doc or "", encoding="utf-8")
    if args.format == "json":
        print(json_doc)
    elif args.format == "markdown":
        sys.stdout.write(render_diagnosis_markdown(diagnosis))
    else:
        sys.stdout.write(render_diagnosis_console(diagnosis))
    return 1 if diagnosis.fails(args.fail_on) else 0


def base_facts(args: argparse.Namespace, environ: dict[str, str], engines: list[str] | None = None):
    """`engines`: the `--engine NAME==VERSION` what-ifs (default: every --engine given)."""
    from doctor.hardware.stated import apply_host_what_if
    from doctor.pipeline.gather import gather_facts

    stated = host_what_if(args)
    facts_file = args.facts[0] if args.facts else None
    engines = args.engine if engines is None else engines
    if args.hardware and not getattr(args, "local_env", False):
        facts = _profile_only(args.hardware, engines)
    else:
        facts = gather_facts(environ=environ, hardware=args.hardware, facts_file=facts_file, engines=engines,
                             offline=True, pinned=False)
    if args.hardware:
        from doctor.hardware import without_os

        facts = without_os(apply_host_what_if(facts, stated))
    name = (f"profile {args.hardware}" if args.hardware else f"facts {facts_file}" if facts_file else "this machine")
    if stated.driver or stated.module:
        name += " + --driver " + "-".join(part for part in (stated.driver, stated.module) if part)
    if stated.wsl:
        name += " + --wsl"
    if args.hardware and getattr(args, "local_env", False):
        name += " + this machine's libraries and environment (--local-env)"
    if args.engine:
        name += " + --engine " + ", ".join(args.engine)
    return facts, name


def _profile_only(hardware: str, engines: list[str]):
    """The profile's machine as the log's: the libraries and environment are the log's and --engine's, not those
    of the Python environment diagnose runs in (a library installed here says nothing about the log's machine)."""
    from doctor.hardware import load_profile
    from doctor.pipeline.gather import with_engines

    return with_engines(load_profile(hardware).replace(libraries={}, env={}), engines, pinned=False)


class _open:
    """The log as a buffered binary stream; a missing or unreadable file is one line."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.stream: BinaryIO | None = None

    def __enter__(self) -> BinaryIO:
        if self.spec == "-":
            return sys.stdin.buffer
        try:
            self.stream = open(self.spec, "rb")
        except OSError as exc:
            raise InputError(f"cannot read log {self.spec}: {exc.strerror or exc}") from exc
        return self.stream

    def __exit__(self, *exc: object) -> None:
        if self.stream is not None:
            self.stream.close()
