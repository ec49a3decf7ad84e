"""Smem-safe fused-MoE config files: for each MoE GEMM whose config overflows the GPU, a table whose
every entry fits (doctor.kernels.generate_safe_moe_config), laid out exactly where SGLang looks:
`$SGLANG_MOE_CONFIG_DIR/configs/triton_X_Y_Z/<file name>`. Used by `--fix` (safe: a new file in a
directory the user owns) and by the `moe-config` command."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from doctor.check import run_check
from doctor.cli import add_target_options, check_request
from doctor.errors import UsageError
from doctor.kernels import fused_moe_smem, generate_safe_moe_config
from doctor.kernels.check import KernelCheck
from doctor.output import back_up, read_regular_bytes, write_text_atomic
from doctor.report import Report


@dataclass(frozen=True)
class MoeConfigFile:
    relative_path: str  # configs/triton_X_Y_Z/<file name>
    table: dict[str, dict[str, int]]
    worst_bytes: int
    limit: int

    def text(self) -> str:
        return json.dumps(self.table, indent=4) + "\n"


def safe_config_files(report: Report, only_overflowing: bool = True) -> list[MoeConfigFile]:
    gpu = report.facts.gpus[0] if report.facts.gpus else None
    if gpu is None:
        return []
    files: dict[str, MoeConfigFile] = {}
    for check in report.analysis.kernels:
        if check.kernel != "fused_moe" or check.limit is None or (only_overflowing and check.fits):
            continue
        made = safe_config_file(check, gpu.capability)
        files.setdefault(made.relative_path, made)
    return list(files.values())


def safe_config_file(check: KernelCheck, capability: tuple[int, int]) -> MoeConfigFile:
    shape, details = check.shape, check.details
    dtype = shape["dtype"]
    table = generate_safe_moe_config(capability, shape["E"], shape["N"], shape["K"], dtype, topk=shape["top_k"],
                                     per_channel=shape["per_channel"], block_shape=shape["block_shape"],
                                     triton=details.get("triton_version"))
    sizes = [fused_moe_smem(capability, dtype, e["BLOCK_SIZE_M"], e["BLOCK_SIZE_N"], e["BLOCK_SIZE_K"],
                            e["GROUP_SIZE_M"], e["num_warps"], e["num_stages"], per_channel=shape["per_channel"],
                            block_shape=shape["block_shape"]) for e in table.values()]
    if max(sizes) > check.limit:
        raise UsageError(f"generated MoE config needs {max(sizes)} B > {check.limit} B; refusing to write it")
    relative = f"configs/{details['triton_dir']}/{details['config_file']}"
    return MoeConfigFile(relative, table, max(sizes), check.limit)


# --- `sm120-doctor moe-config` -----------------------------------------------------------------

def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("moe-config", help="write smem-safe fused-MoE config files for a model and GPU",
                       description="Writes DIR/configs/triton_X_Y_Z/<file> for the model's MoE GEMMs; "
                                   "point SGLang at it with SGLANG_MOE_CONFIG_DIR=DIR.")
    add_target_options(p)
    p.add_argument("--ep", type=int, help="expert-parallel size")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="DIR")
    p.add_argument("--all", action="store_true", help="also when the config SGLang would use already fits")
    p.add_argument("--force", action="store_true", help="overwrite a file that differs (backed up to NAME.bak first)")
    p.add_argument("--engine-args", default="", help=argparse.SUPPRESS)
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    report = run_check(check_request(args, ep=args.ep))
    if report.analysis.engine != "sglang":
        raise UsageError("moe-config needs SGLang: install it or pass --engine sglang==VERSION")
    files = safe_config_files(report, only_overflowing=not args.all)
    if not files:
        has_moe = any(k.kernel == "fused_moe" for k in report.analysis.kernels)
        print("nothing to write: " + ("every MoE config SGLang would use already fits (use --all to write one anyway)"
                                      if has_moe else "this model runs no Triton fused-MoE kernel here"),
              file=sys.stderr)
        return 0
    targets = [(args.output / made.relative_path, made) for made in files]
    for target, made in targets:  # refuse before writing any
        _check_overwrite(target, made.text(), args.force)
    for target, made in targets:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {target.parent}: {exc.strerror or exc}") from exc
        if _differs(target, made.text()):
            print(f"backed up {target} to {back_up(target)}", file=sys.stderr)
        write_text_atomic(target, made.text())
        print(f"wrote {target} ({len(made.table)} entries, largest {made.worst_bytes} B <= {made.limit} B)",
              file=sys.stderr)
    print(f"export SGLANG_MOE_CONFIG_DIR={args.output.resolve()}")
    return 0


def _differs(target: Path, text: str) -> bool:
    """A file already there with other content (hand-edited, or from other options)."""
    try:
        return target.is_file() and read_regular_bytes(target) != text.encode()
    except OSError:
        return True


def _check_overwrite(target: Path, text: str, force: bool) -> None:
    if target.exists() and not target.is_file():
        raise UsageError(f"{target} exists and is not a regular file; not writing")
    if _differs(target, text) and not force:
        raise UsageError(f"{target} exists with other content (hand-edited?); nothing was written: pass --force "
                         f"to back it up to {target.name}.bak and overwrite it")
