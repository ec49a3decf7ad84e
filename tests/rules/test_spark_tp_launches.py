"""A DGX Spark has one GPU, so every TP/PP > 1 vLLM or SGLang launch on one is a multi-node launch (Ray, or
--nnodes): the doctor never reports such a launch as asking for more GPUs than the node has (the false alarm
vLLM's own 'Tensor parallel size exceeds available GPUs' warning raises; CLU040 explains it)."""

from __future__ import annotations

import pytest

from tests.rules.builders import build, findings

LAUNCHES = [
    ("vllm==0.27.1", ("--tensor-parallel-size", "2")),
    ("vllm==0.27.1", ("--tensor-parallel-size", "2", "--distributed-executor-backend", "ray")),
    ("vllm==0.14.0", ("--tensor-parallel-size", "4", "--distributed-executor-backend", "ray")),
    ("vllm==0.27.1", ("--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "0", "--master-addr",
                      "10.0.0.1")),
    ("vllm==0.27.1", ("--pipeline-parallel-size", "2", "--distributed-executor-backend", "ray")),
    ("sglang==0.5.12", ("--tp-size", "2", "--nnodes", "2", "--node-rank", "0", "--dist-init-addr", "10.0.0.1:5000")),
]


@pytest.mark.parametrize("engine,args", LAUNCHES, ids=[" ".join((e, *a)) for e, a in LAUNCHES])
def test_spark_multinode_launch_raises_no_error(engine, args):
    found = findings(build("dgx-spark", None, (engine,)), *args)
    errors = [f.id for fs in found.values() for f in fs if f.severity == "error"]
    assert errors == [], errors
