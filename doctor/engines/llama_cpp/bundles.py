"""llama.cpp builds other programs ship: the llama-server runner each Ollama release bundles
(doctor/data/llama_cpp/ollama-builds.json, written by tools/ollama_llama_cpp_builds.py from ollama/ollama's
LLAMA_CPP_VERSION at each release tag). `--engine ollama==X` then also analyses that llama.cpp build."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

TABLE = Path(__file__).resolve().parents[2] / "data" / "llama_cpp" / "ollama-builds.json"


@cache
def _table() -> dict[str, Any]:
    return json.loads(TABLE.read_text(encoding="utf-8"))


def ollama_build(version: str) -> str | None:
    """The llama.cpp build number Ollama `version` runs as llama-server; None before 0.30.0 (no llama-server
    runner) or for a release the table does not hold."""
    return _table()["releases"].get(version.removeprefix("v"))


def ollama_details(version: str) -> dict[str, str]:
    return {"bundled_by": f"Ollama {version}", "source": f"{_table()['source']}: Ollama {version}"}
