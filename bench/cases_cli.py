"""The regression cases and the known-good corpus as a user states them on the command line: how many
`tests/cases` a judge reproduces with `check` / `diagnose` alone, and whether a working deployment of
`tests/knowngood` stated that way gets an error.

`tests/cases` replays each case through `check_facts` with every fact the case states, some of which no flag
can state (a library's CUDA build or arch list, host facts, a GPU's display flag, NVML's P2P answers, RDMA
ports). A judge who replays a public report runs the command line. This runs each case as that command:
`--hardware`, `--engine NAME==VERSION` (engines and the stated libraries' versions), the model, `--nodes`,
`--image`, `--driver`, `--wsl`, the environment the case states exported, the flags after `--`; a case with a
`log` runs `diagnose LOG` with the same options. Facts no flag states are left out, and each case that no
longer names its rules is reported with what was left out. A case that leaves nothing out and still differs
is a difference between the command line and `check_facts`: `--check` exits 1 on any. `--knowngood` runs the
known-good entries the same way and lists every error (a false alarm a judge would see).

    python bench/cases_cli.py [--check] [--knowngood] [--unversioned] [--markdown OUT] [ID ...]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from doctor.cli import main as doctor_main  # noqa: E402
from doctor.engines.registry import engine_named  # noqa: E402
from doctor.hardware import load_profile, profile_names  # noqa: E402
from tests.cases.deployment import LOGS, MODELS, Case, load_cases  # noqa: E402
from tests.deployments import Deployment, launch_args, model_spec  # noqa: E402
from tests.knowngood.corpus import MODELS as KNOWNGOOD_MODELS  # noqa: E402
from tests.knowngood.corpus import load_entries  # noqa: E402

# What a case may state that no flag of `check` or `diagnose` can (each is a probe fact on a live machine).
UNSTATABLE = ("gpu", "link", "network", "recipe")
STATABLE_HOST = {"wsl"}
STATABLE_DRIVER = {"driver_version"}


@dataclass
class Outcome:
    case: Deployment  # a Case, or a known-good Entry
    argv: list[str]
    left_out: list[str] = field(default_factory=list)
    named: bool = False
    detail: str = ""
    errors: list[str] = field(default_factory=list)


def profile_for(case: Deployment) -> tuple[str | None, str | None]:
    """The built-in profile a user picks for the case's GPUs: the case's own, or, where it keeps only the first
    N GPUs, the profile with N of the same GPU (None, with why, where there is none)."""
    if case.gpus is None:
        return case.hardware, None
    gpus = load_profile(case.hardware).gpus
    if case.gpus == len(gpus):
        return case.hardware, None
    for name in profile_names():
        other = load_profile(name).gpus
        if len(other) == case.gpus and other and other[0].name == gpus[0].name:
            return name, None
    return None, f"gpus={case.gpus} of {case.hardware} (no profile has that many)"


def command_for(case: Deployment, models: Path = MODELS, unversioned: bool = False) -> Outcome:
    """`unversioned`: each serving engine named without its release (`--engine vllm`), as most reports name it."""
    profile, why = profile_for(case)
    outcome = Outcome(case, [])
    if why:
        outcome.left_out.append(why)
        profile = case.hardware
    options = ["--hardware", profile]
    options += [arg for spec in case.engines for arg in ("--engine", _unversioned(spec) if unversioned else spec)]
    for name, details in case.libraries.items():
        options += ["--engine", f"{name}=={details['version']}"]
        extra = sorted(set(details) - {"version"})
        if extra:
            outcome.left_out.append(f"libraries.{name}: {', '.join(extra)}")
    if case.nodes:
        options += ["--nodes", str(case.nodes)]
    if case.image:
        options += ["--image", case.image]
    driver = case.driver_release or case.driver.get("driver_version")
    if driver:
        options += ["--driver", str(driver)]
    if case.wsl or case.host.get("wsl"):
        options.append("--wsl")
    outcome.left_out += [f"host.{k}" for k in sorted(set(case.host) - STATABLE_HOST)]
    outcome.left_out += [f"driver.{k}" for k in sorted(set(case.driver) - STATABLE_DRIVER)]
    outcome.left_out += [key for key in UNSTATABLE if getattr(case, key)]
    options += ["--offline", "--format", "json"]
    if getattr(case, "log", None):
        outcome.argv = ["diagnose", str(LOGS / case.log), *options]
        return outcome
    model = [model_spec(models, case.model)] if case.model else []
    launch = launch_args(case, models.parent)
    outcome.argv = ["check", *model, *options, *(["--", *launch] if launch else [])]
    return outcome


def _unversioned(spec: str) -> str:
    """`vllm==0.24.0` -> `vllm` for a serving engine; a library's pin (torch, flashinfer) stays as stated."""
    name = spec.split("==")[0]
    return name if engine_named(name) is not None else spec


def run(outcome: Outcome) -> None:
    case = outcome.case
    out = io.StringIO()
    saved = dict(os.environ)
    os.environ.update(case.env)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = doctor_main(outcome.argv)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    try:
        document = json.loads(out.getvalue())
    except ValueError:
        outcome.detail = f"exit {code}, no JSON"
        return
    found = (document.get("report") or document).get("findings") or []
    outcome.errors = sorted({f["id"] for f in found if f["severity"] == "error"})
    if not isinstance(case, Case):
        return
    findings = {f["id"]: f for f in found}
    findings.update({e["rule"]: e for e in document.get("explanations") or [] if e["rule"] not in findings})
    missing = [rule for rule in case.expect if rule not in findings]
    text = " | ".join(t for r in case.expect if r in findings for t in fix_texts(findings[r])).lower()
    if missing:
        outcome.detail = f"missing {', '.join(missing)}"
    elif case.fix.lower() not in text:
        outcome.detail = f"no fix says {case.fix!r}"
    else:
        outcome.named = True


def fix_texts(finding: dict[str, Any]) -> list[str]:
    """Everything a fix says, as tests/cases/deployment.fix_texts reads a Finding: its summary, package, command,
    patch, config, flags and env assignments (a diagnose explanation carries its fixes the same way)."""
    texts = []
    for fix in finding.get("fixes") or []:
        details = fix.get("details") or {}
        texts.append(fix.get("summary", ""))
        texts += [str(details[k]) for k in ("package", "command", "patch", "config") if details.get(k)]
        texts.append(" ".join(str(f) for f in details.get("flags") or []))
        texts += [f"{k}={v}" for k, v in (details.get("env") or {}).items()]
    return texts


def markdown(outcomes: list[Outcome]) -> str:
    named = sum(o.named for o in outcomes)
    lost = [o for o in outcomes if not o.named]
    reasons = Counter(item.split(":")[0].split(" (")[0] for o in lost for item in o.left_out or ["nothing left out"])
    lines = [f"Cases: {len(outcomes)}; named through the command line alone: {named}; not: {len(lost)}.", "",
             "| what was left out | cases not named that left it out (a case counts once per fact) |", "|---|---|"]
    lines += [f"| {reason} | {count} |" for reason, count in reasons.most_common()]
    lines += ["", "| case | what was left out | outcome |", "|---|---|---|"]
    lines += [f"| {o.case.id} | {'; '.join(o.left_out) or 'nothing'} | {o.detail} |" for o in lost]
    return "\n".join(lines) + "\n"


def knowngood_markdown(outcomes: list[Outcome]) -> str:
    alarmed = [o for o in outcomes if o.errors]
    lines = [f"Known-good entries: {len(outcomes)}; with an error on the command line: {len(alarmed)}.", ""]
    if alarmed:
        lines += ["| entry | errors | what was left out |", "|---|---|---|"]
        lines += [f"| {o.case.id} | {', '.join(o.errors)} | {'; '.join(o.left_out) or 'nothing'} |" for o in alarmed]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*", help="only these case ids")
    parser.add_argument("--markdown", type=Path, help="write the table here")
    parser.add_argument("--knowngood", action="store_true", help="the known-good corpus instead of the cases")
    parser.add_argument("--unversioned", action="store_true",
                        help="name each serving engine without its release, as most reports do")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a case that leaves nothing out is not named on the command line")
    args = parser.parse_args(argv)
    if args.knowngood:
        entries = [e for e in load_entries() if not e.pending and (not args.ids or e.id in args.ids)]
        outcomes = [command_for(entry, KNOWNGOOD_MODELS, args.unversioned) for entry in entries]
    else:
        outcomes = [command_for(case, MODELS, args.unversioned) for case in load_cases()
                    if not args.ids or case.id in args.ids]
    for outcome in outcomes:
        run(outcome)
    text = knowngood_markdown(outcomes) if args.knowngood else markdown(outcomes)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    print(text)
    divergent = [o.case.id for o in outcomes if (o.errors if args.knowngood else not o.named) and not o.left_out]
    if divergent:
        print(f"differs from check_facts on the command line, with nothing left out: {', '.join(divergent)}")
    return 1 if args.check and divergent else 0


if __name__ == "__main__":
    sys.exit(main())
