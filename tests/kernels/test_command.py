"""The `smem` subcommand: exit codes, JSON, and one-line usage errors."""

from __future__ import annotations

import json

import pytest

MOE = ["smem", "fused-moe", "--arch", "sm120", "--dtype", "fp8_w8a8", "--block-m", "128", "--block-n",
       "256", "--block-k", "128", "--group-m", "32", "--warps", "8", "--stages", "4", "--per-channel"]


def _run(argv, capsys):
    from doctor.cli import main

    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_overflow_json(capsys):
    code, out, _ = _run([*MOE, "--format", "json"], capsys)
    assert code == 1
    document = json.loads(out)
    assert {k: document[k] for k in ("kernel", "arch", "limit", "fits", "method")} == {
        "kernel": "fused_moe", "arch": "sm120", "limit": 101376, "fits": False, "method": "analytic"}
    assert [(e["M"], e["bytes"], e["fits"]) for e in document["entries"]] == [(None, 147456, False)]


def test_fits_exit_zero(capsys):
    argv = [a if a != "4" else "3" for a in MOE]
    code, out, _ = _run(argv, capsys)
    assert code == 0 and "98304" in out and "fits" in out


def test_extend_and_decode(capsys):
    code, out, _ = _run(["smem", "extend-attention", "--arch", "sm120", "--lq", "576", "--lv", "512",
                         "--block-m", "32", "--block-n", "64", "--warps", "8", "--kv-group", "8"], capsys)
    assert code == 1 and "106496" in out
    code, out, _ = _run(["smem", "decode-attention", "--arch", "12.0", "--lk", "576", "--lv", "512",
                         "--format", "json"], capsys)
    assert code == 0 and json.loads(out)["entries"][0]["bytes"] == 63488  # the newest kernel: V read as K^T


@pytest.mark.parametrize("argv", [["smem", "--arch", "sm120"], ["smem", "fused-moe", "--arch", "rtx",
                                  "--block-m", "1", "--block-n", "1", "--block-k", "1", "--warps", "4",
                                  "--stages", "1"],
                                  [*MOE[:-1], "--block-shape", "128"], ["smem", "--moe-config", "/nope.json",
                                                                        "--arch", "sm120"]])
def test_bad_usage_is_one_line(argv, capsys):
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err


def test_moe_config_listing(tmp_path, capsys):
    path = tmp_path / "h100.json"
    path.write_text(json.dumps({"1": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128,
                                      "GROUP_SIZE_M": 1, "num_warps": 4, "num_stages": 4},
                                "4096": {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128,
                                         "GROUP_SIZE_M": 32, "num_warps": 8, "num_stages": 4}}))
    code, out, _ = _run(["smem", "--moe-config", str(path), "--arch", "sm120", "--dtype", "fp8_w8a8"], capsys)
    assert code == 1
    assert "OVERFLOW" in out.splitlines()[2] and "OVERFLOW" not in out.splitlines()[1]
    code, out, _ = _run(["smem", "--moe-config", str(path), "--arch", "sm90", "--dtype", "fp8_w8a8",
                         "--format", "json"], capsys)
    assert code == 0 and [row["M"] for row in json.loads(out)["entries"]] == [1, 4096]
