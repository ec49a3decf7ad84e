"""UMA002 on Ray's memory-monitor kill in each wording Ray has used: `N worker(s) were killed ...` (2.55 on),
`Task was killed ...` (up to 2.54, docs.ray.io's OOM-prevention page) and the worker exit type it records
(`NODE_OUT_OF_MEMORY`); only where the log or --hardware shows a GB10, whose GPU memory is the node's memory."""

from __future__ import annotations

import json

import pytest

from doctor.cli import main

OLD_WORDING = (
    "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
    "Memory on the node (IP: 192.168.100.10, ID: 3a4b6075) where the task (task ID: ffffffff, "
    "name=RayWorkerWrapper.__init__, pid=2712, memory used=96.12GB) was running was {used} / {total} "
    "({share}), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 5c9ac30f) because it "
    "was the most recently scheduled task.\n")
EXIT_TYPE = ("[2026-03-27 13:36:07,742 W 114781 114781] (gcs_server) gcs_worker_manager.cc:55: Reporting worker exit, "
             "worker id = 1c42378b, node id = ffffffff, address = , exit_type = NODE_OUT_OF_MEMORY, exit_detail = "
             "Task was killed due to the node running low on memory.\n")


def _first(tmp_path, capsys, text: str, *args: str) -> list[str]:
    log = tmp_path / "ray.log"
    log.write_text(text, encoding="utf-8")
    main(["diagnose", str(log), *args, "--format", "json", "--fail-on", "never"])
    return [e["rule"] for e in json.loads(capsys.readouterr().out)["explanations"]]


def test_old_wording_with_the_gb10_pool_in_the_line(tmp_path, capsys):
    text = OLD_WORDING.format(used="113.81GB", total="119.64GB", share="0.951351")
    assert _first(tmp_path, capsys, text)[:1] == ["UMA002"]


@pytest.mark.parametrize("hardware", ["dgx-spark"])
def test_exit_type_on_a_stated_gb10(tmp_path, capsys, hardware):
    assert _first(tmp_path, capsys, EXIT_TYPE, "--hardware", hardware, "--engine", "vllm")[:1] == ["UMA002"]


@pytest.mark.parametrize("hardware", ["rtx-5090", "rtx-pro-6000", "h100-sxm-x8"])
def test_exit_type_on_a_discrete_gpu_host_is_host_ram(tmp_path, capsys, hardware):
    assert "UMA002" not in _first(tmp_path, capsys, EXIT_TYPE, "--hardware", hardware, "--engine", "vllm")


def test_old_wording_on_a_33_gb_host_is_not_claimed(tmp_path, capsys):
    text = OLD_WORDING.format(used="32.91GB", total="33.28GB", share="0.988698")
    assert "UMA002" not in _first(tmp_path, capsys, text)
