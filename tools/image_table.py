"""Generate doctor/data/images/engine-images.toml: what an engine's own container image pins, by tag.

Two mechanical sources, nothing typed in by hand:

- `vllm/vllm-openai:vX.Y.Z` is built from the release's wheel: its torch pin (`torch`, informational: the
  image's torch comes from the CUDA index its Dockerfile names, which the wheel does not say), its NVIDIA NCCL
  package (the CUDA major the build links: `nvidia-nccl-cu12` / `-cu13`) and its compiled SM12x targets come from
  doctor/data/vllm/vllm-X.Y.Z.json (read from the wheel's METADATA and fatbins by tools/vllm_facts), the
  FlashInfer pin from doctor/data/vllm/flashinfer-pins.json. Only releases with a wheel-facts file get a row.
- `lmsysorg/sglang:vX.Y.Z[-cuNNN...]`: the release's wheel METADATA (`Requires-Dist: flashinfer_python==`,
  `flashinfer_cubin==`, and torch, informational), read from a folder of downloaded wheels (`--sglang-wheels DIR`
  holding `sglang-X.Y.Z/*.whl`, the layout of the test wheel cache). The CUDA variant is the tag's own.
- `ollama/ollama:X.Y.Z`: the Dockerfile at the tag (the CUDA toolkit each GPU variant is built with) and
  CMakePresets.json at the tag (each variant's CMAKE_CUDA_ARCHITECTURES), read from a git mirror of
  github.com/ollama/ollama (`--ollama-git DIR`, a bare repository).

    python -m tools.image_table [--ollama-git DIR] [--sglang-wheels ~/.cache/sm120-doctor-tests/downloads]

A source not given keeps the rows the table already holds for it; the vLLM rows are always regenerated.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import zipfile
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
VLLM_DATA = ROOT / "doctor" / "data" / "vllm"
OUT = ROOT / "doctor" / "data" / "images" / "engine-images.toml"
OLLAMA_FIRST = Version("0.5.8")  # the first tag with CMakePresets.json (earlier builds used Makefiles)
_OLLAMA_CUDA_ARG = re.compile(r"^ARG\s+CUDA(?:_VERSION_)?(1[1-3])(?:VERSION)?=([0-9.]+)\s*$", re.MULTILINE)


def vllm_rows() -> list[dict[str, Any]]:
    pins = json.loads((VLLM_DATA / "flashinfer-pins.json").read_text(encoding="utf-8"))
    rows = []
    for path in sorted(VLLM_DATA.glob("vllm-*.json"), key=lambda p: Version(p.stem.removeprefix("vllm-"))):
        data = json.loads(path.read_text(encoding="utf-8"))
        release = data["version"]
        torch = data["nccl"]["torch"]
        nccl = data["nccl"]["nccl"]["package"]
        flashinfer = (pins.get(release) or {}).get("flashinfer-python")
        libraries = {}  # what the image installs for certain: a hard requirement of the wheel
        if flashinfer and flashinfer.get("extra") is None:
            libraries["flashinfer-python"] = flashinfer["version"]
        main = data["binaries"].get("vllm/_C.abi3.so") or data["binaries"].get("vllm/_C_stable_libtorch.abi3.so", {})
        rows.append({
            "repository": "vllm/vllm-openai", "tag": f"v{release}", "any_variant": True, "engine": "vllm",
            "version": release,
            "libraries": libraries, "torch": torch["version"], "cuda_major": int(nccl.rsplit("cu", 1)[1]),
            "sm12x_sass": sorted(a for a in main.get("sass", []) if a.startswith("sm_12")),
            "source": f"{data['wheel']}: {torch['file']} line {torch['line']} ({torch['requirement']}), "
                      f"{nccl} pin, vllm/_C fatbin (doctor/data/vllm/{path.name})",
        })
    return rows


def sglang_rows(wheels: Path) -> list[dict[str, Any]]:
    rows = []
    for folder in sorted(wheels.glob("sglang-[0-9]*"), key=lambda p: Version(p.name.removeprefix("sglang-"))):
        release = folder.name.removeprefix("sglang-")
        wheel = next(iter(sorted(folder.glob("*.whl"))), None)
        if wheel is None:
            continue
        pins = _requirement_pins(wheel, release)
        libraries = {name: pins[key] for key, name in (("flashinfer_python", "flashinfer-python"),
                                                       ("flashinfer_cubin", "flashinfer-cubin")) if key in pins}
        rows.append({
            "repository": "lmsysorg/sglang", "tag": f"v{release}", "any_variant": True, "engine": "sglang",
            "version": release, "libraries": libraries, "torch": pins.get("torch"),
            "source": f"{wheel.name}: sglang-{release}.dist-info/METADATA (" +
                      ", ".join(f"{k}=={v}" for k, v in sorted(pins.items())) + ")",
        })
    return rows


def _requirement_pins(wheel: Path, release: str) -> dict[str, str]:
    """`Requires-Dist: NAME==VERSION` without a marker (what every install gets), by normalised name."""
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(f"sglang-{release}.dist-info/METADATA").decode("utf-8")
    pins = {}
    for match in re.finditer(r"^Requires-Dist: ([A-Za-z0-9_.-]+)==([^\s;]+)\s*$", metadata, re.MULTILINE):
        name = match.group(1).lower().replace("-", "_")
        if name in ("flashinfer_python", "flashinfer_cubin", "torch"):
            pins[name] = match.group(2)
    return pins


def ollama_rows(git_dir: Path) -> list[dict[str, Any]]:
    rows = []
    for tag in _ollama_tags(git_dir):
        presets = _git_show(git_dir, tag, "CMakePresets.json")
        dockerfile = _git_show(git_dir, tag, "Dockerfile")
        if presets is None or dockerfile is None:
            continue
        toolkits = {major: version for major, version in _OLLAMA_CUDA_ARG.findall(dockerfile)}
        lists = _cuda_presets(json.loads(presets))
        variants = {f"cuda_v{major}": {"cuda": toolkits[major], "archs": lists[f"CUDA {major}"]}
                    for major in sorted(toolkits) if f"CUDA {major}" in lists}
        if not variants:
            continue
        rows.append({
            "repository": "ollama/ollama", "tag": tag.removeprefix("v"), "version": tag.removeprefix("v"),
            "variants": variants,
            "source": f"https://github.com/ollama/ollama/blob/{tag}/CMakePresets.json and "
                      f"https://github.com/ollama/ollama/blob/{tag}/Dockerfile",
        })
    return rows


def _ollama_tags(git_dir: Path) -> list[str]:
    out = subprocess.run(["git", f"--git-dir={git_dir}", "tag"], check=True, capture_output=True, text=True).stdout
    tags = []
    for tag in out.split():
        try:
            version = Version(tag.removeprefix("v"))
        except InvalidVersion:
            continue
        if not version.is_prerelease and version >= OLLAMA_FIRST and tag.startswith("v"):
            tags.append((version, tag))
    return [tag for _, tag in sorted(tags)]


def _git_show(git_dir: Path, tag: str, path: str) -> str | None:
    done = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{tag}:{path}"], capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else None


def _cuda_presets(presets: dict[str, Any]) -> dict[str, str]:
    out = {}
    for preset in presets.get("configurePresets", []):
        archs = preset.get("cacheVariables", {}).get("CMAKE_CUDA_ARCHITECTURES")
        if archs and re.fullmatch(r"CUDA 1\d", preset.get("name", "")):
            out[preset["name"]] = archs
    return out


def render(rows: list[dict[str, Any]]) -> str:
    lines = ["# Generated by `python -m tools.image_table` (see its docstring for the sources); do not edit.",
             "# An engine's own image by tag: the versions it pins and the GPU code it carries. A tag not here is",
             "# unknown to the doctor, never guessed.", ""]
    for row in rows:
        lines.append("[[image]]")
        for key, value in row.items():
            if value is not None:
                lines.append(f"{key} = {_toml(value)}")
        lines.append("")
    return "\n".join(lines)


def _toml(value: Any) -> str:
    if isinstance(value, dict) and not value:
        return "{}"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _committed_rows(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The rows the table holds now, by repository: a source not given this time keeps its rows."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    if not path.exists():
        return {}
    out: dict[str, list[dict[str, Any]]] = {}
    for row in tomllib.loads(path.read_text(encoding="utf-8")).get("image", []):
        out.setdefault(row["repository"], []).append(row)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ollama-git", type=Path, help="bare git mirror of ollama/ollama (else its rows are kept)")
    parser.add_argument("--sglang-wheels", type=Path, help="folder of sglang-X.Y.Z/*.whl (the test wheel cache)")
    parser.add_argument("-o", "--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    kept = _committed_rows(args.output)
    sglang = sglang_rows(args.sglang_wheels) if args.sglang_wheels else kept.get("lmsysorg/sglang", [])
    ollama = ollama_rows(args.ollama_git) if args.ollama_git else kept.get("ollama/ollama", [])
    rows = vllm_rows() + sglang + ollama
    args.output.write_text(render(rows), encoding="utf-8")
    print(f"{args.output}: {len(rows)} images")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
