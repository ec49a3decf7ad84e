"""The engine's own environment, one per release, cached outside the repository: a venv with the engine's
wheel from PyPI (`pip install vllm==X`), its stub libcuda, and the pinned inputs that change the engine's
answer (recorded in every table)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tools.engine_oracle.stub_libcuda import build_stub

DEFAULT_CACHE = Path(os.environ.get("SM120_DOCTOR_ORACLE_CACHE", Path.home() / ".cache" / "sm120-doctor-oracle"))
# Distributions whose presence or version changes what the engine picks (has_flashinfer, DeepGEMM, Triton).
PINNED_DISTRIBUTIONS = ("vllm", "torch", "triton", "flashinfer-python", "flashinfer-cubin", "flashinfer-jit-cache",
                        "deep-gemm", "deep_gemm", "transformers", "sglang", "sgl-kernel", "sglang-kernel",
                        "sgl-deep-gemm", "sgl-flash-mla")
# The toolchain: with nvcc and ninja found, vLLM treats FlashInfer's JIT as usable (has_flashinfer()).
TOOLCHAIN = ("nvcc", "ninja")


@dataclass(frozen=True)
class EngineEnv:
    engine: str
    release: str
    root: Path

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        return next((self.root / "lib").glob("python3*/site-packages"))

    @property
    def stub_dir(self) -> Path:
        return DEFAULT_CACHE / "stubs" / f"{self.engine}-{self.release}"


def ensure_env(engine: str, release: str, cache: Path = DEFAULT_CACHE, existing: Path | None = None) -> EngineEnv:
    """The cached environment for engine==release (created with pip when missing; `existing` reuses a venv
    that already has it). Records install time and size in install.json."""
    root = existing or cache / "envs" / f"{engine}-{release}"
    env = EngineEnv(engine, release, root)
    finished = existing is not None or (root / "install.json").exists()  # written only after pip succeeds
    if not finished:
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "venv", str(root)], check=True)
        subprocess.run([str(env.python), "-m", "pip", "install", "-q", f"{engine}=={release}"], check=True)
        (root / "install.json").write_text(json.dumps({"install_s": round(time.monotonic() - started)}))
    if not (env.stub_dir / "libcuda.so.1").exists():
        build_stub(env.site_packages, env.stub_dir)
    return env


def disk_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def pinned_inputs(env: EngineEnv, variables: dict[str, str]) -> dict[str, object]:
    """What the answer depends on besides the release: the wheel set, the toolchain on PATH, VLLM_* env."""
    listing = subprocess.run([str(env.python), "-m", "pip", "list", "--format", "json"], capture_output=True,
                             text=True, check=True)
    installed = {p["name"].lower(): p["version"] for p in json.loads(listing.stdout)}
    path = variables.get("PATH", os.environ.get("PATH", ""))
    return {"distributions": {name: installed.get(name) for name in PINNED_DISTRIBUTIONS if name in installed},
            "absent": [name for name in PINNED_DISTRIBUTIONS if name not in installed],
            "toolchain": {tool: shutil.which(tool, path=path) for tool in TOOLCHAIN},
            "env": {k: v for k, v in sorted(variables.items()) if k.startswith(("VLLM_", "CUDA_HOME"))}}
