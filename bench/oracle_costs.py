"""Per-release cost of the derived vLLM tables, read from the tables themselves (their `cost` block, written by
`python -m tools.engine_oracle`): install time and installer, the venv's apparent size and what it alone adds
on disk (uv hardlinks the shared wheels), the run's wall time per capability, the table's size and what it
holds. Prints a Markdown table for bench/RESULTS-oracle.md.

    python bench/oracle_costs.py                    # vLLM
    python bench/oracle_costs.py sglang             # SGLang (its stand-ins, if any, in the last column)
    python bench/oracle_costs.py [sglang] --partial # the partial (--only) runs each table records, one row each"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from packaging.version import Version

DERIVED = Path(__file__).resolve().parents[1] / "doctor" / "data" / "derived"
HEADER = ("| release | installer | install s | venv apparent GB | venv own MB | run s (12.0 / 12.1 / 9.0 / 10.0) "
          "| table KB | entries | with layer decisions | rejections | emulation errors | stand-ins |")


def _gb(value: int | None) -> str:
    return f"{value / 1e9:.2f}" if value else "-"


def _mb(value: int | None) -> str:
    return f"{value / 1e6:.1f}" if value else "-"


def row(path: Path) -> str:
    table = json.loads(path.read_text(encoding="utf-8"))
    cost = table["cost"]
    per_cap = cost.get("seconds_per_capability", {})
    caps = " / ".join(str(round(per_cap[c])) if per_cap.get(c) else "-" for c in ("12.0", "12.1", "9.0", "10.0"))
    kinds = Counter(e["kind"] for entry in table["entries"] for e in entry["errors"])
    built = sum(bool(entry.get("moe") or entry.get("linear")) for entry in table["entries"])
    stand_ins = ", ".join(f"{name}=={s['version']}" for name, s in table["pinned"].get("stand_ins", {}).items())
    return (f"| {table['release']} | {cost.get('installer') or 'pip'} | {cost.get('install_s') or '-'} | "
            f"{_gb(cost.get('env_bytes'))} | {_mb(cost.get('own_bytes'))} | {cost.get('total_s')} ({caps}) | "
            f"{path.stat().st_size // 1024} | {len(table['entries'])} | {built} | {kinds.get('rejection', 0)} | "
            f"{kinds.get('emulation', 0)} | {stand_ins or '-'} |")


PARTIAL_HEADER = "| release | run | install s | venv own MB | run s | per capability s (import s) |"


def partial_rows(path: Path) -> list[str]:
    """One row per `--only` run merged into the table (`cost.partial_runs`, oldest first)."""
    table = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for index, run in enumerate(table["cost"].get("partial_runs", []), 1):
        per_cap = run.get("seconds_per_capability", {})
        imports = run.get("import_s", {})
        caps = ", ".join(f"{c}: {round(s)} ({round(imports[c]) if imports.get(c) else '-'})"
                         for c, s in per_cap.items() if s)
        rows.append(f"| {table['release']} | {index} | {run.get('install_s') or '-'} | {_mb(run.get('own_bytes'))} | "
                    f"{run.get('total_s')} | {caps} |")
    return rows


def main() -> None:
    words = [w for w in sys.argv[1:] if not w.startswith("--")]
    engine = words[0] if words else "vllm"
    paths = sorted((DERIVED / engine).glob("*.json"), key=lambda p: Version(p.stem))
    if "--partial" in sys.argv[1:]:
        print(PARTIAL_HEADER)
        print("|" + "---|" * (PARTIAL_HEADER.count("|") - 1))
        for path in paths:
            for line in partial_rows(path):
                print(line)
        return
    print(HEADER)
    print("|" + "---|" * (HEADER.count("|") - 1))
    for path in paths:
        print(row(path))


if __name__ == "__main__":
    main()
