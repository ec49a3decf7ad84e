"""The engine's own environment, one per release, cached outside the repository: a venv with the engine's
wheel from PyPI, its stub libcuda, and the pinned inputs that change the engine's answer (recorded in every
table).

With uv found (`$SM120_DOCTOR_UV`, else `uv` on PATH) the venv is made by `uv venv` and filled by
`uv pip install --link-mode hardlink` from the uv cache (`$UV_CACHE_DIR`, default `<oracle cache>/uv`; it must
be on the venvs' filesystem): releases that pin the same torch/nvidia wheels share their files, so a further
release costs its own wheels only. Without uv: `python -m venv` and pip."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tools.engine_oracle.stand_ins import overrides_file, recorded, substituted
from tools.engine_oracle.stub_libcuda import build_stub, is_current

DEFAULT_CACHE = Path(os.environ.get("SM120_DOCTOR_ORACLE_CACHE", Path.home() / ".cache" / "sm120-doctor-oracle"))
# Distributions whose presence or version changes what the engine picks (has_flashinfer, DeepGEMM, Triton).
# Also the dependencies whose version decides whether a model's config builds at all (tools/engine_oracle/stops.py
# classifies a stop as `dependency` against them): transformers, huggingface-hub, tokenizers, nvidia-cutlass-dsl.
PINNED_DISTRIBUTIONS = ("vllm", "torch", "triton", "flashinfer-python", "flashinfer-cubin", "flashinfer-jit-cache",
                        "deep-gemm", "deep_gemm", "transformers", "sglang", "sgl-kernel", "sglang-kernel",
                        "sgl-deep-gemm", "sgl-flash-mla", "cuda-python", "cuda-bindings", "huggingface-hub",
                        "tokenizers", "nvidia-cutlass-dsl")
# The toolchain: with nvcc and ninja found, vLLM treats FlashInfer's JIT as usable (has_flashinfer()).
TOOLCHAIN = ("nvcc", "ninja")


# Resolver constraints (apply only to what the release requires): cuda-python before 12.8 ships its own
# cuda/bindings modules, and a resolver that settles on the newest cuda-bindings may backtrack cuda-python to
# 12.6.2.post1, whose files then overwrite cuda-bindings' (vLLM 0.32.0 today: `cuda.bindings.runtime` without
# `cudaLibrary_t`, every model build fails). Release-time installs had the 13.x metapackage.
CONSTRAINTS = ("cuda-python>=12.8",)
# Releases whose own requirements leave a dependency open that a later major broke for them: vLLM 0.12.0 added
# `transformers<5` (0.11.x asks only >=4.55.2); transformers 5 dropped `config.rope_theta`, which 0.11's
# gpt_oss.py and gemma2.py read, so today's resolution would fail those builds for a reason no user of the day met.
# vLLM 0.9.x registers its own `aimv2` config (ovis.py), which transformers 4.54 added too: with a newer
# transformers every 0.9.2 config fails ("'aimv2' is already used by a Transformers config").
# SGLang 0.5.11 and 0.5.12 require `kernels` without a bound and pin transformers 5.6.0, whose hub_kernels module
# builds `LayerRepository(...)` without a revision: today's kernels (0.17) refuses that at import ("Either a
# revision or a version must be specified"); 0.5.13 (transformers 5.8.1) imports with it, and 0.5.22 pins
# kernels<0.15 itself.
RELEASE_CONSTRAINTS = {("vllm", (0, 12)): ("transformers<5",), ("vllm", (0, 10)): ("transformers<4.54",),
                       ("sglang", (0, 5, 13)): ("kernels<0.15",)}


# A release's own exact pin that PyPI has yanked since: uv takes a yanked version only when a requirement or
# constraint names it exactly, and refuses it when it comes through a dependency. SGLang 0.5.3 pins
# transformers==4.57.0, yanked ("Error in the setup causing installation issues"): the constraint restates that pin,
# so the venv holds what 0.5.3 asked for, nothing substituted (recorded in the table under `pinned.yanked`).
YANKED_PINS = {("sglang", "0.5.3"): ("transformers==4.57.0",)}


# Releases whose serving stack is an extra: SGLang before 0.5.3 lists torch, sgl-kernel and FlashInfer under
# `extra == "srt"` (a bare `pip install sglang==0.5.2` installs none of them); the README's install line is
# `pip install "sglang[all]"`, whose `srt` part is what the oracle needs.
RELEASE_EXTRAS = {("sglang", (0, 5, 3)): "srt"}


def requirement(engine: str, release: str) -> str:
    """What the install asks for: `engine==release`, with the extra the release keeps its runtime under."""
    version = tuple(int(part) for part in release.split(".")[:3])
    extra = next((e for (name, before), e in RELEASE_EXTRAS.items() if name == engine and version < before), None)
    return f"{engine}[{extra}]=={release}" if extra else f"{engine}=={release}"


def constraints_for(engine: str, release: str) -> tuple[str, ...]:
    """The global constraints and those of releases before each key's version (compared on the key's length)."""
    parts = [int(part) for part in release.split(".")[:3]]
    extra = [c for (name, before), cs in RELEASE_CONSTRAINTS.items()
             if name == engine and tuple(parts[:len(before)]) < before for c in cs]
    return (*CONSTRAINTS, *extra, *YANKED_PINS.get((engine, release), ()))


def find_uv() -> str | None:
    return os.environ.get("SM120_DOCTOR_UV") or shutil.which("uv")


def uv_cache() -> Path:
    return Path(os.environ.get("UV_CACHE_DIR") or DEFAULT_CACHE / "uv")


@dataclass(frozen=True)
class EngineEnv:
    engine: str
    release: str
    root: Path
    pins: tuple[str, ...] = ()

    @property
    def python(self) -> Path:
        return self.root / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        return next((self.root / "lib").glob("python3*/site-packages"))

    @property
    def stub_dir(self) -> Path:
        return DEFAULT_CACHE / "stubs" / f"{self.engine}-{self.release}"


def pins_suffix(pins: tuple[str, ...]) -> str:
    """`+transformers-5.14.1` for the pins `transformers==5.14.1`: the name of a pinned rerun's venv and table."""
    return "".join("+" + pin.replace("==", "-") for pin in pins)


def ensure_env(engine: str, release: str, cache: Path = DEFAULT_CACHE, existing: Path | None = None,
               pins: tuple[str, ...] = ()) -> EngineEnv:
    """The cached environment for engine==release (created with pip when missing; `existing` reuses a venv
    that already has it), with `pins` (`transformers==5.14.1`) added to the constraints: a dependency held at
    the version the release was built and tested against. Records install time and size in install.json."""
    root = existing or cache / "envs" / f"{engine}-{release}{pins_suffix(pins)}"
    env = EngineEnv(engine, release, root, pins)
    finished = existing is not None or (root / "install.json").exists()  # written only after the install succeeds
    if not finished:
        started = time.monotonic()
        installer = install_with_uv(env, find_uv()) if find_uv() else install_with_pip(env)
        record = {"install_s": round(time.monotonic() - started), "installer": installer,
                  "env_bytes": disk_bytes(root), "own_bytes": own_bytes(root)}
        (root / "install.json").write_text(json.dumps(record))
    if not is_current(env.stub_dir):
        build_stub(env.site_packages, env.stub_dir)
    return env


def constraints_file(env: EngineEnv) -> Path:
    path = env.root / "oracle-constraints.txt"
    path.write_text("\n".join((*constraints_for(env.engine, env.release), *env.pins)) + "\n")
    return path


def install_with_pip(env: EngineEnv) -> str:
    subprocess.run([sys.executable, "-m", "venv", str(env.root)], check=True)
    subprocess.run([str(env.python), "-m", "pip", "install", "-q", "-c", str(constraints_file(env)),
                    requirement(env.engine, env.release)], check=True)
    return "pip"


def install_with_uv(env: EngineEnv, uv: str) -> str:
    variables = {**os.environ, "UV_CACHE_DIR": str(uv_cache())}
    subprocess.run([uv, "venv", "-q", "--clear", "--python", sys.executable, str(env.root)], check=True, env=variables)
    overrides = overrides_file(env.engine, env.release, env.root)
    subprocess.run([uv, "pip", "install", "-q", "--link-mode", "hardlink", "--python", str(env.python),
                    "-c", str(constraints_file(env)), *(["--overrides", str(overrides)] if overrides else []),
                    requirement(env.engine, env.release)], check=True, env=variables)
    return "uv"


def own_bytes(path: Path) -> int:
    """What the venv adds to the disk: files not hardlinked to the uv cache (or anything else)."""
    return sum(p.stat().st_size for p in path.rglob("*")
               if p.is_file() and not p.is_symlink() and p.stat().st_nlink == 1)


def disk_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def installed_distributions(env: EngineEnv) -> dict[str, str]:
    """Name -> version of the venv's distributions, read by its own interpreter (a uv venv has no pip)."""
    script = "import json, importlib.metadata as m; print(json.dumps({d.metadata['Name']: d.version " \
             "for d in m.distributions() if d.metadata['Name']}))"
    listing = subprocess.run([str(env.python), "-c", script], capture_output=True, text=True, check=True)
    return {name.lower().replace("_", "-"): version for name, version in json.loads(listing.stdout).items()}


def pinned_inputs(env: EngineEnv, variables: dict[str, str]) -> dict[str, object]:
    """What the answer depends on besides the release: the wheel set, the toolchain on PATH, VLLM_* env."""
    installed = installed_distributions(env)
    path = variables.get("PATH", os.environ.get("PATH", ""))
    stand_ins = recorded(env.engine, env.release, installed, env.site_packages)
    return {"distributions": {name: installed.get(name) for name in PINNED_DISTRIBUTIONS if name in installed},
            **({"stand_ins": stand_ins} if stand_ins else {}),
            **({"yanked": list(YANKED_PINS[(env.engine, env.release)])} if (env.engine, env.release) in YANKED_PINS
               else {}),
            **({"substitutes": subs} if (subs := substituted(env.engine, env.release, installed)) else {}),
            "absent": [name for name in PINNED_DISTRIBUTIONS if name not in installed],
            "toolchain": {tool: shutil.which(tool, path=path) for tool in TOOLCHAIN},
            "env": {k: v for k, v in sorted(variables.items()) if k.startswith(("VLLM_", "CUDA_HOME"))}}
