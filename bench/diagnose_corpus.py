"""How many of the public log excerpts in tests/diagnose/index.toml `diagnose` gets right, per batch (the
held-out set `heldout-diagnose2` apart): right = the expected rule ranks first and one of its fixes carries the
expected text; for `expect = ""` no rule claims the error; for a clean log nothing is claimed.
`python bench/diagnose_corpus.py [--batch NAME] [--show]`; results are recorded in bench/RESULTS-diagnose.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def judge(case) -> tuple[bool, list[str]]:
    from tests.diagnose.corpus import diagnose_case, fix_texts

    diagnosis = diagnose_case(case)
    claimed = [e.rule for e in diagnosis.explanations]
    if case.clean:
        return diagnosis.error is None and not claimed, claimed
    if case.expect == "":
        return diagnosis.error is not None and not claimed, claimed
    right = bool(claimed) and claimed[0] == case.expect and any(
        case.fix.lower() in t.lower() for t in fix_texts(diagnosis))
    return right, claimed


def main() -> int:
    from tests.diagnose.corpus import load_corpus

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", help="only this batch ('' for the entries with none)")
    parser.add_argument("--show", action="store_true", help="list every entry with its outcome")
    args = parser.parse_args()
    totals: dict[str, list[int]] = {}
    for case in load_corpus():
        if args.batch is not None and case.batch != args.batch:
            continue
        right, claimed = judge(case)
        row = totals.setdefault(case.batch or "(tuned corpus)", [0, 0])
        row[0] += int(right)
        row[1] += 1
        if args.show:
            kind = "clean" if case.clean else (case.expect or "none")
            print(f"{'ok ' if right else 'BAD'} {case.file:55} expect {kind:9} claimed {claimed[:3]}")
    for batch, (right, total) in totals.items():
        print(f"{batch:20} {right}/{total} right ({100 * right / total:.0f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
