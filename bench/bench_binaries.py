"""Benchmark the compiled-arch scan: nvcc-built test binaries and real CUDA wheels from PyPI.

    PYTHONPATH=. python bench/bench_binaries.py [--skip-download] [--repeat 3] [--wheels torch==2.9.1 ...]

Wheels are downloaded once into .cache/bench (git-ignored); only their binaries and dist-info are
unpacked. Each environment is scanned cold (its files evicted from the page cache with
posix_fadvise(DONTNEED) first) and then warm; seconds per GB are over the bytes of the binary files.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from doctor.binaries import read_cuda_archs, scan_environment, torch_arch_list  # noqa: E402
from doctor.binaries.scan import iter_candidates  # noqa: E402

CACHE = REPO / ".cache" / "bench"
DEFAULT_WHEELS = ["torch==2.9.1", "torch==2.14.1", "vllm==0.33.0", "flashinfer-cubin==0.6.13",
                  "bitsandbytes==0.50.2"]
_KEEP = re.compile(r"(\.so(\.\d+)*|\.cubin|\.fatbin)$|\.dist-info/")


def unpack(spec: str, download: bool) -> Path | None:
    """site-packages-like dir with the binaries of wheel `spec`, or None if it cannot be had."""
    name, version = spec.split("==")
    target = CACHE / "envs" / f"{name}-{version}"
    if (target / ".complete").exists():
        return target
    dest = CACHE / "wheels" / f"{name}-{version}"
    wheels = sorted(dest.glob("*.whl"))
    if not wheels and download:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d",
               str(dest), spec]
        if subprocess.run(cmd, capture_output=True, text=True).returncode != 0:
            print(f"  ! cannot download {spec}; skipped")
            return None
        wheels = sorted(dest.glob("*.whl"))
    if not wheels:
        return None
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(target, [m for m in archive.namelist() if _KEEP.search(m)])
    (target / ".complete").write_text(wheels[0].name)
    return target


def build_test_binaries() -> Path | None:
    from tests.binaries.conftest import BUILDS, KERNEL, _compile, find_nvcc

    nvcc = find_nvcc()
    if nvcc is None:
        print("  ! nvcc not found; test binaries skipped")
        return None
    out = CACHE / "nvcc-builds"
    out.mkdir(parents=True, exist_ok=True)
    source = out / "kernel.cu"
    source.write_text(KERNEL)
    for build in BUILDS:
        if not (out / f"{build.name}.{build.output}").exists():
            _compile(nvcc, source, build, out)
    return out


def evict(root: Path) -> None:
    for path in iter_candidates(root):
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def bench(label: str, root: Path, repeat: int) -> dict:
    evict(root)
    started = time.perf_counter()
    report = scan_environment([root], None, (12, 0))
    cold = time.perf_counter() - started
    warm = []
    for _ in range(repeat):
        started = time.perf_counter()
        scan_environment([root], None, (12, 0))
        warm.append(time.perf_counter() - started)
    gb = report.bytes_scanned / 1e9
    cuda_bytes = sum(f.info.size for f in report.files) / 1e9
    row = {"label": label, "files": report.candidates, "cuda_files": len(report.files), "gb": gb,
           "cuda_gb": cuda_bytes, "cold_s": cold, "warm_s": min(warm), "verdict": report.verdict}
    print(f"  {label:28} {row['files']:6} files ({row['cuda_files']:6} CUDA) {gb:7.3f} GB  "
          f"cold {cold:6.3f} s = {cold / max(gb, 1e-9):6.3f} s/GB   warm {min(warm):6.3f} s = "
          f"{min(warm) / max(gb, 1e-9):6.3f} s/GB   verdict@sm_120: {report.verdict}")
    return row


def describe_torch(root: Path) -> None:
    lib = root / "torch" / "lib"
    main = lib / "libtorch_cuda.so"
    if main.exists():
        info = read_cuda_archs(main)
        print(f"    libtorch_cuda.so ({info.size / 1e9:.2f} GB, {info.modules} kernel modules, "
              f"{info.entries} images, {info.compressed} compressed): SASS {' '.join(info.sass)}; "
              f"PTX {' '.join(info.ptx) or '-'}")
    print(f"    torch_arch_list(): {torch_arch_list([root])}")
    print(f"    torch_arch_list(union=True): {torch_arch_list([root], union=True)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheels", nargs="*", default=DEFAULT_WHEELS)
    parser.add_argument("--skip-download", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cpus")
    rows = []
    builds = build_test_binaries()
    if builds is not None:
        rows.append(bench("nvcc test binaries", builds, args.repeat))
    envs = {spec: unpack(spec, not args.skip_download) for spec in args.wheels}
    for spec, root in envs.items():
        if root is not None:
            rows.append(bench(spec, root, args.repeat))
            if spec.startswith("torch=="):
                describe_torch(root)
    present = [root for root in envs.values() if root is not None]
    if len(present) > 1:
        with tempfile.TemporaryDirectory() as tmp:
            combined = Path(tmp) / "site-packages"
            combined.mkdir()
            for root in present:
                for child in root.iterdir():
                    link = combined / child.name
                    if not link.exists():
                        link.symlink_to(child, target_is_directory=child.is_dir())
            rows.append(bench("all wheels as one site dir", _resolved(combined), args.repeat))
    return 0


def _resolved(combined: Path) -> Path:
    """The scanner does not follow directory links; copy the link tree as real dirs of links instead."""
    real = combined.parent / "site"
    for link in combined.iterdir():
        target = link.resolve()
        if target.is_dir():
            for dirpath, _, filenames in os.walk(target):
                rel = Path(dirpath).relative_to(target.parent)
                (real / rel).mkdir(parents=True, exist_ok=True)
                for name in filenames:
                    os.symlink(Path(dirpath) / name, real / rel / name)
        else:
            real.mkdir(exist_ok=True)
            os.symlink(target, real / link.name)
    return real


if __name__ == "__main__":
    sys.exit(main())
