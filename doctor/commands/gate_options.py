"""Options `check` and `lint` share for CI: output formats (console, json, sarif, github), the project config
(doctor/config.py), rule selection, `--fail-on`, `--baseline`; and writing what the gate kept."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from doctor.config import FAIL_ON, ProjectConfig, discover, load_config
from doctor.errors import UsageError

if TYPE_CHECKING:
    from doctor.gate import GateResult
    from doctor.located import Problem

FORMATS = ("console", "json", "sarif", "github", "markdown")


def add_gate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=FORMATS, default="console",
                   help="console (default), json, sarif (SARIF 2.1.0 for code scanning), github (annotations) or "
                        "markdown (a redacted bug report / job summary)")
    p.add_argument("--output", type=Path, metavar="FILE", help="also write the JSON report to FILE")
    p.add_argument("--sarif", type=Path, metavar="FILE", help="also write SARIF 2.1.0 to FILE")
    p.add_argument("--fail-on", choices=FAIL_ON, default=None,
                   help="exit 1 when a finding at or above this severity exists (default: the config's, else error)")
    p.add_argument("--select", metavar="IDS", help="only these rule IDs or prefixes, comma-separated (e.g. SGL,MEM001)")
    p.add_argument("--ignore", metavar="IDS", help="leave out these rule IDs or prefixes (added to the config's)")
    config = p.add_mutually_exclusive_group()
    config.add_argument("--config", type=Path, metavar="FILE",
                        help="project config (default: sm120-doctor.toml, or [tool.sm120-doctor] in pyproject.toml, "
                             "found upward from here)")
    config.add_argument("--isolated", action="store_true", help="use no project config file")
    p.add_argument("--baseline", type=Path, metavar="FILE",
                   help="report and fail only on findings FILE does not list (default: the config's baseline)")
    p.add_argument("--update-baseline", action="store_true",
                   help="write today's findings to the baseline file, then exit 0")
    p.add_argument("--docs-url", metavar="URL",
                   help="base URL of the rule pages for SARIF helpUri (default: the pages installed with the doctor)")


@dataclass(frozen=True)
class GateSettings:
    """What the CI gate applies: the project config with the command line on top."""

    config: ProjectConfig
    fail_on: str
    baseline: Path | None
    update_baseline: bool


def gate_settings(args: argparse.Namespace) -> GateSettings:
    """The project config with the command line on top: --select replaces, --ignore adds."""
    if args.isolated:
        config = ProjectConfig()
    elif args.config is not None:
        config = load_config(args.config)
    else:
        config = discover()
    select = _ids(args.select) if args.select else config.select
    config = ProjectConfig(**{**config.__dict__, "select": select, "ignore": (*config.ignore, *_ids(args.ignore))})
    from doctor.pipeline.rules import load_rules

    config.check_selectors(rule.id for rule in load_rules())
    baseline = args.baseline or config.baseline
    if args.update_baseline and baseline is None:
        raise UsageError("--update-baseline needs --baseline FILE (or baseline in the project config)")
    return GateSettings(config=config, fail_on=args.fail_on or config.fail_on or "error", baseline=baseline,
                        update_baseline=args.update_baseline)


def apply_target_defaults(args: argparse.Namespace, config: ProjectConfig) -> None:
    """hardware/facts/engine from the config where the command line gave none."""
    if config.hardware and config.facts:
        raise UsageError(f"{config.path}: set hardware or facts, not both")
    if args.hardware is None and args.facts is None:
        args.hardware, args.facts = config.hardware, [config.facts] if config.facts else None
    if not args.engine:
        args.engine = list(config.engine)


def write_outputs(result: GateResult, args: argparse.Namespace, problems: Sequence[Problem] = (),
                  json_text: str | None = None) -> None:
    """--output (JSON), --sarif FILE, and stdout for the sarif and github formats."""
    from doctor.output import write_text_atomic

    if args.output is not None and json_text is not None:
        write_text_atomic(args.output, json_text + "\n")
    if args.sarif is not None or args.format == "sarif":
        sarif = _sarif(result, args, problems)
        if args.sarif is not None:
            write_text_atomic(args.sarif, sarif + "\n")
        if args.format == "sarif":
            print(sarif)
    if args.format == "github":
        from doctor.formats.github import render_github

        text = render_github(result.targets, problems)
        if text:
            print(text)


def update_baseline(result: GateResult, settings: GateSettings) -> int:
    from doctor.baseline import write_baseline

    assert settings.baseline is not None
    written = write_baseline(settings.baseline, result.targets)
    print(f"wrote {settings.baseline}: {written} finding(s) accepted", file=sys.stderr)
    return 0


def summary(result: GateResult, files: int | None = None) -> Mapping[str, int]:
    counts = {"suppressed": result.suppressed, "accepted": result.accepted}
    return {**counts, "files": files} if files is not None else counts


def _sarif(result: GateResult, args: argparse.Namespace, problems: Sequence[Problem]) -> str:
    from doctor.formats.sarif import render_sarif
    from doctor.pipeline.rules import load_rules

    return render_sarif(result.targets, load_rules(), problems=problems, docs_url=args.docs_url,
                        baseline_used=result.baseline_used)


def _ids(text: str | None) -> tuple[str, ...]:
    return tuple(part.strip().upper() for part in (text or "").split(",") if part.strip())
