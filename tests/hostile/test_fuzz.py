"""Issue 15: a brief run of the fuzzer (tests/hostile/fuzz.py) over every input type in the fast set; the long
run (>= 10,000 inputs) is bench/bench_fuzz.py. Any internal error, hang, multi-line error, odd exit code or
file left patched after a successful revert fails."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.fuzz import KINDS, run_case

BRIEF = {"config": 12, "facts": 12, "moe_config": 25, "safetensors": 12, "journal": 25, "argv": 25}


@pytest.mark.parametrize("kind", KINDS)
def test_fuzz_brief(kind):
    @settings(max_examples=BRIEF[kind], deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def one(data):
        outcome = run_case(kind, data.draw)
        assert outcome.problem is None, (outcome.problem, outcome.code, outcome.stderr, outcome.detail)

    one()
