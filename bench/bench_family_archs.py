"""Which rows of the held-out samples (bench/heldout*/runs.txt) the picked-kernel-family findings (DSP060-DSP064,
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

IDS = ("DSP060", "DSP062", "DSP063", "DSP064")


def rows(paths: list[Path]) -> list[tuple[str, str, list[str]]]:
    """(sample, row id, argv) of each `check` row whose `--engine` is vLLM (`vllm==X`, or `vllm` alone: check then
    takes the newest release it knows)."""
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            row, _, args = line.partition("|")
            argv = shlex.split(args)
            engines = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--engine"]
            if argv[:1] == ["check"] and any(e == "vllm" or e.startswith("vllm==") for e in engines):
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
    unstated = sum("vllm" in args for _, _, args in todo)
    print(f"{len(todo)} vLLM check rows ({unstated} without a release) in {len(paths)} samples, "
          f"{time.monotonic() - started:.0f} s; rows with each finding: {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
