"""Cost of `sm120-doctor check` against the number of GPUs in a facts file.

    python bench/bench_scale.py [--gpus 8 32 64 128 256 512 1024] [--shape mesh|hosts] [--runs 1] [--timeout 120]

Shapes (tests/scale_facts.py): `mesh` records every GPU pair, as `nvidia-smi topo -m` does for one host
(the input grows with GPUs squared: 524,800 links at 1,024 GPUs); `hosts` records the pairs inside each
8-GPU host only (links grow linearly; a pair across hosts is unknown, taken as SYS). Each run is a fresh
process: `check moonshotai/Kimi-K2.5 --facts FILE --engine sglang==0.5.8 --offline --format json`.
"""

from __future__ import annotations

import argparse
import json
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


def run_once(facts: Path, timeout: float) -> tuple[float | None, int | None]:
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, *CHECK, "--facts", str(facts)], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, None
    return time.perf_counter() - start, proc.returncode


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
            walls, codes = [], set()
            for _ in range(args.runs):
                wall, code = run_once(facts, args.timeout)
                if wall is None:
                    break
                walls.append(wall)
                codes.add(code)
            row = {"gpus": gpus, "shape": args.shape, "facts_bytes": facts.stat().st_size,
                   "median_s": round(statistics.median(walls), 3) if walls else None,
                   "timed_out_after_s": None if walls else args.timeout, "exit_codes": sorted(codes)}
            rows.append(row)
            shown = f"{row['median_s']:.3f} s" if walls else f"> {args.timeout:.0f} s (killed)"
            print(f"{gpus:>5} GPUs ({args.shape}, {row['facts_bytes'] / 1e6:.1f} MB facts): {shown}, "
                  f"exit {row['exit_codes']}", flush=True)
            if not walls:
                break
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
