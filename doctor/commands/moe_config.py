"""`sm120-doctor moe-config MODEL -o DIR`: write smem-safe fused-MoE config files where SGLang looks for them
(doctor.engines.sglang.moe_files)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from doctor.commands.options import add_target_options, check_request
from doctor.errors import UsageError


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("Writes DIR/configs/triton_X_Y_Z/<file> for the model's MoE GEMMs; point SGLang at it with "
                     "SGLANG_MOE_CONFIG_DIR=DIR.")
    add_target_options(p)
    p.add_argument("--ep", type=int, help="expert-parallel size")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="DIR")
    p.add_argument("--all", action="store_true", help="also when the config SGLang would use already fits")
    p.add_argument("--force", action="store_true", help="overwrite a file that differs (backed up to NAME.bak first)")


def run(args: argparse.Namespace) -> int:
    from doctor.engines.sglang.moe_files import MOE_CONFIG_ENV, safe_config_files
    from doctor.output import back_up, differs, refuse_overwrite, write_text_atomic
    from doctor.pipeline.check import run_check

    report = run_check(check_request(args, ep=args.ep))
    if report.analysis.engine != "sglang":
        raise UsageError("moe-config needs SGLang: install it or pass --engine sglang==VERSION")
    gpu = report.facts.gpus[0] if report.facts.gpus else None
    files = safe_config_files(report.analysis.kernels, gpu.capability if gpu else None,
                              only_overflowing=not args.all)
    if not files:
        has_moe = any(k.kernel == "fused_moe" for k in report.analysis.kernels)
        print("nothing to write: " + ("every MoE config SGLang would use already fits (use --all to write one anyway)"
                                      if has_moe else "this model runs no Triton fused-MoE kernel here"),
              file=sys.stderr)
        return 0
    if not args.force:
        for made in files:  # before writing any
            refuse_overwrite(args.output / made.relative_path, made.text())
    for made in files:
        target = args.output / made.relative_path
        if differs(target, made.text()):
            print(f"backed up {target} to {back_up(target)}", file=sys.stderr)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create {target.parent}: {exc.strerror or exc}") from exc
        write_text_atomic(target, made.text())
        print(f"wrote {target} ({len(made.table)} entries, largest {made.worst_bytes} B <= {made.limit} B)",
              file=sys.stderr)
    print(f"export {MOE_CONFIG_ENV}={args.output.resolve()}")
    return 0
