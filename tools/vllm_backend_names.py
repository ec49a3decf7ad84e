"""Name the valid attention candidates in vLLM's derived tables the way vLLM names backends (`FLASHINFER_MLA`).

From vLLM 0.24 the selector's candidates carry the backend class, not its enum member, and the oracle's first
tables for those releases recorded `str(cls)` ("<class 'vllm.v1.attention.backends...FlashInferMLABackend'>"),
which then reached fix texts as `--attention-backend <class ...>`. The oracle now records the member's name
(tools/engine_oracle/inside/vllm_platform.py); this rewrites the tables already made without re-running them:
each release's `AttentionBackendEnum` (member name = default class path) is read from its PyPI wheel's
vllm/v1/attention/backends/registry.py with HTTP range requests, and every class repr is replaced by the member
whose path it is. A repr no member names is an error (nothing is guessed).

    python tools/vllm_backend_names.py           # rewrite doctor/data/derived/vllm/*.json in place
    python tools/vllm_backend_names.py --check   # exit 1 if a table still holds a class repr
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tools.engine_oracle.__main__ import dumps  # noqa: E402
from tools.remote_wheel import central_directory, get, read_member  # noqa: E402

TABLES = REPO / "doctor" / "data" / "derived" / "vllm"
INDEX = "https://pypi.org/simple/vllm/"  # PEP 691 JSON
REGISTRY = "vllm/v1/attention/backends/registry.py"
CLASS_REPR = re.compile(r"^<class '([\w.]+)'>$")


def enum_members(source: str) -> dict[str, str]:
    """class path -> member name, from `class AttentionBackendEnum(...)`'s string-valued assignments."""
    tree = ast.parse(source)
    members: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "AttentionBackendEnum":
            for item in node.body:
                if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
                    # adjacent string literals ("a." "B") are one Constant; anything else names no class path
                    value = item.value.value if isinstance(item.value, ast.Constant) else None
                    if isinstance(value, str) and value:
                        members[value] = item.targets[0].id
    return members


def release_members(version: str) -> dict[str, str]:
    files = json.loads(get(INDEX))["files"]
    wheel = next(f for f in files
                 if f["filename"].startswith(f"vllm-{version}-") and f["filename"].endswith("x86_64.whl"))
    entries = central_directory(wheel["url"], int(wheel["size"]))
    return enum_members(read_member(wheel["url"], entries[REGISTRY]).decode("utf-8"))


def class_reprs(table: dict) -> set[str]:
    return {name for entry in table["entries"] for name in (entry.get("attention") or {}).get("valid") or []
            if CLASS_REPR.match(name)}


def renamed(table: dict, members: dict[str, str]) -> dict:
    for entry in table["entries"]:
        attention = entry.get("attention") or {}
        if attention.get("valid"):
            attention["valid"] = [_name(candidate, members) for candidate in attention["valid"]]
    return table


def _name(candidate: str, members: dict[str, str]) -> str:
    match = CLASS_REPR.match(candidate)
    if match is None:
        return candidate
    if match.group(1) not in members:
        raise SystemExit(f"{candidate}: no AttentionBackendEnum member has this class path")
    return members[match.group(1)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a table still holds a class repr")
    args = parser.parse_args(argv)
    stale = []
    for path in sorted(TABLES.glob("*.json")):
        table = json.loads(path.read_text(encoding="utf-8"))
        if not class_reprs(table):
            continue
        stale.append(path.name)
        if not args.check:
            table = renamed(table, release_members(path.stem))
            path.write_text(dumps(table), encoding="utf-8")
            print(f"{path.name}: class reprs named", file=sys.stderr)
    if args.check and stale:
        print(f"class reprs in: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
