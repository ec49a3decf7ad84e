"""The long fuzz run: inputs of every type (model configs, facts, MoE tuned configs, safetensors headers,
fix journals, argv; tests/hostile/fuzz.py) through the real CLI, each classified. Prints a JSON summary:
inputs per type, exit codes, and every internal error, hang, multi-line error, odd exit code or file left
patched after a successful revert (with up to 5 examples each).

    python bench/bench_fuzz.py [--per-kind 1700] [--seed 0]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from tests.hostile.fuzz import KINDS, Outcome, run_case


def fuzz(kind: str, count: int, rng_seed: int) -> list[Outcome]:
    outcomes: list[Outcome] = []

    @seed(rng_seed)
    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def one(data):
        outcomes.append(run_case(kind, data.draw))

    one()
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-kind", type=int, default=1700)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    args = parser.parse_args()
    summary: dict = {"per_kind": {}, "problems": collections.Counter(), "examples": collections.defaultdict(list)}
    start = time.perf_counter()
    for kind in args.kinds:
        began = time.perf_counter()
        outcomes = fuzz(kind, args.per_kind, args.seed)
        codes = collections.Counter(str(o.code) for o in outcomes)
        problems = collections.Counter(o.problem for o in outcomes if o.problem)
        summary["per_kind"][kind] = {"inputs": len(outcomes), "exit_codes": dict(codes), "problems": dict(problems),
                                     "seconds": round(time.perf_counter() - began, 1)}
        for o in outcomes:
            if o.problem:
                summary["problems"][o.problem] += 1
                if len(summary["examples"][o.problem]) < 5:
                    summary["examples"][o.problem].append({"kind": kind, "code": o.code, "stderr": o.stderr[-400:],
                                                            "detail": o.detail})
        print(f"{kind}: {summary['per_kind'][kind]}", file=sys.stderr, flush=True)
    summary["inputs"] = sum(k["inputs"] for k in summary["per_kind"].values())
    summary["seconds"] = round(time.perf_counter() - start, 1)
    print(json.dumps(summary, indent=2, default=str))


if __name__ == "__main__":
    main()
