"""The public-log corpus (tests/diagnose/index.toml): each log diagnosed with no other input than itself, on a
machine with no GPU and no engine (an empty base), so nothing of this machine leaks into the answer."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from doctor.diagnose.diagnosis import Diagnosis, diagnose
from doctor.pipeline.facts import Facts, Source

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
LOGS = HERE / "logs"


@dataclass(frozen=True)
class LogCase:
    file: str
    url: str
    expect: str | None = None  # None: a clean log; "": an error no rule may claim
    fix: str = ""
    clean: bool = False
    batch: str = ""  # a set added together ("heldout-diagnose2": added before that session tuned anything)
    miss: str = ""  # a held-out log the doctor gets wrong, and why: the test expects the miss (strict xfail)
    hardware: str = ""  # the GPU the report states where its log does not print it: `--hardware PROFILE`


def load_corpus() -> list[LogCase]:
    raw = tomllib.loads((HERE / "index.toml").read_text(encoding="utf-8"))["log"]
    return [LogCase(**entry) for entry in raw]


def empty_base() -> Facts:
    return Facts(source=Source(kind="none", name="nothing (test)"))


def profile_base(profile: str, *engines: str) -> Facts:
    """What `diagnose LOG --hardware PROFILE [--engine N==V ...]` starts from: the profile's machine without its
    libraries or environment, with the named engines as the log's what-ifs."""
    from doctor.hardware import load_profile
    from doctor.pipeline.gather import with_engines

    return with_engines(load_profile(profile).replace(libraries={}, env={}), list(engines), pinned=False)


def diagnose_text(log: bytes | str, base: Facts | None = None) -> Diagnosis:
    """A pasted log diagnosed on what the user states (`base`), or, without it, on nothing but the log itself."""
    data = log.encode() if isinstance(log, str) else log
    return diagnose(io.BufferedReader(io.BytesIO(data)), "t", base or empty_base(), "test", {},
                    judge_on_log_only=base is None)


def diagnose_on(log: bytes | str, profile: str | None = None) -> Diagnosis:
    """A pasted log diagnosed on a hardware profile's facts, or on an empty base when none is given."""
    return diagnose_text(log, profile_base(profile) if profile else None)


def rules_named(diagnosis: Diagnosis) -> list[str]:
    return [e.rule for e in diagnosis.explanations]


def claimed(log: bytes | str, base: Facts | None = None) -> list[str]:
    """The rules that explain a pasted log, judged as diagnose_text judges it."""
    return rules_named(diagnose_text(log, base))


def diagnose_case(case: LogCase, base: Facts | None = None) -> Diagnosis:
    """With `hardware`, the base is that profile, as `diagnose LOG --hardware PROFILE` would have it."""
    if base is None and case.hardware:
        from doctor.hardware import load_profile

        base = load_profile(case.hardware)
    with (LOGS / case.file).open("rb") as stream:
        return diagnose(stream, case.file, base or empty_base(), f"profile {case.hardware}" if case.hardware
                        else "nothing (test)", {})


def fix_texts(diagnosis: Diagnosis) -> list[str]:
    top = diagnosis.explanations[0]
    texts = []
    for fix in top.fixes:
        texts.append(fix.summary)
        texts += [str(v) for k, v in fix.details.items() if k in ("package", "command", "patch", "config")]
        texts += [f"{k}={v}" for k, v in (fix.details.get("env") or {}).items()]
        texts.append(" ".join(str(f) for f in fix.details.get("flags") or []))
    return texts
