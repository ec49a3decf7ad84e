"""A regression case's deployment, as facts the doctor reads: a built-in hardware profile (optionally its first
N GPUs), `--engine` what-ifs, library versions with their details, a bundled model id or a config under
tests/cases/models/, environment variables, host facts, and the launch flags after `--`.

The table is tests/cases/cases.toml; every case runs the same pure pipeline as `check` (check_facts)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from doctor.findings import Finding
from doctor.hardware import load_profile
from doctor.pipeline.check import check_facts
from doctor.pipeline.facts import Facts, Library
from doctor.pipeline.gather import with_engines
from doctor.pipeline.report import Report
from doctor.probe.model import load_model

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
TABLE = HERE / "cases.toml"
MODELS = HERE / "models"
CASE_KEYS = {"id", "url", "title", "hardware", "gpus", "engines", "libraries", "model", "env", "host", "launch",
             "expect", "fix", "note"}


@dataclass(frozen=True)
class Case:
    id: str
    url: str
    title: str
    hardware: str
    expect: tuple[str, ...]
    fix: str
    gpus: int | None = None
    engines: tuple[str, ...] = ()
    libraries: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    model: str | None = None
    env: dict[str, str] = dataclasses.field(default_factory=dict)
    host: dict[str, Any] = dataclasses.field(default_factory=dict)
    launch: tuple[str, ...] = ()
    note: str = ""


def load_cases(path: Path = TABLE) -> list[Case]:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))["case"]
    cases = []
    for entry in raw:
        unknown = set(entry) - CASE_KEYS
        assert not unknown, f"case {entry.get('id')}: unknown keys {sorted(unknown)}"
        cases.append(Case(**{k: tuple(v) if isinstance(v, list) else v for k, v in entry.items()}))
    return cases


def facts_for(case: Case) -> Facts:
    facts = with_engines(load_profile(case.hardware), list(case.engines))
    if case.gpus is not None:
        keep = {g.index for g in facts.gpus[: case.gpus]}
        facts = facts.replace(gpus=facts.gpus[: case.gpus],
                              topology=tuple(link for link in facts.topology if {link.a, link.b} <= keep))
    if case.libraries:
        extra = {name: Library(name=name, version=str(d["version"]), details={k: v for k, v in d.items()
                                                                               if k != "version"})
                 for name, d in case.libraries.items()}
        facts = facts.replace(libraries={**facts.libraries, **extra})
    if case.env:
        facts = facts.replace(env=dict(case.env))
    if case.host:
        facts = facts.replace(host=dataclasses.replace(facts.host, **case.host))
    if case.model:
        local = MODELS / case.model
        spec = str(local) if local.is_dir() else case.model
        facts = facts.replace(model=load_model(spec, {}, offline=True))
    return facts


def run_case(case: Case) -> Report:
    return check_facts(facts_for(case), list(case.launch))


def fix_texts(finding: Finding) -> list[str]:
    """Everything a fix says: its summary, package, flags, env assignments, command."""
    texts = []
    for fix in finding.fixes:
        details = fix.details
        texts.append(fix.summary)
        texts += [str(details[k]) for k in ("package", "command", "patch", "config") if details.get(k)]
        texts.append(" ".join(str(f) for f in details.get("flags") or []))
        texts += [f"{k}={v}" for k, v in (details.get("env") or {}).items()]
    return texts
