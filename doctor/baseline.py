"""`--baseline FILE`: accept the findings that exist today and fail only on new ones. The file lists
finding fingerprints (doctor/located.py), with the rule, place and title for people reading a diff; a
finding counts as known when its fingerprint is listed, so two equal findings need two entries."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from doctor import __version__
from doctor.errors import InputError
from doctor.located import Target
from doctor.output import read_json_file, write_text_atomic

BASELINE_VERSION = "1"
MAX_BASELINE_BYTES = 16 << 20


def read_baseline(path: Path) -> frozenset[str]:
    if not path.exists():
        raise InputError(f"baseline {path} does not exist (write it with --update-baseline)")
    data = read_json_file(path, "baseline", max_bytes=MAX_BASELINE_BYTES)
    entries = data.get("findings") if isinstance(data, dict) else None
    if not isinstance(entries, list) or data.get("schema_version") != BASELINE_VERSION:
        raise InputError(f"baseline {path} is not an sm120-doctor baseline (schema_version {BASELINE_VERSION})")
    prints = [e.get("fingerprint") if isinstance(e, dict) else None for e in entries]
    if not all(isinstance(p, str) for p in prints):
        raise InputError(f"baseline {path}: every finding needs a string fingerprint")
    return frozenset(prints)  # type: ignore[arg-type]


def write_baseline(path: Path, targets: Sequence[Target]) -> int:
    entries = [_entry(target, finding.id, finding.title, fingerprint) for target in targets
               for finding, fingerprint in target.findings()]
    document = {"schema_version": BASELINE_VERSION, "tool": {"name": "sm120-doctor", "version": __version__},
                "findings": entries}
    write_text_atomic(path, json.dumps(document, indent=2) + "\n")
    return len(entries)


def new_findings(targets: Sequence[Target], accepted: frozenset[str]) -> tuple[list[Target], int]:
    """The targets with only findings the baseline does not list, and how many it accepted."""
    out, known = [], 0
    for target in targets:
        keep = [fingerprint not in accepted for fingerprint in target.fingerprints]
        known += keep.count(False)
        out.append(target.keep(keep))
    return out, known


def _entry(target: Target, finding_id: str, title: str, fingerprint: str) -> dict[str, Any]:
    where = f"{target.span.path}:{target.span.line}" if target.span else None
    model = target.report.facts.model.id if target.report.facts.model else None
    return {"fingerprint": fingerprint, "rule": finding_id, "where": where, "model": model, "title": title}
