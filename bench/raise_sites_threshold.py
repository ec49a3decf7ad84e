"""What MIN_LITERAL (doctor/raise_site_table.py) does: each engine's newest release read again from PyPI, its sites
counted at several literal-text thresholds, and the diagnose corpus's candidate lines (tests/diagnose/index.toml:
error, ERROR/WARNING and last lines, explained or not) matched against the newest-release tables built at each
threshold: how many lines match, and which lines match only below 16 characters (to judge by eye).

    python bench/raise_sites_threshold.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

THRESHOLDS = (8, 12, 16, 20, 24, 32)


def corpus_lines() -> list[tuple[str, int, str, str | None]]:
    """(log, line, text, engine) for every candidate line of the diagnose corpus."""
    from doctor.diagnose.raise_sites import candidate_lines
    from tests.diagnose.corpus import diagnose_case, load_corpus

    out = []
    for case in load_corpus():
        diagnosis = diagnose_case(case)
        facts = diagnosis.reading.facts
        for number, text in candidate_lines(facts.errors, facts.logged, set(), diagnosis.reading.stats.last):
            out.append((case.file, number, text, diagnosis.deployment.engine))
    return out


def main() -> int:
    from doctor.diagnose.raise_sites import Index, match_lines
    from doctor.raise_site_table import index_word, literal_chars
    from tools.raise_sites import ENGINES, add_release, read_release, records, releases

    newest = {}
    for engine in ENGINES:
        available = releases(engine)
        version = list(available)[-1]
        sites, _ = read_release(available[version])
        counts = [sum(1 for s in sites if literal_chars(s.template) >= t and index_word(s.template))
                  for t in THRESHOLDS]
        print(f"{engine} {version}: {len(sites)} sites; indexed at " +
              ", ".join(f">={t}: {c}" for t, c in zip(THRESHOLDS, counts, strict=True)))
        newest[engine] = (version, sites)
    lines = corpus_lines()
    print(f"corpus candidate lines: {len(lines)}")
    low = THRESHOLDS[0]
    tables = {}
    for engine, (version, sites) in newest.items():
        held: dict = {}
        add_release(held, version, sites, low)
        tables[engine] = records(held, [version], low)
    found: dict[int, dict[tuple[str, int], str]] = {}
    for threshold in THRESHOLDS:
        pool = tuple(Index(engine, {"releases": [newest[engine][0]],
                                    "sites": [r for r in rows if literal_chars(r["template"]) >= threshold]})
                     for engine, rows in tables.items())
        found[threshold] = {}
        for log, number, text, engine in lines:
            for match in match_lines([(number, text)], {}, engine, pool):
                found[threshold][(log, number)] = (f"{match.site.engine} {match.site.record['file']} "
                                                   f"[{match.site.record['kind']}] `{match.site.template[:90]}`")
        print(f"threshold {threshold}: {len(found[threshold])} corpus lines match a site")
    for key, site in sorted(found[low].items()):
        if key not in found[16]:
            print(f"  only below 16: {key[0]}:{key[1]} -> {site}")
    for key, site in sorted(found[16].items()):
        if key not in found[24]:
            print(f"  lost at 24: {key[0]}:{key[1]} -> {site}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
