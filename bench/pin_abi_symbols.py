"""Measure whether an engine wheel's compiled extensions resolve against a torch wheel (bench/RESULTS-pin-check.md).

For every ELF shared object in the engine wheel: its undefined dynamic symbols (`nm -D --undefined-only`), and
which of them each torch wheel's torch/lib/*.so define (`nm -D --defined-only`). A symbol the built-for torch
defines and the other torch does not is one the loader cannot resolve there: `undefined symbol` at import.

    python bench/pin_abi_symbols.py ENGINE.whl TORCH_BUILT_FOR.whl TORCH_OTHER.whl [...] [--json PAIRS.json]

`--json` adds one record per (engine wheel, other torch) to PAIRS.json (doctor/data/derived/torch_abi_pairs.json,
read by doctor/engines/pin_check.py): the missing count of every extension and of its core one (CORE), which
the package cannot be imported without.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def _extract(wheel: Path, prefix: str | None, into: Path) -> list[Path]:
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.endswith(".so") or ".so." in n.rsplit("/", 1)[-1]]
        if prefix:
            names = [n for n in names if n.startswith(prefix)]
        for name in names:
            archive.extract(name, into)
    return [into / n for n in names]


def _symbols(path: Path, undefined: bool) -> set[str]:
    flag = "--undefined-only" if undefined else "--defined-only"
    out = subprocess.run(["nm", "-D", flag, str(path)], capture_output=True, text=True, check=False).stdout
    rows = [[*line.split()[:-1], line.split()[-1].split("@", 1)[0]] for line in out.splitlines() if line.split()]
    if undefined:  # a weak reference ("w", "v") that nothing defines resolves to null: only "U" stops the load
        return {row[-1] for row in rows if len(row) >= 2 and row[-2] == "U"}
    return {row[-1] for row in rows if row}


def _torch_exports(wheel: Path, into: Path) -> set[str]:
    exported: set[str] = set()
    for lib in _extract(wheel, "torch/lib/", into):
        exported |= _symbols(lib, undefined=False)
    return exported


CORE = re.compile(r"^(?:vllm/_C(?:_stable_libtorch)?\.abi3\.so|sgl_kernel/sm\d+/common_ops\.abi3\.so)$")
WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)-")
SYSTEM_LIBS = ("libstdc++.so.6", "libgcc_s.so.1", "libc.so.6", "libm.so.6")


def _system_exports() -> set[str]:
    """What the C/C++ runtime defines: a symbol torch happens to re-export (inline libstdc++ members) that the
    other torch does not still resolves there."""
    found: set[str] = set()
    for name in SYSTEM_LIBS:
        out = subprocess.run(["gcc", "-print-file-name=" + name], capture_output=True, text=True, check=False)
        path = Path(out.stdout.strip())
        if not path.is_absolute():
            path = Path("/usr/lib/x86_64-linux-gnu") / name
        if path.is_file():
            found |= _symbols(path.resolve(), undefined=False)
    return found


def _measure(engine: Path, torches: list[Path], tmp: Path) -> list[dict[str, object]]:
    exports = {t.name: _torch_exports(t, tmp / t.stem) for t in torches}
    built_for, system = exports[torches[0].name], _system_exports()
    records = [{"missing": {}, "symbols": {}, "other": other} for other in torches[1:]]
    for ext in sorted(_extract(engine, None, tmp / "engine")):
        name = str(ext.relative_to(tmp / "engine"))
        from_torch = _symbols(ext, undefined=True) & built_for
        if not from_torch:
            continue
        row = [name, f"from_torch({torches[0].name})={len(from_torch)}"]
        for record in records:
            missing = sorted(from_torch - exports[record["other"].name] - system)
            record["missing"][name] = len(missing)
            if missing:
                record["symbols"][name] = missing
            row.append(f"missing_in({record['other'].name})={len(missing)}")
            row.extend(f"  {symbol}" for symbol in missing)
        print("\n    ".join(row))
    return [_record(engine, torches[0], record) for record in records]


def _record(engine: Path, torch: Path, record: dict) -> dict[str, object]:
    wheel, built, other = WHEEL.match(engine.name), WHEEL.match(torch.name), WHEEL.match(record["other"].name)
    core = {name: count for name, count in record["missing"].items() if CORE.match(name)}
    return {"package": wheel["name"].replace("_", "-"), "version": wheel["version"], "wheel": engine.name,
            "sha256": hashlib.sha256(engine.read_bytes()).hexdigest(), "built_for": built["version"],
            "torch": other["version"], "torch_wheel": record["other"].name, "core": core,
            "core_missing": max(core.values(), default=0), "missing": record["missing"],
            "symbols": record["symbols"]}


def main(argv: list[str]) -> int:
    out = None
    if "--json" in argv:
        at = argv.index("--json")
        out, argv = Path(argv[at + 1]), argv[:at] + argv[at + 2:]
    if len(argv) < 3:
        print("usage: pin_abi_symbols.py ENGINE.whl TORCH_BUILT_FOR.whl TORCH_OTHER.whl [...] [--json OUT]",
              file=sys.stderr)
        return 2
    missing = [a for a in argv if not Path(a).is_file() or not zipfile.is_zipfile(a)]
    if missing:
        print(f"pin_abi_symbols.py: not a wheel: {missing[0]}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        records = _measure(Path(argv[0]), [Path(a) for a in argv[1:]], Path(tmp))
    if out is not None:
        table = json.loads(out.read_text(encoding="utf-8")) if out.is_file() else {
            "generated_by": "bench/pin_abi_symbols.py", "pairs": []}
        new = {(r["wheel"], r["torch"]) for r in records}
        keep = [p for p in table["pairs"] if (p["wheel"], p["torch"]) not in new]
        table["pairs"] = sorted(keep + records, key=lambda p: (p["package"], p["version"], p["torch"]))
        out.write_text(json.dumps(table, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
