"""`--hardware PROFILE --nodes N` (or one `--facts FILE --nodes N`): a report's "2x DGX Spark TP2" checked as the
multi-node deployment it is, instead of MEM003's "needs 2 GPUs; the machine has 1" on one Spark."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main

MODEL = "tests/cases/models/deepseek-v4-flash"
VLLM = "vllm==0.21.0"


def _check(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", MODEL, "--offline", "--engine", VLLM, "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def _ids(report: dict) -> set[str]:
    return {f["id"] for f in report["findings"]}


def test_two_sparks_at_tp2_are_two_nodes_not_one_short_machine(capsys):
    code, report = _check(capsys, "--hardware", "dgx-spark", "--nodes", "2", "--tp", "2")
    assert [n["name"] for n in report["cluster"]["nodes"]] == ["dgx-spark", "dgx-spark#2"]
    assert "MEM003" not in _ids(report)
    assert report["cluster"]["plan"]["requested"]["tp"] == 2
    # the layout is no error; the one error is the release's own DeepSeek-V4 gap on SM12x (VLLM330: vLLM 0.21.0's only
    # DeepSeek-V4 attention is FlashMLA sparse, sm_90a/sm_100f), which a second node does not change
    assert code == 1
    assert {f["id"] for f in report["findings"] if f["severity"] == "error"} == {"VLLM330"}


def test_one_spark_at_tp2_still_says_the_machine_is_short_and_names_nodes(capsys):
    code, report = _check(capsys, "--hardware", "dgx-spark", "--tp", "2")
    mem003 = [f for f in report["findings"] if f["id"] == "MEM003"]
    assert mem003 and "--nodes N" in mem003[0]["message"]
    assert code == 1


def test_nodes_1_is_the_single_machine_check(capsys):
    _, report = _check(capsys, "--hardware", "dgx-spark", "--nodes", "1")
    assert "cluster" not in report


def test_unknown_network_of_profile_nodes_is_not_called_tcp(capsys):
    _, report = _check(capsys, "--hardware", "dgx-spark", "--nodes", "2", "--tp", "2")
    ids = _ids(report)
    assert "CLU010" in ids and "CLU006" not in ids


def test_one_facts_file_repeated(tmp_path, capsys):
    path = tmp_path / "spark.json"
    assert main(["snapshot", "--hardware", "dgx-spark", "-o", str(path)]) == 0
    capsys.readouterr()
    _, report = _check(capsys, "--facts", str(path), "--nodes", "3", "--tp", "1", "--pp", "3")
    assert report["cluster"]["node_count"] == 3


@pytest.mark.parametrize(("args", "says"), [
    (["--hardware", "dgx-spark", "--nodes", "0"], "--nodes must be at least 1"),
    (["--nodes", "2"], "--nodes needs --hardware PROFILE or one --facts FILE"),
    (["--hardware", "dgx-spark", "--nodes", "5000"], "at most 1024"),
    (["--hardware", "dgx-spark-x2"], "--hardware dgx-spark --nodes 2"),
])
def test_bad_nodes_input_is_one_line_and_exit_2(capsys, args, says):
    assert main(["check", "--offline", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_nodes_with_ray_is_refused(capsys):
    assert main(["check", "--offline", "--ray", "auto", "--nodes", "2"]) == 2
    assert "--ray finds the nodes itself" in capsys.readouterr().err


def test_plan_over_two_spark_nodes(capsys):
    assert main(["plan", MODEL, "--offline", "--hardware", "dgx-spark", "--nodes", "2", "--engine", VLLM,
                 "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert len(plan["nodes"]) == 2
    assert plan["best"]["gpus"] == 2 and plan["best"]["fits"]  # one Spark cannot hold it, two can


@pytest.mark.parametrize(("hardware", "launch", "mem003"), [
    ("dgx-spark", [], True),  # one Spark, TP2, nothing says several nodes: the machine is short
    ("dgx-spark", ["--distributed-executor-backend", "ray"], False),  # Ray places the ranks on two Sparks
    ("dgx-spark", ["--distributed-executor-backend=ray"], False),
    ("dgx-spark", ["--nnodes", "2", "--node-rank", "0"], False),  # vLLM's multiprocessing multi-node
    ("dgx-spark", ["--nnodes", "1"], True),
    ("dgx-spark", ["--distributed-executor-backend", "mp"], True),
    ("rtx-5090", ["--distributed-executor-backend", "ray"], True),  # a discrete GPU: the rule is unchanged
])
def test_mem003_on_one_spark_with_a_multi_node_launch(capsys, hardware, launch, mem003):
    _, report = _check(capsys, "--hardware", hardware, "--tp", "2", "--", *launch)
    assert ("MEM003" in _ids(report)) is mem003


def test_mem003_still_names_a_real_layout_problem_on_a_spark_cluster_launch(capsys):
    """TP3 cannot split the model's heads: the multi-node launch does not excuse that."""
    _, report = _check(capsys, "--hardware", "dgx-spark", "--tp", "3", "--", "--distributed-executor-backend", "ray")
    assert "MEM003" in _ids(report)


def _check_unversioned(capsys, *args: str) -> tuple[int, dict]:
    code = main(["check", MODEL, "--offline", "--engine", "vllm", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def test_two_sparks_with_the_engine_named_without_a_release(capsys):
    """A report's "vLLM on 2x Spark, TP2" with no release: every node is checked at every release, as one
    machine is, instead of an `--engine` usage error."""
    code, report = _check_unversioned(capsys, "--hardware", "dgx-spark", "--nodes", "2", "--tp", "2")
    notes = report["nodes"][0]["analyses"][0]["notes"]
    assert any("release not stated: rules evaluated at" in note for note in notes)
    assert report["cluster"]["plan"]["requested"]["tp"] == 2
    assert "MEM003" not in _ids(report)
    assert code == 0


def test_a_finding_of_some_releases_only_is_a_warning_on_an_unversioned_cluster(capsys):
    """MOE004 is an error at vLLM 0.24.0 on a Spark; unstated, it holds for some releases only."""
    _, pinned = _check(capsys, "--hardware", "dgx-spark", "--nodes", "2", "--tp", "2", "--engine", "vllm==0.24.0")
    _, unversioned = _check_unversioned(capsys, "--hardware", "dgx-spark", "--nodes", "2", "--tp", "2")
    severity = {r: {f["id"]: f["severity"] for f in report["findings"]} for r, report in
                (("pinned", pinned), ("unversioned", unversioned))}
    assert severity["pinned"]["MOE004"] == "error"
    assert severity["unversioned"]["MOE004"] == "warning"


@pytest.mark.parametrize("nodes", [[], ["--nodes", "2"]])
def test_plan_with_the_engine_named_without_a_release_plans_the_newest(capsys, nodes):
    from doctor.engines import registry
    from doctor.pipeline.rules import load_rules
    from doctor.pipeline.unversioned import evaluated_releases, shown_release

    vllm = registry.get("vllm")
    newest = shown_release(vllm, evaluated_releases(vllm, load_rules()))
    assert main(["plan", MODEL, "--offline", "--hardware", "dgx-spark", *nodes, "--engine", "vllm",
                 "--format", "json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert (plan["engine"], plan["engine_version"]) == ("vLLM", newest)


def test_profile_nodes_carry_the_exported_variables(capsys, monkeypatch):
    """As on one machine, `--hardware P --nodes N` reads the launch's exported variables for every node: a pinned
    NCCL_IB_GID_INDEX across two Sparks is NCCL063's, and without it NCCL063 stays quiet."""
    launch = ["--hardware", "dgx-spark", "--nodes", "2", "--", "--tensor-parallel-size", "2",
              "--distributed-executor-backend", "ray"]
    monkeypatch.delenv("NCCL_IB_GID_INDEX", raising=False)
    assert "NCCL063" not in _ids(_check(capsys, *launch)[1])
    monkeypatch.setenv("NCCL_IB_GID_INDEX", "3")
    _, report = _check(capsys, *launch)
    assert "NCCL063" in _ids(report)
    assert all(node["facts"]["env"].get("NCCL_IB_GID_INDEX") == "3" for node in report["nodes"])


def test_an_image_is_every_nodes_image(capsys):
    """`--image` with `--nodes`: every node runs the image, so its engine build is every node's what-if and the image
    rules judge it (before, a two-Spark deployment in a named image could not be stated: exit 2)."""
    code, report = _check(capsys, "--hardware", "dgx-spark", "--nodes", "2", "--image", "vllm/vllm-openai:v0.27.1",
                          "--tp", "2")
    assert code in (0, 1)
    # the --engine the user gave (vllm 0.21.0, _check's) wins over the image's build, as on one machine
    assert all(node["facts"]["libraries"]["vllm"]["version"] == "0.21.0" for node in report["nodes"])
    assert "IMG002" in _ids(report)
    bare = json.loads((main(["check", "--offline", "--format", "json", "--hardware", "dgx-spark", "--nodes", "2",
                             "--image", "vllm/vllm-openai:v0.27.1", "--tp", "2"]), capsys.readouterr().out)[1])
    assert all(node["facts"]["libraries"]["vllm"]["version"] == "0.27.1" for node in bare["nodes"])
