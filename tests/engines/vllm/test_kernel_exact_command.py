"""`kernels --exact` with vLLM, the compile faked: the command asks the vLLM engine for its compile jobs (vLLM's own
kernel files from the wheel, one launch per kernel check), hands them to compile_many with the Triton the release
pins, and reports the compiled bytes with method "exact"; a failed compile is one line and exit 2."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from doctor.engines.vllm import exact as vllm_exact
from doctor.kernels import exact

GPT_OSS = ["kernels", "openai/gpt-oss-120b", "--hardware", "rtx-pro-6000-x8", "--engine", "vllm==0.33.0", "--exact",
           "--format", "json"]
ATTENTION = '''
def kernel_unified_attention(output_ptr, stride_ks_blk: tl.int64, HEAD_SIZE: tl.constexpr):
    pass

def reduce_segments(output_ptr, NUM_SEGMENTS_PER_SEQ: tl.constexpr):
    pass
'''


@pytest.fixture
def wheel(tmp_path, monkeypatch):
    """A stand-in for the release's kernel files (the fetch is not what is tested here)."""
    ops = tmp_path / "site" / "vllm" / "v1" / "attention" / "ops"
    ops.mkdir(parents=True)
    (ops / "triton_unified_attention.py").write_text(ATTENTION)
    (ops / "triton_attention_helpers.py").write_text("")
    monkeypatch.setattr(vllm_exact, "source_root", lambda run: tmp_path / "site")
    monkeypatch.setattr(exact, "ensure_triton", lambda version, root=None: tmp_path / f"triton-{version}")
    return tmp_path


def _fake(results, seen):
    def compile_many(jobs, source_root=None, site=None, workers=None, cache_dir=None, progress=None, **_):
        seen.update(jobs=list(jobs), site=site, workers=workers, cache_dir=cache_dir)
        return [results(job) for job in jobs]
    return compile_many


def test_the_vllm_jobs_are_wired_and_the_method_says_exact(wheel, monkeypatch, capsys):
    seen: dict = {}
    monkeypatch.setattr(exact, "compile_many", _fake(lambda job: {"shared": 1000 + len(job.launch["args"])}, seen))
    assert main(GPT_OSS) == 0
    rows = json.loads(capsys.readouterr().out)["kernels"]
    assert [r["method"] for r in rows] == ["exact"] * 6
    jobs = seen["jobs"]
    assert [r["bytes"] for r in rows] == [1000 + len(j.launch["args"]) for j in jobs]
    assert seen["site"] == wheel / "triton-3.8.0" and seen["workers"] is None  # the pin; one process per core
    assert seen["cache_dir"] == exact.user_cache() / "smem-results"
    assert [j.launch["name"] for j in jobs] == ["kernel_unified_attention", "kernel_unified_attention",
                                                "reduce_segments", "reduce_segments", "kernel_unified_attention",
                                                "kernel_unified_attention"]
    first = jobs[0]
    assert first.source.endswith("vllm/v1/attention/ops/triton_unified_attention.py") and first.cc == 120
    assert [m for m, _ in first.launch["modules"]] == ["vllm.v1.attention.ops.triton_attention_helpers",
                                                       "vllm.v1.attention.ops.triton_unified_attention"]
    assert first.launch["prelude"].endswith("exact_prelude.py") and first.launch["declared_types"]
    assert first.launch["args"]["stride_ks_blk"] == 0  # declared tl.int64 in this source
    assert [j.launch["args"]["IS_3D"] for j in jobs if j.launch["name"] != "reduce_segments"] == [
        False, True, False, True]
    assert jobs[4].launch["args"]["SLIDING_WINDOW"] == 128 and jobs[0].launch["args"]["USE_SINKS"]


def test_a_failed_compile_is_one_line_and_exit_2(wheel, monkeypatch, capsys):
    error = {"error": "triton.compiler.errors.CompilationError: at 12:4:\nout of resource: shared memory"}
    monkeypatch.setattr(exact, "compile_many", _fake(lambda job: error, {}))
    assert main(GPT_OSS) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "exact compile of unified_attention (unified attention 2D) failed: out of resource" in err


def test_a_kernel_file_missing_from_the_source_is_one_line(wheel, monkeypatch, capsys):
    (wheel / "site" / "vllm" / "v1" / "attention" / "ops" / "triton_unified_attention.py").unlink()
    monkeypatch.setattr(exact, "compile_many", _fake(lambda job: {"shared": 1}, {}))
    assert main(GPT_OSS) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no vLLM unified_attention kernel source under" in err


MOE = '''
def fused_moe_kernel(a_ptr, b_ptr, b_scale_ptr, sorted_token_ids_ptr, N, K, EM, num_valid_tokens, stride_am, stride_ak,
                     group_n: tl.constexpr, BLOCK_SIZE_M: tl.constexpr, top_k: tl.constexpr, HAS_BIAS: tl.constexpr,
                     compute_type: tl.constexpr, use_fp8_w8a8: tl.constexpr, USE_TD: tl.constexpr = False):
    pass
'''


def test_mla_decode_and_fused_moe_jobs(wheel, monkeypatch, capsys):
    moe = wheel / "site" / "vllm" / "model_executor" / "layers" / "fused_moe"
    moe.mkdir(parents=True)
    (moe / "fused_moe.py").write_text(MOE)
    (wheel / "site" / "vllm" / "v1" / "attention" / "ops" / "triton_decode_attention.py").write_text("")
    seen: dict = {}
    monkeypatch.setattr(exact, "compile_many", _fake(lambda job: {"shared": 7}, seen))
    argv = ["kernels", "deepseek-ai/DeepSeek-V3", "--hardware", "rtx-pro-6000-x8", "--engine", "vllm==0.33.0",
            "--exact", "--format", "json", "--", "--kv-cache-dtype", "fp8"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)["kernels"]
    assert [(r["kernel"], r["bytes"], r["method"]) for r in rows] == [("decode_attention", 7, "exact")] + [
        ("fused_moe", 7, "exact")] * 5
    mla, moe_job = seen["jobs"][0], seen["jobs"][1]
    assert mla.launch["name"] == "_fwd_grouped_kernel_stage1" and mla.launch["args"]["K_Buffer"] == {"ptr": "fp8e4nv"}
    assert mla.launch["args"]["PAGE_SIZE"] == 16 and mla.launch["options"] == {"num_warps": 4, "num_stages": 2}
    args = moe_job.launch["args"]
    assert args["a_ptr"] == args["b_ptr"] == {"ptr": "fp8e4nv"} and args["b_scale_ptr"] == {"ptr": "fp32"}
    assert args["stride_ak"] == 1 and args["N"] % 16 == 0 and args["num_valid_tokens"] % 16  # as the binder sees them
    assert (args["group_n"], args["BLOCK_SIZE_M"], args["top_k"], args["HAS_BIAS"], args["USE_TD"]) == (
        128, 16, 8, False, False)
    assert args["compute_type"] == {"tl": "bf16"} and args["use_fp8_w8a8"] is True


def test_a_release_pip_cannot_fetch_is_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SM120_DOCTOR_CACHE", str(tmp_path))
    monkeypatch.setattr(exact.subprocess, "run", lambda *a, **k: exact.subprocess.CompletedProcess(
        a, 1, "", "ERROR: Could not find a version\nERROR: No matching distribution found for vllm==0.33.0\n"))
    assert main(GPT_OSS) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("cannot download vllm==0.33.0: ERROR: No matching distribution found for vllm==0.33.0")
    assert len(err.splitlines()) == 1
