"""Exact mode: compile an engine's own Triton kernels ahead of time and read `metadata.shared`.

Triton is never imported here: compiles run in `exact_worker.py` subprocesses whose PYTHONPATH
points at a chosen Triton site dir (one process per target arch). Results are
cached on disk, keyed by kernel-source hash, Triton version, target and launch parameters.

A job names its kernel source file and launch (`Job.source`, `Job.launch`: built by the engine that
ships the kernel, see doctor.engines.base.Engine.exact_jobs); a job without them is looked up in the
built-in table below (`KERNEL_FILES`, `exact_launch`), which covers SGLang's kernel files.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import doctor.kernels.exact_launch as exact_launch

WORKER = Path(__file__).resolve().parent / "exact_worker.py"
NEWEST_TRITON = "3.9.0"

# Where each kernel file lived, newest layout first (moved in 0.5.11 and 0.5.16).
KERNEL_FILES: dict[str, tuple[str, ...]] = {
    "fused_moe": (
        "sglang/kernels/ops/moe/fused_moe_triton_kernels.py",
        "sglang/srt/layers/moe/moe_runner/triton_utils/fused_moe_triton_kernels.py",
        "sglang/srt/layers/moe/fused_moe_triton/fused_moe_triton_kernels.py",
        "sglang/srt/layers/moe/fused_moe_triton/fused_moe.py",
    ),
    "extend_attention": (
        "sglang/kernels/ops/attention/extend_attention.py",
        "sglang/srt/layers/attention/triton_ops/extend_attention.py",
    ),
    "decode_attention": (
        "sglang/kernels/ops/attention/decode_attention.py",
        "sglang/srt/layers/attention/triton_ops/decode_attention.py",
    ),
    "prefill_attention": (
        "sglang/kernels/ops/attention/prefill_attention.py",
        "sglang/srt/layers/attention/triton_ops/prefill_attention.py",
    ),
}


class ExactError(RuntimeError):
    """A kernel could not be located or compiled."""


@dataclass(frozen=True)
class Job:
    """One kernel compile for sm_<cc>. `source`: the kernel's file (None: `kernel_source` under the
    source root). `launch`: {"name", "args", "options"} in exact_launch's value vocabulary, optionally
    "modules" ([module name, file] executed in order as those modules instead of copying the @triton.jit
    functions out of `source`), "prelude" (a file run first: stand-ins for the sources' imports) and
    "declared_types" (parameters annotated `tl.int64`/`tl.int32` typed as declared); None:
    `exact_launch.build(kernel, cc, params)`."""

    kernel: str
    cc: int
    params: dict[str, Any] = field(hash=False)
    source: str | None = None
    launch: dict[str, Any] | None = field(default=None, hash=False)

    def built(self) -> dict[str, Any]:
        if self.launch is not None:
            return self.launch
        name, args, options = exact_launch.build(self.kernel, self.cc, self.params)
        return {"name": name, "args": args, "options": options}

    def files(self, root: Path | None) -> list[Path]:
        """Every file the compile reads: the kernel source, then the launch's modules and prelude."""
        if self.source is None and root is None:
            raise ExactError(f"no kernel source for {self.kernel}: pass a source dir or install the engine")
        main = Path(self.source) if self.source else kernel_source(self.kernel, root)  # type: ignore[arg-type]
        extra = [Path(f) for _, f in (self.launch or {}).get("modules", ())]
        prelude = (self.launch or {}).get("prelude")
        return [main, *extra, *([Path(prelude)] if prelude else [])]


def user_cache() -> Path:
    base = os.environ.get("SM120_DOCTOR_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "sm120-doctor")
    return Path(base)


def kernel_source(kernel: str, sglang_dir: str | os.PathLike[str]) -> Path:
    """The SGLang file defining `kernel` under a site dir (or the `sglang` package dir itself)."""
    root = Path(sglang_dir)
    if root.name == "sglang" and not (root / "sglang").exists():
        root = root.parent
    for rel in KERNEL_FILES[kernel]:
        if (root / rel).exists():
            return root / rel
    raise ExactError(f"no {kernel} kernel source under {root}")


def installed_sglang_dir() -> Path | None:
    """Site dir of an installed sglang, found without importing it."""
    spec = importlib.util.find_spec("sglang")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent


def triton_version(site: Path | None) -> str:
    if site is None:
        try:
            return importlib.metadata.version("triton")
        except importlib.metadata.PackageNotFoundError as exc:
            raise ExactError("no Triton installed; pass a Triton site dir or --triton V") from exc
    infos = sorted(site.glob("triton-*.dist-info"))
    if not infos:
        raise ExactError(f"{site} holds no triton-*.dist-info")
    return infos[0].name[len("triton-"):-len(".dist-info")]


def ensure_triton(version: str, root: Path | None = None) -> Path:
    """A private site dir holding triton==version, pip-installed (--no-deps --target) on first use."""
    site = (root or user_cache()) / f"triton-{version}"
    if not list(site.glob("triton-*.dist-info")):
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site),
               f"triton=={version}"]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise ExactError(f"cannot install triton=={version}: {_last_line(done.stderr)}")
    return site


def _cache_key(job: Job, files: list[Path], version: str) -> str:
    """Kernel source, the exact launch (name, arguments as specialised, options), Triton version
    and target: an edit to the launch builder that changes no launch keeps its cached results."""
    built = job.built()
    launch = [built["name"], built["args"], built["options"]] if job.launch is None else built
    digest = hashlib.sha256()
    parts = [files[0].read_bytes(), json.dumps(launch, sort_keys=True).encode(), version.encode(),
             str(job.cc).encode(), job.kernel.encode(), *(f.read_bytes() for f in files[1:])]
    for part in parts:
        digest.update(hashlib.sha256(part).digest())
    return digest.hexdigest()


def _run_worker(site: Path | None, jobs: list[dict[str, Any]], timeout: float,
                on_line: Callable[[dict[str, Any]], None], dump: bool = False) -> None:
    """Feed jobs to one worker process and hand back each result as soon as it is printed."""
    env = dict(os.environ, TRITON_DEFAULT_FP_FUSION="1", SM120_DOCTOR_DUMP="1" if dump else "0")
    if site is not None:
        env["PYTHONPATH"] = str(site)
    else:
        env.pop("PYTHONPATH", None)
    payload = "".join(json.dumps({k: v for k, v in job.items() if k not in ("key", "dump")}) + "\n"
                      for job in jobs)
    with subprocess.Popen([sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(payload)
        proc.stdin.close()
        seen = 0
        for line in proc.stdout:
            if line.startswith("{"):
                on_line(json.loads(line))
                seen += 1
        stderr = proc.stderr.read() if proc.stderr else ""
        proc.wait(timeout=timeout)
    if seen < len(jobs):
        tail = stderr.strip().splitlines()[-1:] or ["worker failed"]
        raise ExactError(f"compile worker failed: {tail[0]}")


def _chunks(jobs: list[dict[str, Any]], parts: int, size: int = 12) -> list[list[dict[str, Any]]]:
    """Task lists of one arch each (a process never compiles for two targets), at most `size`
    jobs and at least enough lists to keep `parts` workers busy."""
    by_cc: dict[int, list[dict[str, Any]]] = {}
    for job in jobs:
        by_cc.setdefault(job["cc"], []).append(job)
    tasks: list[list[dict[str, Any]]] = []
    for group in by_cc.values():
        share = max(1, round(parts * len(group) / max(1, len(jobs))))
        count = max(share, -(-len(group) // size))
        tasks.extend(t for t in (group[i::count] for i in range(count)) if t)
    return sorted(tasks, key=len, reverse=True)


def default_workers() -> int:
    """One compile process per core (each compile is single-threaded and CPU-bound)."""
    return max(1, os.cpu_count() or 1)


def compile_many(jobs: Sequence[Job], source_root: str | os.PathLike[str] | None = None,
                 triton_site: Path | None = None, workers: int | None = None,
                 cache_dir: Path | None = None, progress: Callable[[int, int], None] | None = None,
                 timeout: float = 3600,
                 on_result: Callable[[int, dict[str, Any]], None] | None = None,
                 dump: bool = False) -> list[dict[str, Any]]:
    """Compile every job in parallel worker processes; each result is {"shared": int, "secs": float}
    or {"error": str}. Results are cached on disk (kernel source hash, launch builder, Triton
    version, target and parameters), so a repeated job costs a file read.

    progress(done, total) is called once before the first compile and after each one (cache hits
    are not counted as work); on_result(index, result) as each job finishes. dump=True also
    returns the allocator's placement of every buffer ("buffers", see exact_dump).
    """
    base = _source_root(jobs, source_root)
    version = triton_version(triton_site)
    cache = (cache_dir or user_cache() / "smem-results") / f"triton-{version}"
    results: list[dict[str, Any] | None] = [None] * len(jobs)
    pending: list[dict[str, Any]] = []
    for index, job in enumerate(jobs):
        files = job.files(base)
        key = _cache_key(job, files, version) + ("-dump" if dump else "")
        hit = cache / f"{key}.json"
        if hit.exists():
            results[index] = json.loads(hit.read_text())
            continue
        pending.append({"id": index, "kernel": job.kernel, "source": str(files[0]), "cc": job.cc,
                        "params": job.params, "launch": job.launch, "key": key})
    keys = {job["id"]: job["key"] for job in pending}
    lock = threading.Lock()
    finished = [0]
    if progress and pending:
        progress(0, len(pending))

    def record(res: dict[str, Any]) -> None:
        with lock:
            _store(cache, keys[res["id"]], res)
            results[res["id"]] = res
            finished[0] += 1
            if on_result:
                on_result(res["id"], res)
            if progress:
                progress(finished[0], len(pending))

    with ThreadPoolExecutor(max_workers=workers or default_workers()) as pool:
        tasks = _chunks(pending, parts=workers or default_workers())
        futures = [pool.submit(_run_worker, triton_site, task, timeout, record, dump) for task in tasks]
        for future in futures:
            future.result()
    return [r if r is not None else {"error": "not compiled"} for r in results]


def _source_root(jobs: Sequence[Job], given: str | os.PathLike[str] | None) -> Path | None:
    """The dir `kernel_source` searches for jobs that name no source (an installed sglang by default)."""
    if given:
        return Path(given)
    if all(job.source for job in jobs):
        return None
    found = installed_sglang_dir()
    if found is None:
        raise ExactError("no sglang installed; pass --engine sglang==V or a wheel dir")
    return found


def _store(cache: Path, key: str, result: dict[str, Any]) -> None:
    if "shared" not in result:
        return
    cache.mkdir(parents=True, exist_ok=True)
    tmp = cache / f".{key}.{os.getpid()}.{threading.get_ident()}"
    tmp.write_text(json.dumps({k: v for k, v in result.items() if k != "id"}))
    os.replace(tmp, cache / f"{key}.json")  # concurrent runs never read a half-written entry


def exact_smem(kernel: str, sglang_dir: str | os.PathLike[str] | None, cc: int,
               triton_site: Path | None = None, cache_dir: Path | None = None, **params: Any) -> int:
    """`metadata.shared` of one SGLang kernel config compiled for sm_<cc> (e.g. cc=120)."""
    result = compile_many([Job(kernel, cc, params)], sglang_dir, triton_site, 1, cache_dir)[0]
    if "shared" not in result:
        raise ExactError(f"{kernel} did not compile for sm_{cc}: {result.get('error')}")
    return int(result["shared"])


def fetch_sglang(version: str, root: Path | None = None) -> Path:
    """Site-like dir of sglang==version's wheel (pip download --no-deps, unpacked once)."""
    return fetch_wheel("sglang", version, root=root)


def fetch_wheel(dist: str, version: str, prefixes: Sequence[str] = (), root: Path | None = None) -> Path:
    """Site-like dir of dist==version's wheel: pip download --no-deps into the user cache (skipped when a
    wheel of that version already lies there), then its members under `prefixes` (all: none given)
    unpacked once."""
    import zipfile

    base = (root or user_cache()) / dist / version
    marker = base / ".complete"
    if marker.exists() and marker.read_text().splitlines()[1:] == sorted(prefixes):
        return base / "site"
    wheel = _download(dist, version, base / "wheel")
    with zipfile.ZipFile(wheel) as archive:
        members = [m for m in archive.namelist() if m.startswith(tuple(prefixes) or "")]
        archive.extractall(base / "site", members)
    marker.write_text("\n".join([wheel.name, *sorted(prefixes)]))
    return base / "site"


def _download(dist: str, version: str, into: Path) -> Path:
    found = sorted(into.glob(f"{dist.replace('-', '_')}-{version}-*.whl"))
    if found:
        return found[0]
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:", "-d",
           str(into), f"{dist}=={version}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    found = sorted(into.glob(f"{dist.replace('-', '_')}-*.whl"))
    if done.returncode != 0 or not found:
        raise ExactError(f"cannot download {dist}=={version}: {_last_line(done.stderr)}")
    return found[0]


def _last_line(text: str) -> str:
    """pip's last stderr line, the one that says why (an error stays one line)."""
    lines = text.strip().splitlines()
    return lines[-1][-300:] if lines else "no output"
