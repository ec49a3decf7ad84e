"""`sm120-doctor smem ...`: shared memory of SGLang's Triton kernels for a target arch.

Exit status: 0 fits, 1 overflow, 2 bad usage (one-line error).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from doctor.errors import UsageError
from doctor.kernels.arch import parse_arch
from doctor.kernels.estimate import analytic, check_params, result, target
from doctor.kernels.moe_smem import _WIDTHS

KERNELS = {"fused-moe": "fused_moe", "extend-attention": "extend_attention",
           "decode-attention": "decode_attention", "prefill-attention": "prefill_attention"}
NEWEST_SGLANG = "0.5.23"


def _common(parser: argparse.ArgumentParser, nested: bool) -> None:
    default = argparse.SUPPRESS if nested else None
    parser.add_argument("--arch", default=default, help="target, e.g. sm120, 12.0, sm90")
    parser.add_argument("--format", choices=("text", "json"), default=default)
    parser.add_argument("--exact", action="store_true", default=default,
                        help="compile the kernel with Triton (no GPU needed) instead of the closed form")
    parser.add_argument("--engine", default=default, help="kernel source for --exact: sglang==V")
    parser.add_argument("--triton", default=default, help="Triton version for --exact")


def register(smem: argparse.ArgumentParser) -> None:
    _common(smem, nested=False)
    smem.add_argument("--moe-config", metavar="FILE.json", help="check every entry of a tuned MoE JSON")
    smem.add_argument("--dtype", default=None, help="fused-MoE dtype for --moe-config")
    smem.add_argument("--per-channel", action="store_true", default=None)
    smem.add_argument("--block-shape", default=None, help="N,K of block quantisation, e.g. 128,128")
    kinds = smem.add_subparsers(dest="smem_kernel")
    moe = kinds.add_parser("fused-moe", help="fused_moe_kernel")
    _common(moe, nested=True)
    moe.add_argument("--dtype", default=argparse.SUPPRESS)
    for flag in ("--block-m", "--block-n", "--block-k", "--warps", "--stages"):
        moe.add_argument(flag, type=int, required=True)
    moe.add_argument("--group-m", type=int, default=1)
    moe.add_argument("--per-channel", action="store_true", default=argparse.SUPPRESS)
    moe.add_argument("--block-shape", default=argparse.SUPPRESS)
    ext = kinds.add_parser("extend-attention", help="extend (prefill with prefix) _fwd_kernel")
    _common(ext, nested=True)
    for flag in ("--lq", "--lv", "--block-m", "--block-n", "--warps"):
        ext.add_argument(flag, type=int, required=True)
    ext.add_argument("--stages", type=int, default=1)
    ext.add_argument("--kv-dtype", choices=("bf16", "fp8"), default="bf16")
    ext.add_argument("--kv-group", type=int, default=1)
    ext.add_argument("--custom-mask", action="store_true")
    ext.add_argument("--sliding-window", type=int, default=0)
    ext.add_argument("--logit-cap", type=float, default=0.0)
    ext.add_argument("--sinks", action="store_true")
    dec = kinds.add_parser("decode-attention", help="decode stage-1 kernel")
    _common(dec, nested=True)
    for flag in ("--lk", "--lv"):
        dec.add_argument(flag, type=int, required=True)
    dec.add_argument("--block-n", type=int, default=32)
    dec.add_argument("--block-h", type=int, default=16)
    dec.add_argument("--warps", type=int, default=4)
    dec.add_argument("--stages", type=int, default=2)
    dec.add_argument("--kv-dtype", choices=("bf16", "fp8"), default="bf16")
    dec.add_argument("--mha", action="store_true", help="MHA kernel (kv_group_num == 1)")
    pre = kinds.add_parser("prefill-attention", help="context_attention_fwd (vision / prefill)")
    _common(pre, nested=True)
    pre.add_argument("--head-dim", type=int, required=True)
    pre.add_argument("--block", type=int, default=128)
    pre.add_argument("--warps", type=int, default=8)
    pre.add_argument("--stages", type=int, default=1)
    pre.add_argument("--dtype", choices=("bf16", "fp16", "fp32"), default=argparse.SUPPRESS)


def _block_shape(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        values = [int(part) for part in text.split(",")]
    except ValueError as exc:
        raise UsageError(f"--block-shape wants N,K (e.g. 128,128), got {text!r}") from exc
    if len(values) != 2:
        raise UsageError(f"--block-shape wants N,K (e.g. 128,128), got {text!r}")
    return values


def _moe_dtype(args: argparse.Namespace) -> str:
    dtype = getattr(args, "dtype", None) or "bf16"
    if dtype not in _WIDTHS:
        raise UsageError(f"unknown --dtype {dtype!r}; one of {', '.join(sorted(_WIDTHS))}")
    return dtype


def job_params(args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    """(kernel, params in the exact_launch vocabulary) from parsed arguments."""
    kernel = KERNELS[args.smem_kernel]
    if kernel == "fused_moe":
        config = {"BLOCK_SIZE_M": args.block_m, "BLOCK_SIZE_N": args.block_n, "BLOCK_SIZE_K": args.block_k,
                  "GROUP_SIZE_M": args.group_m, "num_warps": args.warps, "num_stages": args.stages}
        return kernel, {"dtype": _moe_dtype(args), "config": config,
                        "per_channel": bool(getattr(args, "per_channel", False)),
                        "block_shape": _block_shape(getattr(args, "block_shape", None))}
    if kernel == "extend_attention":
        return kernel, {"lq": args.lq, "lv": args.lv, "block_m": args.block_m, "block_n": args.block_n,
                        "num_warps": args.warps, "num_stages": args.stages, "kv_dtype": args.kv_dtype,
                        "kv_group": args.kv_group, "custom_mask": args.custom_mask,
                        "sliding_window": args.sliding_window, "logit_cap": args.logit_cap,
                        "sinks": args.sinks}
    if kernel == "decode_attention":
        return kernel, {"lk": args.lk, "lv": args.lv, "block_n": args.block_n, "block_h": args.block_h,
                        "num_warps": args.warps, "num_stages": args.stages, "kv_dtype": args.kv_dtype,
                        "grouped": not args.mha}
    return kernel, {"head_dim": args.head_dim, "block": args.block, "num_warps": args.warps,
                    "num_stages": args.stages, "dtype": getattr(args, "dtype", None) or "bf16"}


def _exact_sources(args: argparse.Namespace) -> tuple[Path, Path | None]:
    """(sglang site dir, triton site dir or None for the installed Triton)."""
    from doctor.kernels import exact

    engine = getattr(args, "engine", None)
    if engine:
        name, _, version = engine.partition("==")
        if name != "sglang" or not version:
            raise UsageError(f"--engine wants sglang==VERSION, got {engine!r}")
        sglang_dir = exact.fetch_sglang(version)
    else:
        sglang_dir = exact.installed_sglang_dir() or exact.fetch_sglang(NEWEST_SGLANG)
    version = getattr(args, "triton", None)
    if version:
        return sglang_dir, exact.ensure_triton(version)
    try:
        exact.triton_version(None)
        return sglang_dir, None
    except exact.ExactError:
        return sglang_dir, exact.ensure_triton(exact.NEWEST_TRITON)


def _measure(args: argparse.Namespace, kernel: str, cc: Any, params: dict[str, Any]) -> tuple[int, str]:
    if not getattr(args, "exact", False):
        return analytic(kernel, cc, params, triton=getattr(args, "triton", None)), "analytic"
    from doctor.kernels import exact

    sglang_dir, site = _exact_sources(args)
    return exact.exact_smem(kernel, sglang_dir, target(cc), site, **params), "exact"


def _print(payload: Any, fmt: str | None, text: str) -> None:
    print(json.dumps(payload, indent=2) if fmt == "json" else text)


def smem_document(kernel: str, arch: str, limit: int, method: str, entries: list[dict[str, Any]],
                  source: str | None = None) -> dict[str, Any]:
    """schema/smem.schema.json: one kernel config is the one-entry case of a tuned file's entries
    (`M` null, `config` the parameters it was given)."""
    from doctor.formats.document import document

    return document(kernel=kernel, arch=arch, limit=limit, method=method, source=source,
                    fits=all(e["fits"] for e in entries), entries=entries)


def _run_moe_config(args: argparse.Namespace, cc: Any) -> int:
    from doctor.kernels.moe_configs import check_moe_configs
    from doctor.kernels.moe_tuned import load_configs

    try:
        configs = load_configs(args.moe_config)
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read {args.moe_config}: {exc}") from exc
    rows = check_moe_configs(configs, cc, _moe_dtype(args), bool(args.per_channel),
                             _block_shape(args.block_shape), getattr(args, "triton", None))
    target_arch = result("fused_moe", cc, 0, "analytic")
    limit = target_arch.limit
    payload = smem_document("fused_moe", target_arch.arch, limit, "analytic",
                            [{"M": r.M, "config": r.config, "bytes": r.bytes, "fits": r.fits} for r in rows],
                            source=str(args.moe_config))
    lines = [f"{'M':>6}  {'BM':>4} {'BN':>4} {'BK':>4} {'G':>3} {'W':>2} {'S':>2}  {'bytes':>7}"]
    for r in rows:
        c = r.config
        mark = "" if r.fits else f"  OVERFLOW (> {limit})"
        lines.append(f"{r.M:>6}  {c['BLOCK_SIZE_M']:>4} {c['BLOCK_SIZE_N']:>4} {c['BLOCK_SIZE_K']:>4} "
                     f"{c['GROUP_SIZE_M']:>3} {c['num_warps']:>2} {c['num_stages']:>2}  {r.bytes:>7}{mark}")
    bad = sum(not r.fits for r in rows)
    lines.append(f"{bad} of {len(rows)} entries overflow {limit} B on {target_arch.arch}")
    _print(payload, args.format, "\n".join(lines))
    return 1 if bad else 0


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except UsageError:
        raise
    except ValueError as exc:  # an estimator refusing its arguments (unknown arch, bad tile)
        raise UsageError(str(exc)) from exc
    except RuntimeError as exc:  # exact mode: compile or download failure
        raise UsageError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc


def _run(args: argparse.Namespace) -> int:
    if not getattr(args, "arch", None):
        raise UsageError("--arch is required (e.g. --arch sm120)")
    cc = parse_arch(args.arch)
    if getattr(args, "moe_config", None):
        return _run_moe_config(args, cc)
    if not getattr(args, "smem_kernel", None):
        raise UsageError("name a kernel (fused-moe, extend-attention, decode-attention, "
                         "prefill-attention) or pass --moe-config FILE.json")
    kernel, params = job_params(args)
    check_params(kernel, params)
    nbytes, method = _measure(args, kernel, cc, params)
    res = result(kernel, cc, nbytes, method)
    verdict = "fits" if res.fits else "OVERFLOW"
    text = (f"{args.smem_kernel} on {res.arch}: {res.bytes} B of shared memory, "
            f"limit {res.limit} B: {verdict} ({method})")
    entry = {"M": None, "config": params, "bytes": res.bytes, "fits": res.fits}
    _print(smem_document(res.kernel, res.arch, res.limit, res.method, [entry]), args.format, text)
    return 0 if res.fits else 1
