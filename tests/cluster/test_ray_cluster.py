"""`check --ray` against a real local Ray cluster of three nodes (ray.cluster_utils.Cluster), each node
answering with its own facts file through the probe hook (SM120_DOCTOR_NODE_FACTS in its raylet's
environment): three nodes gathered, and a node killed mid-probe reported while the other two are checked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

from doctor.cli import main  # noqa: E402
from doctor.cluster.node_probe import NODE_FACTS_ENV  # noqa: E402

pytestmark = pytest.mark.slow
NODES = ("rack1-node0", "rack1-node1", "rack2-node0")
# sitecustomize for the doomed node: its Ray workers (not the raylet's agents) hang at start-up
SLOW_START = ("import os, time\n"
              "worker = b'default_worker.py' in open('/proc/self/cmdline', 'rb').read()\n"
              "if os.environ.get('SM120_TEST_SLOW_NODE') and worker:\n"
              "    time.sleep(90)\n")


def facts_file(tmp_path, name):
    path = tmp_path / f"{name}.json"
    assert main(["snapshot", "--hardware", "rtx-pro-6000-x8", "--node", name, "-o", str(path)]) == 0
    return path


def node_args(tmp_path, name, slow=False):
    env = {NODE_FACTS_ENV: str(facts_file(tmp_path, name))}
    if slow:  # this node's workers hang at start-up: the probe is still running when the node is killed
        site = tmp_path / "slow-site"
        site.mkdir(exist_ok=True)
        (site / "sitecustomize.py").write_text(SLOW_START)
        env.update(PYTHONPATH=str(site), SM120_TEST_SLOW_NODE="1")
    return {"num_cpus": 1, "env_vars": env}


@pytest.fixture
def local_cluster():
    cluster = Cluster(shutdown_at_exit=False)
    yield cluster
    cluster.shutdown()


def doctor_check(address, *extra, timeout=240):
    cmd = [sys.executable, "-m", "doctor", "check", "moonshotai/Kimi-K2-Instruct", "--offline", "--ray", address,
           "--engine", "sglang==0.5.23", "--format", "json", *extra]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0"})


def test_three_nodes_are_gathered(tmp_path, local_cluster):
    for i, name in enumerate(NODES):
        args = node_args(tmp_path, name)
        local_cluster.add_node(**({**args, "include_dashboard": False} if i == 0 else args))
    local_cluster.wait_for_nodes()
    start = time.monotonic()
    proc = doctor_check(local_cluster.address)
    out, err = proc.communicate(timeout=300)
    print(f"check --ray over 3 nodes: {time.monotonic() - start:.1f} s")
    report = json.loads(out)
    assert sorted(report["cluster"]["names"]) == sorted(NODES), err
    assert report["cluster"]["problems"] == []


def test_a_node_killed_mid_probe_is_reported_and_the_rest_checked(tmp_path, local_cluster):
    local_cluster.add_node(**{**node_args(tmp_path, NODES[0]), "include_dashboard": False})
    local_cluster.add_node(**node_args(tmp_path, NODES[1]))
    doomed = local_cluster.add_node(**node_args(tmp_path, NODES[2], slow=True))
    local_cluster.wait_for_nodes()
    proc = doctor_check(local_cluster.address, "--ray-timeout", "120")
    time.sleep(15)  # the probe tasks are placed; the doomed node's worker is still starting
    local_cluster.remove_node(doomed, allow_graceful=False)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode in (0, 1), (proc.returncode, err[-2000:])
    report = json.loads(out)
    assert len(report["cluster"]["names"]) == 2
    (problem,) = report["cluster"]["problems"]
    assert problem["kind"] == "died" and "died" in problem["detail"], problem
    assert "Traceback" not in err


def test_a_node_that_does_not_answer_in_time_is_reported(tmp_path, local_cluster):
    local_cluster.add_node(**{**node_args(tmp_path, NODES[0]), "include_dashboard": False})
    local_cluster.add_node(**node_args(tmp_path, NODES[1], slow=True))
    local_cluster.wait_for_nodes()
    proc = doctor_check(local_cluster.address, "--ray-timeout", "8")
    out, _ = proc.communicate(timeout=300)
    report = json.loads(out)
    assert report["cluster"]["names"] == [NODES[0]]
    (problem,) = report["cluster"]["problems"]
    assert problem["kind"] == "timeout" and "8 s" in problem["detail"], problem
