"""Command-line interface: argument parsing only; each subcommand maps to one function."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from doctor import __version__
from doctor.errors import DoctorError, UsageError
from doctor.validation import one_line

# Subcommands that live with their feature; each module has register(subparsers) and run(args).
FEATURE_COMMANDS: tuple[str, ...] = (
    "doctor.explain", "doctor.fix.command", "doctor.binaries.command", "doctor.plan.command",
    "doctor.kernels.command", "doctor.kernels.plan_command", "doctor.fix.moe_config",
)


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(_split_engine_args(argv))
        handler = getattr(args, "handler", None) or args.func
        return handler(args)
    except DoctorError as exc:
        _fail(str(exc), debug)
        return exc.exit_code
    except KeyboardInterrupt:
        _fail("interrupted", debug)
        return 2
    except BrokenPipeError:
        return 2
    except Exception as exc:  # the doctor itself failed: still one line, never a bare traceback
        _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for details)", debug)
        return 2


def _fail(message: str, debug: bool) -> None:
    if debug:
        traceback.print_exc()
    print(f"sm120-doctor: error: {one_line(message)}", file=sys.stderr)  # echoed input never splits the line


def _split_engine_args(argv: list[str]) -> list[str]:
    """Everything after `--` is the engine launch command; argparse gets it as one option."""
    if "--" not in argv:
        return argv
    cut = argv.index("--")
    return [*argv[:cut], "--engine-args=" + "\x1f".join(argv[cut + 1:])]


def build_parser() -> Parser:
    parser = Parser(prog="sm120-doctor", description="Preflight checks for LLM serving on SM120/SM121 GPUs.")
    parser.add_argument("--version", action="version", version=f"sm120-doctor {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    _add_check(sub)
    _add_snapshot(sub)
    _add_listing(sub, "hardware", "list built-in hardware profiles", "doctor.commands:hardware")
    _add_listing(sub, "models", "list model configs bundled with the doctor", "doctor.commands:models")
    for module_name in FEATURE_COMMANDS:
        module = importlib.import_module(module_name)
        module.register(sub)
    return parser


def _handler(target: str) -> Callable[[argparse.Namespace], int]:
    module_name, _, function = target.partition(":")

    def handle(args: argparse.Namespace) -> int:
        return getattr(importlib.import_module(module_name), function)(args)

    return handle


def add_target_options(p: argparse.ArgumentParser, tp_help: str = "tensor-parallel size (default: number of GPUs)",
                       model_required: bool = True) -> None:
    """MODEL plus where the machine facts come from, what-if versions and TP: shared by the commands
    that analyse a model on a machine (check, kernels, plan, moe-config)."""
    p.add_argument("model", nargs=None if model_required else "?",
                   help="Hugging Face model id or local model directory")
    source = p.add_mutually_exclusive_group()
    source.add_argument("--hardware", metavar="PROFILE", help="use a built-in hardware profile (no GPU needed)")
    source.add_argument("--facts", type=Path, metavar="FILE", help="use a recorded facts snapshot")
    p.add_argument("--engine", action="append", default=[], metavar="NAME==VERSION",
                   help="evaluate as if this version were installed, e.g. sglang==0.5.8 (repeatable)")
    p.add_argument("--tp", type=int, help=tp_help)
    p.add_argument("--offline", action="store_true", help="never contact the Hugging Face hub")


def check_request(args: argparse.Namespace, **sizes: int | None) -> Any:
    """A CheckRequest from add_target_options' arguments; --tp and `sizes` (e.g. ep=2) become launch flags."""
    from doctor.check import CheckRequest

    extra = engine_args(args)
    for name, value in {"tp": args.tp, **sizes}.items():
        if value is not None:
            if value < 1:
                raise UsageError(f"--{name} must be at least 1")
            extra = [f"--{name}-size", str(value), *extra]
    return CheckRequest(model=args.model, hardware=args.hardware, facts_file=args.facts, engines=args.engine,
                        engine_args=extra, deep=getattr(args, "deep", False), offline=args.offline,
                        environ=environment())


def _add_check(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="check a model against this machine, a profile or a snapshot",
                       description="Check MODEL (hub id or local directory). Engine launch flags may follow "
                                   "`--`, e.g. `check MODEL -- --tp-size 8 --attention-backend triton`.")
    add_target_options(p, model_required=False)
    _add_format_options(p)
    p.add_argument("--fail-on", choices=("error", "warning", "info", "never"), default="error",
                   help="exit 1 when a finding at or above this severity exists (default: error)")
    p.add_argument("--deep", action="store_true", help="also ask torch (imports torch; slower)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes (new files you own), then check again")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix: also patch installed packages")
    p.add_argument("--dry-run", action="store_true", help="with --fix: show diffs and files, change nothing")
    p.add_argument("--fix-dir", type=Path, default=Path("sm120-doctor-fix"), metavar="DIR",
                   help="with --fix: where new files (MoE configs, env.sh) go (default: ./sm120-doctor-fix)")
    p.add_argument("--engine-args", default="", help=argparse.SUPPRESS)
    p.set_defaults(handler=_handler("doctor.commands:check"))


def _add_snapshot(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("snapshot", help="record this machine's facts to a JSON file")
    p.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    p.add_argument("--deep", action="store_true", help="also ask torch (imports torch)")
    p.set_defaults(handler=_handler("doctor.commands:snapshot"))


def _add_listing(sub: argparse._SubParsersAction, name: str, help_text: str, target: str) -> None:
    p = sub.add_parser(name, help=help_text)
    p.add_argument("--format", choices=("console", "json"), default="console")
    p.set_defaults(handler=_handler(target))


def _add_format_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("console", "json"), default="console")
    p.add_argument("--output", type=Path, metavar="FILE", help="also write the JSON report to FILE")


def engine_args(args: argparse.Namespace) -> list[str]:
    raw = getattr(args, "engine_args", "") or ""
    return raw.split("\x1f") if raw else []


def environment() -> dict[str, str]:
    return dict(os.environ)


__all__ = ["engine_args", "environment", "main"]
