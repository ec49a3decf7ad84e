"""Analytic vs exact shared-memory estimates: time per config and accuracy tables.

    PYTHONPATH=. python bench/bench_smem.py [--n 40] [--workers 2]

Times the closed form (in-process) and exact mode (cold Triton compile in worker processes,
fresh result cache) on a fixed-seed sample of the test corpus, for each Triton version in the
test cache; then prints the accuracy table written by tests/kernels/test_corpus.py.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from kernels.corpus import TRITON_BASE, TRITON_NEWEST, attention_corpus, moe_corpus  # noqa: E402
from wheels import cache_root, unpacked_wheel  # noqa: E402

from doctor.kernels.estimate import analytic  # noqa: E402
from doctor.kernels.exact import Job, compile_many, ensure_triton  # noqa: E402


def time_analytic(cases: list[dict]) -> float:
    """Mean seconds per config of the closed form."""
    def run() -> None:
        for case in cases:
            analytic(case["kernel"], case["cc"], case["params"])

    loops = 200
    return min(timeit.repeat(run, number=loops, repeat=3)) / loops / len(cases)


def time_exact(cases: list[dict], version: str, workers: int) -> dict[str, float]:
    site = ensure_triton(version, cache_root() / "triton")
    jobs = [Job(c["kernel"], c["cc"], c["params"]) for c in cases]
    with tempfile.TemporaryDirectory() as cold:
        start = time.perf_counter()
        results = compile_many(jobs, unpacked_wheel("sglang", "0.5.8"), site, workers=workers,
                               cache_dir=Path(cold))
        wall = time.perf_counter() - start
    secs = [r["secs"] for r in results if "secs" in r]
    return {"wall_per_config": wall / len(jobs), "median_compile": statistics.median(secs),
            "p90_compile": sorted(secs)[int(0.9 * (len(secs) - 1))], "max_compile": max(secs)}


def accuracy_rows(version: str) -> list[str]:
    path = cache_root() / f"smem-accuracy-triton-{version}.json"
    if not path.exists():
        return [f"| {version} | (run tests/kernels/test_corpus.py first) | | | | |"]
    stats = json.loads(path.read_text())["stats"]
    rows = []
    for key in sorted(stats, key=lambda k: (k.split("/")[0], k.split("/")[1] != "all", k)):
        s = stats[key]
        rows.append(f"| {version} | {key} | {s['n']} | {100 * s['exact'] / s['n']:.1f} % | {s['under']} "
                    f"| {100 * s['worst']:+.1f} % |")
    return rows


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=40, help="configs per kernel family")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    cases = moe_corpus(7, args.n) + attention_corpus(7, args.n)
    per_analytic = time_analytic(cases)
    print(f"closed form: {per_analytic * 1e6:.1f} us per config ({len(cases)} configs)\n")
    print("| Triton | exact wall / config | median compile | p90 | max | exact / analytic |")
    print("|---|---|---|---|---|---|")
    for version in (TRITON_BASE, TRITON_NEWEST):
        t = time_exact(cases, version, args.workers)
        print(f"| {version} | {t['wall_per_config']:.2f} s | {t['median_compile']:.2f} s | "
              f"{t['p90_compile']:.2f} s | {t['max_compile']:.2f} s | "
              f"{t['wall_per_config'] / per_analytic:,.0f}x |")
    print("\n| Triton | set | n | exact match | under-estimates | worst error |")
    print("|---|---|---|---|---|---|")
    for version in (TRITON_BASE, TRITON_NEWEST):
        print("\n".join(accuracy_rows(version)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
