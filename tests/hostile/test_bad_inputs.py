"""Issue 15 points 4, 6, 9 and 11: special files never block, unknown shared memory stays unknown,
implausible values are refused by physical ranges, and no bad file gives an internal error: each is one
line on stderr and exit 2."""

import json
import os
import threading
import time
from importlib import resources

import pytest

from doctor.cli import main

BUNDLED = resources.files("doctor") / "data" / "models"
PROFILE = resources.files("doctor.hardware") / "profiles" / "rtx-pro-6000-x8.json"


def _run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _one_error(capsys, *argv, contains=""):
    code, _, err = _run(capsys, *argv)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err and contains in err, err
    return err


def _model_dir(tmp_path, name="deepseek-ai--DeepSeek-V3", **changes):
    config = json.loads((BUNDLED / name / "config.json").read_text())
    config.update(changes)
    folder = tmp_path / "model"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _facts(tmp_path, edit):
    data = json.loads(PROFILE.read_text())
    data["source"] = {"kind": "snapshot", "name": "test", "notes": [], "references": []}
    edit(data)
    path = tmp_path / "facts.json"
    path.write_text(json.dumps(data))
    return str(path)


# --- point 4: only regular files are read ---------------------------------------------------------

def _returns_within(seconds, fn):
    result = []
    worker = threading.Thread(target=lambda: result.append(fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert result, f"still blocked after {seconds} s"
    return result[0]


def test_fifo_model_safetensors_never_blocks(tmp_path, capsys):
    folder = _model_dir(tmp_path, "meta-llama--Llama-3.1-8B-Instruct")
    os.mkfifo(folder / "model.safetensors")
    code = _returns_within(20, lambda: main(["check", str(folder), "--hardware", "rtx-5090", "--format", "json"]))
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert "not a regular file (a FIFO)" in json.loads(out)["analysis"]["plan"]["error"]


def test_fifo_config_json_never_blocks(tmp_path, capsys):
    folder = tmp_path / "model"
    folder.mkdir()
    os.mkfifo(folder / "config.json")
    code = _returns_within(20, lambda: main(["check", str(folder), "--hardware", "rtx-5090"]))
    err = capsys.readouterr().err
    assert code == 2 and "not a regular file (a FIFO)" in err


def test_fifo_moe_config_never_blocks(tmp_path, capsys):
    os.mkfifo(tmp_path / "moe.json")
    code = _returns_within(20, lambda: main(["smem", "--moe-config", str(tmp_path / "moe.json"), "--arch", "sm120"]))
    assert code == 2 and "not a regular file" in capsys.readouterr().err


# --- point 6: unknown shared memory stays unknown -------------------------------------------------

def test_null_smem_gives_no_kernel_findings(tmp_path, capsys):
    def unknown(data):
        for gpu in data["gpus"]:
            gpu["smem_per_block_optin"] = None

    _, out, _ = _run(capsys, "check", "moonshotai/Kimi-K2.5", "--facts", _facts(tmp_path, unknown),
                     "--engine", "sglang==0.5.8", "--format", "json")
    report = json.loads(out)
    assert {(k["limit"], k["fits"]) for k in report["analysis"]["kernels"]} == {(None, None)}
    assert not [f for f in report["findings"] if f["id"].startswith("SGL1")]
    # the same facts with the limit known do find the overflow
    _, out, _ = _run(capsys, "check", "moonshotai/Kimi-K2.5", "--facts", _facts(tmp_path, lambda d: None),
                     "--engine", "sglang==0.5.8", "--format", "json")
    assert "SGL101" in {f["id"] for f in json.loads(out)["findings"]}


# --- point 9: implausible values ------------------------------------------------------------------

@pytest.mark.parametrize(("changes", "words"), [
    ({"n_routed_experts": 0}, "mixture-of-experts"),
    ({"first_k_dense_replace": 100000}, "first_k_dense_replace=100000"),
    ({"torch_dtype": "int3"}, "'int3' is not a torch floating-point dtype"),
    ({"num_experts_per_tok": 0}, "num_experts_per_tok"),
])
def test_implausible_model_values(tmp_path, capsys, changes, words):
    _one_error(capsys, "check", str(_model_dir(tmp_path, **changes)), "--hardware", "rtx-pro-6000-x8",
               contains=words)


@pytest.mark.parametrize(("edit", "words"), [
    (lambda d: d["gpus"][0].update(memory_total_bytes=-1), "gpus[0].memory_total_bytes=-1"),
    (lambda d: d["gpus"][3].update(memory_total_bytes=1 << 60), "memory_total_bytes"),
    (lambda d: d["topology"].append({"a": 0, "b": 99, "kind": "SYS"}), "names GPU 99"),
    (lambda d: d["topology"].append({"a": 1, "b": 0, "kind": "SYS"}), "linked twice"),
    (lambda d: d["topology"].append({"a": 2, "b": 2, "kind": "SYS"}), "to itself"),
    (lambda d: d["gpus"][1].update(index=0), "two GPUs have index 0"),
    (lambda d: d["gpus"][0].update(compute_capability="abc"), "'abc' is not MAJOR.MINOR"),
    (lambda d: d["gpus"][0].update(compute_capability="*"), "is not MAJOR.MINOR"),
    (lambda d: d["gpus"][0].update(smem_per_block_optin=0), "smem_per_block_optin=0"),
    (lambda d: d["host"].update(memory_bytes=-5), "host.memory_bytes=-5"),
    (lambda d: d["topology"][0].update(kind="FAST"), "'FAST' is not"),
    (lambda d: d["libraries"].update(vllm={"name": "vllm", "version": "0.11.0", "details": {
        "cuda_binaries": [{"path": "vllm/_C.abi3.so", "sass": ["sm_90"]}]}}), "missing field 'ptx'"),
    (lambda d: d["libraries"].update(vllm={"name": "vllm", "version": "0.11.0", "details": {
        "cuda_binaries": [{"path": "x.so", "sass": ["sm_90\nx"], "ptx": []}]}}), "is not an arch tag"),
    (lambda d: d.update(schema_version="1\n2"), "'1\\n2'"),
])
def test_implausible_facts(tmp_path, capsys, edit, words):
    _one_error(capsys, "check", "moonshotai/Kimi-K2.5", "--facts", _facts(tmp_path, edit), contains=words)


@pytest.mark.parametrize("flag", ["--block-m", "--block-n", "--warps"])
def test_smem_refuses_impossible_tiles(capsys, flag):
    argv = {"--block-m": "128", "--block-n": "256", "--block-k": "128", "--warps": "8", "--stages": "4"}
    argv[flag] = "0"
    flags = [x for pair in argv.items() for x in pair]
    code = main(["smem", "fused-moe", "--arch", "sm120", "--dtype", "fp8_w8a8", *flags])
    err = capsys.readouterr().err
    assert code == 2 and "not a power of two" in err and len(err.strip().splitlines()) == 1


# --- point 11: no internal errors on bad files ----------------------------------------------------

@pytest.mark.parametrize("content", ["[1, 2]", "7", '"configs"', "null", "{}", '{"1": {"BLOCK_SIZE_M": 64, '
                                     '"BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, "num_warps": Infinity}}',
                                     '{"1": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 64, '
                                     '"num_warps": false}}', '{"x": {}}', '{"1": {"BLOCK_SIZE_M": 64}}'])
def test_bad_moe_config_files(tmp_path, capsys, content):
    path = tmp_path / "moe.json"
    path.write_text(content)
    code = main(["smem", "--moe-config", str(path), "--arch", "sm120", "--dtype", "fp8_w8a8"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_moe_config_found_by_check(tmp_path, capsys, monkeypatch):
    check = ["check", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8"]
    main(["moe-config", *check[1:], "-o", str(tmp_path / "dir")])
    config = next((tmp_path / "dir").glob("configs/*/*.json"))
    config.write_text("[1, 2, 3]")
    monkeypatch.setenv("SGLANG_MOE_CONFIG_DIR", str(tmp_path / "dir"))
    capsys.readouterr()
    _one_error(capsys, *check, contains="expected a non-empty object")


@pytest.mark.parametrize("dtype", [["F16"], {"x": 1}, None, 5])
def test_safetensors_header_with_a_bad_dtype(tmp_path, capsys, dtype):
    folder = _model_dir(tmp_path, "meta-llama--Llama-3.1-8B-Instruct")
    header = json.dumps({"lm_head.weight": {"dtype": dtype, "shape": [8, 8], "data_offsets": [0, 128]}}).encode()
    (folder / "model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header)
    code, out, err = _run(capsys, "check", str(folder), "--hardware", "rtx-5090", "--format", "json")
    assert code in (0, 1) and "internal error" not in err
    assert "cannot size" in json.loads(out)["analysis"]["plan"]["error"]


@pytest.mark.parametrize("model", ["a" * 5000, "org/" + "a" * 5000, "x\x00y", "/tmp/" + "b" * 300 + "/m"])
def test_long_or_odd_model_names(capsys, model):
    _one_error(capsys, "check", model, "--hardware", "rtx-5090")


def test_empty_model_is_not_the_current_directory(tmp_path, capsys, monkeypatch):
    _model_dir(tmp_path, "meta-llama--Llama-3.1-8B-Instruct")
    monkeypatch.chdir(tmp_path / "model")  # a directory with a config.json: '' must not pick it up
    _one_error(capsys, "check", "", "--hardware", "rtx-5090", contains="empty")


@pytest.mark.parametrize("argv", [["check", "bad\nname", "--hardware", "rtx-5090"],
                                  ["explain", "SGL\n101"], ["check", "x", "--hardware", "no\rsuch"],
                                  ["revert", "id\nwith\nnewlines"], ["check", "x", "--engine", "a==1\u2028b"]])
def test_every_error_is_one_line(tmp_path, capsys, monkeypatch, argv):
    monkeypatch.setenv("SM120_DOCTOR_STATE_DIR", str(tmp_path / "state"))
    _one_error(capsys, *argv)


def test_errors_are_fast(capsys):
    start = time.perf_counter()
    _one_error(capsys, "check", "org/" + "a" * 5000, "--hardware", "rtx-5090", contains="5004 characters")
    assert time.perf_counter() - start < 5
