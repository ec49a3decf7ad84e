"""Regenerate doctor/data/triton_facts.json: for each Triton release, compile one small kernel for capabilities
9.0, 10.0, 12.0 and 12.1 with that release's own wheel (on the CPU: Triton needs no GPU to compile) and record
whether a cubin came out, the PTX target it chose, or the release's error, with the ptxas builds it bundles.

    python -m tools.triton_facts 3.5.1 3.6.0          # add or replace these releases
    python -m tools.triton_facts --drop-sites 3.9.0   # and delete the installs this run made

Wheels are installed with pip (--no-deps --target) under $SM120_DOCTOR_TEST_CACHE/triton, the same private
site dirs the exact shared-memory compile uses. rules/triton.toml's bounds are checked against this table by
tests/tools/test_triton_facts.py."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from doctor.kernels.exact import ensure_triton  # noqa: E402

TABLE = REPO / "doctor" / "data" / "triton_facts.json"
PROBE = Path(__file__).with_name("probe.py")
CAPABILITIES = (90, 100, 120, 121)
# What LLVM and ptxas print to stderr themselves (not in the exception): the lines users paste in reports.
TOOL_LINES = re.compile(r"'sm_\d+a?' is not a recognized processor.*|ptxas fatal\s*:.*")


def cache_root() -> Path:
    return Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", Path.home() / ".cache" / "sm120-doctor-tests"))


def probe(site: Path, capabilities: tuple[int, ...] = CAPABILITIES) -> dict:
    """One release's answers; its own Triton cache so nothing compiled by another release is reused."""
    with tempfile.TemporaryDirectory() as triton_cache:
        env = {**os.environ, "PYTHONPATH": str(site), "TRITON_CACHE_DIR": triton_cache}
        done = subprocess.run([sys.executable, str(PROBE), *map(str, capabilities)], env=env,
                              capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"probe failed: {last[:300]}"}
    found = json.loads(done.stdout.strip().splitlines()[-1])
    found["tool_messages"] = sorted({" ".join(m.split()) for m in TOOL_LINES.findall(done.stderr)})
    return found


def facts_for(version: str, root: Path, drop_site: bool) -> dict:
    site = root / f"triton-{version}"
    existed = site.exists()
    found = probe(ensure_triton(version, root))
    if drop_site and not existed:
        shutil.rmtree(site, ignore_errors=True)
    found.pop("version", None)
    return {"source": f"triton=={version} wheel from PyPI ({os.uname().machine}), compiled on the CPU", **found}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.triton_facts", description=__doc__.split("\n\n")[0])
    parser.add_argument("versions", nargs="+")
    parser.add_argument("--drop-sites", action="store_true", help="delete the installs this run made")
    parser.add_argument("--out", type=Path, default=TABLE)
    args = parser.parse_args(argv)
    table = json.loads(args.out.read_text()) if args.out.exists() else {}
    for version in args.versions:
        print(f"triton {version}: compiling for {', '.join(map(str, CAPABILITIES))}", flush=True)
        table[version] = facts_for(version, cache_root() / "triton", args.drop_sites)
    ordered = dict(sorted(table.items(), key=lambda item: [int(p) for p in item[0].split(".")]))
    args.out.write_text(json.dumps(ordered, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
