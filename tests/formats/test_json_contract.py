"""Machine-readable output is a contract: every `--format json` of every command, run for real (several
variants each), is one JSON object with `schema_version` and `tool` that validates against the schema
published for that command (doctor/formats/schema, README's table); and every schema is strict enough to
reject a broken document."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from doctor.cli import main
from doctor.formats.document import SCHEMAS, schema_names
from tests.binaries.synthetic import KIND_PTX, entry, fatbin, ptx_text, shared_object_with_blob
from tests.schemas import is_valid, load, validate

REPO = Path(__file__).resolve().parents[2]
PRO, SPARK, RTX = ("--hardware", "rtx-pro-6000-x8"), ("--hardware", "dgx-spark"), ("--hardware", "rtx-5090")
QWEN = "Qwen/Qwen3-30B-A3B"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str, codes: tuple[int, ...] = (0, 1)) -> dict[str, Any]:
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr().out
    assert code in codes, out
    document = json.loads(out)
    assert isinstance(document, dict) and document["schema_version"] == "1"
    assert document["tool"]["name"] == "sm120-doctor"
    return document


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Two nodes of 8 x RTX PRO 6000, as `snapshot --hardware` writes them."""
    tmp = tmp_path_factory.mktemp("nodes")
    paths = tmp / "node-a.json", tmp / "node-b.json"
    for path in paths:
        assert main(["snapshot", "--hardware", "rtx-pro-6000-x8", "--node", path.stem, "-o", str(path)]) == 0
    return paths


CHECKS = [
    (QWEN, *RTX, "--engine", "sglang==0.5.23"),
    (QWEN, *PRO, "--engine", "vllm==0.33.0", "--", "--tensor-parallel-size", "4"),
    ("openai/gpt-oss-120b", *SPARK, "--engine", "tensorrt-llm==1.2.1"),
    ("deepseek-ai/DeepSeek-V3", *PRO, "--engine", "sglang==0.5.8", "--engine", "vllm==0.33.0"),
    (*RTX,),  # no model, no engine
]


@pytest.mark.parametrize("args", CHECKS)
def test_check_one_machine(capsys, args):
    cut = args.index("--") if "--" in args else len(args)
    validate("report", run_json(capsys, "check", *args[:cut], "--offline", "--format", "json", *args[cut:]))


def test_check_several_nodes_is_a_cluster_report(capsys, snapshots):
    a, b = snapshots
    document = run_json(capsys, "check", "moonshotai/Kimi-K2-Instruct", "--facts", str(a), "--facts", str(b),
                        "--engine", "sglang==0.5.23", "--offline", "--format", "json")
    validate("cluster-report", document)
    assert not is_valid("report", document)


def test_snapshot_is_a_facts_document(tmp_path):
    out = tmp_path / "facts.json"
    assert main(["snapshot", "--hardware", "dgx-spark", "-o", str(out)]) == 0
    validate("facts", json.loads(out.read_text()))


@pytest.mark.parametrize("args", [
    (QWEN, *PRO, "--engine", "sglang==0.5.23"),
    (QWEN, *PRO, "--engine", "vllm==0.33.0", "--tp", "2", "--kv-cache-dtype", "fp8_e4m3"),
    ("deepseek-ai/DeepSeek-V3", *RTX, "--engine", "sglang==0.5.23"),  # nothing fits: advice
])
def test_plan_one_machine(capsys, args):
    document = run_json(capsys, "plan", *args, "--offline", "--format", "json")
    validate("plan", document)
    assert len(document["nodes"]) == 1 and document["network"] is None and document["launches"] == []
    assert document["requested"] == document["layouts"][0]
    assert (document["advice"] is None) == document["any_fits"]


def test_plan_several_nodes_has_the_same_shape(capsys, snapshots):
    a, b = snapshots
    document = run_json(capsys, "plan", "moonshotai/Kimi-K2-Instruct", "--facts", str(a), "--facts", str(b),
                        "--engine", "sglang==0.5.23", "--offline", "--format", "json")
    validate("plan", document)
    assert [n["name"] for n in document["nodes"]] == ["node-a", "node-b"] and document["launches"]
    assert document["layout_count"] == len(document["layouts"]) > 12  # every layout, not the console's first 12
    assert document["best"]["comm"]["inter_node"]["nodes"] == 2


@pytest.mark.parametrize("args", [
    (QWEN, *RTX, "--engine", "sglang==0.5.23"),
    ("openai/gpt-oss-120b", *PRO, "--engine", "vllm==0.33.0"),
    (QWEN, *RTX),  # no engine installed: no kernels, still a document
])
def test_kernels(capsys, args):
    document = run_json(capsys, "kernels", *args, "--offline", "--format", "json")
    validate("kernels", document)
    assert document["exact"] is False


def test_kernels_exact(capsys, monkeypatch, tmp_path):
    """--exact with the compile faked, as tests/engines/vllm/test_kernel_exact_command.py does."""
    from doctor.engines.vllm import exact as vllm_exact
    from doctor.kernels import exact

    ops = tmp_path / "site" / "vllm" / "v1" / "attention" / "ops"
    ops.mkdir(parents=True)
    (ops / "triton_unified_attention.py").write_text(
        "def kernel_unified_attention(output_ptr, HEAD_SIZE: tl.constexpr):\n    pass\n\n"
        "def reduce_segments(output_ptr, NUM_SEGMENTS_PER_SEQ: tl.constexpr):\n    pass\n")
    (ops / "triton_attention_helpers.py").write_text("")
    monkeypatch.setattr(vllm_exact, "source_root", lambda run: tmp_path / "site")
    monkeypatch.setattr(exact, "ensure_triton", lambda version, root=None: tmp_path / f"triton-{version}")
    monkeypatch.setattr(exact, "compile_many", lambda jobs, *_, **__: [{"shared": 4096} for _ in jobs])
    document = run_json(capsys, "kernels", "openai/gpt-oss-120b", *PRO, "--engine", "vllm==0.33.0", "--exact",
                        "--offline", "--format", "json")
    validate("kernels", document)
    assert document["exact"] and {k["method"] for k in document["kernels"]} == {"exact"}


@pytest.mark.parametrize("args", [
    ("fused-moe", "--arch", "sm120", "--block-m", "64", "--block-n", "128", "--block-k", "128", "--warps", "4",
     "--stages", "4"),
    ("extend-attention", "--arch", "12.1", "--lq", "128", "--lv", "128", "--block-m", "64", "--block-n", "64",
     "--warps", "4"),
    ("decode-attention", "--arch", "sm90", "--lk", "576", "--lv", "512"),
    ("prefill-attention", "--arch", "sm120", "--head-dim", "128"),
])
def test_smem_one_config(capsys, args):
    document = run_json(capsys, "smem", *args, "--format", "json")
    validate("smem", document)
    assert len(document["entries"]) == 1 and document["entries"][0]["M"] is None


def test_smem_tuned_file(capsys, tmp_path):
    tuned = tmp_path / "E=128,N=768.json"
    config = {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1, "num_warps": 4}
    tuned.write_text(json.dumps({"1": {**config, "num_stages": 3}, "256": {**config, "num_stages": 5}}))
    document = run_json(capsys, "smem", "--moe-config", str(tuned), "--arch", "sm120", "--format", "json")
    validate("smem", document)
    assert [e["M"] for e in document["entries"]] == [1, 256] and document["source"] == str(tuned)


def test_binaries(capsys, tmp_path):
    site = tmp_path / "site"
    (site / "pkg").mkdir(parents=True)
    built = shared_object_with_blob(tmp_path, fatbin(entry(KIND_PTX, 90, ptx_text(90, ["k1", "k2"]))))
    built.rename(site / "pkg" / "libk.so")
    document = run_json(capsys, "binaries", str(site), "--format", "json")
    validate("binaries", document)
    assert document["files"][0]["verdict"] == "ptx-jit"
    (tmp_path / "empty").mkdir()
    validate("binaries", run_json(capsys, "binaries", str(tmp_path / "empty"), "--format", "json"))


@pytest.mark.parametrize(("argv", "name"), [
    (("engines",), "engines"),
    (("rules",), "rules"),
    (("rules", "--area", "vllm", "--severity", "error"), "rules"),
    (("rules", "--grep", "no rule says this"), "rules"),
    (("explain", "SGL101"), "explain"),
    (("explain", "attn001"), "explain"),
    (("hardware",), "hardware"),
    (("models",), "models"),
])
def test_listings(capsys, argv, name):
    validate(name, run_json(capsys, *argv, "--format", "json"))


LOGS = REPO / "tests" / "diagnose" / "logs"


@pytest.mark.parametrize("args", [
    ("triton-8539-ptxas-sm121a-spark.log", *SPARK),  # explained
    ("nccl-tests-287-nccl2251-5090.log", "--hardware", "rtx-5090-x2"),
    ("clean-sglang-6001-tp-startup.log", *RTX),  # nothing to explain
    ("clean-collect-env-21028-vllm092-5090.log",),  # this machine as the base
])
def test_diagnose(capsys, args):
    log, *rest = args
    validate("diagnose", run_json(capsys, "diagnose", str(LOGS / log), *rest, "--format", "json"))


def test_lint(capsys):
    document = run_json(capsys, "lint", str(REPO / "fixtures" / "launch" / "serve-glm-sglang.sh"), *PRO,
                        "--engine", "sglang==0.5.8", "--offline", "--format", "json")
    validate("lint", document)
    assert document["launches"]


def test_every_command_names_a_published_schema_and_every_schema_is_one_commands():
    assert set(SCHEMAS.values()) | {"cluster-report"} == set(schema_names())
    for name in schema_names():
        schema = load(name)
        assert schema["$id"] == f"https://github.com/sm120-doctor/sm120-doctor/{name}.schema.json"
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema.get("additionalProperties") is False, name  # the documents' top level is closed
        assert {"schema_version", "tool"} <= set(schema["required"]) or name == "facts", name


def test_the_readme_table_lists_every_schema():
    readme = (REPO / "README.md").read_text()
    for name in schema_names():
        assert f"doctor/formats/schema/{name}.schema.json" in readme, name


# --- a broken document is rejected: per schema, a real document and mutations of it --------------------------

Mutation = Callable[[dict[str, Any]], Any]


def drop(*path: str | int) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        *head, last = path
        target = doc
        for key in head:
            target = target[key]
        del target[last]
    return mutate


def put(value: Any, *path: str | int) -> Mutation:
    def mutate(doc: dict[str, Any]) -> None:
        *head, last = path
        target = doc
        for key in head:
            target = target[key]
        target[last] = value
    return mutate


COMMON = [drop("schema_version"), put("2", "schema_version"), put("other", "tool", "name"), put(1, "unknown_key")]
FACTS = [drop("source"), put("cloud", "source", "kind"), put("12", "gpus", 0, "compute_capability"),
         put(True, "gpus", 0, "extra")]


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory, snapshots) -> dict[str, dict[str, Any]]:
    """One real document per schema."""
    import contextlib
    import io

    def doc(*argv: str) -> dict[str, Any]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(list(argv))
        return json.loads(out.getvalue())

    a, b = snapshots
    site = tmp_path_factory.mktemp("empty-site")
    return {
        "report": doc("check", QWEN, *RTX, "--engine", "sglang==0.5.23", "--offline", "--format", "json"),
        "cluster-report": doc("check", "moonshotai/Kimi-K2-Instruct", "--facts", str(a), "--facts", str(b),
                              "--engine", "sglang==0.5.23", "--offline", "--format", "json"),
        "facts": json.loads(a.read_text()),
        "plan": doc("plan", QWEN, *PRO, "--engine", "sglang==0.5.23", "--offline", "--format", "json"),
        "kernels": doc("kernels", QWEN, *RTX, "--engine", "sglang==0.5.23", "--offline", "--format", "json"),
        "smem": doc("smem", "prefill-attention", "--arch", "sm120", "--head-dim", "128", "--format", "json"),
        "binaries": doc("binaries", str(site), "--format", "json"),
        "engines": doc("engines", "--format", "json"),
        "rules": doc("rules", "--format", "json"),
        "explain": doc("explain", "SGL101", "--format", "json"),
        "hardware": doc("hardware", "--format", "json"),
        "models": doc("models", "--format", "json"),
        "diagnose": doc("diagnose", str(LOGS / "triton-8539-ptxas-sm121a-spark.log"), *SPARK, "--format", "json"),
        "lint": doc("lint", str(REPO / "fixtures" / "launch" / "serve-glm-sglang.sh"), *PRO, "--engine",
                    "sglang==0.5.8", "--offline", "--format", "json"),
    }


MUTATIONS: dict[str, list[Mutation]] = {
    "report": [*COMMON, drop("findings"), put({"kind": "live"}, "facts", "source", "extra"),
               put("fatal", "findings", 0, "severity"), put("maybe", "findings", 0, "fixes", 0, "safety"),
               put([{"kernel": "x"}], "analysis", "kernels"), put("x", "summary", "extra")],
    "cluster-report": [*COMMON, drop("cluster"), put([], "nodes"), put(1, "cluster", "extra"),
                       put({}, "nodes", 0, "facts")],
    "facts": [*FACTS, drop("schema_version"), put(1, "unknown_key"), put("NVLINK", "topology", 0, "kind")],
    "plan": [*COMMON, drop("layouts"), put(0, "layouts", 0, "tp"), put(1, "layouts", 0, "extra"),
             put([], "nodes"), put("many", "layout_count"), put({"tp": 1}, "best")],
    "kernels": [*COMMON, drop("kernels"), put("guess", "kernels", 0, "method"), put(1, "kernels", 0, "extra"),
                put([1], "kernels")],
    "smem": [*COMMON, drop("entries"), put("fused-moe", "kernel"), put(-1, "entries", 0, "bytes"),
             put("exactish", "method")],
    "binaries": [*COMMON, drop("stats"), put("jit", "verdict"), put([12], "capability"),
                 put(1, "stats", "extra")],
    "engines": [*COMMON, drop("engines"), put("yes", "engines", 0, "plugin"), put(1, "engines", 0, "extra"),
                put("bad name", "engines", 0, "name")],
    "rules": [*COMMON, drop("count"), put("SGL1", "rules", 0, "id"), put("fatal", "rules", 0, "severity"),
              put([{"fact": "gpu.name", "eq": 1, "ne": 2}], "rules", 0, "when"),
              put([{"kind": "flag", "safety": "safe", "summary": "x", "unknown": 1}], "rules", 0, "fixes")],
    "explain": [*COMMON, drop("rule"), drop("rule", "docs"), put("ftp://x", "rule", "docs"),
                put(1, "rule", "extra")],
    "hardware": [*COMMON, drop("profiles"), put(0, "profiles", 0, "gpus"), put("12", "profiles", 0, "capability")],
    "models": [*COMMON, drop("models"), put({"dir": "x", "provenance": "rumour"}, "models", "a/b"),
               put({"dir": "x", "provenance": "verified"}, "models", "no-slash")],
    "diagnose": [*COMMON, drop("report"), put({"schema_version": "1"}, "report"), put("maybe", "explained"),
                 put("guessed", "explanations", 0, "status"), put(1, "explanations", 0, "extra"),
                 put(0, "explanations", 0, "signature", "line")],
    "lint": [*COMMON, drop("launches"), put({"schema_version": "1"}, "launches", 0, "report"),
             put("none", "summary", "error"), put([{"file": "a", "line": 0, "message": "m"}], "problems")],
}


def test_every_schema_has_mutations():
    assert set(MUTATIONS) == set(schema_names())


@pytest.mark.parametrize(("name", "index"), [(n, i) for n, ms in MUTATIONS.items() for i in range(len(ms))])
def test_a_broken_document_is_rejected(documents, name, index):
    original = documents[name]
    validate(name, original)
    broken = copy.deepcopy(original)
    MUTATIONS[name][index](broken)
    assert broken != original
    assert not is_valid(name, broken)


def test_the_schemas_are_read_from_the_package():
    """doctor.formats.document reads them as package data (the wheel ships doctor/ whole: pyproject), so an
    installed doctor publishes the same files; the slow fresh-venv test checks the installed copy."""
    from doctor.formats.document import schema

    for name in schema_names():
        assert schema(name) == load(name)
