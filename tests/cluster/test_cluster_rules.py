"""Every cluster rule fires on its positive case and stays quiet on its negative one."""

import pytest

from tests.cluster.cases import CLUSTER_CASES, cluster_findings


@pytest.mark.parametrize("case", CLUSTER_CASES, ids=[c.name for c in CLUSTER_CASES])
def test_cluster_rule_case(case):
    found = cluster_findings(case)
    assert (case.rule in found) is case.fires, sorted(found)
