"""Property tests for the certification functions: inequalities that must hold for any data, and exact identities."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, assume, HealthCheck

from humancert import (Annotations, upper_bound, upper_terms, confidence, certify, upper_bound_at, lower_bound_at,
                       hoeffding_slack, aggregate, simulate_oracle_labels, noisy_labels)
from humancert.certify import _score, CONFIDENCE_METHODS

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
probs = st.floats(0, 1, allow_nan=False)


@SETTINGS
@given(st.integers(0, 2**32 - 1), st.integers(2, 7), st.integers(2, 4), st.floats(0, 0.6))
def test_empirical_upper_below_theoretical(seed, K, C, miss):
    rng = np.random.default_rng(seed)
    x = np.where(rng.random((25, K)) < miss, -1, rng.integers(0, C, (25, K)))
    x[0, :2] = [0, 1 % C]
    assume(((x >= 0).sum(0) >= 1).all())
    a = Annotations.from_wide(x, missing=-1)
    ue, ut = upper_bound(a, "empirical").value, upper_bound(a, "theoretical").value
    assert 0 <= ue <= ut + 1e-15 <= 1 + 1e-15
    # per-item identity behind it: X^(t) = 1/n + (1 - 1/n) X^(e)
    n = a.n_labels[a.n_labels >= 2].astype(float)
    np.testing.assert_allclose(upper_terms(a, "theoretical"), 1 / n + (1 - 1 / n) * upper_terms(a, "empirical"), atol=1e-12)


@SETTINGS
@given(probs, probs, st.integers(1, 200_000), st.floats(0, 0.2))
def test_confidence_methods(L, U, n, tau):
    res = {m: confidence(L, U, n, m, tau) for m in CONFIDENCE_METHODS}
    if L - tau <= U:
        assert all(r.score == -1.0 and not r.feasible for r in res.values())
        return
    for r in res.values():
        assert r.feasible and r.t_u >= 0 and r.t_l >= -1e-12                 # the split is admissible
        assert abs(L - r.t_l - np.sqrt(r.t_u + U * U) - tau) < 1e-9           # eq. 14
        if r.method == "balanced": assert abs(r.score - (1 - 2 * max(r.delta_u, r.delta_l))) < 1e-12   # equal budgets
        else: assert abs(r.score - (1 - r.delta_u - r.delta_l)) < 1e-12          # eq. 17
        assert -1 <= r.score <= 1
    assert res["optimal"].score >= max(res["hms"].score, res["oms"].score, res["balanced"].score) - 1e-12
    # no feasible split does better than 'optimal' (dense grid check)
    hi = (L - tau) ** 2 - U * U
    grid = np.linspace(0, hi, 4001)
    assert res["optimal"].score >= _score(grid, L, U, n, tau).max() - 1e-9


@SETTINGS
@given(st.floats(0.3, 0.95), st.floats(0.01, 0.05), st.integers(10, 5000))
def test_confidence_grows_with_n_and_margin(U, margin, n):
    L = min(1.0, U + margin)
    s1, s2 = confidence(L, U, n).score, confidence(L, U, 4 * n).score
    assert s2 >= s1 - 1e-12
    assert confidence(min(1.0, L + 0.02), U, n).score >= s1 - 1e-12


def test_certify_is_invariant_to_item_order_and_label_names():
    s = simulate_oracle_labels(1500, [0.8] * 5, n_classes=3, hard_share=0.2, hard_accuracy=[0.5] * 5, seed=5)
    model = noisy_labels(s.oracle, 0.9, 3, np.random.default_rng(6))
    c1 = certify(s.annotations, model, reference="plurality")
    perm = np.random.default_rng(7).permutation(1500)
    names = np.array(["q", "r", "s"], dtype=object)
    wide = s.annotations.to_wide().iloc[perm]
    a2 = Annotations.from_wide(wide.apply(lambda col: col.map(lambda v: None if v is None else names[v])))
    c2 = certify(a2, pd.Series(names[model[perm]], index=wide.index), reference="plurality")
    assert c1.upper_theoretical == pytest.approx(c2.upper_theoretical, abs=1e-12)
    assert c1.n_items == c2.n_items
    # plurality ties are broken at random, so L_N may move by the handful of tied items
    assert abs(c1.lower - c2.lower) < 0.02


def test_finite_sample_bounds_bracket_plugins():
    s = simulate_oracle_labels(400, [0.7, 0.8, 0.9], n_classes=2, seed=8)
    ub = upper_bound_at(s.annotations, 0.01)
    assert ub.value >= ub.estimate and ub.slack == pytest.approx(hoeffding_slack(400, 0.01))
    ref = aggregate(s.annotations, "plurality").to_numpy()
    lb = lower_bound_at(ref, s.oracle, 0.01)
    assert lb.value <= lb.estimate


def test_coverage_lower_bound_many_levels():
    "Theorem 6 with the oracle as reference (tight): failure rate <= delta + 4 SE at several delta and N."
    rng = np.random.default_rng(123)
    R = 2000
    for N, delta, acc in [(30, 0.2, 0.5), (100, 0.1, 0.7), (500, 0.05, 0.5)]:
        correct = rng.random((R, N)) < acc
        L = correct.mean(1)
        fails = (L - hoeffding_slack(N, delta) > acc).mean()
        assert fails <= delta + 4 * np.sqrt(delta * (1 - delta) / R), (N, delta, fails)


def test_default_certificate_does_not_depend_on_row_order():
    "The betting tail reads items in a fixed order (their identifiers), so shuffling rows leaves the certificate unchanged."
    s = simulate_oracle_labels(800, [0.85] * 5, n_classes=2, hard_share=0.2, hard_accuracy=[0.6] * 5, seed=15)
    model = noisy_labels(s.oracle, 0.95, 2, np.random.default_rng(16))
    wide = s.annotations.to_wide()
    c1 = certify(Annotations.from_wide(wide), pd.Series(model, index=wide.index), reference=pd.Series(s.oracle, index=wide.index))
    perm = np.random.default_rng(17).permutation(800)
    w2 = wide.iloc[perm]
    c2 = certify(Annotations.from_wide(w2), pd.Series(model[perm], index=w2.index), reference=pd.Series(s.oracle[perm], index=w2.index))
    assert c1.tails == ("binomial", "betting")
    assert c1.score == pytest.approx(c2.score, abs=1e-12)
