"""Property tests for the certification functions: inequalities that must hold for any data, and exact identities."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st, assume, HealthCheck

from humancert import (Annotations, upper_bound, upper_terms, confidence, certify, upper_bound_at, lower_bound_at,
                       hoeffding_slack, aggregate, simulate_oracle_labels, noisy_labels)
from humancert.certification.certify import _score, CONFIDENCE_METHODS

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


def hoeffding_pair(t_u, L, U, n, tau):
    "delta_u and delta_l of a split, written out from Theorems 5 and 6 (X_n and A_n in [0, 1]): t_l = L - tau - sqrt(U^2 + t_u) (eq. 14)."
    t_l = L - tau - np.sqrt(U * U + t_u)
    return np.exp(-2 * n * t_u ** 2), np.exp(-2 * n * t_l ** 2), t_l


def brute_force_best(L, U, n, tau):
    "The largest 1 - delta_u - delta_l over the feasible splits: a 200,001-point grid, then golden-section search in its best cell."
    hi = (L - tau) ** 2 - U * U
    S = lambda t: 1 - sum(hoeffding_pair(t, L, U, n, tau)[:2])
    grid = np.linspace(0, hi, 200_001)
    k = int(np.argmax(S(grid)))
    a, b = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]
    g = (np.sqrt(5) - 1) / 2
    for _ in range(80):
        c, d = b - g * (b - a), a + g * (b - a)
        a, b = (a, d) if S(c) >= S(d) else (c, b)
    return max(S(grid[k]), S((a + b) / 2))


@SETTINGS
@given(probs, probs, st.integers(1, 200_000), st.floats(0, 0.2))
def test_confidence_methods(L, U, n, tau):
    "Each method's deltas recomputed from the tails' formulas at its reported split; 'optimal' against an independent brute-force search."
    res = {m: confidence(L, U, n, m, tau) for m in CONFIDENCE_METHODS}
    if L - tau <= U:
        assert all(r.score == -1.0 and not r.feasible for r in res.values())
        return
    hi = (L - tau) ** 2 - U * U
    for r in res.values():
        assert r.feasible and -1e-15 <= r.t_u <= hi + 1e-15, (r.method, r.t_u, hi)     # the split is admissible (t_l >= 0)
        du, dl, t_l = hoeffding_pair(r.t_u, L, U, n, tau)
        assert abs(r.t_l - t_l) < 1e-12 and abs(r.delta_u - du) < 1e-12 and abs(r.delta_l - dl) < 1e-12, r
        want = 1 - 2 * max(du, dl) if r.method == "balanced" else 1 - du - dl
        assert abs(r.score - want) < 1e-12, (r.method, r.score, want)
        if r.method == "balanced" and 0 < r.t_u < hi:                               # an interior balance: equal budgets
            assert abs(np.log(max(du, 1e-300)) - np.log(max(dl, 1e-300))) < 1e-6 * max(1.0, abs(np.log(max(du, 1e-300)))), (du, dl)
    best = brute_force_best(L, U, n, tau)
    # 'optimal' is the largest S over the feasible splits: no more (its S is recomputed above at its own split) and no less
    assert abs(res["optimal"].score - best) < 1e-9, (res["optimal"].score, best)


def test_confidence_hand_cases():
    "Two cases worked by hand (no optimiser): an infeasible one, and HMS's split t_u = (L - U) / 2 on the squared scale."
    # L = 0.9, U = 0.6, N = 1000, tau = 0: HMS puts t_u = (0.9 - 0.6) / 2 = 0.15, so t_l = 0.9 - sqrt(0.36 + 0.15) = 0.1858571...
    c = confidence(0.9, 0.6, 1000, "hms")
    t_l = 0.9 - np.sqrt(0.51)
    assert c.t_u == pytest.approx(0.15, abs=1e-15) and c.t_l == pytest.approx(0.18585715714571505, abs=1e-12)
    assert c.score == pytest.approx(1 - np.exp(-2000 * 0.0225) - np.exp(-2000 * t_l ** 2), abs=1e-15)
    # N = 50: delta_u = exp(-100 * 0.0225) = e^-2.25 = 0.105399..., delta_l = exp(-100 * 0.18585716^2) = 0.0316098...
    c = confidence(0.9, 0.6, 50, "hms")
    assert c.delta_u == pytest.approx(0.10539922456186433, rel=1e-12) and c.delta_l == pytest.approx(np.exp(-100 * t_l ** 2), rel=1e-12)
    assert c.score == pytest.approx(1 - 0.10539922456186433 - 0.0316098, abs=1e-6)
    assert confidence(0.6, 0.6, 10 ** 6).score == -1.0 and confidence(0.7, 0.6, 100, tau=0.1).feasible is False


@SETTINGS
@given(st.floats(0.3, 0.95), st.floats(0.01, 0.05), st.integers(10, 5000))
def test_confidence_grows_with_n_and_margin(U, margin, n):
    L = min(1.0, U + margin)
    s1, s2 = confidence(L, U, n).score, confidence(L, U, 4 * n).score
    assert s2 >= s1 - 1e-12
    assert confidence(min(1.0, L + 0.02), U, n).score >= s1 - 1e-12


def test_certify_is_invariant_to_item_order_and_label_names():
    "Shuffled rows and renamed classes give the same certificate, and L_N, U_N^(t) and N equal a count by hand on the raw matrix."
    s = simulate_oracle_labels(1500, [0.8] * 5, n_classes=3, hard_share=0.2, hard_accuracy=[0.5] * 5, seed=5)
    model = noisy_labels(s.oracle, 0.9, 3, np.random.default_rng(6))
    c1 = certify(s.annotations, model, reference="majority", seed=0)
    perm = np.random.default_rng(7).permutation(1500)
    names = np.array(["q", "r", "s"], dtype=object)
    wide = s.annotations.to_wide().iloc[perm]
    a2 = Annotations.from_wide(wide.apply(lambda col: col.map(lambda v: None if v is None else names[v])))
    c2 = certify(a2, pd.Series(names[model[perm]], index=wide.index), reference="majority", seed=0)
    # by hand: per-item class counts from the raw codes, the strict majority, and the two statistics
    x = s.annotations.to_wide().to_numpy(dtype=float)
    cnt = np.stack([(x == c).sum(1) for c in range(3)], 1)
    n = cnt.sum(1)
    keep = (n >= 2) & (cnt.max(1) * 2 > n)
    L = (cnt.argmax(1) == model)[keep].mean()
    U = np.sqrt(((cnt ** 2).sum(1) / n ** 2)[keep].mean())
    for c in (c1, c2):
        assert c.n_items == keep.sum() and c.lower == pytest.approx(L, abs=1e-12) and c.upper_theoretical == pytest.approx(U, abs=1e-12)
    assert c1.score == pytest.approx(c2.score, abs=1e-12) and c1.certified == c2.certified


def test_finite_sample_bounds_by_hand():
    "Theorems 5 and 6 written out: sqrt(mean X^(t) + sqrt(log(1/delta) / 2N)) and L_N - sqrt(log(1/delta) / 2N), from the raw labels."
    s = simulate_oracle_labels(400, [0.7, 0.8, 0.9], n_classes=2, seed=8)
    t = np.sqrt(np.log(100) / 800)                                       # delta = 0.01, N = 400: sqrt(4.60517 / 800) = 0.0758714...
    assert t == pytest.approx(0.0758714, abs=1e-7)
    x = s.annotations.to_wide().to_numpy(dtype=float)
    ones = (x == 1).sum(1); n = (x >= 0).sum(1)
    u2 = ((ones ** 2 + (n - ones) ** 2) / n ** 2).mean()
    ub = upper_bound_at(s.annotations, confidence=0.99)
    assert ub.value == pytest.approx(min(1.0, np.sqrt(u2 + t)), abs=1e-12) and ub.estimate == pytest.approx(np.sqrt(u2), abs=1e-12)
    ref = np.where(ones * 2 > n, 1, np.where(ones * 2 < n, 0, -1))    # three labels each: never a tie
    assert (ref >= 0).all()
    ref_pkg = aggregate(s.annotations, "plurality").to_numpy()
    lb = lower_bound_at(ref_pkg, s.oracle, confidence=0.99)
    assert lb.value == pytest.approx(max(0.0, (ref == s.oracle).mean() - t), abs=1e-12)


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
    "The betting tail reads the histogram of per-item values (random orders drawn from `seed`), so shuffling rows leaves the certificate unchanged."
    s = simulate_oracle_labels(800, [0.85] * 5, n_classes=2, hard_share=0.2, hard_accuracy=[0.6] * 5, seed=15)
    model = noisy_labels(s.oracle, 0.95, 2, np.random.default_rng(16))
    wide = s.annotations.to_wide()
    c1 = certify(Annotations.from_wide(wide), pd.Series(model, index=wide.index), reference=pd.Series(s.oracle, index=wide.index), seed=0)
    perm = np.random.default_rng(17).permutation(800)
    w2 = wide.iloc[perm]
    c2 = certify(Annotations.from_wide(w2), pd.Series(model[perm], index=w2.index), reference=pd.Series(s.oracle[perm], index=w2.index), seed=0)
    assert c1.tails == ("binomial", "betting")
    assert c1.score == pytest.approx(c2.score, abs=1e-12)
