"""Cold start of `sm120-doctor check`: wall time and peak RSS of whole runs (as installed: bytecode cached,
one warm-up run), the `python -X importtime` total, and where the memory goes, stage by stage.

    python bench/bench_cold_start.py [--runs 9] [--live] [--model moonshotai/Kimi-K2.5] [--engine SPEC] [--json OUT]

Without --live it checks on the built-in profile rtx-pro-6000-x8 with SGLang 0.5.8 (what-if; `--engine sglang`:
the release not stated, every release evaluated); with --live it probes this machine through NVML (run it on a
GPU host). The per-stage memory breakdown is for the default engine only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time


def command(args: argparse.Namespace, fmt: str) -> list[str]:
    cmd = [sys.executable, "-m", "doctor", "check", args.model, "--engine", args.engine, "--format", fmt]
    return cmd if args.live else [*cmd, "--hardware", "rtx-pro-6000-x8"]


def one_run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS MiB, CPU seconds user + system): CPU time moves less than wall time when other
    work shares the machine, so both are recorded."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def series(cmd: list[str], runs: int, env: dict[str, str]) -> dict[str, float]:
    one_run(cmd, env)  # warm-up: bytecode, page cache, the doctor's own caches
    walls, rss, cpu = zip(*(one_run(cmd, env) for _ in range(runs)), strict=True)
    return {"median_s": round(statistics.median(walls), 4), "min_s": round(min(walls), 4),
            "max_s": round(max(walls), 4), "median_cpu_s": round(statistics.median(cpu), 4),
            "median_rss_mib": round(statistics.median(rss), 1), "max_rss_mib": round(max(rss), 1)}


def import_time_ms(cmd: list[str], env: dict[str, str]) -> tuple[float, list[tuple[float, str]]]:
    """Sum of self import times (ms) and the ten largest cumulative entries of the doctor's own modules."""
    out = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], capture_output=True, text=True, env=env).stderr
    rows = [(int(m.group(1)), int(m.group(2)), m.group(3)) for m in
            re.finditer(r"import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)", out)]
    top = sorted(((c / 1000, name) for _, c, name in rows if name.startswith("doctor")), reverse=True)[:10]
    return sum(s for s, _, _ in rows) / 1000, top


STAGES = r"""
import json, os, resource, sys
def rss(): return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
out = {"python": rss()}
import doctor.pipeline.check, doctor.commands.check, doctor.formats.json
out["imports"] = rss()
from doctor.pipeline.gather import gather_facts
env = dict(os.environ)
facts = gather_facts(environ=env, hardware=None if LIVE else "rtx-pro-6000-x8", engines=["sglang==0.5.8"],
                     model=MODEL, offline=True)
out["facts (probe)"] = rss()
from doctor.pipeline.check import check_facts
report = check_facts(facts, [])
out["analysis + rules"] = rss()
doctor.formats.json.render_json(report)
out["json report"] = rss()
print(json.dumps(out))
"""


def stages(args: argparse.Namespace, env: dict[str, str]) -> dict[str, float]:
    code = STAGES.replace("LIVE", str(bool(args.live))).replace("MODEL", repr(args.model))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    return json.loads(done.stdout) if done.returncode == 0 else {"error": done.stderr.strip().splitlines()[-1:]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--live", action="store_true")
    parser.add_argument("--model", default="moonshotai/Kimi-K2.5")
    parser.add_argument("--engine", default="sglang==0.5.8", help="the --engine of the check (default %(default)s)")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"HF_HUB_OFFLINE": "1"}
    result = {"mode": "live" if args.live else "profile rtx-pro-6000-x8", "engine": args.engine,
              "python": sys.version.split()[0],
              "cores": os.cpu_count(), "load_1min": os.getloadavg()[0]}
    for fmt in ("json", "console"):
        result[fmt] = series(command(args, fmt), args.runs, env)
    total, top = import_time_ms(command(args, "json"), env)
    result["importtime_total_ms"] = round(total, 1)
    result["importtime_top_doctor_ms"] = [[round(ms, 1), name] for ms, name in top]
    result["rss_by_stage_mib"] = stages(args, env)
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
