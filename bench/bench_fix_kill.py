"""100 (default) SIGKILLs at random moments during `check --fix --unsafe-fixes` on a real SGLang 0.5.8
wheel; counts corrupt files, stray temp files and journal inconsistencies (all must be zero).

    python bench/bench_fix_kill.py [--trials 100] [--seed 1]
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.fix.conftest import Site
from tests.fix.killharness import run_trials


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = run_trials(Site(Path(tmp), "0.5.8"), args.trials, args.seed)
    counts = collections.Counter(r.outcome for r in results)
    journals = collections.Counter(tuple(r.journal) for r in results)
    print(f"{len(results)} kills: {counts['original']} left the original, {counts['patched']} the patched file; "
          "0 corrupt files, 0 stray temp files, 0 journal inconsistencies (any would have raised)")
    for statuses, n in journals.most_common():
        print(f"  journal {list(statuses) or '(empty)'}: {n}")


if __name__ == "__main__":
    main()
