"""Issue 15 point 5: check's cost is near-linear in the GPUs of a facts file. Before: 32 GPUs 2.7 s,
64 GPUs 41 s, 128 GPUs over 150 s (a linear scan per link lookup inside cubic and per-layout loops).
Measured in CPU time of this process, so a busy machine does not make the test flaky."""

import time
from pathlib import Path

import pytest

from doctor.pipeline.check import CheckRequest, run_check
from doctor.plan.layouts import Layout, communication
from doctor.validation.facts import load_facts
from tests.scale_facts import write_scaled_facts


def _check_cpu_seconds(facts_file: Path) -> float:
    start = time.process_time()
    report = run_check(CheckRequest(model="moonshotai/Kimi-K2.5", facts_file=facts_file, engines=["sglang==0.5.8"],
                                    offline=True))
    assert report.analysis.plan and report.analysis.plan["best"]["tp"] == 64
    return time.process_time() - start


@pytest.mark.parametrize(("gpus", "shape", "budget_s"), [(256, "hosts", 3.0), (128, "mesh", 3.0)])
def test_many_gpus_check_in_seconds(tmp_path, gpus, shape, budget_s):
    run_check(CheckRequest(model="moonshotai/Kimi-K2.5", hardware="rtx-pro-6000-x8", offline=True))  # warm caches
    assert _check_cpu_seconds(write_scaled_facts(gpus, tmp_path / "facts.json", shape)) < budget_s


def test_cost_grows_near_linearly(tmp_path):
    small = _check_cpu_seconds(write_scaled_facts(128, tmp_path / "small.json", "hosts"))
    large = _check_cpu_seconds(write_scaled_facts(512, tmp_path / "large.json", "hosts"))
    assert large < 4 * small * 1.5  # 4x the GPUs; cubic growth would be 64x


def test_numa_groups_on_a_large_mesh(tmp_path):
    facts = load_facts(write_scaled_facts(96, tmp_path / "facts.json", "mesh"))
    # 8 GPUs per NUMA node: NODE/PIX inside, SYS across
    assert facts.link_index.sys_free_group(facts.gpus) == 8
    comm = communication(facts, Layout(tp=8, pp=12))
    assert (comm.tp_link, comm.pp_link) == ("NODE", "SYS")
    assert communication(facts, Layout(tp=2, pp=3)).tp_link == "PIX"


# --- the indexed topology answers what the old scans answered (oracle: the pre-index code) ------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from doctor.pipeline.facts import Facts, Gpu, Link, Source  # noqa: E402

OLD_RANK = {"NV": 0, "PIX": 1, "PXB": 2, "PHB": 3, "NODE": 4, "SYS": 5}


def _old_link(facts, a, b):
    return next((link for link in facts.topology if {link.a, link.b} == {a, b}), None)


def _old_worst(facts, a_ids, b_ids=None):
    worst = None
    pairs = ([(x, y) for i, x in enumerate(a_ids) for y in a_ids[i + 1:]] if b_ids is None
             else [(x, y) for x in a_ids for y in b_ids])
    for x, y in pairs:
        link = _old_link(facts, x, y)
        kind = ("NV" if link.kind.startswith("NV") else link.kind) if link else "SYS"
        if worst is None or OLD_RANK.get(kind, 5) > OLD_RANK.get(worst, 5):
            worst = kind
    return worst


def _old_comm(facts, layout):
    ids = [g.index for g in facts.gpus][: layout.gpus]
    groups = [ids[s * layout.tp:(s + 1) * layout.tp] for s in range(layout.pp)]
    tp_link = max((_old_worst(facts, g) for g in groups if len(g) > 1), key=lambda k: OLD_RANK.get(k or "", 5),
                  default=None)
    pp_link = None
    if layout.pp > 1:
        pp_link = max((_old_worst(facts, groups[s], groups[s + 1]) for s in range(layout.pp - 1)),
                      key=lambda k: OLD_RANK.get(k or "", 5))
    links = [_old_link(facts, x, y) for g in groups for i, x in enumerate(g) for y in g[i + 1:]]
    custom = layout.tp in (2, 4, 6, 8) and not (layout.tp > 2 and not all(
        link is not None and link.kind.startswith("NV") for link in links)) and not any(
        link is not None and link.p2p_read is False for link in links)
    return tp_link, pp_link, custom


def _old_sys_free_group(facts):
    if not any(link.kind == "SYS" for link in facts.topology):
        return None
    best = 1
    for gpu in facts.gpus:
        group = [gpu.index]
        for other in facts.gpus:
            if other.index not in group and all(
                    (link := _old_link(facts, other.index, g)) is not None and link.kind != "SYS" for g in group):
                group.append(other.index)
        best = max(best, len(group))
    return best


@st.composite
def topologies(draw):
    n = draw(st.integers(1, 9))
    order = draw(st.permutations(range(n)))
    gpus = tuple(Gpu(index=i, name="GPU", compute_capability="12.0") for i in order)
    links = []
    for a in range(n):
        for b in range(a + 1, n):
            kind = draw(st.sampled_from([None, "NV4", "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "unknown"]))
            if kind is not None:
                links.append(Link(a=a, b=b, kind=kind, p2p_read=draw(st.sampled_from([None, True, False]))))
    return Facts(source=Source(kind="snapshot"), gpus=gpus, topology=tuple(links))


@settings(max_examples=300, deadline=None)
@given(facts=topologies(), data=st.data())
def test_indexed_topology_matches_the_scans(facts, data):
    n = len(facts.gpus)
    tp = data.draw(st.integers(1, n))
    pp = data.draw(st.integers(1, max(1, n // tp)))
    comm = communication(facts, Layout(tp=tp, pp=pp))
    assert (comm.tp_link, comm.pp_link, comm.custom_all_reduce) == _old_comm(facts, Layout(tp=tp, pp=pp))
    assert facts.link_index.sys_free_group(facts.gpus) == _old_sys_free_group(facts)
