"""Ask a dependency alone what an engine release's configuration stage asks it, at several versions:

    python -m tools.engine_oracle.dependency_probe transformers 5.14.1,5.15.0,5.24.0 --shape gqa-h256-g512-swa-moe \
        --read head_dim

For each version: a small venv with only that distribution (uv, hardlinks from the uv cache: no torch, no
engine), the grid shape's config.json loaded with `AutoConfig.from_pretrained` (what vLLM's and SGLang's
`get_config` call without remote code), then `getattr(config.get_text_config(), ATTR, 0)` for each `--read`
(vLLM 0.19.0-0.27.1 `Gemma4ModelArchConfigConvertor.get_head_size` reads `head_dim` exactly so). The answer per
version (`loads` / the exception's type and first line) is printed as JSON and, with `--record`, merged into
doctor/data/derived/stops.json under `probes` (tools/engine_oracle/stops.py reads it back).

This is the configuration stage only: the stops it settles are the ones the tables record at that stage
(`stage: config`). A full rerun of a release's failing shape with the dependency pinned is
`python -m tools.engine_oracle vllm R --only SHAPE --pin transformers==Y` (it needs the release's torch set)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tools.engine_oracle import grid
from tools.engine_oracle.environment import DEFAULT_CACHE, find_uv, own_bytes, uv_cache

INSIDE = r"""
import json, sys, tempfile, pathlib
config_json, reads = sys.argv[1], sys.argv[2].split(",") if sys.argv[2] else []
knows = sys.argv[3].split(",") if len(sys.argv) > 3 and sys.argv[3] else []
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES
out = {"version": transformers.__version__, "reads": {}}
if knows:
    out["knows"] = {model_type: model_type in CONFIG_MAPPING_NAMES for model_type in knows}
if not config_json:
    print(json.dumps({**out, "loads": None}))
    raise SystemExit(0)
folder = pathlib.Path(tempfile.mkdtemp())
(folder / "config.json").write_text(config_json)
try:
    config = transformers.AutoConfig.from_pretrained(str(folder))
except Exception as exc:
    out["loads"] = False
    out["error"] = {"type": type(exc).__name__, "message": str(exc).splitlines()[0][:400]}
else:
    out["loads"] = True
    text = config.get_text_config()
    for name in reads:
        try:
            out["reads"][name] = {"value": repr(getattr(text, name, 0))}
        except Exception as exc:
            out["reads"][name] = {"type": type(exc).__name__, "message": str(exc).splitlines()[0][:400]}
print(json.dumps(out))
"""


def probe_env(package: str, version: str) -> Path:
    """A venv holding only package==version (and what it requires), made once under the oracle cache."""
    root = DEFAULT_CACHE / "envs" / f"probe-{package}-{version}"
    if (root / "installed").exists():
        return root
    uv = find_uv()
    if uv is None:
        raise SystemExit("dependency_probe needs uv (SM120_DOCTOR_UV or uv on PATH)")
    variables = {**os.environ, "UV_CACHE_DIR": str(uv_cache())}
    subprocess.run([uv, "venv", "-q", "--clear", "--python", sys.executable, str(root)], check=True, env=variables)
    subprocess.run([uv, "pip", "install", "-q", "--link-mode", "hardlink", "--python", str(root / "bin" / "python"),
                    f"{package}=={version}"], check=True, env=variables)
    (root / "installed").write_text(version)
    return root


def ask(root: Path, config: dict[str, Any] | None, reads: list[str], knows: list[str] = ()) -> dict[str, Any]:
    done = subprocess.run([str(root / "bin" / "python"), "-c", INSIDE, json.dumps(config) if config else "",
                           ",".join(reads), ",".join(knows)],
                          capture_output=True, text=True, timeout=300, cwd=tempfile.gettempdir())
    if done.returncode != 0:
        return {"loads": False, "error": {"type": "ProbeFailed", "message": done.stderr.strip().splitlines()[-1][:400]}}
    return json.loads(done.stdout.strip().splitlines()[-1])


def shape_config(name: str) -> dict[str, Any]:
    found = [s for s in grid.shapes() if s.name == name]
    if not found:
        raise SystemExit(f"no grid shape {name!r}")
    return found[0].config


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m tools.engine_oracle.dependency_probe",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("package", choices=["transformers"])
    parser.add_argument("versions", help="comma-separated")
    parser.add_argument("--shape", default="", help="a grid shape (tools/engine_oracle/grid.py)")
    parser.add_argument("--read", action="append", default=[], help="a text-config attribute to read")
    parser.add_argument("--knows", action="append", default=[],
                        help="a model type: whether transformers' own CONFIG_MAPPING already names it (an engine "
                             "that registers the same type without exist_ok fails at import)")
    parser.add_argument("--record", type=Path, help="merge the answers into this stops.json")
    args = parser.parse_args()
    config = shape_config(args.shape) if args.shape else None
    answers = []
    for version in args.versions.split(","):
        started = time.monotonic()
        root = probe_env(args.package, version)
        installed = time.monotonic()
        answer = ask(root, config, args.read, args.knows)
        answers.append({"package": args.package, "version": version, "shape": args.shape, **answer,
                        "cost": {"install_s": round(installed - started, 1),
                                 "ask_s": round(time.monotonic() - installed, 1), "own_bytes": own_bytes(root)}})
        print(json.dumps(answers[-1]))
        if args.record:  # after each version: a long run that stops keeps what it asked
            record(args.record, answers[-1:])


def record(path: Path, answers: list[dict[str, Any]]) -> None:
    """Replace the answers for the same (package, version, shape) in the file's `probes`."""
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    asked = {(a["package"], a["version"], a["shape"]) for a in answers}
    kept = [p for p in data.get("probes", []) if (p["package"], p["version"], p["shape"]) not in asked]
    data["probes"] = sorted(kept + answers, key=lambda p: (p["package"], p["shape"], _version_key(p["version"])))
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


if __name__ == "__main__":
    main()
