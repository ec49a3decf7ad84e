"""`sm120-doctor check MODEL`: the main job; `--fix` applies the fixes and checks again."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from doctor.commands.gate_options import (
    add_gate_options,
    apply_target_defaults,
    gate_settings,
    update_baseline,
    write_outputs,
)
from doctor.commands.options import add_host_what_ifs, add_target_options, check_request, console, image_engines
from doctor.errors import UsageError

UNSTATED_HELP = ("evaluate as if this version of an engine or package were installed (repeatable); a serving "
                 "engine's NAME alone (`--engine vllm`): every release the doctor knows, merged")


def register(p: argparse.ArgumentParser) -> None:
    p.description = ("Check MODEL (hub id or local directory). Engine launch flags may follow `--`, e.g. "
                     "`check MODEL -- --tp-size 8 --attention-backend triton`. With no --engine, every serving "
                     "engine installed is analysed (or none, said in a note).")
    add_target_options(p, model_required=False, cluster=True, engine_help=UNSTATED_HELP)
    add_host_what_ifs(p)
    p.add_argument("--pp", type=int, help="pipeline-parallel size (written in each engine's spelling)")
    p.add_argument("--ep", type=int, help="expert-parallel size (written in each engine's spelling; an engine "
                                          "without an EP size runs its own expert parallelism)")
    p.add_argument("--context-length", type=int, help="longest request (written in each engine's spelling)")
    add_gate_options(p)
    p.add_argument("--image", metavar="REF", help="the container image the launch runs in (`vllm/vllm-openai:v0.11.0`, "
                   "`ghcr.io/anemll/dspark-vllm-gx10:0.1.1`), read as `lint` reads it: its engine build and pinned "
                   "libraries become what-ifs where no --engine names them, and the image rules judge it")
    p.add_argument("--deep", action="store_true", help="also ask torch (imports torch; slower)")
    p.add_argument("--fix", action="store_true", help="apply safe fixes (new files you own), then check again")
    p.add_argument("--unsafe-fixes", action="store_true", help="with --fix: also patch installed packages")
    p.add_argument("--dry-run", action="store_true", help="with --fix: show diffs and files, change nothing")
    p.add_argument("--fix-dir", type=Path, default=Path("sm120-doctor-fix"), metavar="DIR",
                   help="with --fix: where new files (MoE configs, env.sh) go (default: ./sm120-doctor-fix)")


def run(args: argparse.Namespace) -> int:
    from doctor.formats.json import render_json
    from doctor.gate import gate
    from doctor.located import Target
    from doctor.pipeline.check import run_check

    if (args.unsafe_fixes or args.dry_run) and not args.fix:
        raise UsageError("--unsafe-fixes and --dry-run go with --fix")
    settings = gate_settings(args)
    apply_target_defaults(args, settings.config)
    from doctor.commands import cluster

    if cluster.is_cluster(args):
        return cluster.run_check(args, settings)
    request = with_image(check_request(args), args.image)
    report = run_check(request)
    if args.fix:
        from doctor.commands.fix_session import fix_and_recheck

        report = fix_and_recheck(report, request, args)
    if settings.update_baseline:
        return update_baseline(gate([Target(report)], settings.config), settings)
    result = gate([Target(report)], settings.config, settings.baseline)
    report = result.targets[0].report  # what config, suppressions and the baseline leave
    json_text = render_json(report) if args.format == "json" or args.output is not None else None
    write_outputs(result, args, json_text=json_text)
    if args.format == "json":
        print(json_text)
    elif args.format == "markdown":
        from doctor.formats.markdown import render_check_markdown

        print(render_check_markdown(report), end="")
    elif args.format == "console":
        from doctor.formats.console import render_console

        render_console(report, console())
    return 1 if result.fails(settings.fail_on) else 0


def with_image(request: Any, ref: str | None) -> Any:
    """The request with what `ref` pins, as lint hands a launch file's image to check: the image's engine build and
    libraries as what-ifs (an --engine the user gave for the same package wins), the image as `image.*`."""
    if not ref:
        return request
    image, engines = image_engines(ref, request.engines)
    return dataclasses.replace(request, engines=engines,
                               launch_file={**(request.launch_file or {}), "image": image, "recipe": None})
