"""Dump the option table of an INSTALLED vLLM's `vllm serve` parser as JSON, to check the wheel-read flag
table against the release's own argparse (tools/vllm_facts/parser_check.py compares the two).

Run with the interpreter of a venv that has that vLLM (and its torch) installed:

    /path/to/venv/bin/python -P tools/vllm_facts/real_parser.py OUT.json

(`-P`: the script's folder has a `types.py` that must not shadow the standard library's.)

It imports vLLM (so it is never part of the generator, which reads wheels without importing them) and needs
nothing from this project. On a machine without a GPU, vLLM's platform detection finds no device and
`DeviceConfig()` (built for its default while the parser is set up) raises, so the CPU platform is set first;
the parser's options do not depend on the platform."""

from __future__ import annotations

import json
import sys
from typing import Any


def _force_cpu_platform() -> None:
    import vllm.platforms as platforms

    try:
        from vllm.platforms.cpu import CpuPlatform
    except ImportError:
        return
    current = platforms.__dict__.get("_current_platform")  # resolved on import in some releases
    if current is None or not getattr(current, "device_type", ""):
        platforms._current_platform = CpuPlatform()


def serve_parser() -> Any:
    try:
        from vllm.utils.argparse_utils import FlexibleArgumentParser
    except ImportError:
        from vllm.utils import FlexibleArgumentParser  # releases before the utils split
    from vllm.entrypoints.cli.serve import ServeSubcommand

    top = FlexibleArgumentParser()
    return ServeSubcommand().subparser_init(top.add_subparsers())


def describe(action: Any) -> dict[str, Any]:
    choices = None if action.choices is None else [str(c) for c in action.choices]
    return {"action": type(action).__name__, "choices": choices, "dest": action.dest, "nargs": action.nargs}


def dump(parser: Any) -> str:
    """Every option string the parser accepts (hidden inverses like `--no-enable-x` included) -> its action,
    one option a line."""
    import vllm

    lines = [f" {json.dumps(s)}: {json.dumps(describe(a), sort_keys=True)}"
             for s, a in sorted(parser._option_string_actions.items())]
    head = {"vllm": vllm.__version__, "python": sys.version.split()[0],
            "written_by": "tools/vllm_facts/real_parser.py (vLLM installed from PyPI, CPU platform)"}
    return json.dumps(head)[:-1] + ', "options": {\n' + ",\n".join(lines) + "\n}}\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: real_parser.py OUT.json", file=sys.stderr)
        return 2
    _force_cpu_platform()
    text = dump(serve_parser())
    with open(argv[0], "w", encoding="utf-8") as out:
        out.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
