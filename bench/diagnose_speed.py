"""`diagnose` speed and memory: a 100k-line vLLM log (a real excerpt's lines repeated, the error at the end) and a
1 GB log generated here (never stored), each run as `python -m doctor diagnose FILE --hardware rtx-5090` in a
fresh process; wall time and peak RSS (getrusage of the child). `--record` writes bench/results/diagnose-speed.md."""

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
LOGS = ROOT / "tests" / "diagnose" / "logs"
BODY = (LOGS / "clean-vllm-31740-banner-spark.log").read_bytes() + \
       (LOGS / "clean-sglang-6001-tp-startup.log").read_bytes()
ERROR = (LOGS / "ocrflux-70-vllm-5090.log").read_bytes()


def make_log(path: Path, lines: int | None = None, size: int | None = None) -> None:
    block = BODY * 64
    per_block = block.count(b"\n")
    with path.open("wb") as out:
        written = done = 0
        while (lines is not None and done + per_block <= lines) or (size is not None and written < size):
            out.write(block)
            written += len(block)
            done += per_block
        out.write(ERROR)


def run(path: Path) -> tuple[float, float, int, str]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu_before = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: .pyc cached
    proc = subprocess.run([sys.executable, "-m", "doctor", "diagnose", str(path), "--hardware", "rtx-5090"],
                          cwd=ROOT, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    top = next((line for line in proc.stdout.splitlines() if line.startswith("EXPLAINED BY")), "(none)")
    return wall, usage.ru_utime + usage.ru_stime - cpu_before, max(usage.ru_maxrss, before), top


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--gb", type=float, default=1.0)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "100k.log"
        make_log(small, lines=100_000)
        run(small)  # warm the rule cache and the page cache
        for _ in range(3):
            rows.append(("100k lines", small.stat().st_size, *run(small)))
        big = Path(tmp) / "1g.log"
        make_log(big, size=int(args.gb * 1e9))
        rows.append((f"{args.gb:g} GB", big.stat().st_size, *run(big)))
    text = ["| log | bytes | wall s | CPU s | peak RSS MiB | top explanation |", "|---|---|---|---|---|---|"]
    text += [f"| {name} | {size:,} | {wall:.2f} | {cpu:.2f} | {rss / 1024:.0f} | {top[:60]} |"
             for name, size, wall, cpu, rss, top in rows]
    print("\n".join(text))
    if args.record:
        out = ROOT / "bench" / "results" / "diagnose-speed.md"
        load = os.getloadavg()[0]
        out.write_text(f"# diagnose speed ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, 2-core machine "
                       f"shared with other jobs, load average {load:.1f} at the end)\n\n"
                       "Each row is one `python -m doctor diagnose FILE --hardware rtx-5090` in a fresh process "
                       "(imports, rule load, scan, check), bytecode cached; wall time, CPU time (user + system: "
                       "what the run costs, whatever else the shared machine does) and peak RSS of the child."
                       "\n\n"
                       + "\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
