"""Gather a cluster's facts through a running Ray cluster: the probe (doctor/cluster/node_probe.py) once on
every alive node, each as a task pinned to its node with Ray's node-affinity scheduling (`soft=False`: it runs
there or fails, never elsewhere). A node that dies mid-probe, fails, or does not answer within the timeout is
reported and the others are checked; no node answering is one clear error.

Ray is an optional dependency (`pip install 'sm120-doctor[cluster]'`); the doctor must be installed on every
node, since the probe runs there. The doctor only connects to a running cluster: it never starts one."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import socket
import sys
from collections.abc import Iterator
from typing import Any

from doctor.cluster.node_probe import probe_node
from doctor.cluster.nodes import Cluster, NodeProblem, make_cluster
from doctor.errors import InputError
from doctor.pipeline.facts import Facts, Network
from doctor.validation.facts import facts_from_dict

CONNECT_TIMEOUT = 5.0
HEAD_RESOURCE = "node:__internal_head__"


def gather_ray(address: str, timeout: float) -> Cluster:
    ray = _import_ray()
    with _stdout_to_stderr():
        _connect(ray, address)
        try:
            return _gather(ray, address, timeout)
        finally:
            ray.shutdown()


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Ray's driver prints cluster events (a raylet that died, worker logs) on standard output, which belongs
    to the report (`--format json`): while Ray runs, file descriptor 1 points at standard error."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise InputError("--ray needs Ray: pip install 'sm120-doctor[cluster]' (or `pip install ray`)") from exc
    return ray


def _connect(ray: Any, address: str) -> None:
    if address != "auto":
        host, _, port = address.removeprefix("ray://").rpartition(":")
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
        except (OSError, ValueError) as exc:
            raise InputError(f"no Ray cluster at {address}: {getattr(exc, 'strerror', None) or exc}") from exc
    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError or ValueError depending on the case
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"cannot connect to a Ray cluster at {address}: {first}") from exc


def _order(node: dict[str, Any]) -> tuple[int, str, str]:
    """The head first (it is node rank 0 when it has GPUs), then by address."""
    is_head = HEAD_RESOURCE in (node.get("Resources") or {})
    return (0 if is_head else 1, str(node.get("NodeManagerAddress")), str(node.get("NodeID")))


def _label(node: dict[str, Any]) -> str:
    return f"{node.get('NodeManagerHostname') or node.get('NodeManagerAddress')} [{str(node.get('NodeID'))[:8]}]"


def _gather(ray: Any, address: str, timeout: float) -> Cluster:
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = sorted((n for n in ray.nodes() if n.get("Alive")), key=_order)
    if not nodes:
        raise InputError(f"the Ray cluster at {address} has no alive node")
    task = ray.remote(num_cpus=0, max_retries=0)(probe_node)
    refs = [task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote()
            for n in nodes]
    _, pending = ray.wait(refs, num_returns=len(refs), timeout=timeout)
    facts: list[Facts] = []
    names: list[str] = []
    problems: list[NodeProblem] = []
    for node, ref in zip(nodes, refs, strict=True):
        if ref in pending:
            problems.append(NodeProblem(_label(node), "timeout", f"no answer within {timeout:g} s"))
            _cancel(ray, ref)
            continue
        try:
            answer = ray.get(ref)
        except Exception as exc:  # a dead node, a crashed worker or a failing probe: reported, the rest go on
            problems.append(NodeProblem(_label(node), *_failure(exc)))
            continue
        facts.append(_with_address(facts_from_dict(answer.get("facts"), f"facts from Ray node {_label(node)}"),
                                   node.get("NodeManagerAddress")))
        names.append(str(answer.get("hostname") or _label(node)))
    if not facts:
        details = "; ".join(f"{p.node}: {p.detail}" for p in problems)
        raise InputError(f"no node of the Ray cluster at {address} answered the probe ({details})")
    return make_cluster(facts, names, f"Ray cluster at {address}", problems)


def _with_address(facts: Facts, address: str | None) -> Facts:
    network = facts.network or Network()
    return facts.replace(network=dataclasses.replace(network, address=address or network.address))


def _cancel(ray: Any, ref: Any) -> None:
    with contextlib.suppress(Exception):  # the task's node may be gone already: nothing left to cancel
        ray.cancel(ref, force=True)


def _failure(exc: Exception) -> tuple[str, str]:
    """(kind, one-line detail) of a failed probe task."""
    from ray import exceptions as rex

    died = tuple(getattr(rex, name) for name in ("NodeDiedError", "WorkerCrashedError", "LocalRayletDiedError",
                                                 "OwnerDiedError", "ObjectLostError") if hasattr(rex, name))
    if isinstance(exc, died):
        return "died", f"the node died during the probe ({type(exc).__name__})"
    unschedulable = getattr(rex, "TaskUnschedulableError", None)
    if unschedulable is not None and isinstance(exc, unschedulable):  # pinned with soft=False: its node is gone
        return "died", "the node died before its probe could run there (TaskUnschedulableError)"
    cause = getattr(exc, "cause", None) or exc
    if isinstance(cause, ModuleNotFoundError):
        return "error", f"the doctor is not installed on this node ({cause})"
    text = str(cause).strip().splitlines()
    return "error", f"the probe failed: {type(cause).__name__}: {text[-1] if text else ''}"
