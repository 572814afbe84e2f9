"""Coverage of the stronger certificates (issue: exact binomial and variance-adaptive tails).

Simulated studies that satisfy the theorems' assumptions, at small and moderate N and agreement near 1. Every
one-sided limit, and the certificate with its split optimised on the data as `confidence` does, must fail at most
delta of the time: a one-sided binomial test against delta at the 0.001 level over 4,000 repetitions.
"""
import numpy as np
import pytest
from scipy import stats

from humancert.certify import confidence
from humancert.tails import LOWER_TAILS, UPPER_TAILS, lower_limit, upper_limit

R = 4000
PAIRS = [(a, b) for a in LOWER_TAILS for b in UPPER_TAILS]


def true_u2(acc, K):
    "E[sum_c c^2 / K^2] for K annotators of one accuracy on two classes: (K + K(K-1) P(two agree)) / K^2."
    agree = acc * acc + (1 - acc) * (1 - acc)
    return (K + K * (K - 1) * agree) / K ** 2


def upper_values(N, rng, K=5, easy=0.95, hard=0.6, hard_share=0.2):
    acc = np.where(rng.random(N) < hard_share, hard, easy)[:, None]
    right = (rng.random((N, K)) < acc).sum(1)
    return (right ** 2 + (K - right) ** 2) / K ** 2


TRUE_U2 = 0.8 * true_u2(0.95, 5) + 0.2 * true_u2(0.6, 5)


def assert_rate_at_most(fails, delta, what):
    p = stats.binomtest(int(fails), R, delta, alternative="greater").pvalue
    assert p > 0.001, f"{what}: failure rate {fails / R:.4f} exceeds delta = {delta} (binomial test p = {p:.2g})"


@pytest.mark.parametrize("N,delta", [(30, 0.1), (200, 0.01), (1000, 0.05)])
def test_one_sided_limits_cover(N, delta):
    rng = np.random.default_rng(N)
    fails = {("lower", t): 0 for t in LOWER_TAILS} | {("upper", t): 0 for t in UPPER_TAILS}
    for _ in range(R):
        m = int(rng.binomial(N, 0.99))
        for t in LOWER_TAILS: fails[("lower", t)] += 0.99 < lower_limit(m / N, N, delta, t, m)
        x = upper_values(N, rng)
        for t in UPPER_TAILS: fails[("upper", t)] += TRUE_U2 > upper_limit(x.mean(), N, delta, t, x, grid=300)
    for k, f in fails.items(): assert_rate_at_most(f, delta, f"N={N} {k}")


@pytest.mark.parametrize("N", [50, 500])
def test_certificate_at_the_boundary_fails_at_most_delta(N):
    "True L is 0.001 below true U, so 'model beats the average annotator' is false; it may be certified <= 5 % of the time."
    U = np.sqrt(TRUE_U2); L = U - 0.001
    rng = np.random.default_rng(100 + N)
    cert = {p: 0 for p in PAIRS}
    for _ in range(R):
        m = int(rng.binomial(N, L)); x = upper_values(N, rng)
        for a, b in PAIRS:
            c = confidence(m / N, float(np.sqrt(x.mean())), N, "optimal", lower_tail=a, upper_tail=b, count=m,
                           upper_values=None if b == "hoeffding" else x)
            cert[(a, b)] += c.score >= 0.95
    for p, f in cert.items(): assert_rate_at_most(f, 0.05, f"N={N} tails {p}")


def test_stronger_tails_certify_more_when_the_claim_is_true():
    "With a real margin (L = U + 0.03, N = 300) the exact/betting pair certifies more often than the paper's Hoeffding pair."
    U = np.sqrt(TRUE_U2); L = U + 0.03
    rng = np.random.default_rng(7)
    n_rep, N = 400, 300
    hits = {p: 0 for p in [("hoeffding", "hoeffding"), ("binomial", "betting")]}
    for _ in range(n_rep):
        m = int(rng.binomial(N, L)); x = upper_values(N, rng)
        for a, b in hits:
            hits[(a, b)] += confidence(m / N, float(np.sqrt(x.mean())), N, lower_tail=a, upper_tail=b, count=m,
                                       upper_values=None if b == "hoeffding" else x).score >= 0.95
    assert hits[("binomial", "betting")] > hits[("hoeffding", "hoeffding")] + 0.2 * n_rep


@pytest.mark.parametrize("seed", range(20))
def test_every_tail_decreases_in_the_slack(seed):
    "The validity argument needs delta(t) non-increasing in t, for the betting tail too (its bets are capped in m)."
    from humancert.tails import lower_tail_delta, upper_tail_delta
    rng = np.random.default_rng(seed)
    N = int(rng.integers(5, 300))
    x = rng.beta(rng.uniform(0.5, 20), rng.uniform(0.5, 3), N)
    t = np.linspace(0, 1 - x.mean(), 400)
    for tail in UPPER_TAILS:
        d = upper_tail_delta(t, N, x.mean(), x, tail)
        assert (np.diff(d) <= 1e-12).all(), tail
    m = int(rng.integers(0, N + 1))
    d = lower_tail_delta(np.linspace(0, m / N, 400), N, m / N, m, "binomial")
    assert (np.diff(d) <= 1e-12).all()
