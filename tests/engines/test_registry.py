"""Engines as plug-ins: the built-ins behind one interface, a third-party engine through the entry-point
group, what `check` analyses when several or none are installed, and that no engine borrows another's
knowledge."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from doctor.engines import registry
from doctor.engines.base import Engine
from doctor.pipeline.check import check_facts
from doctor.pipeline.facts import Library
from tests.conftest import cli_env
from tests.rules.builders import build

PLUGIN = '''
from doctor.engines.base import Engine
from doctor.engines.run import EngineAnalysis
from doctor.kernels.check import KernelCheck


class Toy(Engine):
    name = "toyserve"
    display_name = "ToyServe"
    package = "toyserve"
    releases = ("1.0", "1.1")

    def base_command(self, model):
        return ["toyserve", "--model", model]

    def tp_flag(self):
        return "--shards"

    def analyze(self, run):
        check = KernelCheck(kernel="toy_matmul", engine="toyserve", path="only", when="always", shape={"m": 1},
                            config={"block": 512}, bytes=120000, limit=run.gpu.smem_per_block_optin,
                            method="analytic")
        return EngineAnalysis(backends={"attention": "toy"}, backend_sources={"attention": "toy default"},
                              kernels=(check,))
'''


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    (tmp_path / "toyserve_plugin.py").write_text(PLUGIN)
    dist = tmp_path / "toyserve_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toyserve-plugin\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[sm120_doctor.engines]\ntoyserve = toyserve_plugin:Toy\n")
    return tmp_path


def _cli(plugin_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = cli_env(PYTHONPATH=f"{plugin_path}:{cli_env()['PYTHONPATH']}")
    return subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True, env=env,
                          timeout=60)


def test_builtin_engines_implement_the_interface():
    engines = registry.engines()
    assert list(engines)[:4] == ["sglang", "vllm", "tensorrt-llm", "llama.cpp"]
    for engine in engines.values():
        assert isinstance(engine, Engine) and engine.base_command("M")


def test_a_third_party_engine_plugs_in_through_the_entry_point_group(plugin_path):
    listed = _cli(plugin_path, "engines", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    toy = next(r for r in json.loads(listed.stdout)["engines"] if r["name"] == "toyserve")
    assert toy["plugin"] and toy["newest_known"] == "1.1"
    checked = _cli(plugin_path, "check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8", "--engine",
                   "toyserve==1.2", "--format", "json")
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    assert report["analysis"]["engine"] == "toyserve" and report["launch"]["argv"][:3] == ["toyserve", "--model",
                                                                                           "moonshotai/Kimi-K2.5"]
    assert "--shards" in report["launch"]["argv"]
    assert any("newer than the newest release" in n for n in report["analysis"]["notes"])
    krn = [f for f in report["findings"] if f["id"] == "KRN001"]
    assert krn and "toy_matmul" in krn[0]["message"] and krn[0]["evidence"]["item.bytes"] == 120000
    assert report["analysis"]["plan"]["requested"] is None and "no memory model" in report["analysis"]["plan"][
        "notes"][0]


def test_a_broken_plugin_is_one_clear_error(tmp_path):
    dist = tmp_path / "broken-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[sm120_doctor.engines]\nbroken = no_such_module:Engine\n")
    result = _cli(tmp_path, "engines")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "engine plug-in 'broken'" in result.stderr


def test_check_analyses_every_installed_engine_and_says_when_none_is():
    both = build("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", libs=(Library(name="sglang", version="0.5.8"),
                                                                Library(name="vllm", version="0.15.1")))
    report = check_facts(both, [])
    assert [a.engine for a in report.analyses] == ["sglang", "vllm"]
    assert [launch["engine"] for launch in report.launches] == ["sglang", "vllm"]
    sgl_only = [f for f in report.findings if f.engines == ("sglang",)]
    assert sgl_only and all(f.id.startswith(("SGL", "MEM", "TOPO", "KRN")) for f in sgl_only)
    nothing = check_facts(build("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8"), [])
    assert nothing.analysis.engine is None and not nothing.launches
    assert "no serving engine installed" in nothing.analysis.notes[0]
    assert "launch flags" not in nothing.analysis.notes[0]
    unread = check_facts(build("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8"), ["--kv-cache-dtype", "fp8"])
    assert "the launch flags (--kv-cache-dtype fp8) were not checked" in unread.analysis.notes[0]
    assert nothing.analysis.plan["notes"][0] == "no engine installed: memory defaults of SGLang 0.5.9 assumed"


def test_what_if_engines_are_analysed_instead_of_installed_ones():
    facts = build("rtx-pro-6000-x8", "zai-org/GLM-4.7-FP8", ("vllm==0.15.1",),
                  libs=(Library(name="sglang", version="0.5.8"),))
    assert [a.engine for a in check_facts(facts, []).analyses] == ["vllm"]


@pytest.mark.parametrize("model", ["openai/gpt-oss-120b", "zai-org/GLM-4.7-FP8", "moonshotai/Kimi-K2.5"])
def test_a_vllm_run_never_shows_sglang(model):
    facts = build("rtx-pro-6000-x8", model, ("vllm==0.15.1",))
    report = check_facts(facts, ["--tensor-parallel-size", "8"])
    findings = [{k: v for k, v in f.to_dict().items() if k != "references"} for f in report.findings]
    text = json.dumps({"analysis": report.analysis.to_dict(), "launch": report.launch, "findings": findings})
    assert "sglang" not in text.lower() and "mem-fraction-static" not in text
    assert report.launch["argv"][:3] == ["vllm", "serve", model]


def test_engine_knowledge_ends_are_said():
    sglang = registry.get("sglang")
    assert sglang.knowledge_range() == ("0.5.0", "0.5.23")
    from packaging.version import Version

    assert sglang.knowledge_note(Version("0.5.23")) is None
    assert "newer than the newest release the doctor knows (0.5.23)" in sglang.knowledge_note(Version("0.6.0"))
    assert "older than the oldest release in the doctor's flag tables" in registry.get("llama.cpp").knowledge_note(
        Version("1"))


def test_engines_command_lists_ranges(capsys):
    from doctor.cli import main

    assert main(["engines", "--format", "json"]) == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["engines"]}
    assert rows["sglang"]["every_release"] and rows["vllm"]["newest_known"] == "0.33.0"
    assert main(["engines"]) == 0
    assert "SGLang" in capsys.readouterr().out


def test_plugin_source_is_valid_python():
    compile(textwrap.dedent(PLUGIN), "plugin", "exec")
