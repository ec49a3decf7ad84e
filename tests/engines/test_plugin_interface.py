"""The public plug-in interface (doctor.engines.spi): flag tables, stock memory models, namespaced plug-in
rules, multi-word launchers, and the data contracts the planner reads (pp in layout_problems, int8/int4 KV)."""

from __future__ import annotations

from pathlib import Path

import pytest
from packaging.version import Version

from doctor.engines import spi
from doctor.errors import UsageError
from doctor.hardware import load_profile
from doctor.lint.suppress import suppressed_at
from doctor.pipeline.rules import RuleError, _parse_rules, rule_namespace
from doctor.plan.kv import cell_bytes, kv_shape
from doctor.plan.planner import PlanRequest, make_plans
from doctor.probe.model import load_model

TABLE = spi.FlagTable({
    "1.0": (spi.Flag("--tp", key="tp", kind=int), spi.Flag("--backend", key="backend", choices=("a", "b")),
            spi.Flag("--quiet", switch=True), spi.Flag("--origins", many=True),
            spi.Flag("--kv", key="kv_cache_dtype", values={"8": "int8", "0": "auto"})),
    "2.0": (spi.Flag("--tp", key="tp", kind=int), spi.Flag("--backend", key="backend", choices=("a", "b", "c")),
            spi.Flag("--quiet", switch=True), spi.Flag("--origins", many=True),
            spi.Flag("--kv", key="kv_cache_dtype", values={"8": "int8", "0": "auto"}),
            spi.Flag("--cache-fraction", key="fraction", kind=float), spi.Flag("--cache-len", kind=int)),
})


def test_a_version_behaves_as_the_newest_release_at_or_below_it():
    assert TABLE.at(Version("1.5")).release == "1.0"
    assert TABLE.at(Version("2.0.post1")).release == "2.0"
    assert TABLE.at(Version("0.9")).release == "1.0"  # older than known: the oldest
    assert TABLE.at(None).release == "2.0"


def test_parse_sets_the_canonical_keys_and_keeps_the_rest():
    launch = TABLE.parse(["--tp", "2", "--kv", "8", "--quiet", "--unknown", "x", "--backend=b"])
    assert launch.values == {"tp": 2, "kv_cache_dtype": "int8", "backend": "b"}
    assert launch.unknown == ("--unknown", "x")
    with pytest.raises(UsageError, match="--tp"):
        TABLE.parse(["--tp", "two"])


def test_check_names_unknown_flags_other_releases_and_bad_choices():
    problems = TABLE.check(["--backnd", "a", "--cache-fraction", "0.5", "--backend", "c"], Version("1.0"))
    assert problems[0] == "--backnd: unknown flag (did you mean --backend?)"
    assert problems[1] == "--cache-fraction: not accepted by release 1.0 (accepted by 2.0)"
    assert problems[2].startswith("--backend c: not one of a, b")
    assert TABLE.check(["--backend", "c", "--cache-fraction", "0.5"], Version("2.1")) == []


def test_argparse_prefixes_and_nargs():
    assert TABLE.check(["--cache-f", "0.5", "--origins", "a", "b"], Version("2.0")) == []
    assert TABLE.parse(["--cache-f", "0.5"], Version("2.0")).values == {"fraction": 0.5}
    assert TABLE.check(["--cache", "1"], Version("2.0")) == ["--cache: unknown flag"]  # ambiguous prefix
    assert TABLE.check(["--tp", "2", "stray"], Version("2.0")) == ["'stray': a bare word where the CLI takes a flag"]


def test_build_derives_later_releases():
    table = spi.FlagTable.build("1.0", [spi.Flag("--a"), spi.Flag("--b")], {"2.0": ([spi.Flag("--c")], ["--a"])})
    assert [f.name for f in table.at(Version("2.0")).flags] == ["--b", "--c"]
    assert [f.name for f in table.at(Version("1.0")).flags] == ["--a", "--b"]


def test_launcher_words():
    assert spi.Launcher(command="x", subcommand=("serve", "api_server")).words == ("serve", "api_server")
    assert spi.Launcher(command="vllm", subcommand="serve").words == ("serve",)
    assert spi.Launcher(module="m").words == ()


GiB = 1 << 30


def _free(**kw: object) -> spi.FreeFractionMemory:
    return spi.FreeFractionMemory("Toy", "1.0", fraction=0.5, knob="fraction", runtime_reserve=GiB,
                                  flags=spi.LayoutFlags(tp="--tp", fraction="--frac"), **kw)  # type: ignore[arg-type]


def test_stock_formulas():
    free = _free()
    assert free.kv_budget(free.preload_free(32 * GiB, 1, False), 11 * GiB, {"fraction": 0.5}) == 10 * GiB
    util = spi.UtilisationMemory("Toy", "1.0", fraction=0.9, knob="util", runtime_reserve=GiB,
                                 flags=spi.LayoutFlags())
    settings = {"util": 0.9, "total_bytes": 40 * GiB, "runtime_reserve_bytes": GiB}
    assert util.kv_budget(util.preload_free(40 * GiB, 1, False), 20 * GiB, settings) == 15 * GiB
    assert "page_size" in free.settings(32 * GiB, spi.LayoutShape(1, 1, 1), None, False)  # type: ignore[arg-type]


def test_an_engine_without_a_pp_flag_is_never_offered_pipeline_layouts():
    facts = load_profile("rtx-pro-6000-x8")
    model = load_model("Qwen/Qwen3-30B-A3B", {}, offline=True)
    memory = _free()
    assert memory.layout_problems(2, 1, 2) and not memory.layout_problems(2, 1, 1)
    plans = make_plans(facts, model, PlanRequest(memory=memory))
    assert plans and {p.pp for p in plans} == {1} and {p.ep for p in plans} == {1}
    with_pp = spi.FreeFractionMemory("Toy", "1.0", fraction=0.5, knob="fraction",
                                     flags=spi.LayoutFlags(tp="--tp", pp="--pp"))
    assert any(p.pp > 1 for p in make_plans(facts, model, PlanRequest(memory=with_pp)))


def test_int8_and_int4_kv_with_the_engines_own_scales():
    model = load_model("meta-llama/Llama-3.1-8B-Instruct", {}, offline=True)  # 8 KV heads, head_dim 128, 32 layers
    assert cell_bytes(model, 1, 32, "int8") == 8 * 256 * 32
    assert cell_bytes(model, 1, 32, "int4") == 8 * 256 * 32 // 2
    memory = _free(kv_param_bytes={"int8": 4})
    assert kv_shape(model, 1, 0, 32, "int8", memory.kv_cell_bytes).cell_bytes == 8 * 256 * 32 + 8 * 2 * 4 * 32
    assert kv_shape(model, 1, 0, 32, "int4", memory.kv_cell_bytes).cell_bytes == 8 * 256 * 32 // 2


RULE = """
[[rules]]
id = "{id}"
area = "{area}"
title = "t"
severity = "warning"
summary = "s"
why = "w"
message = "m"
when = [{{ fact = "gpu.count", gt = 0 }}]
references = ["https://example.org/a"]
"""


@pytest.mark.parametrize(("rule_id", "area", "error"), [
    ("toyserve/TOY001", "toyserve", None),
    ("TOY001", "toyserve", "needs an id like toyserve/ABC101"),
    ("other/TOY001", "toyserve", "needs an id like toyserve/ABC101"),
    ("toyserve/TOY001", "hardware", "has area 'toyserve'"),
])
def test_plugin_rule_ids_are_namespaced_by_their_engine(tmp_path: Path, rule_id: str, area: str,
                                                         error: str | None):
    path = tmp_path / "toy.toml"
    path.write_text(RULE.format(id=rule_id, area=area))
    if error is None:
        assert [r.id for r in _parse_rules(tmp_path, [("toyserve", path)])] == [rule_id]
        return
    with pytest.raises(RuleError, match=error):
        _parse_rules(tmp_path, [("toyserve", path)])


def test_a_builtin_rule_file_cannot_claim_a_namespace(tmp_path: Path):
    path = tmp_path / "x.toml"
    path.write_text(RULE.format(id="toyserve/TOY001", area="hardware"))
    with pytest.raises(RuleError, match="letters then three digits"):
        _parse_rules(tmp_path, [(None, path)])
    assert rule_namespace("toyserve/TOY001") == "toyserve" and rule_namespace("SGL101") is None


def test_suppressions_keep_a_plugins_namespace():
    lines = ["# sm120-doctor: ignore[LMDeploy/lmd001, sgl101]", "lmdeploy serve api_server m"]
    assert suppressed_at(lines, 2, 2) == {"lmdeploy/LMD001", "SGL101"}


GUIDE_RULE = """
[[rules]]
id = "myengine/MYE001"
area = "myengine"
title = "MyEngine {myengine.version}: flags it rejects"
severity = "error"
summary = "s"
why = "w"
message = "{myengine.flag_problems}"
when = [{ fact = "myengine.flag_problems", ne = [] }]
references = ["https://example.org/myengine/cli.py"]
"""


def test_the_guides_smallest_engine_works_as_written(tmp_path: Path):
    """docs/PLUGINS.md's first example, copied verbatim into a package registered by its entry point."""
    import json
    import re
    import subprocess
    import sys

    from tests.conftest import REPO, cli_env

    guide = (REPO / "docs" / "PLUGINS.md").read_text()
    source = re.search(r"```python\n(.*?)```", guide, re.S).group(1)  # type: ignore[union-attr]
    package = tmp_path / "my_engine"
    (package / "rules").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "engine.py").write_text(source)
    (package / "rules" / "mine.toml").write_text(GUIDE_RULE)
    dist = tmp_path / "my_engine-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: my-engine\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[sm120_doctor.engines]\nmyengine = my_engine.engine:MyEngine\n")
    env = cli_env(PYTHONPATH=f"{tmp_path}:{REPO}", SM120_DOCTOR_CACHE=str(tmp_path / "cache"))
    args = ["check", "Qwen/Qwen3-30B-A3B", "--hardware", "rtx-5090-x2", "--engine", "myengine==1.2.0", "--offline",
            "--format", "json", "--", "--verbose", "--max-lenght", "4096"]
    done = subprocess.run([sys.executable, "-m", "doctor", *args], capture_output=True, text=True, env=env, timeout=120)
    data = json.loads(done.stdout)
    assert [f["id"] for f in data["findings"] if f["id"].startswith("myengine/")] == ["myengine/MYE001"]
    argv = data["launch"]["argv"]
    assert argv[:3] == ["myengine", "serve", "Qwen/Qwen3-30B-A3B"] and "--tp" in argv
    assert data["analysis"]["plan"]["engine"] == "MyEngine"


def _doctor_imports(path: Path) -> set[str]:
    import ast

    tree = ast.parse(path.read_text())
    found = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    found |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    return {name for name in found if name.split(".")[0] == "doctor"}


# What a built-in engine class still takes from outside the interface, and why (issue 28's house work).
OUTSIDE_SPI = {
    "vllm": {"doctor.engines.releases"},  # its release list, shared with `upgrades`
    "tensorrt_llm": {"doctor.engines.releases"},  # as vLLM
}


@pytest.mark.parametrize("engine", ["sglang", "vllm", "tensorrt_llm", "llama_cpp"])
def test_builtin_engine_classes_use_the_plugin_interface(engine: str):
    from tests.conftest import REPO

    imports = _doctor_imports(REPO / "doctor" / "engines" / engine / "engine.py")
    outside = {m for m in imports if m != "doctor.engines.spi" and not m.startswith(f"doctor.engines.{engine}")}
    assert outside == OUTSIDE_SPI.get(engine, set())


def test_the_example_plugin_uses_nothing_but_the_interface():
    from tests.conftest import REPO

    assert _doctor_imports(REPO / "examples" / "engine-plugin" / "src" / "lmdeploy_doctor" / "engine.py") == {
        "doctor.engines.spi"}
