"""The unified attention closed form against vLLM's own kernels compiled for each target (the committed table
fixtures/vllm/unified-attention-compiled.json, made by bench/vllm_unified_attention_accuracy.py from the
wheels): every compiled config it does not refuse is matched to the byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doctor.engines.vllm.unified_attention import kernel_revision
from doctor.kernels.estimate import analytic
from doctor.kernels.unified_attention_smem import segments_reduce_smem, unified_attention_smem

TABLE = Path(__file__).resolve().parents[2] / "fixtures" / "vllm" / "unified-attention-compiled.json"


def _runs() -> list[dict]:
    return json.loads(TABLE.read_text())["runs"]


def _rows(run: dict) -> list[dict]:
    columns = json.loads(TABLE.read_text())["columns"]
    return [dict(zip(columns, row, strict=True)) for row in run["rows"]]


def estimate(row: dict, triton: str, revision: int) -> int:
    if row["kernel"] == "reduce":
        return segments_reduce_smem(row["cc"], row["head_size"], row["segments"], row["num_warps"], triton)
    return unified_attention_smem(row["cc"], row["head_size"], row["block_m"], row["tile"], row["num_warps"],
                                  row["num_stages"], row["kv"], row["kernel"] == "3d", row["window"], row["sinks"],
                                  row["softcap"], triton, revision)


@pytest.mark.parametrize("run", _runs(), ids=lambda r: f"vllm{r['release']}-triton{r['triton']}")
def test_closed_form_equals_every_compiled_config_it_sizes(run):
    revision = kernel_revision(run["release"])
    sized = wrong = 0
    for row in _rows(run):
        try:
            nbytes = estimate(row, run["triton"], revision)
        except ValueError as exc:
            assert "--exact" in str(exc) and row["cc"] < 120, (row, exc)  # only other targets' wgmma path
            continue
        sized += 1
        wrong += nbytes != row["shared"]
        assert nbytes == row["shared"], (row, nbytes)
    assert sized >= len(run["rows"]) // 2 and wrong == 0


def test_table_covers_sm12x_on_the_newest_release_with_its_pinned_triton():
    runs = {(r["release"], r["triton"]): _rows(r) for r in _runs()}
    newest = runs[("0.33.0", "3.8.0")]
    assert {r["cc"] for r in newest} >= {120, 121}
    assert {r["kernel"] for r in newest} == {"2d", "3d", "reduce"}
    assert {r["head_size"] for r in newest} >= {64, 80, 96, 128, 256, 512}
    assert {r["kv"] for r in newest if r["kernel"] != "reduce"} == {"bf16", "fp8"}
    assert any(r["window"] for r in newest) and any(r["sinks"] and r["softcap"] for r in newest)


def test_fp8_kv_at_head_size_512_overflows_sm12x_in_the_table_and_the_estimate():
    rows = [r for r in _rows(next(r for r in _runs() if r["release"] == "0.33.0" and r["triton"] == "3.8.0"))
            if (r["head_size"], r["kv"], r["kernel"], r["cc"], r["window"]) == (512, "fp8", "2d", 120, 0)]
    assert rows and all(r["shared"] > 101376 for r in rows)
    assert unified_attention_smem(120, 512, 16, 32, kv_dtype="fp8", triton="3.8.0") > 101376
    assert unified_attention_smem(120, 512, 16, 32, kv_dtype="bf16", triton="3.8.0") <= 101376


def test_buffers_scale_with_the_tiles():
    small = unified_attention_smem(120, 128, 16, 16, triton="3.8.0")
    assert unified_attention_smem(120, 128, 16, 32, triton="3.8.0") > small
    assert unified_attention_smem(120, 128, 16, 16, kv_dtype="fp8", triton="3.8.0") > small  # dequantised copies
    # revision 2 stages a windowed V again after the softmax; revision 1 only masks the scores
    assert unified_attention_smem(120, 128, 16, 32, sliding_window=4096, triton="3.8.0", revision=1) == \
        unified_attention_smem(120, 128, 16, 32, triton="3.8.0")
    assert unified_attention_smem(120, 128, 16, 32, sliding_window=4096, triton="3.8.0", revision=2) > \
        unified_attention_smem(120, 128, 16, 32, triton="3.8.0")


def test_wgmma_path_is_refused_not_guessed():
    with pytest.raises(ValueError, match="--exact"):
        unified_attention_smem(90, 128, 64, 32, triton="3.8.0")


def test_registered_families_answer_in_the_launch_vocabulary():
    params = {"head_size": 64, "block_m": 16, "tile": 32, "kv_dtype": "fp8"}
    assert analytic("unified_attention", 120, params, triton="3.8.0") == \
        unified_attention_smem(120, 64, 16, 32, kv_dtype="fp8", triton="3.8.0")
    assert analytic("unified_attention_reduce", 120, {"head_size": 512, "segments": 64}, triton="3.8.0") == \
        segments_reduce_smem(120, 512, 64, triton="3.8.0")


def test_launched_bf16_kernels_of_the_device_record_equal_the_closed_form():
    """fixtures/device/vllm-unified-attention-sm12x.json: `unified_attention` launched on an H100 (Triton 3.6.0,
    2D kernel, TILE 32) and compiled again for sm_120/121. Its fp8 rows ran without `kv_quant_mode` (a plain cast,
    no scale), which no vLLM fp8 launch does (FP8_PER_TENSOR dequantises), so only the bf16 rows are compared."""
    record = json.loads((TABLE.parents[1] / "device" / "vllm-unified-attention-sm12x.json").read_text())
    rows = [r for r in record["rows"] if r["kv"] == "bf16"]
    assert record["triton"] == "3.6.0" and len(rows) == 6
    for row in rows:
        block_m = max(16, 1 << (row["heads"] // row["kv_heads"] - 1).bit_length())
        for cc in (120, 121):
            estimate = unified_attention_smem(cc, row["head_size"], block_m, 32, row["num_warps"], row["num_stages"],
                                              "bf16", False, row["window"], triton="3.6.0")
            assert estimate == row["launched_shared"] == row[f"sm{cc}_shared"], (row, estimate)
