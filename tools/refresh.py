"""Regenerate every wheel-derived table for every release on PyPI newer than the data (issue 25, point 4).

    python tools/refresh                 # ask PyPI, then run the generators for what is new
    python tools/refresh --dry-run       # print what would be read and the commands, change nothing
    python tools/refresh --only vllm     # one package's tables

For each table of doctor/data_tables.py (SGLang, vLLM and Triton facts, the wheel-arch audits of torch, vLLM,
sgl-kernel, sglang-kernel, flashinfer-cubin and LMCache) it reads the newest release the table holds, asks
PyPI (`pip index versions`, the ordinary client) for the final releases after it, and runs the table's own
generator for exactly those: tools/sglang_facts.py (and appends them to doctor/engines/sglang/releases.py,
whose list says "every release"), `python -m tools.vllm_facts --versions` (after tools/vllm_moe_activations.py on
the same wheels), `python -m tools.triton_facts`, tools/wheel_archs.py --target (the kernel-family rows of vLLM,
sgl-kernel and sglang-kernel for x86_64 and aarch64), tools/engine_pins.py (what each
engine release's wheel pins), tools/model_support.py (which architectures each vLLM/SGLang release registers and
which model types each transformers release knows, read by HTTP ranges: nothing big is written),
tools/parser_tables.py (the --tool-call-parser / --reasoning-parser names each vLLM and SGLang release
registers), tools/raise_sites.py (where each vLLM, SGLang and FlashInfer release raises or logs each error
message, read from the distribution in memory). Wheels go to $SM120_DOCTOR_TEST_CACHE (outside the repository) and
are deleted once read.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from doctor.data_tables import DATA, RAISE_SITES, Table, newest, stable, tables  # noqa: E402

SGLANG_RELEASES = REPO / "doctor" / "engines" / "sglang" / "releases.py"
AVAILABLE = re.compile(r"^Available versions:\s*(.+)$", re.MULTILINE)

PyPIVersions = Callable[[str], list[str]]


@dataclass(frozen=True)
class Step:
    table: Table
    known: str | None
    new: tuple[str, ...]

    def before(self) -> list[list[str]]:
        """Generators that read the same wheels first (the main command deletes them once read): for vLLM, the
        forced --moe-backend table (tools/vllm_moe_activations.py, doctor/data/vllm/moe-activations.json) and the
        Marlin padding table (tools/marlin_shapes.py, doctor/data/marlin-shapes.json)."""
        if self.table.path == "vllm/index.json":
            return [[sys.executable, "tools/vllm_moe_activations.py", *self.new],
                    [sys.executable, "tools/marlin_shapes.py", "vllm", *self.new]]
        return []

    def command(self, cache: Path) -> list[str]:
        python = sys.executable
        if self.table.path == "sglang_facts.json":
            return [python, "tools/sglang_facts.py", "--cache", str(cache / "downloads"), *self.new]
        if self.table.path == "triton_facts.json":
            return [python, "-m", "tools.triton_facts", "--drop-sites", *self.new]
        if self.table.path == "engine_pins.json":
            return [python, "tools/engine_pins.py"]  # rewrites every engine's rows from PyPI
        if self.table.path == "derived/model_support.json":  # one package's rows, every release from PyPI
            return [python, "tools/model_support.py", "--only", self.table.package]
        if self.table.path == "derived/parsers.json":  # one engine's parser names, every release from PyPI
            return [python, "tools/parser_tables.py", "--only", self.table.package]
        if self.table.path.startswith(RAISE_SITES + "/"):  # where each release raises what: its sdist or wheel
            engine = Path(self.table.path).stem
            return [python, "tools/raise_sites.py", "--only", engine, "--versions", ",".join(self.new)]
        if self.table.path == "vllm/index.json":
            return [python, "-m", "tools.vllm_facts", "--out", "doctor/data/vllm", "--versions", ",".join(self.new),
                    "--delete-wheels"]
        # the kernel-family rows also need the aarch64 wheel: GB10 (12.1) is judged from it (binaries/family_archs.py)
        machines = ("", "@aarch64") if self.table.families else ("",)
        targets = [arg for v in self.new for m in machines for arg in ("--target", f"{self.table.package}=={v}{m}")]
        return [python, "tools/wheel_archs.py", "--only", self.table.package, "--cache", str(cache / "wheel-archs"),
                "--drop-wheels", *targets]


def pypi_versions(package: str) -> list[str]:
    """Every version PyPI lists for the package, via pip (the ordinary client)."""
    out = subprocess.run([sys.executable, "-m", "pip", "index", "versions", package, "--isolated"],
                         capture_output=True, text=True, timeout=300, check=True).stdout
    match = AVAILABLE.search(out)
    return [v.strip() for v in match.group(1).split(",")] if match else []


def newer_releases(known: str | None, listed: list[str]) -> list[str]:
    """Final releases after `known`, oldest first (all of them when the table holds none)."""
    floor = stable(known) if known else None
    found = {v: parsed for v in listed if (parsed := stable(v)) is not None and (floor is None or parsed > floor)}
    return sorted(found, key=found.__getitem__)


def plan(ask: PyPIVersions = pypi_versions, only: set[str] | None = None, data_dir: Path | None = None
         ) -> list[Step]:
    steps, asked = [], {}
    for table in tables(data_dir or DATA):
        if only and table.package not in only:
            continue
        if table.package not in asked:
            asked[table.package] = ask(table.package)
        known = newest(table, data_dir or DATA)
        steps.append(Step(table, known, tuple(newer_releases(known, asked[table.package]))))
    return steps


def add_sglang_releases(versions: list[str], path: Path = SGLANG_RELEASES) -> None:
    """Append releases to the RELEASES tuple of doctor/engines/sglang/releases.py, keeping its layout."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition("RELEASES = (")
    body, _, tail = rest.partition("\n)")
    known = re.findall(r'"([^"]+)"', body)
    merged = known + [v for v in versions if v not in known]
    lines, line = [], "   "
    for item in (f' "{v}",' for v in merged):
        if len(line) + len(item) > 112:
            lines.append(line)
            line = "   "
        line += item
    lines.append(line)
    path.write_text(head + "RELEASES = (\n" + "\n".join(lines) + "\n)" + tail, encoding="utf-8")


def cache_root() -> Path:
    return Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", Path.home() / ".cache" / "sm120-doctor-tests"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/refresh", description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="print the plan and the commands only")
    parser.add_argument("--only", help="comma-separated PyPI package names (sglang, vllm, torch, ...)")
    args = parser.parse_args(argv)
    only = set(args.only.split(",")) if args.only else None
    failed = 0
    for step in plan(only=only):
        print(f"{step.table.name}: holds up to {step.known or 'nothing'}; newer on PyPI: "
              f"{', '.join(step.new) or 'none'}", flush=True)
        if not step.new:
            continue
        commands = [*step.before(), step.command(cache_root())]
        for command in commands:
            print("  " + " ".join(command), flush=True)
        if args.dry_run:
            continue
        codes = [subprocess.run(command, cwd=REPO).returncode for command in commands]  # each runs
        if any(codes):
            print(f"  {step.table.name}: the generator failed; the table keeps what it had", flush=True)
            failed += 1
            continue
        if step.table.path == "sglang_facts.json":
            add_sglang_releases(list(step.new))
    return 1 if failed else 0



if __name__ == "__main__":
    raise SystemExit(main())
