"""A regression case: a public failure report (id, url, title), the deployment it states
(tests/deployments.py, shared with the known-good corpus) and what `check` must say (`expect`, `fix`).

The tables are tests/cases/*.toml (cases.toml and one file per area, so parallel work never edits one
file); every case runs the same pure pipeline as `check` (check_facts)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from doctor.findings import Finding
from doctor.pipeline.report import Report
from tests.deployments import DEPLOYMENT_KEYS, Deployment, load_table, run_deployment

HERE = Path(__file__).resolve().parent
TABLES = tuple(sorted(HERE.glob("*.toml")))
MODELS = HERE / "models"
CASE_KEYS = DEPLOYMENT_KEYS | {"id", "url", "title", "expect", "fix", "log"}
LOGS = HERE.parent / "diagnose" / "logs"


@dataclass(frozen=True, kw_only=True)
class Case(Deployment):
    id: str
    url: str
    title: str
    expect: tuple[str, ...]
    fix: str
    log: str | None = None  # a log the report quotes (tests/diagnose/logs/): `diagnose LOG` on the deployment


def load_cases(paths: tuple[Path, ...] = TABLES) -> list[Case]:
    cases = [case for path in paths for case in load_table(path, "case", Case, CASE_KEYS)]
    ids = [case.id for case in cases]
    assert len(ids) == len(set(ids)), f"case ids repeat across {[p.name for p in paths]}"
    return cases


def run_case(case: Case) -> Report:
    """`check` on the deployment; with `log`, `diagnose LOG --hardware ...` on it (the findings of the deployment
    the log and the case state together: the rules that explain a log line fire only there)."""
    if case.log is None:
        return run_deployment(case, MODELS)
    from doctor.diagnose.diagnosis import diagnose
    from tests.deployments import facts_for

    with (LOGS / case.log).open("rb") as stream:
        return diagnose(stream, case.log, facts_for(case, MODELS), f"case {case.id}", {}).report


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
