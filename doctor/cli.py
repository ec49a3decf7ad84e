"""Command-line entry: builds the parser with every subcommand's name and help, but imports and registers
only the module of the subcommand being run (doctor/commands/), so a cold start pays for one command."""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from doctor import __version__
from doctor.commands import COMMANDS, load
from doctor.commands.options import split_engine_args
from doctor.commands.streams import tolerant_streams
from doctor.errors import DoctorError, UsageError
from doctor.validation import one_line


class Formatter(argparse.HelpFormatter):
    """argparse's formatter, told the width up front: its own default asks shutil, whose import (with bz2 and
    lzma) costs every cold start ~6 ms, since argparse builds a formatter for each argument it adds."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, width or terminal_width() - 2)


@functools.cache  # argparse makes a formatter for every argument it adds
def terminal_width() -> int:
    """What shutil.get_terminal_size() would say: $COLUMNS, else the terminal's, else 80."""
    with contextlib.suppress(ValueError):
        columns = int(os.environ.get("COLUMNS", "0"))
        if columns > 0:
            return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


GC_THRESHOLD = 50_000  # allocations between young-generation collections (CPython's default: 700)


def main(argv: Sequence[str] | None = None) -> int:
    # A check creates ~100k objects in a tenth of a second and frees few: at the default threshold the
    # collector runs ~40 times, ~8 ms of a cold start, for nothing. Long commands still collect.
    gc.set_threshold(GC_THRESHOLD, 20, 20)
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    tolerant_streams()
    try:
        args = build_parser(_subcommand(argv)).parse_args(split_engine_args(argv))
        return args.handler(args)
    except DoctorError as exc:
        _fail(str(exc), debug)
        return exc.exit_code
    except KeyboardInterrupt:
        _fail("interrupted", debug)
        return 2
    except BrokenPipeError:  # a stream other than stdout went away (QuietPipe covers stdout)
        return 0
    except Exception as exc:  # the doctor itself failed: still one line, never a bare traceback
        _fail(f"internal error: {type(exc).__name__}: {exc} (run with --debug for details)", debug)
        return 2


def _fail(message: str, debug: bool) -> None:
    if debug:
        import traceback  # only for --debug: with textwrap it costs every cold start ~2 ms

        traceback.print_exc()
    print(f"sm120-doctor: error: {one_line(message)}", file=sys.stderr)  # echoed input never splits the line


def _subcommand(argv: list[str]) -> str | None:
    """The first token naming a subcommand, before any `--`."""
    for token in argv[: argv.index("--")] if "--" in argv else argv:
        if token in COMMANDS:
            return token
    return None


def build_parser(only: str | None = None) -> Parser:
    """Every subcommand by name, or only `only` when the command line names one: each subparser costs a
    cold start (argparse looks up translations on disk for each), and the others' help is not shown."""
    parser = Parser(prog="sm120-doctor", description="Preflight checks for LLM serving on SM120/SM121 GPUs.")
    parser.add_argument("--version", action="version", version=f"sm120-doctor {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name, (_, help_text) in COMMANDS.items():
        if only is not None and name != only:
            continue
        p = sub.add_parser(name, help=help_text, description=help_text)
        module = load(name)
        module.register(p)
        p.set_defaults(handler=module.run)
    return parser


__all__ = ["build_parser", "main"]
