"""Benchmark the compiled-arch scan: nvcc-built test binaries and real CUDA wheels from PyPI.

    PYTHONPATH=. python bench/bench_binaries.py [--skip-download] [--repeat 3] [--wheels torch==2.9.1 ...]

Wheels are downloaded once into .cache/bench (git-ignored); only their binaries and dist-info are
unpacked. Each environment is scanned cold (its files evicted from the page cache with
posix_fadvise(DONTNEED) first) and then warm, reading archs only (the `check` path's torch scan) and
with kernel names (the `binaries` default, for per-family verdicts); seconds per GB are over the bytes of
the binary files. The machine is shared: CPU seconds are given next to wall seconds.
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
# The CUDA 13 math libraries of CUDA 13.0 Update 1, at the versions cuda-toolkit==13.0.1 pins.
CUDA13_MATH = ["nvidia-cufft==12.0.0.61", "nvidia-cublas==13.0.2.14", "nvidia-cusparse==12.6.3.3",
               "nvidia-cusolver==12.0.4.66", "nvidia-curand==10.4.0.35"]
DEFAULT_WHEELS = ["torch==2.9.1", "torch==2.14.1", "vllm==0.33.0", "sgl-kernel==0.3.21", "flashinfer-cubin==0.6.13",
                  "bitsandbytes==0.50.2", *CUDA13_MATH]
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


def _timed(root: Path, kernel_names: bool) -> tuple[float, float, object]:
    wall, cpu = time.perf_counter(), time.process_time()
    report = scan_environment([root], None, (12, 0), kernel_names=kernel_names)
    return time.perf_counter() - wall, time.process_time() - cpu, report


def raw_read(root: Path) -> float:
    """Seconds to read every binary-named file once, cold, with plain read(): what the disk allows."""
    evict(root)
    started = time.perf_counter()
    for path in iter_candidates(root):
        with open(path, "rb", buffering=0) as handle:
            while handle.read(1 << 24):
                pass
    return time.perf_counter() - started


def bench(label: str, root: Path, repeat: int) -> dict:
    disk = raw_read(root)
    evict(root)
    cold, _, report = _timed(root, False)
    warm = min(_timed(root, False)[:2] for _ in range(repeat))
    evict(root)
    cold_names, _, named = _timed(root, True)
    names = min(_timed(root, True)[:2] for _ in range(repeat))
    gb = max(report.bytes_scanned / 1e9, 1e-9)
    row = {"label": label, "files": report.candidates, "cuda_files": len(report.files), "gb": gb,
           "disk_s": disk, "cold_s": cold, "warm_s": warm[0], "warm_cpu_s": warm[1], "names_cold_s": cold_names,
           "names_warm_s": names[0], "names_cpu_s": names[1], "verdict": named.verdict}
    print(f"  {label:28} {row['files']:6} files ({row['cuda_files']:6} CUDA) {gb:6.3f} GB | cold cat "
          f"{disk / gb:5.2f} s/GB | archs: cold {cold / gb:5.2f}, warm {warm[0] / gb:5.2f} s/GB (cpu "
          f"{warm[1] / gb:5.2f}) | +names: cold {cold_names / gb:5.2f}, warm {names[0] / gb:5.2f} s/GB (cpu "
          f"{names[1] / gb:5.2f}) | sm_120: {named.verdict} (archs only: {report.verdict})")
    return row


def describe_files(root: Path) -> None:
    """Per CUDA file: archs, where its fatbins were found, and the verdict for sm_120."""
    report = scan_environment([root], None, (12, 0))
    for entry in report.files:
        info = entry.info
        found = ", ".join(f"{name} {count}" for name, count in info.fatbin_sections.items())
        families = ", ".join(f"{f.family} {f.verdict}" for f in entry.verdict.families)
        print(f"    {Path(entry.path).name}: {entry.verdict.verdict}; SASS {' '.join(info.sass)}; PTX "
              f"{' '.join(info.ptx) or '-'}; LTO-IR {' '.join(info.lto) or '-'}; fatbins: {found or '-'} "
              f"({info.unreferenced_fatbins} found only by the magic scan){'; ' + families if families else ''}")


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
            elif spec in CUDA13_MATH or spec.startswith(("vllm==", "sgl-kernel==")):
                describe_files(root)
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
