"""Cost of `sm120-doctor check` against the number of GPUs in a facts file.

    python bench/bench_scale.py [--gpus 8 32 64 128 256 512 1024] [--shape mesh|hosts] [--runs 1] [--timeout 120]

Shapes (tests/scale_facts.py): `mesh` records every GPU pair, as `nvidia-smi topo -m` does for one host
(the input grows with GPUs squared: 524,800 links at 1,024 GPUs); `hosts` records the pairs inside each
8-GPU host only (links grow linearly; a pair across hosts is unknown, taken as SYS). Each run is a fresh
process: `check moonshotai/Kimi-K2.5 --facts FILE --engine sglang==0.5.8 --offline --format json`; its wall
time and CPU time (user + system: what the check costs, whatever else the machine is running) are reported.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.scale_facts import write_scaled_facts

CHECK = ["-m", "doctor", "check", "moonshotai/Kimi-K2.5", "--engine", "sglang==0.5.8", "--offline",
         "--format", "json"]


def run_once(facts: Path, timeout: float) -> tuple[float | None, float | None, int | None]:
    """(wall seconds, CPU seconds user+sys, exit code); (None, None, None) when killed at `timeout`."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *CHECK, "--facts", str(facts)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = start + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)
        if time.perf_counter() > deadline:
            proc.kill()
            proc.wait()
            return None, None, None
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, nargs="+", default=[8, 32, 64, 128, 256, 512, 1024])
    parser.add_argument("--shape", choices=("mesh", "hosts"), default="mesh")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for gpus in args.gpus:
            facts = write_scaled_facts(gpus, Path(tmp) / f"facts-{gpus}.json", shape=args.shape)
            walls, cpus, codes = [], [], set()
            for _ in range(args.runs):
                wall, cpu, code = run_once(facts, args.timeout)
                if wall is None:
                    break
                walls.append(wall)
                cpus.append(cpu)
                codes.add(code)
            row = {"gpus": gpus, "shape": args.shape, "facts_bytes": facts.stat().st_size,
                   "median_s": round(statistics.median(walls), 3) if walls else None,
                   "median_cpu_s": round(statistics.median(cpus), 3) if cpus else None,
                   "timed_out_after_s": None if walls else args.timeout, "exit_codes": sorted(codes)}
            rows.append(row)
            shown = (f"{row['median_s']:.3f} s wall, {row['median_cpu_s']:.3f} s CPU" if walls
                     else f"> {args.timeout:.0f} s (killed)")
            print(f"{gpus:>5} GPUs ({args.shape}, {row['facts_bytes'] / 1e6:.1f} MB facts): {shown}, "
                  f"exit {row['exit_codes']}", flush=True)
            if not walls:
                break
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
