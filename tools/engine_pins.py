"""Write doctor/data/engine_pins.json: what `pip install vllm==X` / `sglang==X` brings with it.

For every final vLLM and SGLang release from the first with SM12x builds, the exact pins of its wheel's
METADATA (`Requires-Dist: torch==2.8.0`, `flashinfer-python==0.5.3`, `sgl-kernel==0.3.21`, with the extra a
pin hides behind), and for every torch those pin, what PyPI's default torch wheel for Linux x86_64 pins in turn:
`triton==X` and the CUDA runtime it was built with (`nvidia-cuda-runtime-cu12==12.6.77` -> 12.6). Read from
PyPI's simple index (PEP 691 JSON) and each wheel's PEP 658 `.metadata` file, else the wheel itself:

    python tools/engine_pins.py              # every release, rewrite the table
    python tools/engine_pins.py --check      # exit 1 when PyPI has a release the table lacks
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import urllib.request
import zipfile
from datetime import date
from email.parser import Parser
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "doctor" / "data" / "engine_pins.json"
SIMPLE = "https://pypi.org/simple/{}/"
ENGINES = {"vllm": Version("0.9.0"), "sglang": Version("0.4.6")}  # first releases whose builds carry SM12x code
# Extras the engine's own install instructions include (`pip install "sglang[all]"`, which pulls in "srt", up to
# 0.5.x); vLLM's "flashinfer" extra is not installed by `pip install vllm`.
INSTALLED_EXTRAS = {"vllm": [], "sglang": ["srt", "all"]}
PINNED = ("torch", "flashinfer-python", "flashinfer_python", "sgl-kernel", "sglang-kernel", "triton",
          "xformers", "flashinfer-cubin", "nvidia-cutlass-dsl")
MACHINES = ("x86_64", "aarch64")
LINUX = {"platform_system": "Linux", "platform_machine": "x86_64", "sys_platform": "linux",
         "python_version": "3.12", "python_full_version": "3.12.0", "implementation_name": "cpython",
         "platform_python_implementation": "CPython", "os_name": "posix"}


def fetch(url: str, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.read()


def files(project: str) -> list[dict]:
    index = fetch(SIMPLE.format(project), "application/vnd.pypi.simple.v1+json")
    return json.loads(index)["files"]


def wheel_version(filename: str) -> Version | None:
    try:
        return Version(filename.split("-")[1])
    except (IndexError, InvalidVersion):
        return None


def metadata(file: dict) -> str:
    """The wheel's METADATA: its PEP 658 file where the index serves one, else read out of the wheel."""
    try:
        return fetch(file["url"] + ".metadata").decode("utf-8")
    except OSError:
        with zipfile.ZipFile(io.BytesIO(fetch(file["url"]))) as wheel:
            name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            return wheel.read(name).decode("utf-8")


def pins(text: str) -> dict[str, dict]:
    """`name -> {version, requirement, extra}` for the exact (`==`) pins of the packages the doctor tracks that
    a Linux x86_64 install takes."""
    found: dict[str, dict] = {}
    for line in Parser().parsestr(text).get_all("Requires-Dist") or []:
        try:
            requirement = Requirement(line)
        except InvalidRequirement:
            continue
        name = requirement.name.lower().replace("_", "-")
        # `==X`, or `~=X` (torch 2.14 pins `triton~=3.8.0`): X is the lowest release the pin admits
        exact = [(s.version, s.operator == "==") for s in requirement.specifier if s.operator in ("==", "~=")]
        if name not in {p.replace("_", "-") for p in PINNED} or not exact:
            continue
        extra = _extra(requirement)
        if requirement.marker is not None and extra is None and not requirement.marker.evaluate({**LINUX, "extra": ""}):
            continue
        found.setdefault(name, {"version": exact[0][0], "exact": exact[0][1], "requirement": line.strip(),
                                "extra": extra})
    return found


def _extra(requirement: Requirement) -> str | None:
    marker = str(requirement.marker or "")
    if "extra ==" not in marker:
        return None
    return marker.split("extra ==", 1)[1].strip().strip("\"'").split("\"")[0].split("'")[0]


def engine_releases(project: str, first: Version) -> dict[str, dict]:
    """Final releases from `first` on, each with one wheel (the pure-Python or x86_64 one)."""
    chosen: dict[str, dict] = {}
    for file in files(project):
        version = wheel_version(file["filename"])
        if not file["filename"].endswith(".whl") or version is None or version.is_prerelease \
                or version.is_devrelease or version < first or file.get("yanked"):
            continue
        if "aarch64" in file["filename"]:
            continue
        chosen.setdefault(str(version), file)
    return dict(sorted(chosen.items(), key=lambda item: Version(item[0])))


def torch_wheel(version: str, machine: str, torch_files: list[dict]) -> dict | None:
    """PyPI's default torch wheel for CPython 3.12 on Linux `machine` (the build `pip install torch==X` takes)."""
    for file in torch_files:
        name = file["filename"]
        if name.startswith(f"torch-{version}-cp312-cp312-") and machine in name and "manylinux" in name:
            return file
    return None


def torch_pins(file: dict, machine: str) -> dict:
    """The CUDA runtime and Triton a torch wheel pulls in on `machine` (PyPI's aarch64 wheels up to 2.10 pin
    neither: they are CPU builds)."""
    text = metadata(file)
    on_machine = {**LINUX, "platform_machine": machine}
    cuda = triton = None
    for line in Parser().parsestr(text).get_all("Requires-Dist") or []:
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate({**on_machine, "extra": ""}):
            continue
        pinned = [s.version for s in requirement.specifier if s.operator in ("==", "~=")]
        if pinned and (requirement.name.startswith("nvidia-cuda-runtime") or requirement.name == "cuda-toolkit"):
            cuda = ".".join(pinned[0].split(".")[:2])
        if pinned and requirement.name == "triton":
            triton = {"version": pinned[0], "requirement": line.strip()}
    return {"wheel": file["filename"], "sha256": file.get("hashes", {}).get("sha256"), "cuda": cuda,
            "triton": triton["version"] if triton else None,
            "triton_requirement": triton["requirement"] if triton else None}


def build() -> dict:
    table: dict = {"generated": date.today().isoformat(), "generated_by": "tools/engine_pins.py",
                   "source": "PyPI simple index (PEP 691) and each wheel's METADATA (PEP 658)",
                   "installed_extras": INSTALLED_EXTRAS, "engines": {},
                   "torch": {}}
    torch_versions: set[str] = set()
    for project, first in ENGINES.items():
        releases = {}
        for version, file in engine_releases(project, first).items():
            found = pins(metadata(file))
            releases[version] = {"wheel": file["filename"], "sha256": file.get("hashes", {}).get("sha256"),
                                 "pins": found}
            if "torch" in found:
                torch_versions.add(found["torch"]["version"])
            summary = ", ".join(f"{name}=={pin['version']}" for name, pin in found.items())
            print(f"{project} {version}: {summary}", file=sys.stderr)
        table["engines"][project] = releases
    torch_files = files("torch")
    for version in sorted(torch_versions, key=Version):
        table["torch"][version] = {}
        for machine in MACHINES:
            file = torch_wheel(version, machine, torch_files)
            table["torch"][version][machine] = torch_pins(file, machine) if file else \
                {"wheel": None, "note": f"no CPython 3.12 Linux {machine} wheel on PyPI"}
    return table


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when PyPI has a release the table lacks")
    args = parser.parse_args(argv)
    if args.check:
        known = json.loads(TARGET.read_text(encoding="utf-8"))["engines"]
        missing = [f"{p}=={v}" for p, first in ENGINES.items() for v in engine_releases(p, first)
                   if v not in known.get(p, {})]
        print("\n".join(missing) or "up to date")
        return 1 if missing else 0
    TARGET.write_text(json.dumps(build(), indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"wrote {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
