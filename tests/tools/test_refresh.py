"""tools/refresh: which releases it would read (PyPI answers stubbed), the commands it runs, the SGLang
release list it extends, and (slow) the newest release a table holds checked against its real wheel."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doctor.data_tables import DATA, coverage, newest, tables, versions_in
from tools.refresh import Step, add_sglang_releases, newer_releases, plan

REPO = Path(__file__).resolve().parents[2]


def test_newer_releases_are_final_and_after_the_data():
    listed = ["0.5.7rc2", "0.5.6", "0.5.5", "0.5.10", "0.5.6.post1", "0.6.0.dev3", "0.5.4"]
    assert newer_releases("0.5.6", listed) == ["0.5.6.post1", "0.5.10"]
    assert newer_releases(None, ["1.0", "0.9"]) == ["0.9", "1.0"]
    assert newer_releases("0.5.10", listed) == []


def test_plan_asks_pypi_once_per_package_and_uses_each_tables_own_edge(tmp_path):
    shutil.copytree(DATA, tmp_path / "data")
    wheels = json.loads((tmp_path / "data" / "wheel_archs.json").read_text())
    wheels["wheels"] = [w for w in wheels["wheels"] if not (w["package"] == "vllm" and w["version"] == "0.33.0")]
    (tmp_path / "data" / "wheel_archs.json").write_text(json.dumps(wheels))
    asked = []

    def pypi(package):
        asked.append(package)
        return {"vllm": ["0.32.0", "0.33.0", "0.34.0rc1", "0.34.0"]}.get(package, [])

    steps = {s.table.name: s for s in plan(pypi, only={"vllm"}, data_dir=tmp_path / "data")}
    assert asked == ["vllm"]
    assert steps["vllm facts"].new == ("0.34.0",)
    assert steps["wheel archs: vllm"].known == "0.32.0"  # that table lost 0.33.0 above: it is behind
    assert steps["wheel archs: vllm"].new == ("0.33.0", "0.34.0")


def test_each_table_runs_its_own_generator(tmp_path):
    by_name = {t.name: t for t in tables()}
    sglang = Step(by_name["sglang facts"], "0.5.23", ("0.5.24",)).command(tmp_path)
    assert sglang[1:2] == ["tools/sglang_facts.py"] and sglang[-1] == "0.5.24"
    vllm = Step(by_name["vllm facts"], "0.33.0", ("0.34.0", "0.35.0")).command(tmp_path)
    assert vllm[1:3] == ["-m", "tools.vllm_facts"] and "0.34.0,0.35.0" in vllm
    before = Step(by_name["vllm facts"], "0.33.0", ("0.34.0",)).before()
    assert [c[1:] for c in before] == [["tools/vllm_moe_activations.py", "0.34.0"],
                                       ["tools/marlin_shapes.py", "vllm", "0.34.0"]]
    assert Step(by_name["wheel archs: torch"], "2.14.1", ("2.15.0",)).before() == []
    triton = Step(by_name["triton facts"], "3.9.0", ("3.10.0",)).command(tmp_path)
    assert triton[1:3] == ["-m", "tools.triton_facts"] and triton[-1] == "3.10.0"
    torch = Step(by_name["wheel archs: torch"], "2.14.1", ("2.15.0",)).command(tmp_path)
    assert torch[1] == "tools/wheel_archs.py" and torch[-2:] == ["--target", "torch==2.15.0"]
    # the kernel families (DSP060-DSP063) need both machines' wheels: GB10 is judged from the aarch64 one
    families = Step(by_name["kernel families: vllm"], "0.33.0", ("0.34.0",)).command(tmp_path)
    assert families[1] == "tools/wheel_archs.py" and families[-4:] == [
        "--target", "vllm==0.34.0", "--target", "vllm==0.34.0@aarch64"]
    assert versions_in(by_name["kernel families: vllm"])[-1] == "0.33.0"


def test_sglang_release_list_is_extended_in_place(tmp_path):
    copy = tmp_path / "releases.py"
    copy.write_text((REPO / "doctor/engines/sglang/releases.py").read_text())
    add_sglang_releases(["0.5.23", "0.5.24", "0.5.24.post1"], copy)
    namespace: dict = {}
    exec(compile(copy.read_text(), str(copy), "exec"), namespace)
    assert namespace["RELEASES"][-3:] == ("0.5.23", "0.5.24", "0.5.24.post1")
    assert namespace["RELEASES"].count("0.5.23") == 1
    assert max(len(line) for line in copy.read_text().splitlines()) <= 120


def test_engines_lists_every_table_with_its_newest_release():
    rows = {r["table"]: r for r in coverage()}
    assert set(rows) == {t.name for t in tables()}
    assert {"sglang facts", "vllm facts", "wheel archs: torch", "wheel archs: flashinfer-cubin"} <= set(rows)
    assert rows["vllm facts"]["newest"] == json.loads((DATA / "vllm" / "index.json").read_text())["releases"][-1]
    assert rows["wheel archs: lmcache"]["newest"] == "0.5.6"
    out = subprocess.run([sys.executable, "-m", "doctor", "engines", "--format", "json"],
                         cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert {r["table"]: r["newest"] for r in json.loads(out)["tables"]} == {k: v["newest"] for k, v in rows.items()}
    text = subprocess.run([sys.executable, "-m", "doctor", "engines", "--tables"],
                          cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert "wheel archs: lmcache" in text and "0.5.6" in text


@pytest.mark.slow
@pytest.mark.wheel
def test_newest_lmcache_release_the_table_knows_matches_its_wheel(tmp_path):
    """Re-read the newest audited LMCache wheel from PyPI (a small one) and compare its archs with the table."""
    from tools.wheel_archs import X86, audit

    table = next(t for t in tables() if t.package == "lmcache")
    version = newest(table)
    assert version in versions_in(table)
    recorded = next(w for w in json.loads((DATA / "wheel_archs.json").read_text())["wheels"]
                    if w["package"] == "lmcache" and w["version"] == version and w["platform"] == X86)
    cache = Path(os.environ.get("SM120_DOCTOR_TEST_CACHE", tmp_path)) / "refresh-check"
    fresh = audit("lmcache", version, X86, cache)
    assert fresh["wheel"] == recorded["wheel"] and fresh["sha256"] == recorded["sha256"]
    assert fresh["union"] == recorded["union"] and "sm_120" in fresh["union"]
