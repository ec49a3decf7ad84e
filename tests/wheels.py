"""Fetch real packages from PyPI at test time, cached, never committed.

The cache lives in $SM120_DOCTOR_TEST_CACHE (default: <repo>/.cache/test-wheels), which .gitignore
excludes. Each wheel is downloaded once with `pip download --no-deps` and unpacked once.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def cache_root() -> Path:
    root = Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", REPO / ".cache" / "test-wheels"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def _locked(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path, "w")  # noqa: SIM115 - closed by the caller's context
    fcntl.flock(handle, fcntl.LOCK_EX)
    return handle


def download_wheel(name: str, version: str, *extra_pip_args: str) -> Path:
    """Return the path of `name==version`'s wheel, downloading it on first use."""
    dest = cache_root() / "downloads" / f"{name}-{version}"
    with _locked(cache_root() / "locks" / f"{name}-{version}.lock"):
        wheels = sorted(dest.glob("*.whl"))
        if not wheels:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                   "-q", "-d", str(dest), *extra_pip_args, f"{name}=={version}"]
            result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if result.returncode != 0:
                pytest.skip(f"cannot download {name}=={version} from PyPI: {result.stderr.strip()[-300:]}")
            wheels = sorted(dest.glob("*.whl"))
    return wheels[0]


def wheel_text(name: str, version: str, path: str) -> str:
    """One file of `name==version`'s wheel, as text."""
    with zipfile.ZipFile(download_wheel(name, version)) as wheel:
        return wheel.read(path).decode("utf-8")


def wheel_names(name: str, version: str) -> list[str]:
    with zipfile.ZipFile(download_wheel(name, version)) as wheel:
        return wheel.namelist()


def wheel_metadata(name: str, version: str) -> str:
    """The wheel's own METADATA (its pins)."""
    found = next(n for n in wheel_names(name, version) if n.endswith(".dist-info/METADATA"))
    return wheel_text(name, version, found)


def unpacked_wheel(name: str, version: str, *extra_pip_args: str) -> Path:
    """Return a directory holding the unpacked wheel (a site-packages-like tree)."""
    wheel = download_wheel(name, version, *extra_pip_args)
    target = cache_root() / "unpacked" / f"{name}-{version}"
    marker = target / ".complete"
    with _locked(cache_root() / "locks" / f"{name}-{version}.unpack.lock"):
        if not marker.exists():
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(target)
            marker.write_text(wheel.name)
    return target


def triton_site(version: str) -> Path:
    """A private install of `triton==version` (never the global site-packages), for exact mode."""
    from doctor.kernels.exact import ExactError, ensure_triton

    try:
        return ensure_triton(version, cache_root() / "triton")
    except ExactError as exc:
        pytest.skip(str(exc))
