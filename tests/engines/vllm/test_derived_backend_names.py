"""The valid attention candidates in vLLM's derived tables are backend names a user can pass to
`--attention-backend` (vLLM's AttentionBackendEnum members), as the selection's other fields are; from 0.24 the
selector hands the oracle classes, which the first tables recorded as "<class '...'>" (tools/vllm_backend_names.py
named them; the oracle now records names)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doctor.engines.vllm.kernel_images import _other_backend  # noqa: F401  (the fix text that reads them)

TABLES = sorted((Path(__file__).resolve().parents[3] / "doctor" / "data" / "derived" / "vllm").glob("*.json"))

@pytest.mark.parametrize("path", TABLES, ids=[p.stem for p in TABLES])
def test_every_valid_candidate_is_a_backend_name_the_release_knows(path: Path) -> None:
    table = json.loads(path.read_text(encoding="utf-8"))
    for entry in table["entries"]:
        attention = entry.get("attention") or {}
        known = set(attention.get("if_forced") or {}) | set(attention.get("rejected") or {})
        for name in attention.get("valid") or []:
            assert name.isidentifier() and name.isupper(), (entry["grid"], name)
            if attention.get("if_forced"):
                assert name in known, (entry["grid"], name)
