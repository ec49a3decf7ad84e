"""Coverage of `diagnose` over the triage ledger: every entry whose status is `encoded` or that names `related`
rules has its `error` text diagnosed as a user would run it: the text alone, plus `--hardware` for the GPU the
entry names and `--engine NAME==VERSION` for each version its `versions` field states (nothing of this machine).
Outcome per entry: `first` (a rule the entry names ranks first), `named` (named, not first), `none`.

`python bench/diagnose_ledger.py` prints the counts; `--record` writes bench/results/diagnose-ledger.toml (the
per-entry outcomes tests/diagnose/test_ledger_coverage.py holds the code to) and bench/results/diagnose-ledger.md.
Many `error` fields are a report's title, not log text; those are counted apart (`title = true`): an entry is a
log excerpt when its text carries a line a log prints (an exception name, `error:`, `fatal`, an assertion)."""

from __future__ import annotations

import argparse
import contextlib
import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

RESULTS = ROOT / "bench" / "results" / "diagnose-ledger.toml"
REPORT = ROOT / "bench" / "results" / "diagnose-ledger.md"
OUTCOMES = ("first", "named", "none")
LOG_LINE = re.compile(r"(?:[A-Z]\w*(?:Error|Exception|Resources)\b|\berror:|\bfatal\b|[Aa]ssert|CUDA error|"
                      r"no kernel image|not supported|[Uu]nsupported|NotImplemented|failed|Traceback)")
VERSION = re.compile(r"\b(vllm|sglang|tensorrt[-_]llm|trtllm|torch|triton|flashinfer|sgl-kernel|nccl|"
                     r"llama\.cpp)[ =:v-]*(?:==)?v?(\d+\.\d+(?:\.\d+)?(?:rc\d+|\.post\d+)?(?:\.dev\d+)?)",
                     re.IGNORECASE)  # a dev build's whole version: 0.1.devN is a tagless build, not release 0.1
LLAMA_BUILD = re.compile(r"\bb(\d{4,5})\b")


@dataclass(frozen=True)
class Entry:
    url: str
    engine: str
    gpu: str
    versions: str
    error: str
    expected: tuple[str, ...]

    @property
    def title(self) -> bool:
        return not LOG_LINE.search(self.error)


def ledger_entries() -> list[Entry]:
    entries = []
    for path in sorted((ROOT / "ledger").glob("*.toml")):
        for raw in tomllib.loads(path.read_text(encoding="utf-8")).get("report", []):
            expected = tuple(raw.get("rules", [])) + tuple(raw.get("related", []))
            if raw.get("status") == "encoded" or raw.get("related"):
                entries.append(Entry(raw["url"], raw["engine"], raw["gpu"], raw["versions"], raw["error"], expected))
    return entries


def hardware_for(gpu: str) -> str:
    """The built-in profile nearest the GPU the entry names (an SM12x card of that family and count)."""
    if "GB10" in gpu or "Spark" in gpu:
        return "dgx-spark"
    if "PRO 6000" in gpu and re.search(r"\b8x", gpu):
        return "rtx-pro-6000-x8"
    if "PRO 6000" in gpu and re.search(r"\b[24]x", gpu):
        return "rtx-pro-6000-ws-x4"
    if re.search(r"\b[2-8]x", gpu):
        return "rtx-5090-x2"
    return "rtx-5090"


def engine_specs(entry: Entry) -> list[str]:
    from doctor.engines.registry import package_named

    specs: dict[str, str] = {}
    for name, version in VERSION.findall(entry.versions):
        key = package_named(name.lower().replace("_", "-"))
        if key and key not in specs:
            specs[key] = f"{key}=={version}"
    if entry.engine == "llama.cpp" and "llama.cpp" not in specs and (build := LLAMA_BUILD.search(entry.versions)):
        specs["llama.cpp"] = f"llama.cpp=={build.group(1)}"
    return list(specs.values())


def diagnose_entry(entry: Entry) -> tuple[str, list[str]]:
    named = [e.rule for e in diagnose_entry_full(entry).explanations]
    if named and named[0] in entry.expected:
        return "first", named
    return ("named" if set(named) & set(entry.expected) else "none"), named


def diagnose_entry_full(entry: Entry) -> Any:
    """The entry's `error` text diagnosed as a user would run it (doctor.diagnose.diagnosis.Diagnosis)."""
    from doctor.diagnose.diagnosis import diagnose
    from doctor.engines.registry import split_engine_specs
    from doctor.errors import DoctorError
    from doctor.hardware import load_profile, without_os
    from doctor.pipeline.gather import with_engines

    facts = without_os(load_profile(hardware_for(entry.gpu))).replace(libraries={}, env={})  # as `diagnose --hardware`
    versioned, unstated = split_engine_specs(engine_specs(entry))  # a tagless source build names no release
    with contextlib.suppress(DoctorError):  # a version string --engine would refuse: run without it
        facts = with_engines(facts, versioned, pinned=False)  # as `diagnose` does
    stream = io.BufferedReader(io.BytesIO(entry.error.encode()))
    return diagnose(stream, entry.url, facts, "ledger", {}, engines=unstated)


def measure() -> list[tuple[Entry, str, list[str]]]:
    return [(entry, *diagnose_entry(entry)) for entry in ledger_entries()]


def counts(rows: list[tuple[Entry, str, list[str]]]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for kind in ("log", "title", "all"):
        chosen = [r for r in rows if kind == "all" or (r[0].title == (kind == "title"))]
        table[kind] = {o: sum(1 for r in chosen if r[1] == o) for o in OUTCOMES} | {"total": len(chosen)}
    return table


def record(rows: list[tuple[Entry, str, list[str]]]) -> None:
    lines = ["# Written by bench/diagnose_ledger.py --record: each ledger entry's outcome (first|named|none).", ""]
    for entry, outcome, named in rows:
        lines += ["[[entry]]", f'url = "{entry.url}"', f'outcome = "{outcome}"',
                  f"title = {'true' if entry.title else 'false'}",
                  f"named = [{', '.join(repr(n).replace(chr(39), chr(34)) for n in named[:4])}]", ""]
    RESULTS.write_text("\n".join(lines), encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="write bench/results/diagnose-ledger.{toml,md}")
    parser.add_argument("--show", choices=OUTCOMES, help="list the entries with this outcome")
    args = parser.parse_args()
    rows = measure()
    table = counts(rows)
    for kind, row in table.items():
        print(f"{kind:6} total {row['total']:3}  first {row['first']:3}  named {row['named']:3}  none {row['none']:3}")
    if args.show:
        for entry, outcome, named in rows:
            if outcome == args.show:
                print(f"{entry.url}  expected {list(entry.expected)}  named {named[:3]}  "
                      f"{'[title] ' if entry.title else ''}{entry.error[:110]!r}")
    if args.record:
        record(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
