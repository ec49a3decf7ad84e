"""Arguments and output helpers that several subcommands share."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from doctor.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from doctor.hardware.stated import HostWhatIf
    from doctor.pipeline.check import CheckRequest

ENGINE_ARGS_SEP = "\x1f"


def add_target_options(p: argparse.ArgumentParser, tp_help: str = "tensor-parallel size (default: number of GPUs)",
                       model_required: bool = True, cluster: bool = False, engine_help: str | None = None) -> None:
    """MODEL plus where the machine facts come from, what-if versions and TP: shared by the commands
    that analyse a model on a machine (check, kernels, plan, moe-config). `cluster`: also --ray."""
    p.add_argument("model", nargs=None if model_required else "?",
                   help="Hugging Face model id or local model directory")
    if engine_help is None:
        add_machine_options(p, cluster=cluster)
    else:
        add_machine_options(p, engine_help=engine_help, cluster=cluster)
    p.add_argument("--tp", type=int, help=tp_help)
    p.add_argument("--engine-args", default="", help=argparse.SUPPRESS)


def add_machine_options(p: argparse.ArgumentParser,
                        engine_help: str = "evaluate as if this version of an engine or package were installed "
                                           "(repeatable)", cluster: bool = False) -> None:
    """Where the machine facts come from (--hardware or --facts), what-if versions, --offline. `cluster`: several
    --facts files and --ray are allowed (check, plan)."""
    source = p.add_mutually_exclusive_group()
    source.add_argument("--hardware", metavar="PROFILE", help="use a built-in hardware profile (no GPU needed)")
    facts_help = ("use a recorded facts snapshot; several (one per node, in node-rank order) are checked as one "
                  "multi-node deployment") if cluster else "use a recorded facts snapshot"
    source.add_argument("--facts", type=Path, metavar="FILE", action="append", help=facts_help)
    if cluster:
        add_ray_options(source, p)
        p.add_argument("--nodes", type=int, metavar="N",
                       help="with --hardware PROFILE or one --facts FILE: N identical nodes of it, checked as one "
                            "multi-node deployment (e.g. `--hardware dgx-spark --nodes 2 --tp 2` for two DGX Sparks)")
    p.add_argument("--engine", action="append", default=[], metavar="NAME==VERSION", help=engine_help)
    p.add_argument("--offline", action="store_true", help="never contact the Hugging Face hub")


def add_host_what_ifs(p: argparse.ArgumentParser) -> None:
    """--driver and --wsl: what a built-in profile cannot know about the user's host (check, diagnose)."""
    p.add_argument("--driver", metavar="VERSION",
                   help="with --hardware: the NVIDIA driver release the machine runs, as nvidia-smi prints it "
                        "(`580.105.08`), optionally with its kernel-module flavour (`580.105.08-open`, "
                        "`580.105.08-proprietary`: Ubuntu's nvidia-driver-580-open vs nvidia-driver-580); its CUDA "
                        "driver version follows from NVIDIA's toolkit/driver table, and the driver rules judge it as "
                        "they judge a probed driver")
    p.add_argument("--wsl", action="store_true",
                   help="with --hardware: the machine serves from WSL2 (Windows Subsystem for Linux), so the WSL2 "
                        "rules apply; --driver then names the Windows driver, which is what WSL2 shows")


def host_what_if(args: argparse.Namespace) -> HostWhatIf:
    """--driver / --wsl, checked: they state a profile's host, so they go with --hardware only (a live probe
    reads this machine's driver; a facts file states its own)."""
    from doctor.hardware.stated import HostWhatIf, split_driver

    driver, wsl = getattr(args, "driver", None), bool(getattr(args, "wsl", False))
    for given, option in ((driver is not None, "--driver"), (wsl, "--wsl")):
        if given and not getattr(args, "hardware", None):
            raise UsageError(f"{option} goes with --hardware PROFILE: a live probe reads this machine's driver and "
                             f"host, and a --facts file states its own")
    version, module = split_driver(driver) if driver is not None else (None, None)
    return HostWhatIf(driver=version, wsl=wsl, module=module)


def add_format_option(p: argparse.ArgumentParser, choices: tuple[str, ...] = ("console", "json")) -> None:
    p.add_argument("--format", choices=choices, default=choices[0])


LAYOUT_OPTIONS = ("tp", "pp", "ep", "context_length")


def layout_options(args: argparse.Namespace, **sizes: int | None) -> dict[str, int]:
    """The doctor's --tp/--pp/--ep/--context-length (and `sizes`, e.g. ep=2) that were given; each engine run
    writes them in its own spelling (Engine.option_flags)."""
    given = {name: getattr(args, name, None) for name in LAYOUT_OPTIONS} | sizes
    options = {}
    for name, value in given.items():
        if value is not None:
            if value < 1:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
            options[name] = value
    return options


def check_request(args: argparse.Namespace, **sizes: int | None) -> CheckRequest:
    """A CheckRequest from add_target_options' arguments; --tp and `sizes` (e.g. ep=2) are layout options."""
    from doctor.engines.infer import launch_env
    from doctor.pipeline.check import CheckRequest

    launch = engine_args(args)
    return CheckRequest(model=args.model, hardware=args.hardware, facts_file=facts_file(args), engines=args.engine,
                        engine_args=launch, options=layout_options(args, **sizes),
                        deep=getattr(args, "deep", False), offline=args.offline,
                        environ={**environment(), **launch_env(launch)}, stated=host_what_if(args))


def facts_file(args: argparse.Namespace) -> Path | None:
    """The one --facts file of a single-machine command."""
    files = args.facts or []
    if isinstance(files, str | Path):  # from a project config
        return Path(files)
    if len(files) > 1:
        raise UsageError("one --facts file here (several, one per node, go with `check` and `plan`)")
    return files[0] if files else None


def split_engine_args(argv: list[str]) -> list[str]:
    """Everything after `--` is the engine launch command; argparse gets it as one option."""
    if "--" not in argv:
        return argv
    cut = argv.index("--")
    return [*argv[:cut], "--engine-args=" + ENGINE_ARGS_SEP.join(argv[cut + 1:])]


def engine_args(args: argparse.Namespace) -> list[str]:
    raw = getattr(args, "engine_args", "") or ""
    return raw.split(ENGINE_ARGS_SEP) if raw else []


def environment() -> dict[str, str]:
    return dict(os.environ)


def console(width: int = 120, stderr: bool = False) -> Console:
    """A terminal gets its own width; a pipe or file gets `width` columns instead of rich's 80."""
    from rich.console import Console

    out = Console(highlight=False, stderr=stderr)
    return out if out.is_terminal else Console(highlight=False, width=width, stderr=stderr)


RAY_TIMEOUT_HELP = "with --ray: seconds to wait for the nodes' probes (default: %(default)s)"


def add_ray_options(source: Any, p: argparse.ArgumentParser) -> None:
    source.add_argument("--ray", nargs="?", const="auto", metavar="ADDRESS",
                        help="probe every node of a running Ray cluster (`auto`, or HOST:PORT of its head) and check "
                             "them as one deployment; needs `pip install 'sm120-doctor[cluster]'` and the doctor on "
                             "every node")
    p.add_argument("--ray-timeout", type=float, default=120.0, metavar="SECONDS", help=RAY_TIMEOUT_HELP)


def image_engines(ref: str, engines: list[str]) -> tuple[Any, list[str]]:
    """The image `ref` names and the what-ifs with what it pins added (an --engine given for a package wins)."""
    from doctor.engines import registry
    from doctor.engines.images import image_facts

    image = image_facts(ref)
    if image is None:
        raise UsageError(f"--image {ref}: not an image of a serving engine or GPU stack the doctor tracks")
    pins = ([f"{image.engine}=={image.version}"] if image.engine and image.version else []) + image.what_ifs()
    versioned, _ = registry.split_engine_specs(engines)
    named = {registry.parse_engine_spec(spec).name for spec in versioned}
    added = [spec for spec in pins if registry.parse_engine_spec(spec).name not in named]
    pinned = {registry.parse_engine_spec(spec).name for spec in added}
    # `--engine vllm` beside an image that pins vLLM: the image states the release the name left open
    kept = [spec for spec in engines
            if spec in versioned or getattr(registry.engine_named(spec), "package", None) not in pinned]
    return image, [*kept, *added]
