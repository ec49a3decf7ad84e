"""The packages rules read beside an engine (`lib.lmcache`, `lib.bitsandbytes`, `lib.deep-gemm`, `lib.b12x`,
`lib.ray`) are packages `--engine` takes, so a what-if states them as a probe would find them installed: a
deployment whose report names LMCache 0.3.9 gets TPK001 on the command line, not "unknown package"."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main
from doctor.engines.registry import parse_engine_spec


@pytest.mark.parametrize(("spec", "name"), [
    ("lmcache==0.3.9", "lmcache"), ("bitsandbytes==0.45.0", "bitsandbytes"), ("deep_gemm==2.1.0", "deep-gemm"),
    ("deep-gemm==2.1.0", "deep-gemm"), ("b12x==0.2.0", "b12x"), ("ray==2.49.0", "ray"),
])
def test_side_packages_are_stated_under_the_names_rules_read(spec, name):
    lib = parse_engine_spec(spec)
    assert (lib.name, lib.what_if) == (name, True)


@pytest.mark.parametrize(("lmcache", "fires"), [("0.3.9", True), ("0.4.5", False)])
def test_lmcache_stated_on_the_command_line_reaches_its_rule(capsys, lmcache, fires):
    code = main(["check", "meta-llama/Llama-3.1-8B-Instruct", "--hardware", "rtx-pro-6000", "--offline",
                 "--engine", "vllm==0.13.0", "--engine", f"lmcache=={lmcache}", "--format", "json", "--",
                 "--kv-transfer-config", '{"kv_connector":"LMCacheConnectorV1","kv_role":"kv_both"}'])
    ids = {f["id"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert ("TPK001" in ids) is fires
    if fires:
        assert code == 1  # TPK001 is an error
