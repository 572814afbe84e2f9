"""Issue 33's conventions on the gold planners of notebook 17: `confidence` for the level (the old `target` and `delta` kept as
keywords), and the simulation's seed recorded in `plan_gold_procedures`' result."""
import numpy as np
import pytest
from scipy import stats

from humancert.certification.planner import plan_gold_study, plan_gold_procedures


def test_plan_gold_study_confidence_by_hand():
    "Hoeffding's plan at confidence 0.9: the smallest n with Phi(sqrt(n) (lead - 2 sqrt(ln(1/0.1)/(2n))) / sd) >= 0.8, found by a loop."
    lead, sd = 0.08, 0.45
    ph = lambda n: stats.norm.cdf(np.sqrt(n) * (lead - 2 * np.sqrt(np.log(10) / (2 * n))) / sd)
    n_hand = next(n for n in range(2, 100_000) if ph(n) >= 0.8)
    for kw in ({"confidence": 0.9}, {"target": 0.9}, {"delta": 0.1}):
        p = plan_gold_study(lead, sd, tail="hoeffding", test="plain", **kw)
        assert p.n_gold == n_hand and p.confidence == 0.9, kw
    with pytest.raises(ValueError, match="looks like a failure probability"): plan_gold_study(lead, sd, 0.05)
    with pytest.raises(ValueError, match="`target` is the old name of `confidence`"): plan_gold_study(lead, sd, confidence=0.9, target=0.99)


def test_plan_gold_procedures_records_its_seed():
    fresh = plan_gold_procedures(0.1, 0.45, reps=60, seed=None)
    assert isinstance(fresh.seed, int) and (fresh.to_frame()["seed"] == fresh.seed).all()
    again = plan_gold_procedures(0.1, 0.45, reps=60, seed=fresh.seed)
    assert np.array_equal(again.table.to_numpy(), fresh.table.to_numpy(), equal_nan=True)
    assert plan_gold_procedures(0.1, 0.45, confidence=0.9, reps=60).confidence == 0.9
