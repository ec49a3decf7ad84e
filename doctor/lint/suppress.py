"""Inline suppressions in launch files: `# sm120-doctor: ignore[SGL101]` (or `ignore[SGL101, SGL113]`, or a
bare `ignore` for every rule) on any line of a launch command or on the line just above it."""

from __future__ import annotations

import re

from doctor.located import ALL_RULES

COMMENT = re.compile(r"[#;]\s*sm120-doctor:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
RULE_ID = re.compile(r"^(?:[a-z0-9][a-z0-9._-]*/)?[A-Z][A-Z0-9]{1,4}\d{3}$")  # SGL101, or a plug-in's lmdeploy/LMD001


def suppressed_at(lines: list[str], line: int, end_line: int) -> frozenset[str]:
    """Rule IDs suppressed for a launch spanning `line`..`end_line` (1-based) of `lines`."""
    found: set[str] = set()
    for text in lines[max(line - 2, 0):end_line]:
        for match in COMMENT.finditer(text):
            found |= _ids(match.group(1))
    return frozenset(found)


def _ids(listed: str | None) -> set[str]:
    if listed is None:
        return {ALL_RULES}
    ids = {_normal(part.strip()) for part in listed.split(",") if part.strip()}
    return {i for i in ids if RULE_ID.match(i)}  # a malformed list suppresses nothing, never everything


def _normal(rule_id: str) -> str:
    """Rule IDs as the registry spells them: `sgl101` → `SGL101`, `LMDeploy/lmd001` → `lmdeploy/LMD001`."""
    namespace, slash, local = rule_id.rpartition("/")
    return f"{namespace.lower()}{slash}{local.upper()}"
