"""Coverage and power of `certify_with_gold`, through the public function, on simulated studies with a known oracle.

At the boundary the model is exactly as accurate as the average annotator (E[D] = tau = 0), the hardest point for every
bound: each finite-sample version must be certified at 95 % in at most delta = 5 % of the studies (a one-sided binomial
test at the 0.001 level; 600 studies detect a true rate of 0.09 with probability about 0.9). PPI++ is asymptotic: its rate
must be within 4 standard errors of 0.05 at the larger size. Power is checked beside coverage, so that a bound passing by
never certifying would be noticed. The design is sparse (1 to 5 labels per item), so the per-item definition of the
average annotator is what is tested.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.certification.gold_certificate import certify_with_gold, gold_terms


def gold_study(N, n, lead, rng, acc=(0.8, 0.4), model_hard=0.5, hard_share=0.3, max_labels=5, C=3):
    "Counts of 1..max_labels labels per item (accuracy acc[0] on easy, acc[1] on hard items), a model E[q] + lead accurate, gold on n random items."
    hard = rng.random(N) < hard_share
    a = np.where(hard, acc[1], acc[0])
    oracle, m = rng.integers(0, C, N), rng.integers(1, max_labels + 1, N)
    counts = np.zeros((N, C), int)
    for k in range(max_labels):
        lab = np.where(rng.random(N) < a, oracle, (oracle + rng.integers(1, C, N)) % C)
        np.add.at(counts, (np.arange(N)[k < m], lab[k < m]), 1)
    avg = (1 - hard_share) * acc[0] + hard_share * acc[1]          # E[q]: each label is right with its item's accuracy
    right = rng.random(N) < np.where(hard, model_hard, (avg + lead - hard_share * model_hard) / (1 - hard_share))
    model = np.where(right, oracle, (oracle + rng.integers(1, C, N)) % C)
    sel = np.sort(rng.choice(N, n, replace=False))
    return Annotations.from_counts(counts), model, pd.Series(oracle[sel], index=sel)


def certified_shares(R, N, n, lead, seed, tail="betting"):
    rng = np.random.default_rng(seed)
    S = np.array([[c.score, c.score_ppi, c.score_clt] for c in
                  (certify_with_gold(*gold_study(N, n, lead, rng), tail=tail) for _ in range(R))])
    return (S >= 0.95).sum(0)


def assert_rate_at_most(hits, R, delta, what):
    p = stats.binomtest(int(hits), R, delta, alternative="greater").pvalue
    assert p > 0.001, f"{what}: certified a false claim in {hits / R:.4f} of studies, above delta = {delta} (binomial test p = {p:.2g})"


@pytest.mark.parametrize("N,n,tail", [(500, 50, "betting"), (4000, 400, "betting"), (1000, 150, "bernstein")])
def test_finite_sample_coverage_at_the_boundary(N, n, tail):
    R = 600
    hits = certified_shares(R, N, n, 0.0, seed=N + n, tail=tail)
    assert_rate_at_most(hits[0], R, 0.05, f"plain ({tail}, N={N}, n={n})")
    assert_rate_at_most(hits[1], R, 0.05, f"prediction-powered ({tail}, N={N}, n={n})")
    if n >= 400:                                                    # asymptotic: near delta at the larger size
        se = np.sqrt(0.05 * 0.95 / R)
        assert hits[2] / R < 0.05 + 4 * se, f"PPI++ rate {hits[2] / R:.4f}"


def test_power():
    R = 150
    hits = certified_shares(R, 1000, 300, 0.1, seed=7)
    assert hits[0] / R > 0.6 and hits[1] / R > 0.3 and hits[2] / R > 0.8, hits / R


def test_ppi_variance_formula():
    "The standard error PPI++ reports matches the spread of its estimate over repeated studies (within 4 SE of an SD estimate)."
    R, rng = 600, np.random.default_rng(3)
    est, se = [], []
    for _ in range(R):
        c = certify_with_gold(*gold_study(2000, 300, 0.05, rng, acc=(0.9, 0.6), max_labels=7, model_hard=0.7), tail="hoeffding")
        est.append(c.estimate_clt); se.append((c.estimate_clt - c.lower_clt) / stats.norm.ppf(0.95))
    sd, mean_se = np.std(est, ddof=1), np.mean(se)
    assert abs(sd / mean_se - 1) < 4 / np.sqrt(2 * (R - 1)), (sd, mean_se)


def test_plain_normal_limit_against_statsmodels():
    from statsmodels.stats.weightstats import DescrStatsW
    rng = np.random.default_rng(11)
    ann, model, gold = gold_study(800, 120, 0.05, rng)
    c = certify_with_gold(ann, model, gold, delta=0.05)
    d = gold_terms(ann, model, gold)["D"].to_numpy()
    lo, _ = DescrStatsW(d, ddof=1).zconfint_mean(alpha=0.10)        # two-sided 90 % = one-sided 95 %
    assert abs(c.lower_plain_clt - lo) < 1e-12


def test_gold_not_aligned_by_position():
    rng = np.random.default_rng(5)
    ann, model, gold = gold_study(300, 50, 0.0, rng)
    shifted = pd.Series(gold.to_numpy(), index=gold.index + 10_000)
    with pytest.raises(ValueError, match="never by position"):
        certify_with_gold(ann, model, shifted)
