"""SRC001 on the diagnose corpus (tests/diagnose/index.toml): per log, the raise site its error/warning lines match
(every such line, the explained ones too: does the site agree with the hand-written rule?) and what `diagnose`
reports (only lines no signature explained). `python bench/raise_sites_corpus.py [--show]`; results in
bench/RESULTS-raise-sites.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def row(case) -> dict:
    from doctor.diagnose.raise_sites import candidate_lines, log_releases, match_lines
    from tests.diagnose.corpus import diagnose_case

    diagnosis = diagnose_case(case)
    facts = diagnosis.reading.facts
    every = match_lines(candidate_lines(facts.errors, facts.logged, set(), diagnosis.reading.stats.last),
                        log_releases(facts.versions, {}),
                        diagnosis.deployment.engine)
    return {"file": case.file, "expect": "clean" if case.clean else (case.expect or "none"),
            "claimed": [e.rule for e in diagnosis.explanations],
            "explained_lines": sorted({e.hit.line for e in diagnosis.explanations}),
            "every": every, "reported": diagnosis.raise_sites}


def describe(match) -> str:
    record = match.site.record
    return (f"line {match.line} -> {match.site.engine} {record['file']}:{record.get('line')} "
            f"{record.get('function') or ''} [{record['kind']}] {match.transition}"
            + (f" (ambiguous: {len(match.ambiguous)} others)" if match.ambiguous else ""))


def main() -> int:
    from tests.diagnose.corpus import load_corpus

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print every log with a site")
    args = parser.parse_args()
    logs = with_site = with_reported = explained_and_site = new = ambiguous = 0
    for case in load_corpus():
        result = row(case)
        logs += 1
        if not result["every"]:
            continue
        with_site += 1
        with_reported += bool(result["reported"])
        explained_and_site += bool(result["claimed"])
        new += bool(result["reported"]) and not result["claimed"]
        ambiguous += any(m.ambiguous for m in result["every"])
        if args.show:
            print(f"{result['file']}: expect {result['expect']}; claimed {result['claimed'][:3]} "
                  f"(lines {result['explained_lines'][:3]})")
            for match in result["every"]:
                mark = "reported" if any(m.line == match.line for m in result["reported"]) else "not reported"
                print(f"    {mark}: {describe(match)}\n      text: {match.text[:160]}")
    print(f"logs {logs}; a line matches a site in {with_site}; of those, a rule explains the log in "
          f"{explained_and_site}; diagnose reports SRC001 in {with_reported} ({new} with no rule explaining the log); "
          f"{ambiguous} with an ambiguous line")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
