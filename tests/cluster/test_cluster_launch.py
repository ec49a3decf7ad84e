"""Issue 18's first done-when case: two facts files of 8 x RTX PRO 6000 (written by `snapshot --hardware`),
Kimi-K2-Instruct FP8 fits as TP8 x PP2, every node gets its SGLang and vLLM command, and torch and NCCL skew
are reported with both versions and node names."""

from __future__ import annotations

import json

import pytest
from packaging.version import Version

from doctor.cli import main
from doctor.engines import registry

SGLANG, VLLM = "0.5.23", "0.33.0"


def snapshot(tmp_path, name, torch, nccl):
    path = tmp_path / f"{name}.json"
    assert main(["snapshot", "--hardware", "rtx-pro-6000-x8", "--node", name, "-o", str(path)]) == 0
    data = json.loads(path.read_text())
    data["libraries"]["torch"] = {"name": "torch", "version": torch, "details": {"cuda_version": "12.8"}}
    data["libraries"]["nccl"] = {"name": "nccl", "version": nccl}
    path.write_text(json.dumps(data))
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cluster")
    a, b = snapshot(tmp, "node-a", "2.9.1", "2.27.3"), snapshot(tmp, "node-b", "2.8.0", "2.26.2")
    out = tmp / "report.json"
    code = main(["check", "moonshotai/Kimi-K2-Instruct", "--facts", str(a), "--facts", str(b), "--offline",
                 "--engine", f"sglang=={SGLANG}", "--engine", f"vllm=={VLLM}", "--format", "json",
                 "--output", str(out)])
    assert code == 1  # the skew is an error
    return json.loads(out.read_text())


def test_kimi_k2_fp8_fits_as_tp8_pp2_over_two_nodes(report):
    plan = report["cluster"]["plan"]
    best = plan["layouts"][0]
    assert (best["tp"], best["pp"], best["fits"]) == (8, 2, True)
    assert best["inter_node"]["tp_across_nodes"] is False and best["inter_node"]["pp_crossings"] == 1


def test_torch_and_nccl_skew_name_both_versions_and_nodes(report):
    skew = {f["evidence"]["item.what"]: f["evidence"]["item.values"] for f in report["findings"] if f["id"] == "CLU001"}
    assert skew["torch"] == {"node-a": "2.9.1", "node-b": "2.8.0"}
    assert skew["NCCL"] == {"node-a": "2.27.3", "node-b": "2.26.2"}


def launches(report, engine):
    (found,) = [entry for entry in report["launches"] if entry["engine"] == engine]
    assert (found["layout"]["tp"], found["layout"]["pp"]) == (8, 2)
    assert [n["node"] for n in found["nodes"]] == ["node-a", "node-b"]
    return found["nodes"]


def test_sglang_command_per_node(report):
    head, worker = launches(report, "sglang")
    for rank, node in enumerate((head, worker)):
        (command,) = [s["argv"] for s in node["steps"] if "sglang.launch_server" in s["argv"]]
        assert command[command.index("--nnodes") + 1] == "2"
        assert command[command.index("--node-rank") + 1] == str(rank)
        assert command[command.index("--dist-init-addr") + 1] == "node-a:20000"
        flags = command[command.index("sglang.launch_server") + 1:]
        assert registry.get("sglang").check_flags(flags, Version(SGLANG)) == []


def test_vllm_ray_commands_per_node(report):
    head, worker = launches(report, "vllm")
    assert head["commands"][0].startswith("ray start --head")
    assert worker["commands"] == ["ray start --address=node-a:6379 --block"]
    serve = next(s["argv"] for s in head["steps"] if s["argv"][:2] == ["vllm", "serve"])
    assert serve[serve.index("--distributed-executor-backend") + 1] == "ray"
    assert serve[serve.index("--pipeline-parallel-size") + 1] == "2"
    # every flag and value exists in vLLM 0.33.0 (the table read from the wheel's own argument definitions)
    assert registry.get("vllm").check_flags(serve[3:], Version(VLLM)) == []


@pytest.mark.slow
@pytest.mark.wheel
def test_sglang_node_flags_exist_in_the_released_wheel(report):
    from tests.rules.sglang_source import server_args

    known = server_args(SGLANG).flags
    for node in launches(report, "sglang"):
        command = next(s["argv"] for s in node["steps"] if "sglang.launch_server" in s["argv"])
        flags = {t for t in command if t.startswith("--")}
        assert flags <= known, sorted(flags - known)


def test_tensorrt_llm_one_mpi_world_from_the_head(tmp_path):
    a, b = snapshot(tmp_path, "node-a", "2.9.1", "2.27.3"), snapshot(tmp_path, "node-b", "2.9.1", "2.27.3")
    out = tmp_path / "trt.json"
    main(["check", "moonshotai/Kimi-K2-Instruct", "--facts", str(a), "--facts", str(b), "--offline",
          "--engine", "tensorrt-llm==1.2.1", "--format", "json", "--output", str(out)])
    head, worker = launches(json.loads(out.read_text()), "tensorrt-llm")
    (step,) = head["steps"]
    argv = step["argv"]
    assert argv[:6] == ["mpirun", "-H", "node-a:8,node-b:8", "-np", "16", "trtllm-llmapi-launch"]
    serve = argv[argv.index("trtllm-serve") + 2:]
    cut = serve.index("--extra_llm_api_options")  # its YAML travels in step["files"], checked on a single node
    serve = serve[:cut] + serve[cut + 2:]
    assert "trtllm-options.yaml" in step["files"]
    assert registry.get("tensorrt-llm").check_flags(serve, Version("1.2.1")) == []
    assert worker["steps"] == [] and "ssh" in worker["notes"][0]


def test_console_shows_every_node(tmp_path, capsys):
    a, b = snapshot(tmp_path, "node-a", "2.9.1", "2.27.3"), snapshot(tmp_path, "node-b", "2.9.1", "2.27.3")
    code = main(["check", "moonshotai/Kimi-K2-Instruct", "--facts", str(a), "--facts", str(b), "--offline",
                 "--engine", "tensorrt-llm==1.2.1", "--engine", "vllm==0.33.0"])
    out = capsys.readouterr().out
    assert code in (0, 1) and "node-b" in out and "mpirun -H node-a:8,node-b:8" in out
