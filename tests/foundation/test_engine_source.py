"""The per-version SGLang knowledge equals what the released wheels' own source computes."""

import itertools
from pathlib import Path

import pytest
from packaging.version import Version

from doctor.engines.pysource import SourceShapeError, evaluate_function
from doctor.engines.sglang.attention import extend_tiles
from doctor.engines.sglang.source import extend_attention_file, extend_tiles_from_source
from tests.wheels import unpacked_wheel

CAPABILITIES = [(7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0), (12, 1)]
HEAD_DIMS = [(64, 64), (128, 128), (192, 128), (256, 256), (288, 256), (512, 512), (576, 512), (80, 80)]


@pytest.mark.wheel
@pytest.mark.parametrize("version", ["0.5.8", "0.5.9", "0.5.23"])
def test_version_tables_match_the_wheel_source(version):
    site = unpacked_wheel("sglang", version)
    path = extend_attention_file(site, Version(version))
    for cc, (lq, lv) in itertools.product(CAPABILITIES, HEAD_DIMS):
        assert extend_tiles_from_source(path, cc, lq, lv) == extend_tiles(Version(version), cc, lq, lv), (cc, lq)


@pytest.mark.wheel
def test_kimi_absorbed_tiles_058_vs_059():
    for version, expected in [("0.5.8", (32, 64)), ("0.5.9", (32, 32))]:
        path = extend_attention_file(unpacked_wheel("sglang", version), Version(version))
        tiles = extend_tiles_from_source(path, (12, 0), 576, 512)
        assert (tiles.block_m, tiles.block_n, tiles.num_warps) == (*expected, 8)


def test_evaluator_refuses_what_it_does_not_model(tmp_path: Path):
    path = tmp_path / "m.py"
    path.write_text("import os\ndef f(Lq, Lv):\n    os.system('echo hi')\n    return (1,)\n")
    with pytest.raises(SourceShapeError, match="unsupported"):
        evaluate_function(path, "f", {"Lq": 1, "Lv": 1}, {})
    path.write_text("def f(Lq, Lv):\n    for i in range(3):\n        pass\n    return Lq\n")
    with pytest.raises(SourceShapeError, match="For"):
        evaluate_function(path, "f", {"Lq": 1, "Lv": 1}, {})
    path.write_text("def f(Lq, Lv):\n    return UNKNOWN\n")
    with pytest.raises(SourceShapeError, match="unknown name"):
        evaluate_function(path, "f", {"Lq": 1, "Lv": 1}, {})
    path.write_text("def g():\n    return 1\n")
    with pytest.raises(SourceShapeError, match="not found"):
        evaluate_function(path, "f", {"Lq": 1, "Lv": 1}, {})


@pytest.mark.wheel
def test_analysis_reads_tiles_from_an_installed_engine(tmp_path):
    """A locally patched install is analysed as patched: the installed source wins over version tables."""
    import shutil

    from doctor.hardware import load_profile
    from doctor.launch import parse_launch
    from doctor.pipeline.analysis import analyze
    from doctor.pipeline.facts import Library
    from doctor.probe.model import load_model

    site = tmp_path / "site"
    original = extend_attention_file(unpacked_wheel("sglang", "0.5.8"), Version("0.5.8"))
    target = extend_attention_file(site, Version("0.5.8"))
    target.parent.mkdir(parents=True)
    shutil.copy(original, target)
    facts = load_profile("rtx-pro-6000-x8").replace(
        libraries={"sglang": Library(name="sglang", version="0.5.8", location=str(site))},
        model=load_model("moonshotai/Kimi-K2.5", {}))
    absorbed = next(k for k in analyze(facts, parse_launch([])).kernels if k.path == "mla-absorbed")
    assert absorbed.bytes == 106496 and absorbed.details["tiles_from"].startswith("installed source")
    text = target.read_text().replace("BLOCK_M, BLOCK_N = (32, 64)\n        elif _is_cuda and CUDA_CAPABILITY[0] >= 8",
                                      "BLOCK_M, BLOCK_N = (32, 32)\n        elif _is_cuda and CUDA_CAPABILITY[0] >= 8")
    target.write_text(text)
    absorbed = next(k for k in analyze(facts, parse_launch([])).kernels if k.path == "mla-absorbed")
    assert (absorbed.config["block_n"], absorbed.bytes) == (32, 71680)
    target.write_text("def broken(:\n")
    absorbed = next(k for k in analyze(facts, parse_launch([])).kernels if k.path == "mla-absorbed")
    assert absorbed.bytes == 106496 and "not readable" in absorbed.details["tiles_from"]
