import pytest

from tests.fix.killharness import run_trials

pytestmark = [pytest.mark.wheel, pytest.mark.slow]


def test_sigkill_at_random_points_never_corrupts(sglang_058):
    results = run_trials(sglang_058, trials=16, seed=7)
    outcomes = {r.outcome for r in results}
    # both sides of the commit point were hit, so the test exercised the dangerous window
    assert outcomes == {"original", "patched"}, [(round(r.killed_after_s, 3), r.outcome) for r in results]
