"""How many public failure reports of tests/cases the derived findings (DSP001-DSP099) catch alone, with every
hand-written rule switched off: a case counts as caught when a derived error or warning fires, and as fixed
when one of those findings' fixes contains the case's expected fix text. `--families DSP,ARCH` counts other
families derived from the packages too (ARCH: the architectures each engine/transformers release registers).

    python bench/bench_oracle_cases.py [--families DSP,ARCH]        (results: bench/RESULTS-oracle.md)"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.cases.deployment import fix_texts, load_cases, run_case


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--families", default="DSP", help="comma-separated rule ID prefixes counted as derived")
    families = tuple(argparse_families(parser.parse_args().families))
    cases = load_cases()
    caught, fixed, notes = [], [], Counter()
    for case in cases:
        findings = [f for f in run_case(case).findings if f.id.startswith(families)]
        notes.update(f.id for f in findings if f.severity == "info")
        derived = [f for f in findings if f.severity in ("error", "warning")]
        if derived:
            caught.append((case.id, [f.id for f in derived]))
            texts = [t for f in derived for t in fix_texts(f)]
            if any(case.fix.lower() in t.lower() for t in texts):
                fixed.append(case.id)
    print(f"{len(cases)} cases; caught by derived findings alone: {len(caught)}; with the expected fix: "
          f"{len(fixed)}; info notes (not derived, or PTX everywhere): {dict(notes)}")
    for case_id, ids in caught:
        print(f"  {case_id}: {', '.join(ids)}")


def argparse_families(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


if __name__ == "__main__":
    main()
