"""The README's planner example, checked by simulation.

The README says: the running example's model agrees with the majority on 88.08 % of 956 items against U_N^(t) = 0.8537,
and "a study that wants 80 % power for a lead this size needs about 2,400 items
(`plan_study(0.8808, 0.8537, tails=("binomial", "bernstein"), upper_variance=0.024)`)".

Check: studies of the planned size are drawn by resampling the running example's 956 kept items with replacement (so the
true L is 0.8808, the true U^(t) is 0.8537 and the per-item variance of X is 0.0243, the README's parameters, and the
model's agreement and the annotators' per-item agreement keep whatever dependence the real items have, which the
planner ignores), each study is certified by the public `certify` with the planner's tails, and the share certified at
95 % is the power. R = 1,000 studies give a binomial SE of sqrt(0.8 * 0.2 / 1000) = 0.0126 on the power, so the planned
0.807 must lie within 4 SE (0.051) of the simulated share; a planner off by a fifth of the items would be caught by the
second check (power at N / 1.5 clearly below 0.8).
"""
import numpy as np
import pandas as pd
import pytest

import humancert
from humancert import Annotations, certify

R = 1000


@pytest.fixture(scope="module")
def kept_items():
    ds = humancert.load("running_example")
    counts = ds.annotations.to_counts()
    n = counts.sum(axis=1).to_numpy()
    keep = counts.max(axis=1).to_numpy() * 2 > n                       # the certificate's items: a strict majority
    model = ds.predictions["hard"].loc[counts.index].to_numpy()
    return counts.to_numpy()[keep], model[keep], list(counts.columns)


def simulated_power(kept_items, N, R, seed):
    "Share of R resampled studies of N items that `certify` (binomial/bernstein tails, delta 0.05) certifies."
    cnt, model, classes = kept_items
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(R):
        take = rng.integers(0, len(cnt), N)
        ann = Annotations.from_counts(pd.DataFrame(cnt[take], columns=classes))
        hits += certify(ann, model[take], tails=("binomial", "bernstein")).certified
    return hits / R


def test_readme_parameters_are_the_running_example(kept_items):
    "The numbers the README plans with are the running example's: L_N, U_N^(t) and the variance of X_n, recomputed here by hand."
    cnt, model, classes = kept_items
    n = cnt.sum(1)
    x = (cnt ** 2).sum(1) / n ** 2
    majority = np.array(classes, dtype=object)[cnt.argmax(1)]
    assert len(cnt) == 956
    assert (majority == model).mean() == pytest.approx(0.8808, abs=5e-5)
    assert np.sqrt(x.mean()) == pytest.approx(0.8537, abs=5e-5)
    assert x.var() == pytest.approx(0.024, abs=5e-4)


def test_readme_plan_reaches_its_power(kept_items):
    "About 2,400 items, and studies of that size certify with the planned probability (within 4 binomial SE of R = 1,000 studies)."
    plan = humancert.plan_study(0.8808, 0.8537, tails=("binomial", "bernstein"), upper_variance=0.024)
    assert 2300 <= plan.n_items <= 2500, plan                       # "about 2,400 items"
    se = np.sqrt(plan.power * (1 - plan.power) / R)
    got = simulated_power(kept_items, plan.n_items, R, seed=2400)
    assert abs(got - plan.power) < 4 * se, (got, plan.power, se)
    # and the number of items matters: two thirds of the plan falls well short (normal approximation: about 0.6)
    short = simulated_power(kept_items, int(plan.n_items / 1.5), 300, seed=1600)
    assert short < plan.power - 4 * np.sqrt(0.25 / 300), short
