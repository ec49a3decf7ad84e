"""Standing accuracy benchmark: closed-form shared memory against Triton's own allocation.

    PYTHONPATH=. python bench/smem_accuracy.py [--n 300] [--triton 3.5.1 3.9.0] [--seed S]
        [--sglang 0.5.8 0.5.23] [--families moe extend] [--workers N] [--out FILE] [--misses]

For each Triton version, draws `n` fresh random configs (seed from the clock unless given) over
every kernel family x dtype/quant mode x arch of tests/kernels/corpus.py, compiles each ahead of
time with that Triton from the SGLang wheels' kernel source (results cached on disk by source hash,
config and Triton version), and compares the closed form with `metadata.shared`. Prints exact /
over / under counts per Triton version, arch and family, and writes every row to a JSON file.
An under-estimate is a bug: the exit status is 1 when there is one.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

from kernels.corpus import FAMILIES, TRITON_PINNED, draw  # noqa: E402
from wheels import cache_root, unpacked_wheel  # noqa: E402

from doctor.engines.sglang.attention import attention_kernel_revision  # noqa: E402
from doctor.kernels.estimate import analytic  # noqa: E402
from doctor.kernels.exact import Job, compile_many, ensure_triton  # noqa: E402

SGLANG_SOURCES = ("0.5.8", "0.5.23")


class Ticker:
    """compile_many progress callback: a line on stderr every 25 compiles."""

    def __init__(self, label: str) -> None:
        self.label, self.shown = label, 0

    def __call__(self, done: int, total: int) -> None:
        if done == total or done - self.shown >= 25:
            self.shown = done
            print(f"  {self.label}: {done}/{total}", file=sys.stderr)


def run_version(version: str, cases: list[dict[str, Any]], sglang: list[str], workers: int | None,
                site: Path | None, dump: bool = False, sources: dict[str, Path] | None = None) -> list[dict[str, Any]]:
    """Compile every case (kernel source of SGLang release i % len(sglang)) and attach the estimate."""
    site = site or ensure_triton(version, cache_root() / "triton")
    rows: list[dict[str, Any]] = []
    for index, release in enumerate(sglang):
        share = cases[index::len(sglang)]
        jobs = [Job(c["kernel"], c["cc"], c["params"]) for c in share]
        source = (sources or {}).get(release) or unpacked_wheel("sglang", release)
        results = compile_many(jobs, source, site, workers=workers,
                               cache_dir=cache_root() / "smem-results",
                               progress=Ticker(f"triton {version} sglang {release}"), dump=dump)
        for case, res in zip(share, results, strict=True):
            row = {**case, "sglang": release, "triton": version, "shared": res.get("shared"),
                   "error": res.get("error"), "secs": res.get("secs"), "buffers": res.get("buffers")}
            row["estimate"] = analytic(case["kernel"], case["cc"], case["params"], triton=version,
                                       revision=attention_kernel_revision(Version(release)))
            rows.append(row)
    return rows


def tally(rows: list[dict[str, Any]], key) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "exact": 0, "over": 0, "under": 0,
                                                            "failed": 0})
    for row in rows:
        cell = table[key(row)]
        if row["shared"] is None:
            cell["failed"] += 1
            continue
        cell["n"] += 1
        verdict = "exact" if row["estimate"] == row["shared"] else (
            "over" if row["estimate"] > row["shared"] else "under")
        cell[verdict] += 1
    return dict(table)


def print_table(title: str, table: dict[str, dict[str, int]]) -> None:
    print(f"\n| {title} | configs | exact | over | under | did not compile |")
    print("|---|---|---|---|---|---|")
    for name in sorted(table, key=str):
        c = table[name]
        share = f"{100 * c['exact'] / c['n']:.1f} %" if c["n"] else "-"
        print(f"| {name} | {c['n']} | {c['exact']} ({share}) | {c['over']} | {c['under']} | {c['failed']} |")


def print_misses(rows: list[dict[str, Any]], limit: int = 60) -> None:
    misses = [r for r in rows if r["shared"] is not None and r["estimate"] != r["shared"]]
    print(f"\n{len(misses)} misses" + (f" (first {limit})" if len(misses) > limit else ""))
    for r in misses[:limit]:
        print(f"  {r['triton']} sm{r['cc']} {r['family']}/{r['mode']} est {r['estimate']} true {r['shared']} "
              f"sglang {r['sglang']} {json.dumps(r['params'])}")


def _verdict(row: dict[str, Any]) -> str:
    if row["shared"] is None:
        return "failed"
    return "exact" if row["estimate"] == row["shared"] else "over" if row["estimate"] > row["shared"] else "under"


def summary(rows: list[dict[str, Any]], seed: int, argv: list[str]) -> dict[str, Any]:
    """What bench/results keeps of a run: counts per Triton version, arch and family, and every miss."""
    def table(key) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for row in rows:
            out[key(row)][_verdict(row)] += 1
        return {name: dict(cells) for name, cells in out.items()}

    total: dict[str, int] = defaultdict(int)
    for row in rows:
        total[_verdict(row)] += 1
    misses = [{k: row[k] for k in ("triton", "cc", "kernel", "family", "mode", "sglang", "params", "shared",
                                   "estimate")} for row in rows if _verdict(row) in ("over", "under")]
    return {"seed": seed, "configs": len(rows), "total": dict(total),
            "tables": {"triton": table(lambda r: r["triton"]), "arch": table(lambda r: f"sm{r['cc']}"),
                       "family": table(lambda r: r["family"])},
            "misses": misses, "command": " ".join(["bench/smem_accuracy.py", *argv[1:]])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="fresh configs per Triton version")
    parser.add_argument("--triton", nargs="+", default=list(TRITON_PINNED))
    parser.add_argument("--sglang", nargs="+", default=list(SGLANG_SOURCES))
    parser.add_argument("--families", nargs="+", choices=sorted(FAMILIES))
    parser.add_argument("--space", choices=("launch", "edge"), default="launch",
                        help="launch: what SGLang launches (the target); edge: the rest the kernels accept")
    parser.add_argument("--seed", type=int, default=None, help="default: from the clock (fresh configs)")
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--site", type=Path, help="use this Triton site dir (one --triton version)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--sglang-dir", action="append", default=[], metavar="RELEASE=DIR",
                        help="kernel source of an SGLang release already unpacked (no download)")
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--dump", action="store_true", help="keep every buffer's placement in the rows")
    parser.add_argument("--record", type=Path, metavar="DIR",
                        help="also write the tables and every miss to DIR/smem-accuracy-<seed>.json (bench/results)")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else int(time.time())
    rows: list[dict[str, Any]] = []
    for offset, version in enumerate(args.triton):
        cases = draw(seed + 1000 * offset, args.n, args.families, args.space)
        sources = dict((r, Path(d)) for r, d in (item.split("=", 1) for item in args.sglang_dir))
        rows += run_version(version, cases, args.sglang, args.workers, args.site, args.dump, sources)
    out = args.out or cache_root() / "smem-accuracy" / f"run-{seed}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"seed": seed, "rows": rows}, indent=0))
    print(f"seed {seed}; rows in {out}")
    print_table("Triton", tally(rows, lambda r: r["triton"]))
    print_table("arch", tally(rows, lambda r: f"sm{r['cc']}"))
    print_table("family", tally(rows, lambda r: r["family"]))
    print_table("family / mode", tally(rows, lambda r: f"{r['family']}/{r['mode']}"))
    if args.misses:
        print_misses(rows)
    if args.record:
        record = args.record / f"smem-accuracy-{seed}.json"
        record.write_text(json.dumps(summary(rows, seed, sys.argv), indent=1) + "\n")
        print(f"summary in {record}")
    return 1 if any(r["shared"] is not None and r["estimate"] < r["shared"] for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
