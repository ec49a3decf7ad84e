"""Regenerate the derived dispatch tables of one engine release:

    python -m tools.engine_oracle vllm 0.33.0 [--capabilities 12.0,12.1] [--controls 9.0,10.0] [--env VENV]
    python -m tools.engine_oracle sglang 0.5.9

installs vllm==0.33.0 into the oracle cache (SM120_DOCTOR_ORACLE_CACHE, default ~/.cache/sm120-doctor-oracle)
unless --env names a venv that has it, runs the grid (tools/engine_oracle/grid.py) on each emulated capability
(one process each) and writes doctor/data/derived/<engine>/<release>.json. The raw records go next to the env."""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tools.engine_oracle import grid, jit_archs, sglang_grid, sglang_tables, tables, validation
from tools.engine_oracle.environment import DEFAULT_CACHE, disk_bytes, ensure_env, pinned_inputs, pins_suffix
from tools.engine_oracle.run_engine import PINNED_DRIVER, run_capability

OUT = Path(__file__).resolve().parents[2] / "doctor" / "data" / "derived"
SCHEMA = 1
# The pinned launch environment: nvcc and ninja on PATH (FlashInfer's JIT usable, as in vLLM's images and on
# any host with a CUDA toolkit), no other VLLM_* setting.
PINNED_PATH = "/usr/local/cuda/bin:/usr/local/bin:/usr/bin:/bin"


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tools.engine_oracle", description=__doc__.splitlines()[0])
    parser.add_argument("engine", choices=["vllm", "sglang"])
    parser.add_argument("release")
    parser.add_argument("--capabilities", default="12.0,12.1")
    parser.add_argument("--controls", default="9.0,10.0", help="capabilities asked the control subset")
    parser.add_argument("--env", type=Path, help="an existing venv with the release installed")
    parser.add_argument("--jobs", type=int, default=2, help="capabilities run at once")
    parser.add_argument("--only", help="grid shapes to ask, comma-separated (default: all)")
    parser.add_argument("--grid", choices=["grid", "validation"], default="grid",
                        help="validation: the launches of public reports (validation.py), written to "
                             "<out>/<engine>-validation/<release>.json")
    parser.add_argument("--pin", action="append", default=[], metavar="PKG==VERSION",
                        help="hold a dependency at this version (a venv of its own); the table goes to "
                             "<out>/<engine>-pinned/<release>+PKG-VERSION.json (tools/engine_oracle/stops.py)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--from-raw", action="store_true",
                        help="rebuild the table from the cached raw records of the last run, without the engine")
    parser.add_argument("--reclassify", action="store_true",
                        help="re-apply the error classification to the written table's recorded errors (no venv, "
                             "no raw records needed)")
    return parser.parse_args()


# Per engine: its grid of queries, how a raw record becomes a table entry, and what the table says it ran.
GRIDS = {"vllm": grid.queries, "sglang": sglang_grid.queries}
ENTRIES = {"vllm": tables.entry, "sglang": sglang_tables.entry}
METHODS = {
    "vllm": "vLLM's own selection on an emulated device (tools/engine_oracle): EngineArgs from the flags, the "
            "model skeleton built on meta as TP rank 0, decisions read from the layers, the platform's "
            "get_valid_backends and vLLM's log",
    "sglang": "SGLang's own selection on an emulated device (tools/engine_oracle): prepare_server_args(argv) as "
              "launch_server calls it (argparse, then ServerArgs.__post_init__), the scheduler's MoE/GEMM runner "
              "set-up, the model skeleton built on meta as TP rank 0 by SGLang's loader; decisions read from "
              "ServerArgs, the runner globals, the layers and SGLang's log",
}


def _queries(args: argparse.Namespace) -> Any:
    return validation.queries if args.grid == "validation" else GRIDS[args.engine]


def _plan(args: argparse.Namespace) -> list[tuple[str, list[grid.Query]]]:
    only = set(args.only.split(",")) if args.only else None
    queries = _queries(args)

    def keep(query: grid.Query) -> bool:
        return only is None or query.shape in only

    plan = [(cap, [q for q in queries() if keep(q)]) for cap in args.capabilities.split(",") if cap]
    plan += [(cap, [q for q in queries(control=True) if keep(q)]) for cap in args.controls.split(",") if cap]
    return [(cap, qs) for cap, qs in plan if qs]


def _run_one(env: Any, cap: str, asked: list[grid.Query], variables: dict[str, str], raw: Path) -> dict[str, Any]:
    started = time.monotonic()
    with grid_dirs(asked) as dirs:
        jobs = [{"id": q.id, "model_dir": str(dirs[q.id]), "flags": list(q.flags), "env": dict(q.env),
                 **({"drafter": q.drafter} if getattr(q, "drafter", None) else {})} for q in asked]
        if env.engine == "sglang":
            records = _per_environment(env, cap, jobs, variables)
        else:
            records = _per_tp(env, cap, jobs, {q.id: getattr(q, "tp", 1) for q in asked}, variables)
    _keep_raw(raw / f"{cap}.json", records)
    return {"records": records, "seconds": round(time.monotonic() - started, 1)}


def _keep_raw(path: Path, records: list[dict[str, Any]]) -> None:
    """The raw records of a capability, a partial run's merged into the last full run's (so --from-raw
    rebuilds the whole table)."""
    asked = {r["id"] for r in records if "id" in r}
    old = json.loads(path.read_text()) if path.exists() else []
    kept = [r for r in old[1:] if "id" in r and r["id"] not in asked]
    path.write_text(json.dumps(records[:1] + kept + records[1:], indent=1))


def _per_tp(env: Any, cap: str, jobs: list[dict[str, Any]], tps: dict[str, int],
            variables: dict[str, str]) -> list[Any]:
    """The world size is fixed for a process: each tensor-parallel size's queries run in a world of their own."""
    records: list[Any] = []
    for tp in sorted(set(tps.values())):
        part = run_capability(env, cap, [job for job in jobs if tps[job["id"]] == tp], variables, tp=tp)
        records += part if not records else part[1:]
    return records


def _per_environment(env: Any, cap: str, jobs: list[dict[str, Any]], variables: dict[str, str]) -> list[Any]:
    """SGLang reads its switches when a module is imported (deep_gemm_wrapper's ENABLE_JIT_DEEPGEMM): the
    queries of each environment run in their own process, with the variables set from the start."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for job in jobs:
        groups.setdefault(json.dumps(job["env"], sort_keys=True), []).append(job)
    records: list[Any] = []
    for key, group in groups.items():
        part = run_capability(env, cap, group, {**variables, **json.loads(key)})
        records += part if not records else part[1:]
    return records


class grid_dirs:
    """A temporary directory per query holding its config.json."""

    def __init__(self, asked: list[grid.Query]) -> None:
        import tempfile
        self.tmp = tempfile.TemporaryDirectory(prefix="oracle-grid-")
        self.asked = asked

    def __enter__(self) -> dict[str, Path]:
        dirs = {}
        for index, query in enumerate(self.asked):
            folder = Path(self.tmp.name) / f"q{index}"
            folder.mkdir()
            (folder / "config.json").write_text(json.dumps(query.config))
            dirs[query.id] = folder
        return dirs

    def __exit__(self, *exc: Any) -> None:
        self.tmp.cleanup()


def dumps(table: dict[str, Any]) -> str:
    """The header indented, each entry on one line: small to load at check time, one line per decision in a
    diff between two runs."""
    head = {k: v for k, v in table.items() if k != "entries"}
    text = json.dumps(head, indent=1)[:-2]
    entries = ",\n  ".join(json.dumps(e, separators=(",", ":")) for e in table["entries"])
    return f'{text},\n "entries": [\n  {entries}\n ]\n}}\n'


def _merged(old: dict[str, Any], new: dict[str, Any], queries: Any) -> dict[str, Any]:
    """A partial run (--only) replaces its own entries in the existing table and keeps the others."""
    asked = {(e["capability"], e["grid"]) for e in new["entries"]}
    kept = [e for e in old["entries"] if (e["capability"], e["grid"]) not in asked]
    order: dict[str, int] = {}
    for index, query in enumerate(queries() + queries(control=True)):
        order.setdefault(query.id, index)
    entries = sorted(kept + new["entries"], key=lambda e: (e["capability"], order.get(e["grid"], 0)))
    cost = dict(old["cost"])
    cost["partial_runs"] = [*old["cost"].get("partial_runs", []), new["cost"]]
    return {**new, "entries": entries, "crashes": old["crashes"] + new["crashes"], "cost": cost}


def _install_record(root: Path) -> dict[str, Any]:
    """install_s, installer (uv or pip) and own_bytes (what the venv alone adds to the disk) of install.json."""
    record = json.loads((root / "install.json").read_text()) if (root / "install.json").exists() else {}
    return {"install_s": record.get("install_s"), "installer": record.get("installer"),
            "own_bytes": record.get("own_bytes")}


def _import_seconds(plan: list[tuple[str, list[grid.Query]]], runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {cap: run["records"][0]["setup"].get("import_s") for (cap, _), run in zip(plan, runs, strict=True)
            if run["records"] and "setup" in run["records"][0]}


def _note_watched_imports(pinned: dict[str, Any], runs: list[dict[str, Any]]) -> None:
    """Each stand-in's `imported_during_run`: what the runners saw import its module (empty: never touched)."""
    hits = sorted({hit for run in runs for record in run["records"]
                   for hit in (record.get("setup", record).get("watched_imports") or [])})
    for stand_in in pinned.get("stand_ins", {}).values():
        stand_in["imported_during_run"] = [h for h in hits if h.split(" ")[0].startswith(stand_in["module"])]


# How an engine's table classifies a recorded error (rejection / flag / emulation): SGLang's (vLLM's tables
# classify inside tables.entry with the query's context).
ERROR_KINDS = {"sglang": sglang_tables.error_kind}


def reclassify(path: Path, engine: str) -> int:
    """Re-apply the classifier to every recorded error of a written table; the number of errors whose kind
    changed. The decisions are untouched: only what check treats as SGLang's answer vs the emulation's limit."""
    table = json.loads(path.read_text(encoding="utf-8"))
    changed = 0
    for entry in table["entries"]:
        for error in entry["errors"]:
            kind = ERROR_KINDS[engine](error)
            changed += kind != error["kind"]
            error["kind"] = kind
    path.write_text(dumps(table), encoding="utf-8")
    return changed


def main() -> None:
    args = _args()
    if args.reclassify:
        if args.engine not in ERROR_KINDS:
            raise SystemExit(f"--reclassify: {args.engine}'s tables classify errors with the query; use --from-raw")
        target = args.out / args.engine / f"{args.release}.json"
        print(f"{target}: {reclassify(target, args.engine)} errors reclassified")
        return
    started = time.monotonic()
    pins = tuple(args.pin)
    env = ensure_env(args.engine, args.release, existing=args.env, pins=pins)
    variables = {"PATH": PINNED_PATH, "CUDA_HOME": "/usr/local/cuda"}
    suffix = "-validation" if args.grid == "validation" else "-pinned" if pins else ""
    raw = DEFAULT_CACHE / "raw" / f"{args.engine}-{args.release}{suffix}{pins_suffix(pins)}"
    raw.mkdir(parents=True, exist_ok=True)
    plan = _plan(args)
    provenance = validation.provenance() if args.grid == "validation" else {s.name: s.provenance
                                                                           for s in grid.shapes()}
    if args.from_raw:
        runs = [{"records": json.loads((raw / f"{cap}.json").read_text()), "seconds": None} for cap, _ in plan]
    else:
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            runs = list(pool.map(lambda item: _run_one(env, item[0], item[1], variables, raw), plan))
    entries, crashes, timing = [], [], {}
    for (cap, asked), run in zip(plan, runs, strict=True):
        timing[cap] = run["seconds"]
        records = run["records"][1:]
        by_id = {r["id"]: r for r in records if "id" in r}
        crashes += [{"capability": cap, **r} for r in records if "crash" in r]
        entries += [ENTRIES[args.engine](cap, q, provenance[q.shape], by_id[q.id]) for q in asked if q.id in by_id]
    table = {"schema": SCHEMA, "engine": args.engine, "release": args.release,
             "generated_by": f"python -m tools.engine_oracle {args.engine} {args.release}"
                             + (" --grid validation" if args.grid == "validation" else "")
                             + "".join(f" --pin {pin}" for pin in pins),
             "method": METHODS[args.engine],
             "pinned": {**pinned_inputs(env, variables), "platform": platform.machine(),
                        **({"driver": PINNED_DRIVER} if args.engine == "sglang" else {})},
             "jit_archs": jit_archs.scan(env.site_packages),
             "crashes": crashes, "entries": entries,
             "cost": {"seconds_per_capability": timing, "import_s": _import_seconds(plan, runs),
                      "total_s": round(time.monotonic() - started),
                      "env_bytes": disk_bytes(env.root), **_install_record(env.root)}}
    _note_watched_imports(table["pinned"], runs)
    target = args.out / f"{args.engine}{suffix}" / f"{args.release}{pins_suffix(pins)}.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    if args.only and target.exists():
        table = _merged(json.loads(target.read_text(encoding="utf-8")), table, _queries(args))
    elif args.from_raw and target.exists():  # the run's own cost, not the rebuild's
        table["cost"] = json.loads(target.read_text(encoding="utf-8"))["cost"]
    target.write_text(dumps(table), encoding="utf-8")
    print(f"{target}: {len(entries)} entries, {len(crashes)} crashes, {table['cost']['total_s']} s "
          f"(pid {os.getpid()})")


if __name__ == "__main__":
    main()
