"""Which rows of the held-out samples (bench/heldout*/runs.txt) the picked-kernel-family findings (DSP060-DSP063,
rules/famarch.toml) fire on: every `check` row that names a vLLM release, replayed in-process (`--offline --format
json`, stdout captured), with the IDs of the family findings and the family each one names.

    python bench/bench_family_archs.py [bench/heldout*/runs.txt ...]      (results: bench/RESULTS-family-archs.md)
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from doctor.cli import main as doctor_main  # noqa: E402

IDS = ("DSP060", "DSP062", "DSP063")


def rows(paths: list[Path]) -> list[tuple[str, str, list[str]]]:
    """(sample, row id, argv) of each `check` row that states a vLLM release."""
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row, _, args = line.partition("|")
            argv = shlex.split(args)
            if argv[:1] == ["check"] and any(a.startswith("vllm==") for a in argv):
                out.append((path.parent.name, row, argv))
    return out


def replay(argv: list[str]) -> list[dict]:
    split = argv.index("--") if "--" in argv else len(argv)
    full = [*argv[:split], "--offline", "--format", "json", *argv[split:]]
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
        doctor_main(full)
    try:
        return json.loads(buffer.getvalue()).get("findings") or []
    except ValueError:
        return []


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (argv or sys.argv[1:])] or sorted(REPO.glob("bench/heldout*/runs.txt"))
    counts: Counter[str] = Counter()
    started = time.monotonic()
    todo = rows(paths)
    for sample, row, args in todo:
        found = [f for f in replay(args) if f["id"] in IDS]
        counts.update({f["id"] for f in found})
        for finding in found:
            print(f"{sample} {row}: {finding['id']} {finding['severity']}: {finding['title'][:160]}", flush=True)
    print(f"{len(todo)} vLLM check rows in {len(paths)} samples, {time.monotonic() - started:.0f} s; rows with "
          f"each finding: {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
