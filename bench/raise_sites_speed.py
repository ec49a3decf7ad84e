"""What SRC001 costs `diagnose`: each log diagnosed in a fresh process (`python -m doctor diagnose FILE --offline
--format json`) by a tree without the raise-site tables (BEFORE, e.g. /work/main) and by this one; wall and CPU time
(user + system of the child: what the run costs, whatever else a shared machine does), the best of three.

Logs: one public error line (sgl-project/sglang#35080) that no signature explains, alone and at the end of a
100k-line log (bench/diagnose_speed.py's body: a vLLM and an SGLang startup repeated), and the same 100k-line log
ending in an error a signature explains (TORCH001's excerpt): its WARNING lines are still candidates.

    python bench/raise_sites_speed.py --before /work/main
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bench.diagnose_speed import BODY, ERROR  # noqa: E402

LINE = (b"AssertionError: Only {'trtllm_mha', 'triton', 'fa4'} backends are supported on Blackwell GPUs for hybrid "
        b"GDN models. Got attention_backend=flashinfer.\n")
RUNS = 3


def make(path: Path, end: bytes, lines: int) -> None:
    block = BODY * 64
    per_block = block.count(b"\n")
    with path.open("wb") as out:
        for _ in range(lines // per_block):
            out.write(block)
        out.write(end)


def run(tree: Path, log: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, SRC001 sites reported) of one diagnosis in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-m", "doctor", "diagnose", str(log), "--offline", "--format", "json"],
                         cwd=tree, capture_output=True, text=True, env=env).stdout
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, out.count('"rule": "SRC001"')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="a tree without the tables (e.g. /work/main)")
    args = parser.parse_args()
    rows = ["| log | tree | wall s (best of 3) | CPU s (best of 3) | SRC001 sites |", "|---|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        logs = {"one unexplained line": Path(tmp) / "one.log", "100k lines, unexplained end": Path(tmp) / "u.log",
                "100k lines, explained end": Path(tmp) / "e.log"}
        logs["one unexplained line"].write_bytes(LINE)
        make(logs["100k lines, unexplained end"], LINE, 100_000)
        make(logs["100k lines, explained end"], ERROR, 100_000)
        for name, log in logs.items():
            for label, tree in (("before", args.before), ("after", ROOT)):
                run(tree, log)  # bytecode and page cache
                results = [run(tree, log) for _ in range(RUNS)]
                rows.append(f"| {name} | {label} | {min(r[0] for r in results):.2f} | "
                            f"{min(r[1] for r in results):.2f} | {results[0][2]} |")
    print("\n".join(rows))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
