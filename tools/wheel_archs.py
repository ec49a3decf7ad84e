"""Maintainers' script: which GPU architectures the ecosystem's released wheels carry, read from the wheels.

    .venv/bin/python tools/wheel_archs.py [--only torch] [--cache DIR] [--out doctor/data/wheel_archs.json]

For every (package, version, platform) in TARGETS it downloads the wheel from PyPI (`pip download --no-deps`,
cached in --cache, never in the repository), extracts each CUDA library to a temporary file and audits it with
`doctor.binaries.read_cuda_archs` (fatbin headers, nothing is loaded); for torch it also unpacks torch/lib and
asks `doctor.binaries.torch_arch_list` for what `torch.cuda.get_arch_list()` would print, and reads the CUDA
version from torch/version.py. The result, with each wheel's file name, sha256 and the member files audited, is
written as JSON; `doctor/wheel_archs.py` reads it. Entries already in the output are kept unless --refresh.

For the engine kernel packages (FAMILY_PACKAGES) each file also keeps its kernel families
(`doctor.binaries.families`: family -> kernels grouped by their images and arch gate), which
`doctor/binaries/family_archs.py` joins with what the derived dispatch tables say the engine picks. An entry of those
packages written before families were recorded is read again (incremental: `families_read` marks the rest).
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from doctor.binaries import read_cuda_archs, torch_arch_list  # noqa: E402
from doctor.binaries.archs import sort_tokens  # noqa: E402

X86, ARM = "x86_64", "aarch64"
# Platform tags tried in turn for a machine: torch publishes manylinux_2_28, sgl-kernel manylinux2014, vLLM
# 0.12-0.19 manylinux_2_31, 0.20.0 manylinux_2_35, 0.21.0 (build 1) manylinux_2_24.
TAGS = ("manylinux_2_28_{}", "manylinux2014_{}", "manylinux1_{}", "manylinux_2_31_{}", "manylinux_2_35_{}",
        "manylinux_2_24_{}")
TARGETS: list[tuple[str, str, str]] = [
    *[("torch", v, X86) for v in ("2.7.0", "2.7.1", "2.8.0", "2.9.1", "2.10.0", "2.11.0", "2.12.1",
                                  "2.13.0", "2.14.1")],
    *[("torch", v, ARM) for v in ("2.7.0", "2.9.1", "2.11.0")],
    *[("torch", v, ARM) for v in ("2.8.0", "2.10.0")],
    *[("sgl-kernel", v, X86) for v in ("0.3.5", "0.3.9", "0.3.14", "0.3.16", "0.3.21")],
    *[("sgl-kernel", v, ARM) for v in ("0.3.16", "0.3.21")],
    *[("sglang-kernel", v, X86) for v in ("0.4.4", "0.4.10")],
    *[("sglang-kernel", v, ARM) for v in ("0.4.4", "0.4.10")],
    *[("flashinfer-cubin", v, X86) for v in ("0.6.3", "0.6.6", "0.6.8.post1", "0.6.10", "0.6.11", "0.6.11.post2",
                                             "0.6.12")],
    # LMCache: its c_ops carry the KV connector's GPU kernels (LMCache#2853: 0.3.9 lacks sm_120); the
    # TORCH_CUDA_ARCH_LIST of its wheel build gained 12.0 in LMCache PR 3275 (May 2026)
    # 0.3.1-0.3.7: every LMCache wheel on PyPI up to 2025-10-29, the images of LMCache#1646 and gpustack#2965
    *[("lmcache", v, X86) for v in ("0.3.1", "0.3.1.post1", "0.3.2", "0.3.3", "0.3.4", "0.3.5", "0.3.6", "0.3.7",
                                    "0.3.9", "0.3.15", "0.4.2", "0.4.3", "0.4.4", "0.4.5", "0.4.6", "0.4.7",
                                    "0.5.0", "0.5.6")],
    # vLLM: the releases before and after the first sm_120 build (0.9.2), then every minor release and the
    # 0.15.1 patch that added the SM12x cutlass_scaled_mm kernels (vllm#32109), and the patches with derived
    # dispatch tables of their own (doctor/data/derived/vllm: 0.10.2, 0.27.1)
    *[("vllm", v, X86) for v in ("0.8.5.post1", "0.9.0", "0.9.1", "0.9.2", *(f"0.{m}.0" for m in range(10, 34)),
                                 "0.10.2", "0.15.1", "0.27.1")],
]
# The key the doctor files a distribution under (doctor/probe/libraries.py: TRACKED), where it differs.
DOCTOR_KEY = {"sglang-kernel": "sgl-kernel"}
# The library a package loads first, where one decides whether it runs at all (other files are optional
# extras such as sgl-kernel's Hopper-only flash_ops). Its archs are recorded as `primary`.
PRIMARY = {"sgl-kernel": "common_ops", "sglang-kernel": "common_ops", "vllm": "vllm/_C."}
# Packages whose files keep their kernel families (the engines' own kernels; torch's are not dispatched by them).
FAMILY_PACKAGES = ("vllm", "sgl-kernel", "sglang-kernel")
CUDA_MEMBER = re.compile(r"\.(so(\.\d+)*|cubin)$")
TORCH_CUDA = re.compile(r"^cuda(?:\s*:\s*[^=]+)?\s*=\s*['\"]([^'\"]+)['\"]", re.MULTILINE)


def pypi_only_env() -> dict[str, str]:
    """pip with no configuration file and no PIP_* variable: only PyPI, never a local find-links directory
    holding another build of the same version, and no machine-wide constraint (a host that caps torch
    for its own installs must not stop the audit of a newer torch wheel)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull}


def download(package: str, version: str, machine: str, cache: Path) -> Path:
    dest = cache / f"{package}-{version}-{machine}"
    wheels = sorted(dest.glob("*.whl"))
    for tag in TAGS if not wheels else ():
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q",
               "--platform", tag.format(machine), "-d", str(dest), f"{package}=={version}"]
        if subprocess.run(cmd, timeout=3600, env=pypi_only_env()).returncode == 0:
            break
    wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        raise subprocess.CalledProcessError(1, f"pip download {package}=={version} ({machine})")
    return wheels[0]


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def audit_members(archive: zipfile.ZipFile, scratch: Path, families: bool = False) -> list[dict]:
    """Every CUDA library or cubin in the wheel that carries device code: its SASS and PTX archs, and with
    `families` its kernel families."""
    found = []
    for member in archive.infolist():
        if member.is_dir() or not CUDA_MEMBER.search(member.filename):
            continue
        target = scratch / "member"
        with archive.open(member) as source, open(target, "wb") as sink:
            shutil.copyfileobj(source, sink, 1 << 20)
        info = read_cuda_archs(target, kernel_names=families)
        target.unlink()
        if info.has_device_code:
            found.append({"file": member.filename, "sass": info.sass, "ptx": info.ptx, "modules": info.modules,
                          **({"families": info.families, "unread_images": info.unread_entries} if families else {})})
    return found


def torch_facts(archive: zipfile.ZipFile, scratch: Path) -> dict:
    """torch/lib unpacked into a scratch site dir: get_arch_list() as torch_arch_list reads it, and torch's CUDA."""
    site = scratch / "site"
    for member in archive.infolist():
        if member.filename.startswith("torch/lib/") and CUDA_MEMBER.search(member.filename):
            archive.extract(member, site)
    version_text = archive.read("torch/version.py").decode("utf-8", "replace")
    match = TORCH_CUDA.search(version_text)
    line = version_text[: match.start()].count("\n") + 1 if match else None
    arch_list = torch_arch_list([site]) or []
    union = torch_arch_list([site], union=True) or []
    shutil.rmtree(site, ignore_errors=True)
    cuda = match.group(1) if match and match.group(1) not in ("None", "") else None
    return {"cuda_version": cuda, "cuda_version_source": f"torch/version.py:{line}" if line else None,
            "arch_list": arch_list, "arch_list_source": "torch/lib/libtorch_cuda.so (archs of most modules)",
            "union": union}


def audit(package: str, version: str, platform: str, cache: Path) -> dict:
    started = time.monotonic()
    wheel = download(package, version, platform, cache)
    downloaded = time.monotonic()
    entry = {"package": package, "key": DOCTOR_KEY.get(package, package), "version": version, "platform": platform,
             "wheel": wheel.name,
             "sha256": sha256(wheel), "size": wheel.stat().st_size}
    families = package in FAMILY_PACKAGES
    with tempfile.TemporaryDirectory(prefix="wheel-archs-") as tmp, zipfile.ZipFile(wheel) as archive:
        files = audit_members(archive, Path(tmp), families)
        if package == "torch":
            entry.update(torch_facts(archive, Path(tmp)))
    entry["files"] = compact_files(files)
    if package != "torch":
        entry["union"] = sort_tokens({t for f in files for t in (*f["sass"], *f["ptx"])})
    entry.update(primary_archs(entry))
    if families:
        entry["families_read"] = True
    print(f"  {wheel.name}: {entry['size'] / 2**20:.0f} MiB, download {downloaded - started:.1f} s, "
          f"read {time.monotonic() - downloaded:.1f} s", flush=True)
    return entry


def compact_files(files: list[dict]) -> list[dict]:
    """Shared objects one by one; standalone cubins (flashinfer-cubin ships ~12,000) grouped by their archs,
    with a count and one example path, so the data stays small and still says what the wheel carries."""
    libraries = [f for f in files if not f["file"].endswith(".cubin")]
    groups: dict[tuple, dict] = {}
    for f in files:
        if f["file"].endswith(".cubin"):
            key = (tuple(f["sass"]), tuple(f["ptx"]))
            group = groups.setdefault(key, {"file": f"{f['file']} (and others: *.cubin)", "sass": f["sass"],
                                            "ptx": f["ptx"], "modules": 0, "count": 0})
            group["count"] += 1
            group["modules"] += f.get("modules", 0)
    return libraries + list(groups.values())


def primary_archs(entry: dict) -> dict:
    pattern = PRIMARY.get(entry["package"])
    if pattern is None:
        return {}
    files = [f for f in entry["files"] if pattern in f["file"]]
    archs = sort_tokens({t for f in files for t in (*f["sass"], *f["ptx"])})
    return {"primary": {"files": [f["file"] for f in files], "archs": archs}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="audit only this package")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sm120-doctor-wheel-archs")
    parser.add_argument("--out", type=Path, default=REPO / "doctor" / "data" / "wheel_archs.json")
    parser.add_argument("--refresh", action="store_true", help="audit again wheels already in the output")
    parser.add_argument("--drop-wheels", action="store_true", help="delete each wheel once audited")
    parser.add_argument("--target", action="append", default=[], metavar="PACKAGE==VERSION[@MACHINE]",
                        help="audit this release too (x86_64 unless @aarch64); tools/refresh passes new releases")
    args = parser.parse_args(argv)
    data = json.loads(args.out.read_text()) if args.out.exists() else {"wheels": []}
    data["wheels"] = [w for w in data["wheels"] if "+" not in w["wheel"]]  # PyPI's build has no local version
    for wheel in data["wheels"]:
        wheel.setdefault("key", DOCTOR_KEY.get(wheel["package"], wheel["package"]))
        wheel.update(primary_archs(wheel))
        if any(f["file"].endswith(".cubin") for f in wheel["files"]):
            wheel["files"] = compact_files(wheel["files"])
        wheel["platform"] = ARM if ARM in wheel["platform"] else X86  # files written before machines were keys
    have = {(w["package"], w["version"], w["platform"]) for w in data["wheels"]
            if w["package"] not in FAMILY_PACKAGES or w.get("families_read")}
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")  # normalised, even if nothing is new
    for package, version, platform in [*TARGETS, *(parse_target(t) for t in args.target)]:
        if (args.only and package != args.only) or ((package, version, platform) in have and not args.refresh):
            continue
        print(f"auditing {package}=={version} ({platform})", flush=True)
        try:
            entry = audit(package, version, platform, args.cache)
        except subprocess.CalledProcessError as exc:
            print(f"  skipped: pip download failed ({exc.returncode})", flush=True)
            continue
        data["wheels"] = [w for w in data["wheels"]
                          if (w["package"], w["version"], w["platform"]) != (package, version, platform)]
        data["wheels"].append(entry)
        data["wheels"].sort(key=lambda w: (w["package"], w["platform"], _version_key(w["version"])))
        data.update(generated_by="tools/wheel_archs.py", generated=datetime.date.today().isoformat())
        args.out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        if args.drop_wheels:
            shutil.rmtree(args.cache / f"{package}-{version}-{platform}", ignore_errors=True)
    return 0


def parse_target(text: str) -> tuple[str, str, str]:
    """`lmcache==0.5.6` or `torch==2.14.1@aarch64` → (package, version, machine)."""
    spec, _, machine = text.partition("@")
    package, _, version = spec.partition("==")
    if not package or not version or machine not in ("", X86, ARM):
        raise SystemExit(f"--target {text!r}: expected PACKAGE==VERSION[@x86_64|@aarch64]")
    return package, version, machine or X86


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.+]", version))


if __name__ == "__main__":
    raise SystemExit(main())
