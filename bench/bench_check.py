"""Wall time and peak RSS of `sm120-doctor check` on a built-in profile, side by side with
`python -m torch.utils.collect_env`, measured in the same run.

    python bench/bench_check.py [--runs 5] [--torch-python PATH]

--torch-python is an interpreter that has torch installed (default: this one).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CHECK = ["-m", "doctor", "check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8",
         "--engine", "sglang==0.5.8", "--format", "json"]


def measure(cmd: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def series(label: str, cmd: list[str], runs: int, env: dict[str, str]) -> dict[str, float]:
    walls, rss, codes = [], [], set()
    for _ in range(runs):
        wall, peak, code = measure(cmd, env)
        walls.append(wall)
        rss.append(peak)
        codes.add(code)
    result = {"median_s": statistics.median(walls), "min_s": min(walls), "max_s": max(walls),
              "median_rss_mib": statistics.median(rss), "exit_codes": sorted(codes)}
    print(f"{label:<34} median {result['median_s']:.3f} s (min {result['min_s']:.3f}, max {result['max_s']:.3f}), "
          f"peak RSS {result['median_rss_mib']:.0f} MiB, exit {result['exit_codes']}")
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--torch-python", default=sys.executable)
    args = parser.parse_args()
    # as installed: bytecode cached (pip writes it at install), one warm-up run to fill it and the page cache
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"HF_HUB_OFFLINE": "1"}
    measure([sys.executable, *CHECK], env)
    doctor = series("sm120-doctor check (profile)", [sys.executable, *CHECK], args.runs, env)
    probe = subprocess.run([args.torch_python, "-c", "import torch; print(torch.__version__)"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        print("torch is not importable by --torch-python; no collect_env comparison")
        return
    collect = series(f"collect_env (torch {probe.stdout.strip()})",
                     [args.torch_python, "-m", "torch.utils.collect_env"], args.runs, env)
    print(f"ratio collect_env / check: wall {collect['median_s'] / doctor['median_s']:.1f}x, "
          f"RSS {collect['median_rss_mib'] / doctor['median_rss_mib']:.1f}x")


if __name__ == "__main__":
    main()
