"""`--exact` for vLLM: each kernel check of the plan (doctor.engines.vllm.kernel_plan) as a compile of vLLM's own
kernel file, the installed package's or the release's wheel (pip download --no-deps into the user cache, only the
kernel files unpacked), at the launch doctor.engines.vllm.exact_launch builds for it. vLLM is never imported: the
fused-MoE and MLA decode kernels are copied out of their files, the attention files run behind stand-ins for their
torch and vLLM imports (exact_prelude.py)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from doctor.engines.run import EngineRun, ExactJobs
from doctor.engines.vllm import exact_launch as launch
from doctor.engines.vllm import unified_attention as ua
from doctor.kernels import exact
from doctor.kernels.check import KernelCheck

PRELUDE = Path(__file__).with_name("exact_prelude.py")
HELPERS = "triton_attention_helpers.py"
# Where each kernel file lived, newest layout first.
KERNEL_FILES: dict[str, tuple[str, ...]] = {
    "fused_moe": ("vllm/model_executor/layers/fused_moe/fused_moe.py",),
    "decode_attention": ("vllm/v1/attention/ops/triton_decode_attention.py",
                         "vllm/attention/ops/triton_decode_attention.py"),
    "unified_attention": ("vllm/v1/attention/ops/triton_unified_attention.py",
                          "vllm/attention/ops/triton_unified_attention.py"),
}


def source_root(run: EngineRun) -> Path:
    """The site dir holding `vllm/`: the installed package's, else the release's kernel files from its wheel."""
    if run.site is not None:
        return run.site.parent if run.site.name == "vllm" and not (run.site / "vllm").exists() else run.site
    files = [f for paths in KERNEL_FILES.values() for f in paths]
    helpers = [str(Path(f).with_name(HELPERS)) for f in KERNEL_FILES["unified_attention"]]
    return exact.fetch_wheel("vllm", run.library.version, prefixes=files + helpers)


def kernel_file(root: Path, kernel: str) -> Path:
    found = next((root / rel for rel in KERNEL_FILES.get(kernel, ()) if (root / rel).exists()), None)
    if found is None:
        raise exact.ExactError(f"no vLLM {kernel} kernel source under {root}")
    return found


def exact_jobs(run: EngineRun, checks: Sequence[KernelCheck]) -> ExactJobs:
    assert run.gpu is not None
    root = source_root(run)
    cc = run.gpu.capability[0] * 10 + run.gpu.capability[1]
    return ExactJobs(tuple(job(root, cc, check) for check in checks), ua.pinned_triton(run.version))


def job(root: Path, cc: int, check: KernelCheck) -> exact.Job:
    source = kernel_file(root, check.kernel)
    if check.kernel == "fused_moe":
        return moe_job(source, cc, check.shape, check.config)
    if check.kernel == "decode_attention":
        return mla_job(source, cc, check.shape, check.config)
    launched = check.details.get("launch")
    if launched is None:
        raise exact.ExactError(f"the plan gives no launch for {check.path}")
    return unified_job(source, {"cc": cc, **launched, "sinks": bool(check.shape.get("sinks"))})


def moe_job(source: Path, cc: int, shape: dict, config: dict) -> exact.Job:
    """vLLM's `fused_moe_kernel`, the up GEMM at this config (`shape` as kernel_plan.moe_shape gives it)."""
    options = {"num_warps": config["num_warps"], "num_stages": config["num_stages"]}
    built = {"name": "fused_moe_kernel", "args": launch.moe_args(str(source), shape, config), "options": options}
    return exact.Job("fused_moe", cc, {}, str(source), built)


def mla_job(source: Path, cc: int, shape: dict, config: dict) -> exact.Job:
    """TRITON_MLA's grouped decode stage 1 (`shape`: lk, lv, kv_dtype; `config`: kernel_plan.DECODE_TILES)."""
    name, args, options = launch.mla_decode_args(cc, shape, config)
    return exact.Job("decode_attention", cc, {}, str(source), {"name": name, "args": args, "options": options})


def unified_job(source: Path, job: dict) -> exact.Job:
    """A TRITON_ATTN launch (unified_attention.launches, with "cc" and optionally "sinks", "softcap")."""
    helpers = source.with_name(HELPERS)
    package = ".".join(source.relative_to(_site(source)).parent.parts)
    modules = [[f"{package}.{f.stem}", str(f)] for f in (helpers, source) if f.exists()]
    built = {"name": launch.unified_kernel_name(str(source), job["kernel"]),
             "args": launch.unified_args(str(source), job),
             "options": {"num_warps": job.get("num_warps", 4), "num_stages": job.get("num_stages", 3)},
             "modules": modules, "prelude": str(PRELUDE), "declared_types": True}
    return exact.Job("unified_attention", job["cc"], {}, str(source), built)


def _site(source: Path) -> Path:
    """The directory holding the top-level `vllm` package of `source`."""
    return next((p.parent for p in source.parents if p.name == "vllm"), source.parent)
