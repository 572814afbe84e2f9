"""rank_systems(ties='davidson') (issue 45 item 5): Davidson's tie model checked against a hand case and against an
independent maximum-likelihood fit (scipy.optimize on the Davidson likelihood written here), to 1e-6, with its sandwich
against finite differences; PPI++ at lambda = 0 is the humans-only fit."""
import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from humancert.pairwise.judgements import read_pairwise
from humancert.pairwise.ranking import rank_systems

NAMES = ["s0", "s1", "s2"]


def _table(verdicts_j, verdicts_h, a, b):
    rows = [dict(item=f"i{k}", prompt=f"p{k}", system_a=a[k], system_b=b[k], label=v, rater="J") for k, v in enumerate(verdicts_j)]
    rows += [dict(item=f"i{k}", prompt=f"p{k}", system_a=a[k], system_b=b[k], label=v, rater="H") for k, v in enumerate(verdicts_h) if v is not None]
    return read_pairwise(pd.DataFrame(rows), judges=("J",), item="item")


def test_hand_case_two_systems():
    v = ["A"] * 6 + ["B"] * 3 + ["tie"] * 3                      # x wins 6, loses 3, 3 ties
    r = rank_systems(_table(v, v, ["x"] * 12, ["y"] * 12), ties="davidson", clusters=None)
    for m in ("judge only", "humans only", "PPI++"):
        assert r.strengths.loc[(m, "y"), "estimate"] == pytest.approx(-np.log(2), abs=1e-9)
        assert r.tie_parameter.loc[m, "estimate"] == pytest.approx(3 / np.sqrt(18), abs=1e-9)
    assert r.ties == "davidson" and "Davidson" in repr(r) and "tie nu" in repr(r)


def _simulated(n=300, seed=0):
    rng = np.random.default_rng(seed)
    th = np.array([0.0, 0.5, 1.0]); ab = np.stack([rng.choice(3, 2, replace=False) for _ in range(n)])
    d = th[ab[:, 0]] - th[ab[:, 1]]
    def draw(nu):
        p = np.column_stack([np.exp(d / 2), np.exp(-d / 2), np.full(n, nu)]); p /= p.sum(1, keepdims=True)
        u = rng.random(n)
        return np.where(u < p[:, 0], "A", np.where(u < p[:, 0] + p[:, 1], "B", "tie"))
    vh, vj = draw(0.5), draw(1.0)
    gold = rng.random(n) < 0.5
    a, b = np.array(NAMES)[ab[:, 0]], np.array(NAMES)[ab[:, 1]]
    return _table(vj, [v if g else None for v, g in zip(vh, gold)], a, b), vh, vj, gold, ab


def _nll_terms(p, ab, v):
    "Per-item Davidson negative log-likelihood (theta: s1, s2 against s0; p[2] = log nu)."
    th = np.r_[0.0, p[:2]]
    d = th[ab[:, 0]] - th[ab[:, 1]]
    logd = np.log(np.exp(d / 2) + np.exp(-d / 2) + np.exp(p[2]))
    return logd - np.select([v == "A", v == "B"], [d / 2, -d / 2], p[2])


def test_independent_fit_and_sandwich():
    pw, vh, vj, gold, ab = _simulated()
    r = rank_systems(pw, ties="davidson", clusters=None)
    # read_pairwise orients each pair by name: flip verdicts of items whose first system sorts after the second
    flip = ab[:, 0] > ab[:, 1]
    ab2 = np.sort(ab, 1)
    sw = {"A": "B", "B": "A", "tie": "tie"}
    vj2 = np.array([sw[x] if f else x for x, f in zip(vj, flip)]); vh2 = np.array([sw[x] if f else x for x, f in zip(vh, flip)])
    for m, (abm, v) in {"judge only": (ab2, vj2), "humans only": (ab2[gold], vh2[gold])}.items():
        peer = optimize.minimize(lambda p: _nll_terms(p, abm, v).sum(), np.zeros(3), method="BFGS", options={"gtol": 1e-10}).x
        assert np.allclose(r.strengths.loc[m, "estimate"].loc[NAMES[1:]].to_numpy(), peer[:2], atol=1e-6)
        assert r.tie_parameter.loc[m, "estimate"] == pytest.approx(np.exp(peer[2]), abs=1e-6)
        if m == "humans only":                                      # the sandwich: finite-difference Hessian and per-item scores
            n, h = len(v), 1e-5
            def scores(p):
                "Per-item gradients of the negative log-likelihood by central differences."
                return np.column_stack([(_nll_terms(p + h * e, abm, v) - _nll_terms(p - h * e, abm, v)) / (2 * h) for e in np.eye(3)])
            S = scores(peer)
            Ai = np.linalg.inv(optimize.approx_fprime(peer, lambda p: scores(p).mean(0), 1e-4))
            cov = Ai @ ((S - S.mean(0)).T @ (S - S.mean(0)) / (n - 1)) @ Ai / n   # mean_cov's divisor: n (n - 1)
            assert np.allclose(r.covariances[m], cov[:2, :2], rtol=1e-3, atol=1e-6)
            assert r.tie_parameter.loc[m, "log se"] == pytest.approx(np.sqrt(cov[2, 2]), rel=1e-3)   # nu's interval: exp of log nu's


def test_ppi_lambda_zero_is_humans_only_and_bad_ties():
    pw = _simulated(200, 1)[0]
    r = rank_systems(pw, ties="davidson", lam=0.0)
    assert np.allclose(r.strengths.loc["PPI++", "estimate"], r.strengths.loc["humans only", "estimate"], atol=1e-8)
    assert r.tie_parameter.loc["PPI++", "estimate"] == pytest.approx(r.tie_parameter.loc["humans only", "estimate"], abs=1e-8)
    assert 0 <= rank_systems(pw, ties="davidson").lam <= 1
    with pytest.raises(ValueError, match="`ties` must be 'half'"): rank_systems(pw, ties="rao-kupper")
