"""llama-server's flags: the build's own `llama-server --help` when a binary is found, else the table derived
from a known llama.cpp source (doctor/data/llama_cpp/llama_server_flags.json, provenance inside; regenerate with
`python -m tools.llama_cpp_flags`)."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from doctor.launch import flag_pairs

HELP_TIMEOUT_S = 10
# `-ngl,  --gpu-layers, --n-gpu-layers N   help...`: names separated by commas, then an optional value hint
_HELP_LINE = re.compile(r"^\s*((?:-{1,2}\w[\w.+-]*)(?:,\s*-{1,2}\w[\w.+-]*)*)(?:\s([^\s-].*?))?(?:\s{2,}|\s*$)")


@dataclass(frozen=True)
class FlagTable:
    source: str
    flags: dict[str, dict[str, object]] = field(default_factory=dict)

    def known(self, flag: str) -> bool:
        return flag in self.flags

    def takes_value(self, flag: str) -> bool:
        entry = self.flags.get(flag)
        return bool(entry and entry.get("takes_value"))

    def canonical(self, flag: str) -> str:
        entry = self.flags.get(flag)
        return str(entry["canonical"]) if entry else flag

    def choices(self, flag: str) -> list[str]:
        entry = self.flags.get(flag) or {}
        return list(entry.get("choices", []))  # type: ignore[call-overload]


@cache
def known_release_table() -> FlagTable:
    text = (Path(__file__).resolve().parents[2] / "data" / "llama_cpp" / "llama_server_flags.json").read_text(
        "utf-8")
    data = json.loads(text)
    return FlagTable(source=f"llama.cpp {data['release']} {data['file']}", flags=data["flags"])


def table_from_help(text: str, source: str) -> FlagTable | None:
    """Flags as a build prints them in `--help`; None when the text holds no option lines."""
    flags: dict[str, dict[str, object]] = {}
    for line in text.splitlines():
        match = _HELP_LINE.match(line)
        if not match:
            continue
        names = [n.strip() for n in match.group(1).split(",")]
        hint = match.group(2) or ""
        entry: dict[str, object] = {"canonical": names[-1], "takes_value": bool(hint)}
        if hint.startswith("[") and hint.endswith("]") and "|" in hint:
            entry["choices"] = hint[1:-1].split("|")
        for name in names:
            flags.setdefault(name, entry)
    return FlagTable(source=source, flags=flags) if len(flags) >= 10 else None


@lru_cache(maxsize=4)
def table_for_binary(server: str) -> FlagTable | None:
    """Run the found `llama-server --help` (no model is loaded); None when it does not answer."""
    try:
        done = subprocess.run([server, "--help"], capture_output=True, text=True, timeout=HELP_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return None
    return table_from_help(done.stdout + "\n" + done.stderr, f"`{server} --help`")


def pairs(argv: list[str], table: FlagTable) -> list[tuple[str, str | None]]:
    return flag_pairs(argv, is_switch=lambda f: table.known(f) and not table.takes_value(f),
                      takes_value=table.takes_value)


def check_flags(argv: list[str], table: FlagTable) -> list[str]:
    """Unknown flags, missing values and values outside a closed set, as this llama-server would refuse them."""
    problems = []
    for flag, value in pairs(argv, table):
        if not flag.startswith("-"):
            problems.append(f"{flag!r} is not a flag (llama-server takes no positional arguments)")
        elif not table.known(flag):
            problems.append(f"{flag} is not a llama-server flag ({table.source})")
        elif table.takes_value(flag) and value is None:
            problems.append(f"{flag} needs a value")
        elif value is not None and (choices := table.choices(flag)) and value not in choices:
            problems.append(f"{flag} {value} is not one of {', '.join(choices)}")
    return problems
