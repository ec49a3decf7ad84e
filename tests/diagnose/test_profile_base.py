"""A hardware profile states the GPUs a log ran on, not its OS: `diagnose --hardware` keeps a Windows log's
Windows-only rules open (logs show Windows, never Linux: doctor/diagnose/formats/host.py)."""

from __future__ import annotations

import json

from doctor.cli import main
from doctor.hardware import load_profile, without_os
from tests.diagnose.corpus import LOGS

WINDOWS_ONLY_LOG = LOGS / "llamacpp-22893-5080-laptop-fattn-shared-object.log"


def _diagnosis(capsys, *args: str) -> dict:
    main(["diagnose", *args, "--format", "json", "--fail-on", "never"])
    return json.loads(capsys.readouterr().out)


def _named(doc: dict) -> list[str]:
    return [e["rule"] for e in doc["explanations"]]


def test_profile_drops_only_the_os():
    profile = load_profile("rtx-5090")
    bare = without_os(profile)
    assert profile.host.os == "Linux" and bare.host.os is None
    assert bare.gpus == profile.gpus and bare.driver == profile.driver


def test_windows_rule_stays_open_under_a_profile(capsys):
    assert _named(_diagnosis(capsys, str(WINDOWS_ONLY_LOG), "--hardware", "rtx-5090"))[:1] == ["LCPP042"]

