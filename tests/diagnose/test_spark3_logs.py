"""Spark cluster log lines (rules/spark_clusters.toml): vLLM's local-GPU-count warnings are explained on GB10
logs only; the same line on an 8-GPU node (gpustack#4028, TP 16 over two nodes) is no Spark's."""

from __future__ import annotations

import io

from doctor.diagnose.diagnosis import diagnose
from doctor.hardware import load_profile
from tests.diagnose.corpus import empty_base

EIGHT_GPU = ("(EngineCore_DP0 pid=512) WARNING 12-25 11:51:11 [ray_utils.py:331] Tensor parallel size (16) exceeds "
             "available GPUs (8). This may result in Ray placement group allocation failures. Consider reducing "
             "tensor_parallel_size to 8 or less, or ensure your Ray cluster has 16 GPUs available.\n")
BUNDLES = ("(EngineCore_DP0 pid=1088) WARNING 12-17 23:27:50 [ray_utils.py:207] tensor_parallel_size=2 is bigger "
           "than a reserved number of GPUs (1 GPUs) in a node "
           "9b520231c0732c57debefe20b1e67dd01e4d5fcf474c048cf68c4789. "
           "Tensor parallel workers can be spread out to 2+ nodes which can degrade the performance unless you have "
           "fast interconnect across nodes, like Infiniband.\n")


def _claimed(log: str, profile: str | None = None) -> list[str]:
    base = load_profile(profile) if profile else empty_base()
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log.encode())), "t", base, "t", {})
    return [e.rule for e in diagnosis.explanations]


def test_eight_gpu_node_warning_is_not_claimed():
    assert "CLU040" not in _claimed(EIGHT_GPU)
    assert "CLU040" not in _claimed(EIGHT_GPU, "rtx-pro-6000-x8")


def test_spark_bundle_warning_is_explained_with_gb10_named():
    assert _claimed(BUNDLES, "dgx-spark")[:1] == ["CLU040"]
    assert _claimed("GPU 0: NVIDIA GB10\n" + BUNDLES)[:1] == ["CLU040"]
    assert "CLU040" not in _claimed(BUNDLES)


RAY_OOM = ("ray.exceptions.OutOfMemoryError: 1 worker(s) were killed due to the node running low on memory. Memory on "
           "the node (IP: 10.99.0.2) was 113.76GB / {total}GB (0.950345), which exceeds the memory usage threshold of "
           "0.95.\n")


def test_ray_oom_kill_is_gb10s_by_the_pool_total_or_a_named_gb10():
    assert _claimed(RAY_OOM.format(total="119.70"))[:1] == ["UMA002"]
    assert "UMA002" not in _claimed(RAY_OOM.format(total="125.70"))  # a 128 GB host with a discrete GPU
    assert _claimed(RAY_OOM.format(total="125.70"), "dgx-spark")[:1] == ["UMA002"]
    assert "UMA002" not in _claimed(RAY_OOM.format(total="125.70"), "rtx-pro-6000")
