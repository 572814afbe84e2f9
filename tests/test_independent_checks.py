"""Independent re-implementations of the estimators, compared with the public functions on fixed seeded data.

Each check is written from the papers and the notebooks' statements (not from humancert's code): a Bradley-Terry fit
and its PPI++ correction with a sandwich variance derived for a human subset inside the judged pairs (nb 71), the
PPI++ label budget of a binary judge (nb 62), a two-class Dawid-Skene EM for the oracle estimand (nb 60), a logistic
regression of the judge's error with one intercept per true class (nb 55), the confidence sequence's looks (nb 63);
then Davidson's tie model by maximum likelihood (nb 71), a multi-class Dawid-Skene EM for the oracle's class shares
(nb 60), score_budget with clusters, strata and class shares (nb 62), read_pairwise on hand-written FastChat,
AlpacaEval and Chatbot Arena files (nb 70) and the betting intervals, item-level and with whole clusters (nb 60).
Section 12 re-implements the control betting gold test (nb 23: split, Dawid-Skene fit, clipped proxy, bets) from the
notebook's text and records where the package departs from that text.
The tolerances are stated at each comparison. Tests of names a branch does not have yet are skipped.
"""
import hashlib
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special, stats

import humancert as hc


def _logistic_fit(X, w, v):
    "argmin_t sum_i w_i log(1 + exp(x_i't)) - v_i x_i't by BFGS (scipy), from zero."
    f = lambda t: np.sum(w * np.logaddexp(0, X @ t)) - v @ (X @ t)
    g = lambda t: X.T @ (w * special.expit(X @ t) - v)
    res = optimize.minimize(f, np.zeros(X.shape[1]), jac=g, method="BFGS", options=dict(gtol=1e-12, maxiter=10_000))
    return res.x


# ---------------------------------------------------------------------------------------------------------------
# 1. rank_systems: Bradley-Terry (ties half a win), PPI++ with humans on a uniform random subset of the judged pairs
# ---------------------------------------------------------------------------------------------------------------
K = 4
NAMES = [f"s{k}" for k in range(K)]
THETA = np.array([0.0, 0.4, 0.8, 1.2])
PAIRS = [(a, b) for a in range(K) for b in range(a + 1, K)]
YCODE = {1.0: "A", 0.0: "B", 0.5: "tie"}


def _bt_study(seed, N=300, n=90, per_prompt=1):
    """N pairs (per_prompt pairs per prompt) of 4 systems; humans: a tie 15 %, else Bradley-Terry on THETA; the judge
    copies the human 70 % of the time, else a fair A/B/tie draw; humans on a uniform random subset of n pairs."""
    rng = np.random.default_rng(seed)
    k = rng.integers(0, len(PAIRS), N)
    a = np.array([PAIRS[j][0] for j in k])
    b = np.array([PAIRS[j][1] for j in k])
    p = special.expit(THETA[a] - THETA[b])

    def draw(p):
        u = rng.random(len(p))
        return np.where(u < 0.15, 0.5, np.where(u < 0.15 + 0.85 * p, 1.0, 0.0))

    yH = draw(p)
    yJ = np.where(rng.random(N) < 0.7, yH, draw(np.full(N, 0.5)))
    R = np.zeros(N, bool)
    R[rng.choice(N, n, replace=False)] = True
    prompt = np.arange(N) // per_prompt
    return dict(a=a, b=b, yJ=yJ, yH=yH, R=R, prompt=prompt)


def _bt_pairwise(s):
    "The study as read_pairwise's long table: one judge verdict per pair, one human verdict on the subset."
    rows = [dict(item=f"i{i}", prompt=f"p{s['prompt'][i]}", system_a=NAMES[s["a"][i]], system_b=NAMES[s["b"][i]],
                 label=YCODE[s["yJ"][i]], rater="J") for i in range(len(s["a"]))]
    rows += [dict(item=f"i{i}", prompt=f"p{s['prompt'][i]}", system_a=NAMES[s["a"][i]], system_b=NAMES[s["b"][i]],
                  label=YCODE[s["yH"][i]], rater="H") for i in np.flatnonzero(s["R"])]
    return hc.read_pairwise(pd.DataFrame(rows), judges=("J",), item="item")


def _design(s):
    "Difference design: +1 for a, -1 for b, the reference s0's column dropped."
    N = len(s["a"])
    X = np.zeros((N, K))
    X[np.arange(N), s["a"]] += 1
    X[np.arange(N), s["b"]] -= 1
    return X[:, 1:]


def _ppi_bt(s, lam):
    """My PPI++ fit at a fixed lambda and two variances of it.

    Estimating equation per pair (N judged, n labelled, R the labelled indicator):
        phi_i = lam g^J_i + (N/n) R_i (g^H_i - lam g^J_i),  g = (sigma(x't) - y) x,
    a mean over the N pairs. Under a uniform subset (without replacement) of fixed size n from N pairs drawn from the
    population, Var(mean phi) = Var(g^H)/N + (1/n - 1/N) Var(g^H - lam g^J)   (finite-population correction for the
    subset, total variance over the pairs)
                               = C_HH/n + (1/n - 1/N)(lam^2 C_JJ - lam (C_HJ + C_JH)).
    Returns the estimate, A^-1 M A^-1 with M from that formula (C_HH, C_HJ: sample covariances over the n labelled
    pairs; C_JJ: over all N pairs; divisor m - 1), and the notebook's stated grouped form (u_i per pair, centred within
    labelled / unlabelled, times G/(G-1) with G the clusters of all pairs).
    """
    X = _design(s)
    R, yJ = s["R"], s["yJ"]
    yH = np.where(R, s["yH"], 0.0)
    N, n, q = len(R), R.sum(), X.shape[1]
    w = lam / N + R * (1 - lam) / n
    v = lam / N * yJ + R * (yH - lam * yJ) / n
    t = _logistic_fit(X, w, v)
    p = special.expit(X @ t)
    Ainv = np.linalg.inv((X * (w * p * (1 - p))[:, None]).T @ X)
    gJ, gH = (p - yJ)[:, None] * X, (p - yH)[:, None] * X
    C = np.cov(np.hstack([gH[R], gJ[R]]).T)
    M = C[:q, :q] / n + (1 / n - 1 / N) * (lam**2 * np.cov(gJ.T) - lam * (C[:q, q:] + C[q:, :q]))
    u = np.where(R[:, None], (lam / N - lam / n) * gJ + gH / n, lam / N * gJ)
    u[R] -= u[R].mean(0)
    u[~R] -= u[~R].mean(0)
    sc = pd.DataFrame(u).groupby(s["prompt"]).sum().to_numpy()
    G = len(sc)
    return t, Ainv @ M @ Ainv, Ainv @ (G / (G - 1) * sc.T @ sc) @ Ainv


@pytest.fixture(scope="module")
def bt():
    s = _bt_study(71)
    return s, _bt_pairwise(s)


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.7, 1.0])
def test_bt_ppi_estimate_and_se(bt, lam):
    "PPI++ at a fixed lambda: estimates to 1e-6; standard errors equal the notebook's grouped form to 1e-6 (rel)."
    s, pw = bt
    t, V_mine, V_grouped = _ppi_bt(s, lam)
    for clusters in (None, "prompt"):  # one pair per prompt: the two must agree
        got = hc.rank_systems(pw, clusters=clusters, lam=lam)
        st = got.strengths.loc["PPI++"].loc[NAMES[1:]]
        np.testing.assert_allclose(st.estimate.to_numpy(), t, atol=1e-6)
        np.testing.assert_allclose(st.se.to_numpy(), np.sqrt(np.diag(V_grouped)), rtol=1e-6)
        np.testing.assert_allclose(got.covariances["PPI++"], V_grouped, rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("lam", [0.3, 0.7])
def test_bt_ppi_se_against_my_derivation(bt, lam):
    """My plug-in variance (divisor m - 1 covariances; C_JJ over all pairs) and the function's differ only in the
    finite-sample covariance estimators: the function's labelled term has divisor n (times N/(N-1)), so its standard
    errors are close to mine. Measured here (N = 300, n = 90): ratios 0.998-0.999 at lambda 0.3, 1.013-1.021 at 0.7
    (allowed 3 %), but 1.08 at lambda = 1, where my C_HH + C_JJ - 2 C_HJ mixes C_JJ over all pairs with subset
    covariances and is the noisier of the two (over 400 studies the mean standard errors agree to 0.3 %).
    Coverage of the six differences over 400 seeded studies (N = 300; SE of a coverage 0.011): n = 60, lambda 0.5:
    0.956 (function) and 0.958 (mine); n = 150, lambda tuned: 0.948 both; n = 90, lambda 1: 0.960 and 0.961.
    Neither is preferable: the function's sandwich is the subset-design variance, as derived."""
    s, pw = bt
    _, V_mine, _ = _ppi_bt(s, lam)
    got = hc.rank_systems(pw, clusters=None, lam=lam).strengths.loc["PPI++"].loc[NAMES[1:]]
    ratio = got.se.to_numpy() / np.sqrt(np.diag(V_mine))
    assert np.all(np.abs(ratio - 1) < 0.03), ratio


def test_bt_judge_only_and_humans_only(bt):
    "One-sample fits: estimates to 1e-6; sandwich A^-1 (Cov(g)/m, divisor m - 1) A^-1 standard errors to 1e-6 (rel)."
    s, pw = bt
    X = _design(s)
    got = hc.rank_systems(pw, clusters=None)
    for method, mask, y in (("judge only", np.ones(len(X), bool), s["yJ"]), ("humans only", s["R"], s["yH"])):
        m = mask.sum()
        w, v = mask / m, np.where(mask, y, 0.0) / m
        t = _logistic_fit(X, w, v)
        p = special.expit(X @ t)
        Ainv = np.linalg.inv((X * (w * p * (1 - p))[:, None]).T @ X)
        g = ((p - np.where(mask, y, 0.0))[:, None] * X)[mask]
        se = np.sqrt(np.diag(Ainv @ (np.cov(g.T) / m) @ Ainv))
        st = got.strengths.loc[method].loc[NAMES[1:]]
        np.testing.assert_allclose(st.estimate.to_numpy(), t, atol=1e-6)
        np.testing.assert_allclose(st.se.to_numpy(), se, rtol=1e-6)


def test_bt_tuned_lambda(bt):
    """PPI++ power tuning for the subset design: lambda* = tr(A^-1 (C_HJ + C_JH) A^-1) / (2 tr(A^-1 C_JJ A^-1)),
    at the lambda = 1 PPI fit (original PPI), A and C_JJ over all pairs, C_HJ over the labelled ones (divisor m),
    clipped to [0, 1]: equal to 1e-8. (At the judge-only fit instead it would be 0.670 against 0.645 here.)"""
    s, pw = bt
    X = _design(s)
    R, yJ = s["R"], s["yJ"]
    yH = np.where(R, s["yH"], 0.0)
    N, n, q = len(R), R.sum(), X.shape[1]
    t = _logistic_fit(X, np.full(N, 1 / N), yJ / N + R * (yH - yJ) / n)
    p = special.expit(X @ t)
    Ainv = np.linalg.inv((X * (p * (1 - p) / N)[:, None]).T @ X)
    gJ, gH = (p - yJ)[:, None] * X, (p - yH)[:, None] * X
    CHJ = np.cov(np.hstack([gH[R], gJ[R]]).T, ddof=0)[:q, q:]
    lam = np.trace(Ainv @ (CHJ + CHJ.T) @ Ainv) / (2 * np.trace(Ainv @ np.cov(gJ.T, ddof=0) @ Ainv))
    got = hc.rank_systems(pw, clusters=None)
    assert abs(got.lam - np.clip(lam, 0, 1)) < 1e-8


def test_bt_clustered_se():
    "Two pairs per prompt, clusters='prompt': estimates to 1e-6, the grouped form summed by prompt to 1e-6 (rel)."
    s = _bt_study(72, N=400, n=120, per_prompt=2)
    t, _, V_grouped = _ppi_bt(s, 0.5)
    st = hc.rank_systems(_bt_pairwise(s), lam=0.5).strengths.loc["PPI++"].loc[NAMES[1:]]
    np.testing.assert_allclose(st.estimate.to_numpy(), t, atol=1e-6)
    np.testing.assert_allclose(st.se.to_numpy(), np.sqrt(np.diag(V_grouped)), rtol=1e-6)


@pytest.mark.parametrize("clusters", [None, "prompt"])
def test_bt_intervals_and_differences(clusters):
    """Two pairs per prompt: every strength's interval is estimate -/+ t_{G-1} se with G the clusters (pairs or prompts)
    of the human subset for PPI++ and humans only, of all pairs for the judge only (1e-9); every difference theta_j -
    theta_k is my PPI++ fit's (1e-6) with standard error sqrt(c' V c) of the PPI++ covariance (1e-9)."""
    s = _bt_study(72, N=400, n=120, per_prompt=2)
    got = hc.rank_systems(_bt_pairwise(s), clusters=clusters, lam=0.5)
    units = s["prompt"] if clusters else np.arange(len(s["a"]))
    G_h, G_all = len(set(units[s["R"]])), len(set(units))
    for method, G in (("PPI++", G_h), ("humans only", G_h), ("judge only", G_all)):
        st = got.strengths.loc[method].loc[NAMES[1:]]
        q = stats.t.ppf(0.975, G - 1)
        np.testing.assert_allclose(st.lower, st.estimate - q * st.se, atol=1e-9)
        np.testing.assert_allclose(st.upper, st.estimate + q * st.se, atol=1e-9)
    t, _, _ = _ppi_bt(s, 0.5)
    theta, V = np.concatenate([[0.0], t]), got.covariances["PPI++"]
    d = got.differences.loc["PPI++"]
    for j, k in [(j, k) for j in range(K) for k in range(K) if j != k]:
        c = np.zeros(K)
        c[j], c[k] = 1, -1
        row = d.loc[(NAMES[j], NAMES[k])]
        assert abs(row.estimate - (theta[j] - theta[k])) < 1e-6
        assert abs(row.se - math.sqrt(c[1:] @ V @ c[1:])) < 1e-9


def test_bt_orientation_orders_and_several_humans():
    """Half the pairs given as (b, a) with the verdict mirrored; the judge again in the other order on half the pairs
    (its two verdicts averaged) and a second human on half the labelled pairs (each human's verdict, then the humans,
    averaged): every estimate as my fit on the averaged outcomes (1e-6), PPI++ standard errors as the grouped form (1e-6)."""
    s = _bt_study(73)
    rng = np.random.default_rng(9)
    N = len(s["a"])
    flip, again = rng.random(N) < 0.5, rng.random(N) < 0.5
    yJ2 = np.where(rng.random(N) < 0.5, s["yJ"], rng.choice([0.0, 0.5, 1.0], N))
    two = s["R"] & (rng.random(N) < 0.5)
    yH2 = np.where(rng.random(N) < 0.6, s["yH"], rng.choice([0.0, 0.5, 1.0], N))
    rows = []

    def add(i, y, rater, flipped):
        a, b = NAMES[s["a"][i]], NAMES[s["b"][i]]
        a, b, y = (b, a, 1 - y) if flipped else (a, b, y)
        rows.append(dict(item=f"i{i}", prompt=f"p{i}", system_a=a, system_b=b, label=YCODE[y], rater=rater))

    for i in range(N):
        add(i, s["yJ"][i], "J", flip[i])
        if again[i]:
            add(i, yJ2[i], "J", not flip[i])
        if s["R"][i]:
            add(i, s["yH"][i], "H1", flip[i])
            if two[i]:
                add(i, yH2[i], "H2", not flip[i])
    got = hc.rank_systems(hc.read_pairwise(pd.DataFrame(rows), judges=("J",), item="item"), clusters=None, lam=0.4)
    avg = dict(s, yJ=np.where(again, (s["yJ"] + yJ2) / 2, s["yJ"]), yH=np.where(two, (s["yH"] + yH2) / 2, s["yH"]))
    t, _, V_grouped = _ppi_bt(avg, 0.4)
    st = got.strengths.loc["PPI++"].loc[NAMES[1:]]
    np.testing.assert_allclose(st.estimate.to_numpy(), t, atol=1e-6)
    np.testing.assert_allclose(st.se.to_numpy(), np.sqrt(np.diag(V_grouped)), rtol=1e-6)
    X = _design(avg)
    for method, mask, y in (("judge only", np.ones(N, bool), avg["yJ"]), ("humans only", avg["R"], avg["yH"])):
        mine = _logistic_fit(X, mask / mask.sum(), np.where(mask, y, 0.0) / mask.sum())
        np.testing.assert_allclose(got.strengths.loc[method].loc[NAMES[1:]].estimate.to_numpy(), mine, atol=1e-6)


# ---------------------------------------------------------------------------------------------------------------
# 2. score_budget: labels for a target half-width, a binary judge assumed (nb 62)
# ---------------------------------------------------------------------------------------------------------------
def _budget_moments(b, se, sp):
    "Var(Y), Var(f), Cov(Y, f) of a binary truth (pass rate b) and judge (sensitivity se, specificity sp)."
    q = b * se + (1 - b) * (1 - sp)
    return b * (1 - b), q * (1 - q), b * se - b * q


def _ppi_var(n, vy, vf, c, N):
    "min over lambda in [0, 1] of lam^2 vf / N + (vy - 2 lam c + lam^2 vf) / n (a parabola: the clipped vertex)."
    lam = min(max(c / ((1 + n / N) * vf), 0.0), 1.0)
    return lam**2 * vf / N + (vy - 2 * lam * c + lam**2 * vf) / n


def _smallest_n(var, h, z):
    "Smallest integer n with z sqrt(var(n)) <= h (var decreasing in n): doubling, then bisection."
    hi = 1
    while z * math.sqrt(var(hi)) > h:
        hi *= 2
    lo = max(1, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if z * math.sqrt(var(mid)) <= h else (mid + 1, hi)
    return lo


@pytest.mark.skipif(not hasattr(hc, "score_budget"), reason="score_budget is not on this branch (sysscore's nb 62)")
@pytest.mark.parametrize("b, se, sp, h, N, conf", [
    (0.7, 0.9, 0.6, 0.05, None, 0.95), (0.7, 0.9, 0.6, 0.05, 4000, 0.95), (0.3, 0.8, 0.9, 0.03, 2000, 0.90),
    (0.9, 0.99, 0.5, 0.04, 500, 0.99), (0.5, 0.95, 0.95, 0.02, 1000, 0.95)])
def test_score_budget_from_first_principles(b, se, sp, h, N, conf):
    "Integer labels exactly; correlation and gain to 1e-9; a plan above N is None (not reachable with N items)."
    vy, vf, c = _budget_moments(b, se, sp)
    z = stats.norm.ppf((1 + conf) / 2)
    Ni = math.inf if N is None else N
    n_gold = _smallest_n(lambda n: vy / n, h, z)
    n_ppi = _smallest_n(lambda n: _ppi_var(n, vy, vf, c, Ni), h, z)
    got = hc.score_budget(h, pass_rate=b, sensitivity=se, specificity=sp, n_items=N, confidence=conf, reps=0)
    assert abs(got.correlation - c / math.sqrt(vy * vf)) < 1e-9
    assert got.n_gold == (n_gold if n_gold <= Ni else None)
    assert got.n_ppi == (n_ppi if n_ppi <= Ni else None)
    if n_ppi <= Ni:
        gain = vy / (n_ppi * _ppi_var(n_ppi, vy, vf, c, Ni))
        assert abs(got.gain - gain) < 1e-9 and abs(got.n_eff - n_ppi * gain) < 1e-6


@pytest.mark.skipif(not hasattr(hc, "score_budget"), reason="score_budget is not on this branch (sysscore's nb 62)")
def test_score_budget_correlation_and_pilot():
    """From a correlation and the truth's SD (Var(f) = 1 without loss: only rho matters), and from a (judge, gold)
    pilot with the moments of corrected_score (Var(Y), Cov(Y, f) over the gold items with divisor n, Var(f) over all N
    with N - 1): labels exactly, the correlation to 1e-9. (With divisor n - 1 for Var(Y) the pilot would need 306 and
    264 labels, not 303 and 260: the divisor is a choice, not a bug, at n = 100.)"""
    z = stats.norm.ppf(0.975)
    for rho, sd, N, h in ((0.6, 0.45, None, 0.05), (0.8, 1.2, 5000, 0.1)):
        Ni = math.inf if N is None else N
        got = hc.score_budget(h, correlation=rho, sd=sd, n_items=N, reps=0)
        assert got.n_gold == _smallest_n(lambda n: sd**2 / n, h, z)
        assert got.n_ppi == _smallest_n(lambda n: _ppi_var(n, sd**2, 1.0, rho * sd, Ni), h, z)
    rng = np.random.default_rng(62)
    N, n = 4000, 100
    T = (rng.random(N) < 0.7).astype(int)
    f = np.where(T == 1, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(int)
    ids = [f"x{i}" for i in range(N)]
    g = np.sort(rng.choice(N, n, replace=False))
    got = hc.score_budget(0.05, pilot=(pd.Series(f, index=ids), pd.Series(T[g], index=[ids[i] for i in g])), reps=0)
    Y, fg = T[g].astype(float), f[g].astype(float)
    vy, c, vf = Y.var(), np.cov(Y, fg, ddof=0)[0, 1], f.var(ddof=1)
    assert abs(got.correlation - c / math.sqrt(vy * vf)) < 1e-9
    assert (got.n_gold, got.n_ppi) == (_smallest_n(lambda m: vy / m, 0.05, z),
                                       _smallest_n(lambda m: _ppi_var(m, vy, vf, c, N), 0.05, z)) == (303, 260)


# ---------------------------------------------------------------------------------------------------------------
# 3. corrected_score(..., estimand='oracle'): two-class Dawid-Skene on a panel (nb 60)
# ---------------------------------------------------------------------------------------------------------------
def _ds_data(seed=3, N=2000, n=200, se=(0.85, 0.8, 0.9, 0.75), sp=(0.8, 0.75, 0.7, 0.85), pi=0.65):
    "N judged items (judge: sensitivity 0.9, specificity 0.6); a panel of 4 annotators, independent given the truth, on n."
    rng = np.random.default_rng(seed)
    T = rng.random(N) < pi
    f = np.where(T, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(int)
    gold = np.sort(rng.choice(N, n, replace=False))
    L = np.column_stack([np.where(T[gold], rng.random(n) < se[k], rng.random(n) >= sp[k]) for k in range(len(se))])
    ids = [f"i{j:05d}" for j in range(N)]
    wide = pd.DataFrame(L.astype(int), index=[ids[g] for g in gold], columns=[f"a{k}" for k in range(len(se))])
    return pd.Series(f, index=ids), wide


def _dawid_skene(L, tol=1e-13):
    "EM for prevalence, sensitivities, specificities; start at the majority; orientation: mean(se + sp) > 1."
    share = L.mean(1)
    q = np.where(share == 0.5, 0.5, (share > 0.5).astype(float))
    for _ in range(100_000):
        pi, se, sp = q.mean(), np.minimum((q @ L) / q.sum(), 1), np.minimum(((1 - q) @ (1 - L)) / (1 - q).sum(), 1)
        la = np.log(pi) + (special.xlogy(L, se) + special.xlogy(1 - L, 1 - se)).sum(1)  # 0 log 0 = 0 at a boundary
        lb = np.log(1 - pi) + (special.xlogy(1 - L, sp) + special.xlogy(L, 1 - sp)).sum(1)
        new = special.expit(la - lb)
        done = np.max(np.abs(new - q)) < tol
        q = new
        if done:
            break
    pi, se, sp = q.mean(), (q @ L) / q.sum(), ((1 - q) @ (1 - L)) / (1 - q).sum()
    if np.mean(se + sp) < 1:
        q, pi, se, sp = 1 - q, 1 - pi, 1 - sp, 1 - se
    return pi, se, sp, q


def test_oracle_latent_class_boundary():
    "An annotator perfect on the gold items (its sensitivity estimated at 1): the gold-only row is still EM's (1e-4)."
    judge, wide = _ds_data(seed=0, N=1000, n=150, se=(1.0, 0.8, 0.9), sp=(0.8, 0.75, 0.7), pi=0.7)
    pi, se, _, _ = _dawid_skene(wide.to_numpy().astype(float))
    assert se[0] > 1 - 1e-9
    got = hc.corrected_score(judge, hc.Annotations.from_wide(wide), estimand="oracle").rows.set_index("method")
    assert abs(got.loc["gold only", "estimate"] - pi) < 1e-4


def test_oracle_latent_class_rows():
    """The gold-only row is the EM prevalence (1e-4; measured 1e-9) and its standard error the outer-product (BHHH)
    MLE standard error of pi in logit parameters, pi(1-pi) sqrt([(sum s s')^-1]_pi,pi) (1e-6 rel; measured 4e-10).
    The PPI++ row is lam f_N + mean(q - lam f) with lam = Cov(q, f) / ((1 + n/N) Var(f)), the covariance over the
    gold items with divisor n and the judge's variance over all N with divisor N - 1 (nb 60's hand example): 1e-4
    (measured 1e-10; with divisor N for Var(f) it would be 7e-6 off)."""
    judge, wide = _ds_data()
    L = wide.to_numpy().astype(float)
    pi, se, sp, q = _dawid_skene(L)
    got = hc.corrected_score(judge, hc.Annotations.from_wide(wide), estimand="oracle")
    rows = got.rows.set_index("method")
    assert abs(rows.loc["gold only", "estimate"] - pi) < 1e-4
    s = np.column_stack([q - pi, q[:, None] * (L - se), (1 - q)[:, None] * ((1 - L) - sp)])
    se_pi = pi * (1 - pi) * math.sqrt(np.linalg.inv(s.T @ s)[0, 0])
    half = (rows.loc["gold only", "upper"] - rows.loc["gold only", "lower"]) / 2
    assert abs(half / (stats.norm.ppf(0.975) * se_pi) - 1) < 1e-6
    f, fg = judge.to_numpy(), judge.loc[wide.index].to_numpy()
    N, n = len(f), len(q)
    lam = np.clip(np.cov(q, fg, ddof=0)[0, 1] / ((1 + n / N) * f.var(ddof=1)), 0, 1)
    assert abs(rows.loc["PPI++", "estimate"] - (lam * f.mean() + np.mean(q - lam * fg))) < 1e-4


def test_corrected_score_binary_rows():
    """One gold label per item (N = 3000, n = 400; 70 % pass, judge sensitivity 0.9, specificity 0.6), to 1e-9:
    PPI++ lam f_N + mean(Y - lam f), variance lam^2 Var_N(f)/N + Var_n(Y - lam f)/n (divisors N and n, ppi_py's),
    lam as above; gold only mean(Y) with Var_n(Y)/n; Rogan-Gladen (p + sp - 1)/(se + sp - 1) with the delta-method
    variance of nb 60 (p from all N, se and sp from the gold passes and fails); judge only p with p(1-p)/N."""
    rng = np.random.default_rng(60)
    N, n = 3000, 400
    T = (rng.random(N) < 0.7).astype(int)
    f = np.where(T == 1, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(int)
    ids = [f"x{i}" for i in range(N)]
    g = np.sort(rng.choice(N, n, replace=False))
    rows = hc.corrected_score(pd.Series(f, index=ids), pd.Series(T[g], index=[ids[i] for i in g])).rows
    rows = rows.set_index("method")
    Y, fg, z = T[g].astype(float), f[g].astype(float), stats.norm.ppf(0.975)
    lam = np.clip(np.cov(Y, fg, ddof=0)[0, 1] / ((1 + n / N) * f.var(ddof=1)), 0, 1)
    p = f.mean()
    se, sp = fg[Y == 1].mean(), 1 - fg[Y == 0].mean()
    J = se + sp - 1
    rg = (p + sp - 1) / J
    mine = {"PPI++": (lam * p + np.mean(Y - lam * fg), lam**2 * f.var() / N + np.var(Y - lam * fg) / n),
            "gold only": (Y.mean(), Y.var() / n),
            "Rogan-Gladen": (rg, (p * (1 - p) / N + rg**2 * se * (1 - se) / (Y == 1).sum()
                                  + (1 - rg)**2 * sp * (1 - sp) / (Y == 0).sum()) / J**2),
            "judge only": (p, p * (1 - p) / N)}
    for method, (est, var) in mine.items():
        np.testing.assert_allclose(rows.loc[method, ["estimate", "lower", "upper"]].to_numpy(float),
                                   [est, est - z * math.sqrt(var), est + z * math.sqrt(var)], atol=1e-9)


# ---------------------------------------------------------------------------------------------------------------
# 4. judge_bias: logistic regression of the judge's error with one intercept per true class (nb 55)
# ---------------------------------------------------------------------------------------------------------------
def _bias_data(seed=5, n=500):
    "Truth Y (half pass); length ~ N(Y, 1); position a coin; the error's log-odds: per class, + 0.5 length + 0.3 position."
    rng = np.random.default_rng(seed)
    Y = (rng.random(n) < 0.5).astype(int)
    x = rng.normal(Y, 1.0)
    pos = (rng.random(n) < 0.5).astype(int)
    E = rng.random(n) < special.expit(np.where(Y == 1, -2.0, -0.6) + 0.5 * x + 0.3 * pos)
    ids = [f"q{i}" for i in range(n)]
    return (pd.Series(np.where(E, 1 - Y, Y), index=ids), pd.Series(Y, index=ids),
            pd.DataFrame({"length": x, "position": pos}, index=ids))


def _logit_mle(X, e):
    "Maximum likelihood (BFGS) and the inverse-information standard errors."
    b = _logistic_fit(X, np.ones(len(e)), e)
    p = special.expit(X @ b)
    return b, np.sqrt(np.diag(np.linalg.inv((X * (p * (1 - p))[:, None]).T @ X)))


@pytest.mark.parametrize("outcome", ["error", "label"])
def test_judge_bias_odds_ratios(outcome):
    """Odds ratios and 95 % Wald limits to 1e-5 (rel), Wald p to 1e-6; the number standardised by its SD with
    divisor n (ddof = 0: with divisor n - 1 the odds ratio per SD would be 1.9402 instead of 1.9389 here)."""
    judge, truth, cov = _bias_data()
    y = truth.to_numpy()
    e = ((judge != truth) if outcome == "error" else (judge == 1)).to_numpy().astype(float)
    z = (cov.length - cov.length.mean()) / cov.length.std(ddof=0)
    X = np.column_stack([y == 0, y == 1, z, cov.position]).astype(float)
    b, se = _logit_mle(X, e)
    q = stats.norm.ppf(0.975)
    got = hc.judge_bias(judge, truth, cov, outcome=outcome).to_frame().set_index("covariate")
    for k, name in ((2, "length"), (3, "position")):
        np.testing.assert_allclose(got.loc[name, ["odds ratio", "lo", "hi"]].to_numpy(float),
                                   np.exp([b[k], b[k] - q * se[k], b[k] + q * se[k]]), rtol=1e-5)
        assert abs(got.loc[name, "p"] - 2 * stats.norm.sf(abs(b[k] / se[k]))) < 1e-6


def _holm(p):
    "Holm's step-down adjusted p-values."
    order, adj, run = np.argsort(p), np.empty(len(p)), 0.0
    for r, i in enumerate(order):
        run = max(run, (len(p) - r) * p[i])
        adj[i] = min(run, 1.0)
    return adj


@pytest.mark.parametrize("stratify", [True, False])
def test_judge_bias_category_wald_holm(stratify):
    """A 3-level category (against its most common level) and a 0/1 covariate beside length and position: odds ratios
    to 1e-5 (rel); the category's joint Wald chi2(2) p, the others' Wald p and Holm over the 4 covariates to 1e-6;
    stratify=False: one intercept instead of one per class."""
    judge, truth, cov = _bias_data(seed=11, n=600)
    rng = np.random.default_rng(4)
    cov["family"] = rng.choice(["gpt", "claude", "llama"], 600, p=[0.5, 0.3, 0.2])
    cov["shared"] = (rng.random(600) < 0.3).astype(int)
    y, e = truth.to_numpy(), (judge != truth).to_numpy().astype(float)
    z = (cov.length - cov.length.mean()) / cov.length.std(ddof=0)
    levels = cov.family.value_counts().index
    ic = np.column_stack([y == 0, y == 1]) if stratify else np.ones((600, 1))
    X = np.column_stack([ic, z, cov.position] + [cov.family == lv for lv in levels[1:]] + [cov.shared]).astype(float)
    b, se = _logit_mle(X, e)
    c = ic.shape[1]
    p = special.expit(X @ b)
    V = np.linalg.inv((X * (p * (1 - p))[:, None]).T @ X)
    k = [c + 2, c + 3]
    pv = np.array([2 * stats.norm.sf(abs(b[c] / se[c])), 2 * stats.norm.sf(abs(b[c + 1] / se[c + 1])),
                   stats.chi2.sf(b[k] @ np.linalg.solve(V[np.ix_(k, k)], b[k]), 2),
                   2 * stats.norm.sf(abs(b[c + 4] / se[c + 4]))])
    got = hc.judge_bias(judge, truth, cov, stratify=stratify).to_frame()
    np.testing.assert_allclose(got["odds ratio"].to_numpy(float), np.exp(b[c:]), rtol=1e-5)
    assert list(got.term[got.covariate == "family"]) == list(levels[1:])
    per_cov = got.groupby("covariate", sort=False)[["p", "p Holm"]].first().loc[["length", "position", "family", "shared"]]
    np.testing.assert_allclose(per_cov["p"].to_numpy(float), pv, atol=1e-6)
    np.testing.assert_allclose(per_cov["p Holm"].to_numpy(float), _holm(pv), atol=1e-6)


def test_judge_bias_panel_reference():
    "A panel of 4 annotators: the reference is its majority, 2-2 ties left out; odds ratios and limits to 1e-5 (rel)."
    judge, truth, cov = _bias_data(seed=12, n=600)
    rng = np.random.default_rng(8)
    L = np.column_stack([np.where(rng.random(600) < 0.85, truth, 1 - truth) for _ in range(4)])
    votes = L.sum(1)
    keep = votes != 2
    y = (votes[keep] > 2).astype(int)
    e = (judge.to_numpy()[keep] != y).astype(float)
    c = cov[keep]
    z = (c.length - c.length.mean()) / c.length.std(ddof=0)
    b, se = _logit_mle(np.column_stack([y == 0, y == 1, z, c.position]).astype(float), e)
    q = stats.norm.ppf(0.975)
    panel = hc.Annotations.from_wide(pd.DataFrame(L, index=truth.index, columns=list("abcd")))
    got = hc.judge_bias(judge, panel, cov).to_frame().set_index("covariate")
    assert (got["items"] == keep.sum()).all()
    np.testing.assert_allclose(got[["odds ratio", "lo", "hi"]].to_numpy(float),
                               np.exp(np.column_stack([b[2:], b[2:] - q * se[2:], b[2:] + q * se[2:]])), rtol=1e-5)


# ---------------------------------------------------------------------------------------------------------------
# 5. ScoreSequence: intervals intersect over the looks and cover the truth at every look (nb 63)
# ---------------------------------------------------------------------------------------------------------------
def _sequence_runs(S, N=1000, batch=50, looks=6, seed=63):
    "S seeded sequences (70 % pass, judge sensitivity 0.9, specificity 0.6): covered at every look, and nested."
    rng = np.random.default_rng(seed)
    covered, nested = 0, True
    for s in range(S):
        T = rng.random(N) < 0.7
        f = np.where(T, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(int)
        ids = np.array([f"s{s}i{j}" for j in range(N)])
        seq, order = hc.ScoreSequence(pd.Series(f, index=ids)), rng.permutation(N)
        lo, hi, ok = -np.inf, np.inf, True
        for t in range(looks):
            b = order[t * batch:(t + 1) * batch]
            r = seq.update(pd.Series(T[b].astype(int), index=ids[b]))
            nested &= bool(r.lower >= lo - 1e-12 and r.upper <= hi + 1e-12)
            lo, hi = r.lower, r.upper
            ok &= bool(lo <= T.mean() <= hi)
        covered += ok
    return covered / S, nested


@pytest.mark.skipif(not hasattr(hc, "ScoreSequence"), reason="ScoreSequence is not on this branch (sysscore's nb 63)")
def test_score_sequence_nested_and_covering():
    """Each look's interval lies in the previous one (so in the intersection of all before it). Coverage over all
    looks: 200 sequences measured 0.975 (>= 0.95 - 3 SE = 0.904) with HUMANCERT_VERIFY_SLOW=1 (about 50 s);
    by default 8 sequences, nesting only."""
    slow = os.environ.get("HUMANCERT_VERIFY_SLOW") == "1"
    S = 200 if slow else 8
    cover, nested = _sequence_runs(S)
    assert nested
    if slow:
        assert cover >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / S), cover


# ---------------------------------------------------------------------------------------------------------------
# 6. rank_systems(..., ties='davidson'): Davidson's tie model by maximum likelihood, scipy's BFGS (nb 71)
# ---------------------------------------------------------------------------------------------------------------
def _davidson_fit(X, w, vs, vt):
    """argmin over (theta, eta) of sum_i w_i log(e^{d/2} + e^{-d/2} + e^eta) - vs_i d/2 - vt_i eta, d = x_i'theta:
    Davidson's negative log-likelihood (P(a) = e^{d/2}/D, P(b) = e^{-d/2}/D, P(tie) = nu/D), with the outcome sums
    vs (wins minus losses) and vt (ties) weighted per item. BFGS from theta = 0, nu = 1."""
    q = X.shape[1]

    def f(p):
        d, eta = X @ p[:q], p[q]
        z = np.column_stack([d / 2, -d / 2, np.full(len(d), eta)])
        lse = special.logsumexp(z, axis=1)
        P = np.exp(z - lse[:, None])
        val = w @ lse - vs @ d / 2 - vt.sum() * eta
        gd = w * (P[:, 0] - P[:, 1]) / 2 - vs / 2
        return val, np.append(X.T @ gd, w @ P[:, 2] - vt.sum())

    res = optimize.minimize(f, np.zeros(q + 1), jac=True, method="BFGS", options=dict(gtol=1e-12, maxiter=10_000))
    return res.x[:q], math.exp(res.x[q])


@pytest.mark.parametrize("lam", [None, 0.0, 0.5, 1.0])
def test_davidson_mle(bt, lam):
    """Judge only and humans only are Davidson maximum-likelihood fits (one verdict per pair), PPI++ at a fixed lambda
    the minimiser of lam * judge's mean loss + humans' mean loss - lam * judge's mean loss on the human subset (the
    loss linear in the outcomes): strengths and nu to 1e-6. Tuned lambda (None): the PPI++ fit at the function's
    lambda."""
    s, pw = bt
    X = _design(s)
    R = s["R"]
    N, n = len(R), R.sum()
    got = hc.rank_systems(pw, clusters=None, lam=lam, ties="davidson")
    lam_used = got.lam if lam is None else lam
    sJ, tJ = 2 * s["yJ"] - 1, (s["yJ"] == 0.5).astype(float)
    sH, tH = np.where(R, 2 * s["yH"] - 1, 0.0) * (s["yH"] != 0.5), np.where(R, s["yH"] == 0.5, 0.0)
    fits = {"judge only": (np.full(N, 1 / N), sJ / N, tJ / N),
            "humans only": (R / n, sH / n, tH / n),
            "PPI++": (lam_used / N + R * (1 - lam_used) / n, lam_used * sJ / N + R * (sH - lam_used * sJ) / n,
                      lam_used * tJ / N + R * (tH - lam_used * tJ) / n)}
    for method, (w, vs, vt) in fits.items():
        theta, nu = _davidson_fit(X, w, vs, vt)
        np.testing.assert_allclose(got.strengths.loc[method].loc[NAMES[1:]].estimate.to_numpy(), theta, atol=1e-6)
        assert abs(got.tie_parameter.loc[method, "estimate"] - nu) < 1e-6, (method, nu)


def test_davidson_two_systems_closed_form():
    "Two systems, 30 wins, 12 losses, 8 ties of s1 over s0: theta_s1 = log(30/12), nu = 8/sqrt(30*12) (1e-6)."
    lab = ["A"] * 30 + ["B"] * 12 + ["tie"] * 8
    rows = [dict(item=f"i{i}", prompt=f"p{i}", system_a="s1", system_b="s0", label=l, rater=r)
            for i, l in enumerate(lab) for r in ("J", "H")]
    got = hc.rank_systems(hc.read_pairwise(pd.DataFrame(rows), judges=("J",), item="item"), clusters=None,
                          ties="davidson")
    for method in ("judge only", "humans only", "PPI++"):
        assert abs(got.strengths.loc[method].loc["s1"].estimate - math.log(30 / 12)) < 1e-6
        assert abs(got.tie_parameter.loc[method, "estimate"] - 8 / math.sqrt(360)) < 1e-6


# ---------------------------------------------------------------------------------------------------------------
# 7. corrected_score(..., estimand='oracle') with class shares: multi-class Dawid-Skene EM (nb 60)
# ---------------------------------------------------------------------------------------------------------------
CLASSES = ["a", "b", "c"]


def _ds3_data(seed=60, N=3000, n=300, shares=(0.5, 0.3, 0.2), acc=(0.85, 0.8, 0.75), judge_acc=0.8, missing=False):
    """N items with true classes; the judge right judge_acc of the time (else another class, uniformly); a panel of
    3 annotators (accuracies acc, errors uniform over the other classes, independent given the truth) on n random
    items; missing=True adds a 4th annotator who labels a random half of the gold items only."""
    rng = np.random.default_rng(seed)
    C = len(shares)
    T = rng.choice(C, N, p=shares)
    other = lambda t: (t + rng.integers(1, C, len(t))) % C
    f = np.where(rng.random(N) < judge_acc, T, other(T))
    gold = np.sort(rng.choice(N, n, replace=False))
    accs = list(acc) + ([0.9] if missing else [])
    L = np.column_stack([np.where(rng.random(n) < a, T[gold], other(T[gold])) for a in accs]).astype(float)
    if missing:
        L[rng.random(n) < 0.5, -1] = np.nan
    ids = [f"i{j:05d}" for j in range(N)]
    wide = pd.DataFrame(L, index=[ids[g] for g in gold], columns=[f"r{k}" for k in range(len(accs))])
    wide = wide.apply(lambda col: col.map(lambda v: np.nan if np.isnan(v) else CLASSES[int(v)]))
    return pd.Series([CLASSES[k] for k in f], index=ids), wide


def _ds_multiclass(Lcodes, C, tol=1e-12):
    """Dawid-Skene EM (missing labels as -1): start from each item's label shares; M step pi_c = mean q_c,
    Theta_k[c, l] = sum_i q_ic [l_ik = l] / sum_i q_ic [k labelled i]; E step q_ic prop. to pi_c prod_k Theta_k[c, l_ik].
    Then the classes renamed by the assignment maximising the summed diagonal of the annotators' matrices."""
    n, K = Lcodes.shape
    onehot = np.stack([(Lcodes == l) for l in range(C)], axis=2).astype(float)  # n x K x C
    lab = (Lcodes >= 0).astype(float)
    q = onehot.sum(1) / lab.sum(1, keepdims=True)
    for _ in range(100_000):
        pi = q.mean(0)
        Th = np.einsum("ic,ikl->kcl", q, onehot) / np.einsum("ic,ik->kc", q, lab)[:, :, None]
        logA = np.log(pi) + np.einsum("ikl,kcl->ic", onehot, np.log(np.clip(Th, 1e-300, None)))
        new = np.exp(logA - special.logsumexp(logA, axis=1, keepdims=True))
        done = np.max(np.abs(new - q)) < tol
        q = new
        if done:
            break
    Th = np.einsum("ic,ikl->kcl", q, onehot) / np.einsum("ic,ik->kc", q, lab)[:, :, None]
    rows, cols = optimize.linear_sum_assignment(-Th.sum(0))   # latent class rows[j] is named cols[j]
    qn = np.empty_like(q)
    qn[:, cols] = q[:, rows]
    return qn.mean(0), qn


@pytest.mark.parametrize("missing", [False, True])
def test_oracle_class_shares(missing):
    """Three classes, 3 annotators (and a 4th on half the gold items with missing=True): the gold-only row of each
    class is the share of my EM fit (1e-4), the PPI++ row lam_c f_c,N + mean(q_c - lam_c f_c) with
    lam_c = Cov_n(q_c, f_c) / ((1 + n/N) Var_{N-1}(f_c)) clipped to [0, 1], f_c the judge's indicator of class c (1e-4)."""
    judge, wide = _ds3_data(missing=missing)
    codes = wide.apply(lambda col: col.map({c: k for k, c in enumerate(CLASSES)})).fillna(-1).to_numpy().astype(int)
    pi, q = _ds_multiclass(codes, 3)
    got = hc.corrected_score(judge, hc.Annotations.from_wide(wide), kind="classes", estimand="oracle")
    rows = got.rows.set_index(["outcome", "method"])
    N, n = len(judge), len(wide)
    for c, name in enumerate(CLASSES):
        f = (judge == name).to_numpy().astype(float)
        fg = (judge.loc[wide.index] == name).to_numpy().astype(float)
        lam = np.clip(np.cov(q[:, c], fg, ddof=0)[0, 1] / ((1 + n / N) * f.var(ddof=1)), 0, 1)
        assert abs(rows.loc[(name, "gold only"), "estimate"] - pi[c]) < 1e-4, (name, pi[c])
        assert abs(rows.loc[(name, "PPI++"), "estimate"] - (lam * f.mean() + np.mean(q[:, c] - lam * fg))) < 1e-4


# ---------------------------------------------------------------------------------------------------------------
# 8. score_budget with clusters (design effect), strata (Neyman) and class shares (Bonferroni), assumed (nb 62)
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("b, se, sp, icc, m, h", [(0.7, 0.9, 0.6, 0.3, 5, 0.05), (0.4, 0.8, 0.85, 0.1, 10, 0.03),
                                                  (0.9, 0.95, 0.5, 0.5, 2, 0.04)])
def test_score_budget_clusters_assumed(b, se, sp, icc, m, h):
    """Unlimited N, an assumed ICC on clusters of m gold items: both variances times Kish's 1 + (m - 1) ICC; gold only
    Var(Y) deff / n, PPI++ (Var(Y) - Cov^2/Var(f)) deff / n (lambda = Cov/Var(f) at N = inf); the headline, PPI++ at
    these n, uses Student's t on n/m - 1 degrees of freedom. Labels exactly."""
    vy, vf, c = _budget_moments(b, se, sp)
    deff = 1 + (m - 1) * icc
    z = stats.norm.ppf(0.975)
    got = hc.score_budget(h, pass_rate=b, sensitivity=se, specificity=sp, icc=icc, cluster_size=m, reps=0)
    vp = vy - c * c / vf
    assert got.n_gold == _smallest_n(lambda n: vy * deff / n, h, z)
    assert got.n_ppi == _smallest_n(lambda n: vp * deff / n, h, z)
    n = got.n_ppi
    while stats.t.ppf(0.975, n / m - 1) * math.sqrt(vp * deff / n) > h:
        n += 1
    assert got.headline == "PPI++" and got.n_headline == n


@pytest.mark.parametrize("W, sg, sq, h, conf", [((0.25, 0.75), (0.5, 0.2), (0.4, 0.15), 0.05, 0.95),
                                                ((0.2, 0.3, 0.5), (0.3, 0.45, 0.5), (0.2, 0.3, 0.1), 0.03, 0.9),
                                                ((0.5, 0.5), (0.01, 0.5), (0.005, 0.3), 0.05, 0.95)])
def test_score_budget_strata_assumed(W, sg, sq, h, conf):
    """Neyman: n_h = ceil(z^2 (sum_j W_j S_j) W_h S_h / h^2), at least 2, for S = sd_gold and for S = sd_ppi; the plan is
    the sum. Labels exactly, and the half-width of the planned allocation z sqrt(sum W_h^2 S_h^2 / n_h) is <= h."""
    z = stats.norm.ppf((1 + conf) / 2)
    frame = pd.DataFrame({"weight": W, "sd_gold": sg, "sd_ppi": sq}, index=[f"h{k}" for k in range(len(W))])
    got = hc.score_budget(h, strata=frame, confidence=conf, reps=0)
    for S, col, total in ((np.array(sg), "labels_gold", got.n_gold), (np.array(sq), "labels_ppi", got.n_ppi)):
        w = np.array(W)
        nh = np.maximum(np.ceil(z**2 * (w @ S) * w * S / h**2 - 1e-9), 2).astype(int)
        assert list(got.by[col]) == list(nh) and total == nh.sum()
        assert z * math.sqrt(np.sum(w**2 * S**2 / nh)) <= h + 1e-12


@pytest.mark.parametrize("shares, rho, h, conf", [((0.5, 0.3, 0.2), 0.6, 0.05, 0.95), ((0.1, 0.2, 0.3, 0.4), 0.8, 0.03, 0.9),
                                                  ((0.7, 0.3), 0.5, 0.05, 0.95)])
def test_score_budget_class_shares_assumed(shares, rho, h, conf):
    """Each class: its indicator's variance p(1-p), the judge's indicator of the same variance and correlation rho, at
    z_{1 - alpha/(2C)} (Bonferroni); gold only p(1-p)/n, PPI++ p(1-p)(1 - rho^2)/n (N unlimited); the plan is the
    largest over the classes. Labels exactly, per class and overall."""
    C = len(shares)
    z = stats.norm.ppf(1 - (1 - conf) / (2 * C))
    got = hc.score_budget(h, shares=list(shares), correlation=rho, confidence=conf, reps=0)
    v = np.array(shares) * (1 - np.array(shares))
    gold = [_smallest_n(lambda n: vc / n, h, z) for vc in v]
    ppi = [_smallest_n(lambda n: vc * (1 - rho**2) / n, h, z) for vc in v]
    assert list(got.by["labels_gold"]) == gold and list(got.by["labels_ppi"]) == ppi
    assert (got.n_gold, got.n_ppi) == (max(gold), max(ppi))


# ---------------------------------------------------------------------------------------------------------------
# 9. read_pairwise(path): FastChat MT-Bench pair judgements, AlpacaEval annotations, Chatbot Arena battles (nb 70)
# ---------------------------------------------------------------------------------------------------------------
# Layouts from the tools themselves: FastChat's llm_judge play_a_match_pair writes one JSON line per (question, turn,
# pair) with question_id, model_1, model_2, g1_winner (model_1's answer shown first), g2_winner (model_2's first), each
# 'model_1' / 'model_2' / 'tie' / 'error', judge = [model, prompt name] and turn; AlpacaEval's annotations.json is a
# list of records with instruction, generator_1/2, output_1/2, annotator and preference (1: output_1, 2: output_2,
# 1.5 a draw, fractions from weighted annotators; null on failure); Chatbot Arena's clean_battle_*.json has model_a
# (shown on the left), model_b, winner ('model_a', 'model_b', 'tie', 'tie (bothbad)'), judge (the voter), question_id.
def _verdicts(pw):
    "(item's first system by name, second, rater, shown first, winner) per judgement, as a sorted list."
    t = pw.table
    return sorted(zip(t.system_a, t.system_b, t.rater, t["first"], t.winner, t.item.str.contains("turn 2")))


def test_read_fastchat_pairs(tmp_path):
    """gpt-4 on questions 81 and 82: (vicuna, alpaca) turn 1 vicuna both ways, turn 2 a tie both ways; (llama, vicuna)
    the answer shown first both times (a flip); (alpaca, llama) llama in one order, an error in the other; (alpaca,
    vicuna) errors both ways. By hand: 7 judgements of 4 items (3 errors dropped), all by 'gpt-4', a judge; position
    consistency 2 of 3 pairs seen in both orders; first shown preferred in 3 of the 4 decisive verdicts."""
    recs = [(81, "vicuna", "alpaca", "model_1", "model_1", 1), (81, "vicuna", "alpaca", "tie", "tie", 2),
            (81, "llama", "vicuna", "model_1", "model_2", 1), (82, "alpaca", "llama", "model_2", "error", 1),
            (82, "alpaca", "vicuna", "error", "error", 1)]
    path = tmp_path / "gpt-4_pair.jsonl"
    path.write_text("".join(json.dumps(dict(question_id=q, model_1=m1, model_2=m2, g1_winner=g1, g2_winner=g2,
                                            judge=["gpt-4", "pair-v2"], turn=t, tstamp=0.0)) + "\n"
                            for q, m1, m2, g1, g2, t in recs))
    pw = hc.read_pairwise(str(path))
    assert _verdicts(pw) == sorted([
        ("alpaca", "vicuna", "gpt-4", "vicuna", "vicuna", False), ("alpaca", "vicuna", "gpt-4", "alpaca", "vicuna", False),
        ("alpaca", "vicuna", "gpt-4", "vicuna", "tie", True), ("alpaca", "vicuna", "gpt-4", "alpaca", "tie", True),
        ("llama", "vicuna", "gpt-4", "llama", "llama", False), ("llama", "vicuna", "gpt-4", "vicuna", "vicuna", False),
        ("alpaca", "llama", "gpt-4", "alpaca", "llama", False)])
    assert pw.table.item.nunique() == 4 and not pw.table.human.any() and pw.judges == ("gpt-4",)
    assert sorted(pw.table.prompt.astype(str).unique()) == ["81", "82"]
    text = repr(hc.position_consistency(pw, clusters=None))
    assert "0.667" in text and "of 3 pairs" in text and "0.750" in text and "of 4 decisive" in text


def test_read_alpaca_eval_annotations(tmp_path):
    """One annotator on 7 instructions (gpt4_turbo as output_1, mymodel as output_2): preferences 1, 2, 1.5, 0, 1.2,
    1.8 and a failure. By hand: 6 judgements, winners gpt4_turbo 2 (1 and 1.2), mymodel 2 (2 and 1.8), ties 2 (1.5 and
    0); generator_1 shown first; the annotator a judge."""
    prefs = [("poem", 1), ("explain", 2), ("list", 1.5), ("story", 0), ("math", 1.2), ("code", 1.8), ("joke", None)]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([dict(instruction=i, output_1="x", output_2="y", generator_1="gpt4_turbo",
                                     generator_2="mymodel", annotator="weighted_gpt4", preference=p) for i, p in prefs]))
    pw = hc.read_pairwise(str(path))
    t = pw.table.set_index("prompt")
    assert len(t) == 6 and (t["first"] == "gpt4_turbo").all() and not t.human.any() and pw.judges == ("weighted_gpt4",)
    assert t.winner.to_dict() == {"poem": "gpt4_turbo", "explain": "mymodel", "list": "tie", "story": "tie",
                                  "math": "gpt4_turbo", "code": "mymodel"}


def test_read_arena_battles(tmp_path):
    """Two voters and a judge named in `judges`: gpt-4 vs claude-v1 on q1 (left gpt-4: model_a wins; left claude-v1:
    model_b wins; the judge: tie (bothbad); turn 2: tie) and vicuna (left) beating gpt-4 on q2. By hand: 5 judgements,
    4 human, gpt-4 won 2, vicuna 1, ties 2; model_a shown first."""
    recs = [("q1", "gpt-4", "claude-v1", "model_a", "u1", 1), ("q1", "claude-v1", "gpt-4", "model_b", "u2", 1),
            ("q1", "gpt-4", "claude-v1", "tie (bothbad)", "judge4", 1), ("q1", "gpt-4", "claude-v1", "tie", "u1", 2),
            ("q2", "vicuna", "gpt-4", "model_a", "u2", 1)]
    path = tmp_path / "clean_battle_20230717.json"
    path.write_text(json.dumps([dict(question_id=q, model_a=a, model_b=b, winner=w, judge=j, turn=t, language="English")
                                for q, a, b, w, j, t in recs]))
    pw = hc.read_pairwise(str(path), judges=("judge4",))
    assert _verdicts(pw) == sorted([
        ("claude-v1", "gpt-4", "u1", "gpt-4", "gpt-4", False), ("claude-v1", "gpt-4", "u2", "claude-v1", "gpt-4", False),
        ("claude-v1", "gpt-4", "judge4", "gpt-4", "tie", False), ("claude-v1", "gpt-4", "u1", "gpt-4", "tie", True),
        ("gpt-4", "vicuna", "u2", "vicuna", "vicuna", False)])
    assert pw.table.human.sum() == 4 and pw.table.item.nunique() == 3


# ---------------------------------------------------------------------------------------------------------------
# 10. The finite-sample betting interval, item-level and with whole clusters as the draws (nb 60)
# ---------------------------------------------------------------------------------------------------------------
from humancert.system_score import corrected_score as _cs  # noqa: E402  (betting_ci / cluster_betting_ci: nb 60's own names)


def _bet_log_max(y, fg, f_all, tau, cap=0.9):
    """Running maximum of log K_t against H0: mean of Y over the N judged items <= tau, the gold items drawn without
    replacement in the order given. X_t = Y_t - lam_t (f_t - r_t), r_t the judge's mean over the N - t + 1 items not
    yet drawn, lam_t = Cov(Y, f) over the gold items before t (divisor t - 1) / Var(f) over all N (divisor N), clipped
    to [0, 1]; X_t in [-lam_t (1 - r_t), 1 + lam_t r_t]; m_t = (N tau - sum_{s<t} Y_s) / (N - t + 1); aGRAPA: past
    mean shrunk by one pseudo-value m_t, past variance with one pseudo-value (hi_t - lo_t)^2 / 16, the fraction
    (mu - m)/(var + (mu - m)^2) clipped to [0, cap/(m_t - lo_t)]; m_t < lo_t: H0 impossible, K = inf."""
    N, n = len(f_all), len(y)
    k = np.arange(n)                                   # gold items before t
    past = lambda v: np.concatenate([[0.0], np.cumsum(v)[:-1]])
    r = (f_all.sum() - past(fg)) / (N - k)
    vf = f_all.var()
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = past(y * fg) / k - past(y) * past(fg) / k**2
        lam = np.where((k >= 2) & (vf > 0), np.clip(cov / vf, 0, 1), 0.0)
    X = y - lam * (fg - r)
    lo, hi = -lam * (1 - r), 1 + lam * r
    m = (N * tau - past(y)) / (N - k)
    if np.any(m < lo):
        return math.inf
    Sx, Sxx = past(X), past(X**2)
    with np.errstate(invalid="ignore", divide="ignore"):
        ss = np.where(k > 0, Sxx - Sx**2 / k, 0.0)
    mu = (Sx + m) / (k + 1)
    var = ((hi - lo) ** 2 / 16 + ss) / (k + 1)
    b = np.clip((mu - m) / (var + (mu - m) ** 2), 0, None)
    b = np.minimum(b, np.where(m > lo, cap / np.where(m > lo, m - lo, 1), 0))
    return max(0.0, float(np.cumsum(np.log1p(b * (X - m))).max()))


def _smallest_kept(log_max, alpha_side, grid=101, steps=40):
    "The smallest candidate whose capital never reached 1/alpha_side (a grid on [0, 1], then bisection)."
    rej = lambda t: log_max(t) >= math.log(1 / alpha_side)
    if not rej(0.0):
        return 0.0
    g = np.linspace(0, 1, grid)
    j = 0
    while j + 1 < grid and rej(g[j + 1]):
        j += 1
    a, b = g[j], g[min(j + 1, grid - 1)]
    for _ in range(steps):
        a, b = ((a + b) / 2, b) if rej((a + b) / 2) else (a, (a + b) / 2)
    return b


def _my_betting(y, fg, f_all, alpha):
    lo = _smallest_kept(lambda t: _bet_log_max(y, fg, f_all, t), alpha / 2)
    return lo, 1 - _smallest_kept(lambda t: _bet_log_max(1 - y, 1 - fg, 1 - f_all, t), alpha / 2)


def _my_cluster_betting(T, Ng, Fg, Nall, Fall, alpha):
    """Whole clusters as the draws: for each candidate m, Y'_c = (T_c - m N_c + m s)/s and f'_c likewise (s the largest
    cluster of all G), bet on the G clusters with the item construction at tau = m; the upper limit on N_c - T_c."""
    s = Nall.max()
    sh = lambda tot, size, m: (tot - m * size + m * s) / s
    side = lambda Tg, Fgg, Fa: _smallest_kept(
        lambda m: _bet_log_max(sh(Tg, Ng, m), sh(Fgg, Ng, m), sh(Fa, Nall, m), m), alpha / 2)
    return side(T, Fg, Fall), 1 - side(Ng - T, Ng - Fg, Nall - Fall)


def _betting_data(seed, N=400, n=60):
    rng = np.random.default_rng(seed)
    T = (rng.random(N) < 0.7).astype(float)
    f = np.where(T == 1, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(float)
    return T, f, rng.choice(N, n, replace=False)


@pytest.mark.parametrize("seed, alpha", [(1, 0.05), (2, 0.1)])
def test_betting_ci_items(seed, alpha):
    """Item-level betting_ci in the order given against mine: the library reports the last rejected candidate (its
    rounding widens the interval), so its lower limit is at most mine and its upper at least mine, each within 1e-4
    (measured: 3.5e-6 and 5.3e-6 at seed 1). NB: the lam_t that matches is Cov/Var_N(f), not PPI++'s
    Cov/((1 + n/N) Var_{N-1}(f)) the notebook's prose names (with that one the limits differ by ~2e-3)."""
    T, f, g = _betting_data(seed)
    lo, hi = _cs.betting_ci(T[g], f[g], f, alpha)
    mlo, mhi = _my_betting(T[g], f[g], f, alpha)
    assert mlo - 1e-4 <= lo <= mlo + 1e-9 and mhi - 1e-9 <= hi <= mhi + 1e-4, (lo, mlo, hi, mhi)


def _cluster_data(seed, G=80, g=25):
    "G clusters of 1-7 items (beta-distributed pass rates: correlated within), the lenient judge; g whole gold clusters."
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, G)
    grp = np.repeat(np.arange(G), sizes)
    y = (rng.random(len(grp)) < rng.beta(2.1, 0.9, G)[grp]).astype(float)
    f = np.where(y == 1, rng.random(len(grp)) < 0.9, rng.random(len(grp)) < 0.4).astype(float)
    return grp, y, f, np.sort(rng.choice(G, g, replace=False))


@pytest.mark.parametrize("seed, alpha", [(5, 0.05), (6, 0.1)])
def test_cluster_betting_ci(seed, alpha):
    """cluster_betting_ci with the gold clusters in code order against mine (unequal clusters, so the shift by m s
    matters): the library's limits are mine widened by at most 1e-4 (measured at seed 5: 2.7e-6 and 1.1e-5)."""
    grp, y, f, gc = _cluster_data(seed)
    gold = np.isin(grp, gc)
    lo, hi = _cs.cluster_betting_ci(y[gold], f[gold], f, alpha, grp[gold], grp)
    tot = lambda v: np.bincount(grp, weights=v, minlength=grp.max() + 1)
    Nall, Tall, Fall = tot(np.ones(len(grp))), tot(y), tot(f)
    mlo, mhi = _my_cluster_betting(Tall[gc], Nall[gc], Fall[gc], Nall, Fall, alpha)
    assert mlo - 1e-4 <= lo <= mlo + 1e-9 and mhi - 1e-9 <= hi <= mhi + 1e-4, (lo, mlo, hi, mhi)


def test_corrected_score_cluster_betting_headline():
    """corrected_score(clusters=...) with whole gold clusters and under 300 gold items heads with the clustered betting
    interval: mine with the gold clusters in the hashed order of their ids (nb 19's hashed_order), within 1e-4."""
    from humancert.certification.gold_certificate import hashed_order
    grp, y, f, gc = _cluster_data(7)
    ids = np.array([f"x{i}" for i in range(len(grp))])
    cid = np.array([f"conv{c}" for c in grp])
    gold = np.isin(grp, gc)
    got = hc.corrected_score(pd.Series(f.astype(int), index=ids), pd.Series(y[gold].astype(int), index=ids[gold]),
                             clusters=pd.Series(cid, index=ids))
    assert got.headline == "betting"
    lo, hi = got.ci
    order = gc[hashed_order([f"conv{c}" for c in gc])]
    tot = lambda v: np.bincount(grp, weights=v, minlength=grp.max() + 1)
    Nall, Tall, Fall = tot(np.ones(len(grp))), tot(y), tot(f)
    mlo, mhi = _my_cluster_betting(Tall[order], Nall[order], Fall[order], Nall, Fall, 0.05)
    assert mlo - 1e-4 <= lo <= mlo + 1e-9 and mhi - 1e-9 <= hi <= mhi + 1e-4, (lo, mlo, hi, mhi)


def _anova_icc(v, g):
    "One-way ANOVA ICC (MSB - MSW) / (MSB + (m0 - 1) MSW), m0 = (n - sum n_g^2 / n) / (G - 1), clipped at 0."
    k = pd.DataFrame(dict(v=v, g=g)).groupby("g").v
    n, G, ng = len(v), k.ngroups, k.size().to_numpy()
    msb = (ng * (k.mean().to_numpy() - v.mean()) ** 2).sum() / (G - 1)
    msw = ((v - k.transform("mean").to_numpy()) ** 2).sum() / (n - G)
    m0 = (n - (ng**2).sum() / n) / (G - 1)
    return max(0.0, (msb - msw) / (msb + (m0 - 1) * msw))


def test_score_budget_clusters_from_pilot():
    """A pilot of 40 whole gold clusters of 5 (truth ICC 0.3 by a beta-binomial) among 2,000 items: ICCs by one-way
    ANOVA, of the truth for gold only and of PPI++'s residual Y - lam f (lam tuned on the pilot, (1 + n/N) included)
    for PPI++; each variance (the pilot's moments as in the binary pilot test) times 1 + (m - 1) ICC; the headline
    with t on n/m - 1 degrees of freedom. Labels exactly (measured 875, 561, 574)."""
    rng = np.random.default_rng(62)
    G, m = 400, 5
    grp = np.repeat(np.arange(G), m)
    N = len(grp)
    y = (rng.random(N) < rng.beta(0.7 * (1 / 0.3 - 1), 0.3 * (1 / 0.3 - 1), G)[grp]).astype(int)
    f = np.where(y == 1, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(int)
    gold = np.isin(grp, rng.choice(G, 40, replace=False))
    ids = np.array([f"x{i}" for i in range(N)])
    got = hc.score_budget(0.05, pilot=(pd.Series(f, index=ids), pd.Series(y[gold], index=ids[gold])),
                          clusters=pd.Series([f"c{c}" for c in grp], index=ids), reps=0)
    Y, fg, gg = y[gold].astype(float), f[gold].astype(float), grp[gold]
    n = len(Y)
    vy, c, vf = Y.var(), np.cov(Y, fg, ddof=0)[0, 1], f.var(ddof=1)
    lam = np.clip(c / ((1 + n / N) * vf), 0, 1)
    dy, dr = 1 + (m - 1) * _anova_icc(Y, gg), 1 + (m - 1) * _anova_icc(Y - lam * fg, gg)
    z = stats.norm.ppf(0.975)
    assert got.n_gold == _smallest_n(lambda k: vy * dy / k, 0.05, z)
    assert got.n_ppi == _smallest_n(lambda k: _ppi_var(k, vy, vf, c, N) * dr, 0.05, z)
    k = got.n_ppi
    while stats.t.ppf(0.975, k / m - 1) * math.sqrt(_ppi_var(k, vy, vf, c, N) * dr) > 0.05:
        k += 1
    assert got.n_headline == k


def test_score_budget_strata_from_pilot():
    """A pilot with two strata (25 % hard items passing 40 %, the rest 90 %; 150 gold labels of 3,000): W_h the
    stratum's share of all items, S_h the SD (divisor n_h) of the gold truth and of the residual Y - lam_h f with
    lam_h = Cov_{n_h}(Y, f) / ((1 + n_h/N_h) Var_{N_h - 1}(f)) clipped (PPI++'s, in the stratum); SDs to 1e-12, the
    Neyman allocation exactly (measured gold 118 + 64, PPI++ 95 + 42)."""
    rng = np.random.default_rng(9)
    N = 3000
    st = np.where(rng.random(N) < 0.25, "hard", "easy")
    y = (rng.random(N) < np.where(st == "hard", 0.4, 0.9)).astype(int)
    f = np.where(y == 1, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(int)
    g = np.sort(rng.choice(N, 150, replace=False))
    ids = np.array([f"x{i}" for i in range(N)])
    got = hc.score_budget(0.05, pilot=(pd.Series(f, index=ids), pd.Series(y[g], index=ids[g])),
                          strata=pd.Series(st, index=ids), reps=0)
    z = stats.norm.ppf(0.975)
    W, Sg, Sp = [], [], []
    for h in ("easy", "hard"):
        a = st == h
        gi = g[a[g]]
        Y, fg = y[gi].astype(float), f[gi].astype(float)
        lam = np.clip(np.cov(Y, fg, ddof=0)[0, 1] / ((1 + len(gi) / a.sum()) * f[a].var(ddof=1)), 0, 1)
        W.append(a.mean()), Sg.append(Y.std()), Sp.append((Y - lam * fg).std())
    by = got.by.loc[["easy", "hard"]]
    np.testing.assert_allclose(by[["weight", "sd_gold", "sd_ppi"]].to_numpy(float), np.column_stack([W, Sg, Sp]),
                               atol=1e-12)
    W = np.array(W)
    for S, col, total in ((np.array(Sg), "labels_gold", got.n_gold), (np.array(Sp), "labels_ppi", got.n_ppi)):
        nh = np.maximum(np.ceil(z**2 * (W @ S) * W * S / 0.05**2 - 1e-9), 2).astype(int)
        assert list(by[col]) == list(nh) and total == nh.sum()


def test_score_budget_class_shares_from_pilot():
    """A pilot of 3 classes (shares 0.5/0.3/0.2, the judge the true class 60 % of the time, else a draw from the shares;
    200 gold of 4,000): per class, Var(Y_c) and Cov(Y_c, f_c) over the gold items (divisor n), Var(f_c) over all N
    (N - 1), PPI++ clipped-optimal at N, at z_{1 - 0.05/6}; the plan the largest class. Labels exactly (measured gold
    574/482/374, PPI++ 313/312/266)."""
    rng = np.random.default_rng(3)
    N, names = 4000, np.array(["a", "b", "c"])
    t = rng.choice(3, N, p=[0.5, 0.3, 0.2])
    f = np.where(rng.random(N) < 0.6, t, rng.choice(3, N, p=[0.5, 0.3, 0.2]))
    g = np.sort(rng.choice(N, 200, replace=False))
    ids = np.array([f"x{i}" for i in range(N)])
    got = hc.score_budget(0.05, pilot=(pd.Series(names[f], index=ids), pd.Series(names[t[g]], index=ids[g])), reps=0)
    z = stats.norm.ppf(1 - 0.05 / 6)
    gold, ppi = [], []
    for k in range(3):
        Y, fg, fa = (t[g] == k).astype(float), (f[g] == k).astype(float), (f == k).astype(float)
        vy, c, vf = Y.var(), np.cov(Y, fg, ddof=0)[0, 1], fa.var(ddof=1)
        gold.append(_smallest_n(lambda n: vy / n, 0.05, z))
        ppi.append(_smallest_n(lambda n: _ppi_var(n, vy, vf, c, N), 0.05, z))
    by = got.by.loc[list(names)]
    assert list(by.labels_gold) == gold and list(by.labels_ppi) == ppi
    assert (got.n_gold, got.n_ppi) == (max(gold), max(ppi))


# ---------------------------------------------------------------------------------------------------------------
# 11. The proxy bettor on D: pooled Dawid-Skene proxy and predictable plug-in bets (nb 21, issue 42 section 1)
# ---------------------------------------------------------------------------------------------------------------
# Written from nb 21's Statement, Derivation and docstrings only (not its code). The pool: the items with a human
# label. EM item by item (not on distinct patterns): one confusion matrix theta shared by every human label, one phi
# for the model's label over the classes plus an "other" column for every label outside them, the prior pi from the
# posteriors; 1e-6 added to the M-step's counts; EM starts from each item's label shares and stops when no posterior
# moves by more than tol. Two points the text leaves open, measured against the package (tests below):
#   - whether pi's counts get the 1e-6 too ("every count of the M-step"), and whether phi has its "other" column when
#     no model label is outside the classes. The package: no 1e-6 on pi, "other" always there (agreement 1e-14); my
#     literal reading (1e-6 on pi, "other" only when used) moves the proxy by up to 1.2e-8 on these data;
#   - lambda_t: the least-squares slope with an intercept (sums about the past gold items' own means), plus KAPPA
#     pseudo-items adding KAPPA*vh to S_zz and KAPPA*vh*1 to S_zd (slope 1); no past item (or one): 1.
# When lo_t >= 0 no loss is possible and the bet is the plug-in size alone (the 3/4 cap is void).
from humancert.certification import proxy_betting as _pb
_EPS, _KAPPA, _LAM_MAX, _V_FLOOR = 1e-6, 10, 2.0, 1e-4


def _my_latent_proxy(counts, m, tol=1e-10, max_iter=2000, other_always=True, eps_prior=0.0):
    """counts: N x C human label counts (every row > 0); m: the model's class code per item, C for a label outside the
    classes. (h, a, residual variance, posteriors), item by item."""
    counts = np.asarray(counts, float)
    N, C = counts.shape
    n_i = counts.sum(1)
    K = C + 1 if (other_always or (m >= C).any()) else C               # the model's categories
    M = np.zeros((N, K))
    M[np.arange(N), m] = 1.0
    p = counts / n_i[:, None]
    for _ in range(max_iter):
        pi = p.sum(0) + eps_prior
        pi /= pi.sum()
        th = p.T @ counts + _EPS                                       # th[c, j]: P(a human says j | oracle c)
        th /= th.sum(1, keepdims=True)
        ph = p.T @ M + _EPS                                            # ph[c, k]: P(the model says k | oracle c)
        ph /= ph.sum(1, keepdims=True)
        logp = np.log(pi)[None, :] + counts @ np.log(th).T + M @ np.log(ph).T
        logp -= logp.max(1, keepdims=True)
        new = np.exp(logp)
        new /= new.sum(1, keepdims=True)
        moved = np.abs(new - p).max()
        p = new
        if moved <= tol:
            break
    Dc = (m[:, None] == np.arange(C)[None, :]).astype(float) - counts / n_i[:, None]   # D_i(c)
    h = (p * Dc).sum(1)
    return h, Dc.min(1), (p * (Dc - h[:, None]) ** 2).sum(1), p


def _my_slope(d, z, vh):
    "Least-squares slope of d on z (with an intercept) over the given items, pulled to 1 by KAPPA items of variance vh."
    if vh <= 0:
        return 0.0
    szz = float(((z - z.mean()) ** 2).sum()) if len(d) else 0.0
    szd = float(((z - z.mean()) * (d - d.mean())).sum()) if len(d) else 0.0
    return min(max((szd + _KAPPA * vh) / (szz + _KAPPA * vh), 0.0), _LAM_MAX)


def _my_proxy_bettor(d, z, h, a, resid, tau, delta):
    "(S, estimate, log K_t path, smallest factor 1 + b_t Y_t) of the statement, step by step with plain loops."
    d, z, h, a = (np.asarray(v, float) for v in (d, z, h, a))
    N, n = len(h), len(d)
    vh = float(h.var())                                                # population variance (ddof=0)
    prior = max(float(np.mean(resid)), _V_FLOOR)
    logK, Y, path, low = 0.0, [], [], math.inf
    for t in range(1, n + 1):
        past = slice(0, t - 1)
        r = N - t + 1
        mu = (h.sum() - z[past].sum()) / r
        mt = (N * tau - d[past].sum()) / r
        lam = _my_slope(d[past], z[past], vh)
        lo = float(np.min(a - lam * h)) + lam * mu - mt
        ys = np.array(Y)
        v = (_KAPPA * prior + (float(((ys - ys.mean()) ** 2).sum()) if len(ys) else 0.0)) / (_KAPPA + t - 1)
        b = math.sqrt(2 * math.log(1 / delta) / (n * v))
        if lo < 0:
            b = min(b, 0.75 / -lo)
        y = d[t - 1] - lam * (z[t - 1] - mu) - mt
        low = min(low, 1 + b * y)
        logK += math.log1p(b * y)
        Y.append(y)
        path.append(logK)
    lam_n = _my_slope(d, z, vh)                                        # the slope after all the gold items
    est = lam_n * h.mean() + float(np.mean(d - lam_n * z))
    S = -1.0 if est <= tau else max(0.0, 1 - math.exp(-max(path)))
    return S, est, np.array(path), low


def _pb_data(seed, N, C, labels, outside=0.0, acc=0.75, macc=0.85):
    """N items of C classes; item i gets labels[i % len(labels)] human labels, each right with probability acc (else
    a uniform wrong class); the model right with probability macc; then a share `outside` of the model's labels is a
    label outside the classes. (counts N x C, the model's codes with C = outside, the oracle's codes)."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, C, N)
    k = np.array([labels[i % len(labels)] for i in range(N)])
    counts = np.zeros((N, C), int)
    for i in range(N):
        right = rng.random(k[i]) < acc
        wrong = (g[i] + rng.integers(1, C, k[i])) % C
        np.add.at(counts[i], np.where(right, g[i], wrong), 1)
    m = np.where(rng.random(N) < macc, g, (g + rng.integers(1, C, N)) % C)
    m = np.where(rng.random(N) < outside, C, m)
    return counts, m, g


def _pb_public(counts, m):
    "The same data through the package: Annotations.from_counts, the model's labels by item id (outside: 'zz_other')."
    C = counts.shape[1]
    names = [f"c{k}" for k in range(C)]
    ids = [f"it{i:03d}" for i in range(len(counts))]
    ann = hc.Annotations.from_counts(pd.DataFrame(counts, index=ids, columns=names))
    model = pd.Series([names[k] if k < C else "zz_other" for k in m], index=ids)
    return ann, model, ids


_PB_SETS = {   # name: (seed, N, C, labels per item (cycled), share of model labels outside, tau, n gold, delta)
    "two classes, 3 labels": (1, 120, 2, [3], 0.0, 0.0, 60, 0.05),
    "three classes, outside label, unequal labels": (2, 150, 3, [1, 2, 3, 5], 0.08, 0.0, 90, 0.05),
    "three classes, tau > 0": (3, 150, 3, [2, 4, 3], 0.05, 0.03, 80, 0.1),
    "two classes, unequal, tau > 0, all gold": (4, 100, 2, [1, 4, 2, 7], 0.0, 0.05, 100, 0.05),
}


def _pb_case(name):
    "The data set, the package's proxy table in item order, and the gold items' D and proxy (a seeded uniform subset)."
    seed, N, C, labels, outside, tau, n, delta = _PB_SETS[name]
    counts, m, g = _pb_data(seed, N, C, labels, outside)
    ann, model, ids = _pb_public(counts, m)
    prox = _pb.latent_proxy(ann, model).loc[ids]
    gi = np.random.default_rng(seed + 100).choice(N, n, replace=False)
    d = (m[gi] == g[gi]).astype(float) - counts[gi, g[gi]] / counts[gi].sum(1)
    return counts, m, ann, model, ids, prox, gi, d, tau, delta


@pytest.mark.parametrize("name", list(_PB_SETS))
def test_latent_proxy_against_mine(name):
    """latent_proxy's proxy, lowest D and residual variance against my item-by-item EM, to 1e-8 (measured <= 1e-14),
    with the package's reading of the M-step (no 1e-6 on the prior's counts, phi's "other" column always there); my
    literal reading of the text ('1e-6 added to every count', 'other' only when used) is within 1e-7 (measured
    1.2e-8): the two readings differ, not the model."""
    counts, m, ann, model, ids, prox, *_ = _pb_case(name)
    h, a, resid, _ = _my_latent_proxy(counts, m)
    np.testing.assert_allclose(prox["proxy"], h, rtol=0, atol=1e-8)
    np.testing.assert_allclose(prox["lowest D"], a, rtol=0, atol=1e-12)
    np.testing.assert_allclose(prox["residual variance"], resid, rtol=0, atol=1e-8)
    h2 = _my_latent_proxy(counts, m, other_always=False, eps_prior=_EPS)[0]
    np.testing.assert_allclose(prox["proxy"], h2, rtol=0, atol=1e-7)


@pytest.mark.parametrize("name", list(_PB_SETS))
def test_proxy_betting_confidence_against_mine(name):
    """proxy_betting_confidence's S (to 1e-9) against my bettor fed the package's proxy table (the same h), on n gold
    items drawn uniformly from the pool; proxy_log_capital's path (1e-9) and lambda_t (1e-12); every factor >= 1/4.
    The estimate agrees to 1e-5 only: see test_proxy_estimate_slope_uses_population_variance."""
    counts, m, ann, model, ids, prox, gi, d, tau, delta = _pb_case(name)
    h, a, resid = (prox[c].to_numpy() for c in ("proxy", "lowest D", "residual variance"))
    S, est = _pb.proxy_betting_confidence(d, h[gi], prox, tau, delta)
    myS, myest, path, low = _my_proxy_bettor(d, h[gi], h, a, resid, tau, delta)
    assert abs(S - myS) <= 1e-9 and abs(est - myest) <= 1e-5, (S, myS, est, myest)
    logk, lam, _ = _pb.proxy_log_capital(d, h[gi], prox, tau, delta)
    np.testing.assert_allclose(logk, path, rtol=0, atol=1e-9)
    np.testing.assert_allclose(lam, [_my_slope(d[:t], h[gi][:t], h.var()) for t in range(len(d))], rtol=0, atol=1e-12)
    assert low >= 0.25 - 1e-12


def test_proxy_sets_not_trivial():
    """The data sets above exercise the bets (my code alone): S strictly between 0.5 and 0.999 in two or more (measured
    0.9989, 0.785, -1, 0.659), and -1 in one (the estimate 0.009 <= tau = 0.03)."""
    got = [_my_proxy_bettor(*_pb_mine_args(name))[0] for name in _PB_SETS]
    assert sum(0.5 < s < 0.999 for s in got) >= 2 and -1.0 in got, got


def _pb_mine_args(name):
    "My bettor's arguments on a set, from my own EM (no package call)."
    seed, N, C, labels, outside, tau, n, delta = _PB_SETS[name]
    counts, m, g = _pb_data(seed, N, C, labels, outside)
    h, a, resid, _ = _my_latent_proxy(counts, m)
    gi = np.random.default_rng(seed + 100).choice(N, n, replace=False)
    d = (m[gi] == g[gi]).astype(float) - counts[gi, g[gi]] / counts[gi].sum(1)
    return d, h[gi], h, a, resid, tau, delta


@pytest.mark.parametrize("seed, tau, const", [(11, 0.0, False), (12, 0.1, False), (15, -0.5, False), (14, 0.05, True)])
def test_proxy_bettor_on_made_up_tables(seed, tau, const):
    """The bettor alone on a proxy table made up here (any h fixed before the gold is allowed): lowest D a in
    [-1, 0], D in [a, 1], h between a and 1, residual variances in [0, 0.3]; tau = -0.5 makes lo_t >= 0 at 4 steps
    (measured: the bet is not capped there); a constant h has pool variance 0 (lambda = 0). S to 1e-9 (S 0.76 at
    seed 12), the log-capital path to 1e-9, the estimate to 1e-12 (one slope formula, the pool's variance with ddof 0)."""
    rng = np.random.default_rng(seed)
    N, n = 80, 50
    a = -rng.random(N)
    D = a + (1 - a) * rng.beta(2, 2.5, N)
    h = np.full(N, 0.2) if const else np.clip(D + rng.normal(0, 0.3, N), a, 1)
    prox = pd.DataFrame({"proxy": h, "lowest D": a, "residual variance": 0.3 * rng.random(N)},
                        index=[f"u{i}" for i in range(N)])
    gi = rng.choice(N, n, replace=False)
    S, est = _pb.proxy_betting_confidence(D[gi], h[gi], prox, tau, 0.05)
    myS, myest, path, low = _my_proxy_bettor(D[gi], h[gi], h, a, prox["residual variance"].to_numpy(), tau, 0.05)
    assert abs(S - myS) <= 1e-9 and abs(est - myest) <= 1e-12, (S, myS, est, myest)
    np.testing.assert_allclose(_pb.proxy_log_capital(D[gi], h[gi], prox, tau, 0.05)[0], path, rtol=0, atol=1e-9)
    assert low >= 0.25 - 1e-12


def test_proxy_estimate_slope_uses_population_variance():
    "The estimate lam_n mean_pool(h) + mean_gold(D - lam_n h) with lam_n = the bets' slope formula after all n items."
    counts, m, ann, model, ids, prox, gi, d, tau, delta = _pb_case("three classes, outside label, unequal labels")
    h, a, resid = (prox[c].to_numpy() for c in ("proxy", "lowest D", "residual variance"))
    est = _pb.proxy_betting_confidence(d, h[gi], prox, tau, delta)[1]
    assert abs(est - _my_proxy_bettor(d, h[gi], h, a, resid, tau, delta)[1]) <= 1e-12


# ---------------------------------------------------------------------------------------------------------------
# 12. Control betting on D: a Dawid-Skene control fitted on part of the items without gold, a block per gold step (nb23)
# ---------------------------------------------------------------------------------------------------------------
# Written from the text of nb 23 (Statement, Derivation, the prose under each section) and nb 21's markdown for the
# Dawid-Skene model, plus `hashed_order`'s docstring; not from control_betting.py. My reading, step by step:
#   split: the items without gold and the gold items each sorted by (BLAKE2b-8 of str(id), person b"humancert-gold";
#     then the text); f = min(N0 // 2, 2000) fit items; the j-th (j from 0, as the notebook's 10-id example needs) of
#     the rest goes to the block of gold step j mod n;
#   fit: EM item by item on the fit set: prior pi, one human confusion theta, the model's confusion phi over the
#     classes (in the order of their text) plus an "other" column; EM starts from the label shares; 1e-6 on theta's
#     and phi's counts;
#   proxy: h = clip(sum_c p_c D(c), -1/2, a + 1/2), a = min_c D(c), p the posterior under the fitted model;
#   bets: lambda_t the slope (with an intercept) of D on h - hbar over the past gold steps, plus 10 pseudo-items of
#     the fit set's variance of h (ddof 0) at slope 1, clipped to [0, 1], 0 when the block is empty; b_t = min(
#     sqrt(2 ln(1/delta) / (n v_t)), 3/4 / (1 + tau)), v_t = (10 v0 + sum of squares of the past Z about their mean) /
#     (10 + t - 1), v0 = the fit set's mean residual term + Var h / (the mean size of the n blocks);
#   S = 1 - 1/max_t K_t, at least 0, -1 when the gold items' mean D <= tau.
# Where the package departed from the text's first wording (each measured by a test below; after this check the
# notebooks' text was changed to state the package's reading: nb 23's bets and split, nb 21's M-step):
#   - v0's residual term is the fit set's mean posterior SECOND MOMENT of D - h (with the clipped h), not its posterior
#     variance (which is Var(D | labels), h being fixed given the labels): S moves by up to 3e-2 between the two;
#   - the prior pi gets no 1e-6 (nb 21: "1e-6 added to every count ... so that no probability is exactly 0"): a class
#     absent from the fit set's labels gets pi = 0 exactly, so the proxy rules it out for every gold and block item;
#   - EM stops after 2000 rounds (the text gives no stopping rule): on a fit set of 12 items the proxy is not EM's
#     fixed point (S moves by 2e-5); my EM stops at the same cap, else at a change of the parameters below 1e-14.
# Readings the text leaves open, settled by the package (S moves by the amount given under the other reading):
#   - "the j-th of the rest goes to block B_t with t = j mod n + 1" needs j counted from 0 (as the notebook's 10-id
#     example does; from 1, S moves by 5.6e-4 on the first set);
#   - phi's "other" column is there even when no model label is outside the classes (2.1e-6 on the 12-item fit set);
#   - the mean block size is over all n blocks, the empty ones included (3.5e-2 on the set with 25 items without gold);
#   - the variance of h is the fit set's with ddof 0; lambda's slope has an intercept (1.7e-3 without one).
# On these designs the clip binds often (two classes, three labels: raw above a + 1/2 for 47% of the items, below
# -1/2 for 10%), so a comparison without the clip would be off by 3.9e-2: the agreement below does test the clip.
_CB_FIT_MAX, _CB_C0, _CB_EPS, _CB_PSEUDO, _CB_ROUNDS = 2000, 0.5, 1e-6, 10, 2000
from humancert.certification.gold_certificate import hashed_order as _hashed_order  # noqa: E402


def _cb_key(i):
    "The sort key of the hashed order: BLAKE2b of the id's text, 8 bytes, person b'humancert-gold'; ties by the text."
    s = str(i)
    return hashlib.blake2b(s.encode("utf-8"), digest_size=8, person=b"humancert-gold").hexdigest(), s


def _cb_split(no_gold, gold):
    "(fit ids, gold ids in hashed order, the n blocks as lists of ids)."
    rest, gold = sorted(no_gold, key=_cb_key), sorted(gold, key=_cb_key)
    f = min(len(rest) // 2, _CB_FIT_MAX)
    blocks = [[] for _ in gold]
    for j, i in enumerate(rest[f:]):
        blocks[j % len(gold)].append(i)
    return rest[:f], gold, blocks


def _cb_posterior(X, m, logpar):
    "Posterior of the oracle class per item: X label counts (items x C), m the model's code (C: other)."
    lpi, lth, lph = logpar
    with np.errstate(invalid="ignore"):
        lp = lpi[None, :] + X @ lth.T + lph[:, m].T
    lp = lp - lp.max(1, keepdims=True)
    p = np.exp(lp)
    return p / p.sum(1, keepdims=True)


def _cb_em(X, m, rounds=_CB_ROUNDS, tol=1e-14, eps_prior=0.0, other_always=True):
    "(log pi, log theta, log phi): M-step from the label shares, then at most `rounds` rounds of E-step + M-step."
    C = X.shape[1]
    K = C + 1 if other_always or (m == C).any() else C
    M = np.zeros((len(m), K))
    M[np.arange(len(m)), m] = 1.0

    def mstep(p):
        pi = p.sum(0) + eps_prior
        th, ph = p.T @ X + _CB_EPS, p.T @ M + _CB_EPS
        return pi / pi.sum(), th / th.sum(1, keepdims=True), ph / ph.sum(1, keepdims=True)

    par = mstep(X / X.sum(1, keepdims=True))
    for _ in range(rounds):
        with np.errstate(divide="ignore"):
            new = mstep(_cb_posterior(X, m, tuple(np.log(q) for q in par)))
        moved = max(float(np.abs(a - b).max()) for a, b in zip(new, par))
        par = new
        if moved < tol:
            break
    with np.errstate(divide="ignore"):
        return tuple(np.log(q) for q in par)


def _cb_proxy(X, m, logpar):
    "(h, a, unclipped posterior mean of D, posterior variance of D, posterior mean of (D - h)^2) per item."
    C = X.shape[1]
    Dc = (m[:, None] == np.arange(C)[None, :]).astype(float) - X / X.sum(1, keepdims=True)
    p = _cb_posterior(X, m, logpar)
    a, raw = Dc.min(1), (p * Dc).sum(1)
    h = np.clip(raw, _CB_C0 - 1, a + _CB_C0)
    return h, a, raw, (p * (Dc - raw[:, None]) ** 2).sum(1), (p * (Dc - h[:, None]) ** 2).sum(1)


def _cb_slope(d, z, vh):
    "Slope of d on z with an intercept, 10 pseudo-items of variance vh at slope 1, clipped to [0, 1]."
    zc, dc = z - z.mean() if len(z) else z, d - d.mean() if len(d) else d
    den = float(zc @ zc) + _CB_PSEUDO * vh
    return 0.0 if den <= 0 else min(max((float(zc @ dc) + _CB_PSEUDO * vh) / den, 0.0), 1.0)


def _cb_bettor(D, h, hbar, vh, v0, tau, delta):
    "(log K_t, lambda_t, b_t, Z_t) step by step; hbar NaN for an empty block."
    n, Z, out = len(D), [], []
    logk = 0.0
    for t in range(n):
        past = ~np.isnan(hbar[:t])
        lam = 0.0 if np.isnan(hbar[t]) else _cb_slope(D[:t][past], (h[:t] - hbar[:t])[past], vh)
        zs = np.array(Z)
        v = (_CB_PSEUDO * v0 + (float(((zs - zs.mean()) ** 2).sum()) if t else 0.0)) / (_CB_PSEUDO + t)
        b = min(math.sqrt(2 * math.log(1 / delta) / (n * v)) if v > 0 else math.inf, 0.75 / (1 + tau))
        z = D[t] - tau - (lam * (h[t] - hbar[t]) if lam > 0 else 0.0)
        logk += math.log1p(b * z)
        Z.append(z)
        out.append((logk, lam, b, z))
    return tuple(np.array(c) for c in zip(*out))


def _cb_mine(cdf, mcode, gcode, tau, delta=0.05, resid="second moment", block_mean="all", **em):
    """My control betting S from a counts table (items x classes, columns in text order), the model's codes (C: a
    label outside the classes) and the gold items' oracle codes. A dict with S, the path and every item's terms."""
    fit, gold, blocks = _cb_split([i for i in cdf.index if i not in set(gcode.index)], list(gcode.index))
    X, m = cdf.to_numpy(float), mcode.reindex(cdf.index).to_numpy()
    pos = pd.Series(np.arange(len(cdf)), index=cdf.index)

    def rows(ids):
        ix = pos[list(ids)].to_numpy()
        return X[ix], m[ix]

    par = _cb_em(*rows(fit), **em)
    hf, _, _, varf, m2f = _cb_proxy(*rows(fit), par)
    vh = float(hf.var())
    sizes = np.array([len(b) for b in blocks], float)
    v0 = float((m2f if resid == "second moment" else varf).mean()) + vh / (sizes.mean() if block_mean == "all"
                                                                          else sizes[sizes > 0].mean())
    Xg, mg = rows(gold)
    gc = gcode[gold].to_numpy()
    D = (mg == gc).astype(float) - Xg[np.arange(len(gold)), gc] / Xg.sum(1)
    hg = _cb_proxy(Xg, mg, par)[0]
    hbar = np.array([_cb_proxy(*rows(b), par)[0].mean() if b else np.nan for b in blocks])
    logk, lam, b, Z = _cb_bettor(D, hg, hbar, vh, v0, tau, delta)
    S = -1.0 if D.mean() <= tau else max(0.0, float(-np.expm1(-logk.max())))
    h_all, a_all = _cb_proxy(X, m, par)[:2]
    Dc_all = (m[:, None] == np.arange(X.shape[1])[None, :]) - X / X.sum(1, keepdims=True)
    return dict(S=S, logk=logk, lam=lam, b=b, Z=Z, D=D, hbar=hbar, h_all=h_all, a_all=a_all, Dc_all=Dc_all,
                fit=fit, blocks=blocks)


def _cb_data(seed, N, C, labels, n, acc=0.8, macc=0.85, outside=0.0, int_ids=False):
    """N items of C classes, item i with labels[i % len(labels)] human labels each right with probability acc (else a
    uniform wrong class), the model right with probability macc, a share `outside` of its labels 'zz_other'; n gold
    items drawn uniformly. (ann, model, gold, counts table, model codes, gold codes)."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, C, N)
    counts = np.zeros((N, C), int)
    for i in range(N):
        k = labels[i % len(labels)]
        np.add.at(counts[i], np.where(rng.random(k) < acc, g[i], (g[i] + rng.integers(1, C, k)) % C), 1)
    m = np.where(rng.random(N) < macc, g, (g + rng.integers(1, C, N)) % C)
    m = np.where(rng.random(N) < outside, C, m)
    names = [f"c{j}" for j in range(C)]
    ids = list(range(1000, 1000 + N)) if int_ids else [f"it{i:04d}" for i in range(N)]
    cdf = pd.DataFrame(counts, index=ids, columns=names)
    model = pd.Series([names[j] if j < C else "zz_other" for j in m], index=ids)
    gi = rng.choice(N, n, replace=False)
    gold = pd.Series([names[g[i]] for i in gi], index=[ids[i] for i in gi])
    return (hc.Annotations.from_counts(cdf), model, gold, cdf, pd.Series(m, index=ids),
            pd.Series(g[gi], index=gold.index))


_CB_SETS = {   # name: (data arguments, tau); S measured by my code in the comment
    "two classes, 3 labels": (dict(seed=1, N=600, C=2, labels=[3], n=150), 0.0),                            # 0.947
    "five classes, 1-5 labels": (dict(seed=2, N=700, C=5, labels=[1, 2, 3, 5], n=200, acc=0.7), 0.0),       # 0.994
    "three classes, 10% model outside": (dict(seed=31, N=500, C=3, labels=[2, 3, 4], n=150, outside=0.1,
                                              acc=0.75, macc=0.9), 0.0),                                  # 0.980
    "25 items without gold": (dict(seed=4, N=125, C=2, labels=[3, 1, 2], n=100), 0.0),                      # 0.753
    "tau 0.05, int ids": (dict(seed=5, N=600, C=3, labels=[3, 5], n=200, macc=0.9, int_ids=True), 0.05),   # 0.915
    "model as good as humans: S = -1": (dict(seed=6, N=500, C=2, labels=[3], n=150, macc=0.7), 0.0),      # -1
    "tau just under mean D: S = 0": (dict(seed=46, N=300, C=2, labels=[3], n=100, macc=0.8), 0.0813),  # mean D 1/12
    "4300 items: fit set capped at 2000": (dict(seed=9, N=4300, C=3, labels=[2, 3], n=100, acc=0.75), 0.0),  # 0.950
}


@pytest.fixture(scope="module")
def cb_cases():
    "Per set: the data, tau, my result and the package's S (gold_test) and certificate (certify_with_gold)."
    out = {}
    for name, (kw, tau) in _CB_SETS.items():
        ann, model, gold, cdf, mc, gc = _cb_data(**kw)
        mine = _cb_mine(cdf, mc, gc, tau)
        pkg = hc.gold_test(ann, model, gold, test="control betting", tau=tau).score
        out[name] = (ann, model, gold, cdf, mc, gc, tau, mine, pkg, hc.certify_with_gold(ann, model, gold, tau=tau))
    return out


def test_control_split_and_clip_by_hand():
    """The notebook's by-hand numbers from my code: 10 ids, 3 gold -> 5 fit items and blocks of 2, 2, 1 whatever the
    input order; my hash order is the package's hashed_order; the two clip examples (0.267 -> 1/6, -0.95 -> -1/2)."""
    ids = [f"item{i}" for i in range(10)]
    gold = ["g1", "g2", "g3"]
    fit, g, blocks = _cb_split(ids, gold)
    assert len(fit) == 5 and [len(b) for b in blocks] == [2, 2, 1]
    assert _cb_split(ids[::-1], gold[::-1]) == (fit, g, blocks)
    many = ids + [3, 17, 2500, "x y", "é"]
    assert [many[k] for k in _hashed_order(many)] == sorted(many, key=_cb_key)
    logpar = (np.log([0.9, 0.1]), np.zeros((2, 2)), np.zeros((2, 3)))    # equal likelihoods: posterior = pi
    h, a = _cb_proxy(np.array([[2.0, 1.0]]), np.array([0]), logpar)[:2]
    assert abs(a[0] + 1 / 3) < 1e-15 and abs(h[0] - 1 / 6) < 1e-15                 # raw 0.9/3 - 0.1/3 = 0.267
    logpar = (np.log([0.05, 0.95]), np.zeros((2, 2)), np.zeros((2, 3)))
    assert _cb_proxy(np.array([[0.0, 3.0]]), np.array([2]), logpar)[0][0] == -0.5  # raw -0.95


@pytest.mark.parametrize("name", list(_CB_SETS))
def test_control_betting_against_mine(cb_cases, name):
    """gold_test(test='control betting') and certify_with_gold's default (which must pick 'control betting': >= 100
    gold, >= 20 without gold) against my S, to 1e-9 (measured: 3.0e-12 at most)."""
    *_, tau, mine, pkg, cert = cb_cases[name]
    assert abs(pkg - mine["S"]) <= 1e-9, (pkg, mine["S"])
    assert cert.test == "control betting" and abs(cert.score - mine["S"]) <= 1e-9, (cert.test, cert.score)


def test_control_sets_not_trivial(cb_cases):
    "The sets exercise every branch (my code): S = -1, S = 0, several S in (0.5, 1), empty blocks, the 2000 cap."
    S = {k: v[7]["S"] for k, v in cb_cases.items()}
    assert S["model as good as humans: S = -1"] == -1 and S["tau just under mean D: S = 0"] == 0
    assert cb_cases["tau just under mean D: S = 0"][7]["D"].mean() > 0.0813
    assert sum(0.5 < s < 1 for s in S.values()) >= 6, S
    assert np.isnan(cb_cases["25 items without gold"][7]["hbar"]).sum() == 87
    big = cb_cases["4300 items: fit set capped at 2000"][7]
    assert len(big["fit"]) == 2000 and {len(b) for b in big["blocks"]} == {22}


@pytest.mark.parametrize("name", list(_CB_SETS))
def test_control_range_bound(cb_cases, name):
    """The derivation's bound on every item and every possible oracle class c: -1/2 <= h <= a + 1/2, and
    D(c) - lam h + lam (-1/2) >= -1 for lam on a grid of [0, 1] (the lowest block mean possible is the clip's floor);
    along my bets: lambda in [0, 1] (0 on empty blocks), b_t <= 3/4 / (1 + tau), Z_t >= -1 - tau, 1 + b_t Z_t >= 1/4."""
    *_, tau, mine, pkg, cert = cb_cases[name]
    h, a, Dc = mine["h_all"], mine["a_all"], mine["Dc_all"]
    assert (h >= -0.5).all() and (h <= a + 0.5 + 1e-15).all()
    lam = np.linspace(0, 1, 101)[:, None, None]
    assert (Dc[None] - lam * h[None, :, None] - lam * 0.5 >= -1 - 1e-12).all()
    assert ((mine["lam"] >= 0) & (mine["lam"] <= 1)).all() and (mine["lam"][np.isnan(mine["hbar"])] == 0).all()
    assert (mine["b"] <= 0.75 / (1 + tau) + 1e-15).all() and (mine["Z"] >= -1 - tau - 1e-12).all()
    assert (1 + mine["b"] * mine["Z"] >= 0.25 - 1e-12).all()


def test_control_auto_boundaries():
    """certify_with_gold's 'auto': 'control betting' from 100 gold and 20 items without gold (120 items), 'betting'
    with 19 without gold, with 99 gold, and with clusters; the score is then gold_test's plug-in betting S."""
    for N, n, clusters, want in [(120, 100, False, "control betting"), (119, 100, False, "betting"),
                                 (300, 99, False, "betting"), (300, 100, True, "betting")]:
        ann, model, gold, cdf, mc, gc = _cb_data(seed=7, N=N, C=2, labels=[3], n=n, macc=0.95)
        cl = pd.Series(np.arange(N) // 2, index=cdf.index) if clusters else None
        cert = hc.certify_with_gold(ann, model, gold, clusters=cl)
        assert cert.test == want, (N, n, clusters, cert.test)
        if not clusters:
            assert cert.score == hc.gold_test(ann, model, gold, test=want).score


def test_control_order_free():
    "The same S whatever the order of the rows, of the classes' columns and of the gold items (the statement)."
    ann, model, gold, cdf, mc, gc = _cb_data(seed=2, N=300, C=3, labels=[2, 3], n=100)
    perm = np.random.default_rng(0).permutation(len(cdf))
    ann2 = hc.Annotations.from_counts(cdf.iloc[perm][["c2", "c0", "c1"]])
    s1 = hc.gold_test(ann, model, gold, test="control betting").score
    assert hc.gold_test(ann2, model.iloc[perm[::-1]], gold.iloc[::-1], test="control betting").score == s1


def test_control_text_vs_package_readings(cb_cases):
    """The three points where the package departed from the text's first wording (see the section's comment; nb 21's and
    nb 23's text now state the package's reading), each shown by my S under the other reading moving off the package's
    S while my S under the package's reading agrees to 1e-9 (in test_control_betting_against_mine). Measured: 4.1e-3, 2.9e-2 (residual variance), 6.6e-3 (pi without
    1e-6 on a fit set without class c2), 2.3e-5 (EM run to its fixed point on 12 fit items)."""
    for name in ("two classes, 3 labels", "25 items without gold"):
        ann, model, gold, cdf, mc, gc, tau, mine, pkg, cert = cb_cases[name]
        assert abs(_cb_mine(cdf, mc, gc, tau, resid="variance")["S"] - pkg) > 1e-3
    ann, model, gold, cdf, mc, gc = _cb_data(seed=10, N=400, C=3, labels=[3], n=120, macc=0.9)
    fit = _cb_split([i for i in cdf.index if i not in set(gold.index)], list(gold.index))[0]
    cdf.loc[fit, "c0"] += cdf.loc[fit, "c2"]
    cdf.loc[fit, "c2"] = 0                                  # class c2 in no fit item's labels, in gold and blocks only
    pkg = hc.gold_test(hc.Annotations.from_counts(cdf), model, gold, test="control betting").score
    assert abs(_cb_mine(cdf, mc, gc, 0.0)["S"] - pkg) <= 1e-9
    assert abs(_cb_mine(cdf, mc, gc, 0.0, eps_prior=_CB_EPS)["S"] - pkg) > 1e-3
    ann, model, gold, cdf, mc, gc, tau, mine, pkg, cert = cb_cases["25 items without gold"]
    assert abs(_cb_mine(cdf, mc, gc, tau, rounds=100_000)["S"] - pkg) > 1e-6
