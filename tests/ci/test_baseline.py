"""`--baseline`: today's findings are accepted, only new ones fail; equal findings count one by one."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import cli_env

LAUNCH = "python3 -m sglang.launch_server --model-path zai-org/GLM-4.7-FP8 --tp 8\n"
ARGS = ("--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8", "--offline", "--isolated")


def lint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doctor", "lint", *args, *ARGS], capture_output=True, text=True,
                          env=cli_env(), timeout=180, cwd=cwd)


def test_accept_today_then_fail_only_on_a_new_launch(tmp_path):
    (tmp_path / "a.sh").write_text(LAUNCH)
    written = lint("a.sh", "--baseline", "base.json", "--update-baseline", cwd=tmp_path)
    assert written.returncode == 0, written.stderr
    entries = json.loads((tmp_path / "base.json").read_text())["findings"]
    assert {e["rule"] for e in entries} >= {"SGL102", "TOPO001"} and entries[0]["where"] == "a.sh:1"

    accepted = lint("a.sh", "--baseline", "base.json", cwd=tmp_path)
    assert accepted.returncode == 0 and "SGL102" not in accepted.stdout
    assert f"{len(entries)} accepted by the baseline" in accepted.stdout

    (tmp_path / "a.sh").write_text("# moved down\n\n" + LAUNCH)  # same finding, another line: still known
    assert lint("a.sh", "--baseline", "base.json", cwd=tmp_path).returncode == 0

    (tmp_path / "b.sh").write_text(LAUNCH)  # a second launch with the same problem is new
    new = lint("a.sh", "b.sh", "--baseline", "base.json", "--format", "sarif", cwd=tmp_path)
    assert new.returncode == 1
    results = json.loads(new.stdout)["runs"][0]["results"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"b.sh"}
    assert {r["baselineState"] for r in results} == {"new"}


def test_missing_or_malformed_baseline_is_exit_2(tmp_path):
    (tmp_path / "a.sh").write_text(LAUNCH)
    missing = lint("a.sh", "--baseline", "none.json", cwd=tmp_path)
    assert missing.returncode == 2 and "--update-baseline" in missing.stderr
    (tmp_path / "bad.json").write_text('{"findings": 1}')
    bad = lint("a.sh", "--baseline", "bad.json", cwd=tmp_path)
    assert bad.returncode == 2 and "not an sm120-doctor baseline" in bad.stderr
