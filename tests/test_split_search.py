"""The certificate's two searches (issue 25 replaced scipy.optimize by its own): cross-checked against scipy's bounded Brent
search and Brent root finder on random problems, through the public `confidence` and `upper_limit`.

The optimal split must score at least what scipy's search finds (up to rounding, 1e-12) and never leave the feasible
interval; the balanced split must spend the same budget on both sides (the root's defining property) and agree with scipy's
root; the betting limit must be where the p-value has just dropped to delta, as scipy's root says."""
import numpy as np
import pytest
from scipy import optimize

from humancert import confidence, upper_limit, upper_tail_delta, lower_tail_delta


def problems(seed, count):
    "Random (L, U, N, tau, per-item values) with a feasible split (L - tau > U): margins from tiny to large, N from 30 to 20,000."
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        n = int(rng.choice([30, 100, 500, 2000, 20000]))
        x = rng.choice(rng.uniform(0.3, 1.0, rng.integers(2, 40)), n)          # a few distinct values, as U_N's terms have
        U = float(np.sqrt(x.mean()))
        L = min(1.0, U + float(rng.choice([1e-3, 1e-2, 0.05, 0.2])) * rng.uniform(0.5, 1.5))
        tau = float(rng.choice([0.0, 0.3])) * (L - U) * rng.uniform()
        if L - tau > U: out.append((L, U, n, tau, x))
    return out


def reference_optimal(L, U, n, tau, x, tails):
    "S at scipy's bounded Brent search around the best of a 2001-point grid of the same score (the code before issue 25's change)."
    lo_tail, up_tail = tails
    du = lambda t: upper_tail_delta(np.atleast_1d(t), n, U * U, None if up_tail == "hoeffding" else x, up_tail)
    S = lambda t: 1 - du(t) - lower_tail_delta(L - tau - np.sqrt(np.atleast_1d(t) + U * U), n, L, tail=lo_tail)
    hi = (L - tau) ** 2 - U * U
    ts = np.linspace(0, hi, 2001)
    k = int(np.argmax(S(ts)))
    a, b = ts[max(k - 1, 0)], ts[min(k + 1, 2000)]
    best = max(float(S(ts[k])[0]), 0 if b <= a else
               -optimize.minimize_scalar(lambda t: -float(S(t)[0]), bounds=(a, b), method="bounded", options={"xatol": 1e-14}).fun)
    return best


@pytest.mark.parametrize("tails", [("hoeffding", "hoeffding"), ("binomial", "betting"), ("binomial", "bernstein")])
def test_optimal_split_scores_at_least_scipys(tails):
    for L, U, n, tau, x in problems(1, 25):
        c = confidence(L, U, n, "optimal", tau, *tails, upper_values=None if tails[1] == "hoeffding" else x)
        assert 0 <= c.t_u <= (L - tau) ** 2 - U * U + 1e-15
        ref = reference_optimal(L, U, n, tau, x, tails)
        assert c.score >= ref - 1e-12, (L, U, n, tau, c.score, ref)


@pytest.mark.parametrize("tails", [("hoeffding", "hoeffding"), ("binomial", "betting"), ("hoeffding", "bernstein")])
def test_balanced_split_is_the_root(tails):
    for L, U, n, tau, x in problems(2, 25):
        vals = None if tails[1] == "hoeffding" else x
        c = confidence(L, U, n, "balanced", tau, *tails, upper_values=vals)
        hi = (L - tau) ** 2 - U * U
        g = lambda t: (np.log(max(upper_tail_delta([t], n, U * U, vals, tails[1])[0], 1e-300))
                       - np.log(max(lower_tail_delta([L - tau - np.sqrt(t + U * U)], n, L, tail=tails[0])[0], 1e-300)))
        if g(0.0) <= 0: assert c.t_u == 0.0; continue
        if g(hi) >= 0: assert c.t_u == hi; continue
        root = optimize.brentq(g, 0.0, hi, xtol=1e-15 * hi, rtol=4 * np.finfo(float).eps)
        assert abs(c.t_u - root) <= 1e-12 * max(hi, 1e-12) + 1e-15, (c.t_u, root)
        both = max(c.delta_u, c.delta_l)
        assert c.score == pytest.approx(1 - 2 * both, abs=1e-15)
        # the budget the bracket's better end spends is no more than at scipy's root (up to the tails' own rounding)
        assert both <= max(upper_tail_delta([root], n, U * U, vals, tails[1])[0],
                           lower_tail_delta([L - tau - np.sqrt(root + U * U)], n, L, tail=tails[0])[0]) * (1 + 1e-9)


def test_betting_limit_is_where_the_pvalue_drops_to_delta():
    for L, U, n, tau, x in problems(3, 20):
        for delta in (0.05, 0.01):
            lim = upper_limit(x.mean(), n, delta, "betting", x)
            if lim >= 1.0: continue
            p = lambda u: upper_tail_delta([u - x.mean()], n, x.mean(), x, "betting")[0]
            assert p(lim) <= delta                                    # the limit itself: p-value already at most delta
            f = lambda t: np.log(max(p(x.mean() + t), 1e-300)) - np.log(delta)
            if f(0.0) <= 0: assert lim == x.mean(); continue
            root = optimize.brentq(f, 0.0, 1.0 - x.mean() - 1e-12, xtol=1e-12)
            assert abs(lim - (x.mean() + root)) <= 3e-12, (lim, x.mean() + root)
