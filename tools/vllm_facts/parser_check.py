"""Compare a release's wheel-read flag table (doctor/data/vllm/vllm-X.json) with that release's own argparse
(a dump written by tools/vllm_facts/real_parser.py in a venv with the release installed):

    python -m tools.vllm_facts.parser_check doctor/data/vllm/vllm-0.33.0.json real-0.33.0.json

For every option string the real parser accepts, the doctor must know it and read it the same way (a switch,
a flag with one value, a list, an optional value), and every spelling the doctor accepts must exist in the
real parser. Prints one line per mismatch and the counts; exits 1 when any."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from doctor.engines.vllm.flags import FlagTable

# argparse nargs -> how a flag takes its value on a command line
SHAPES = {0: "switch", None: "value", 1: "value", "?": "optional", "+": "list", "*": "list*"}


def real_shape(action: dict[str, Any]) -> str:
    return SHAPES.get(action["nargs"], f"nargs={action['nargs']}")


def table_shape(table: FlagTable, option: str) -> str | None:
    resolved = table.resolve(option)
    if resolved is None or resolved.json_key is not None:
        return None
    if resolved.negated or resolved.entry.get("takes_value") is False:
        return "switch"
    if resolved.entry.get("takes_value") == "optional":
        return "optional"
    nargs = resolved.entry.get("nargs")
    if nargs in ("+", "*"):
        return "list" if nargs == "+" else "list*"
    return "value"


def real_choices(action: dict[str, Any]) -> list[str] | None:
    if action["choices"] is None or action["nargs"] == 0:
        return None
    return sorted({c for c in action["choices"] if c != "None"})


def table_choices(table: FlagTable, option: str) -> list[str] | None:
    resolved = table.resolve(option)
    if resolved is None or resolved.negated or not resolved.entry.get("choices"):
        return None
    return sorted({str(c) for c in resolved.entry["choices"] if str(c) != "None"})


def run_time_choices(table: FlagTable, option: str) -> bool:
    """Choices the release computes when it runs (platform, plug-ins): the table leaves them unchecked."""
    resolved = table.resolve(option)
    return resolved is not None and not resolved.entry.get("choices") and bool(resolved.entry.get("choices_from"))


def mismatches(facts: dict[str, Any], real: dict[str, Any]) -> list[str]:
    table = FlagTable(facts["version"], facts["flags"])
    options: dict[str, dict[str, Any]] = real["options"]
    out: list[str] = []
    for option, action in sorted(options.items()):
        if option in ("-h", "--help"):
            continue
        want, got = real_shape(action), table_shape(table, option)
        if got is None:
            out.append(f"{option}: missing (real: {want}, {action['action']})")
        elif got != want:
            out.append(f"{option}: table says {got}, real parser {want} ({action['action']})")
        elif real_choices(action) != table_choices(table, option) and real_choices(action) is not None \
                and not run_time_choices(table, option):
            out.append(f"{option}: choices {table_choices(table, option)} != real {real_choices(action)}")
    for spelling in sorted(table.spelling):
        if spelling not in options and spelling.startswith("-"):
            out.append(f"{spelling}: in the table, not in the real parser")
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m tools.vllm_facts.parser_check FACTS.json REAL.json", file=sys.stderr)
        return 2
    facts = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    real = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    found = mismatches(facts, real)
    for line in found:
        print(line)
    print(f"vllm {facts['version']} (real {real['vllm']}): {len(real['options'])} option strings, "
          f"{len(found)} mismatches")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
