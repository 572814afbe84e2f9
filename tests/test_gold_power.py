"""The fixed-size gold tests of notebook 25 through the public `gold_test`: the sign test's p-value against scipy, its level at
the boundary (E[D] = 0) on a skewed design by Monte Carlo, its power with a true lead, the drawn label's distribution, bad input."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.certification.gold_certificate import DRAWN_LABEL_TESTS
from humancert.certification.gold_power import gold_test, sign_test_pvalue, paired_terms, _one_label_each


def study(N, lead, rng, rare=0.03, acc=0.85, K=3):
    "Two classes; a share `rare` of items where every human is right and the model wrong; elsewhere humans acc accurate; E[D] = lead."
    rare_item = rng.random(N) < rare
    oracle = rng.integers(0, 2, N)
    m_acc = acc + (rare + lead) / (1 - rare)
    assert m_acc <= 1
    model = np.where(rare_item | (rng.random(N) >= m_acc), 1 - oracle, oracle)
    right = (rng.random((N, K)) < acc) | rare_item[:, None]
    ones = np.where(right, oracle[:, None], 1 - oracle[:, None]).sum(1)
    return Annotations.from_counts(np.c_[K - ones, ones]), model, pd.Series(oracle, index=np.arange(N))


def test_sign_test_pvalue_by_hand_and_scipy():
    assert abs(sign_test_pvalue(8, 2) - 56 / 1024) < 1e-15                   # (C(10,8) + C(10,9) + C(10,10)) / 2^10
    assert sign_test_pvalue(0, 0) == 1.0 and sign_test_pvalue(2, 2) == stats.binom.sf(1, 4, 0.5)
    for w, l in [(1, 0), (12, 3), (60, 41), (7, 20)]:
        assert abs(sign_test_pvalue(w, l) - stats.binomtest(w, w + l, 0.5, alternative="greater").pvalue) < 1e-12


def test_one_label_each_frequencies():
    "Class c is drawn with probability n_c / n: 100,000 draws from counts (2, 1, 1) within 4 standard errors."
    d = _one_label_each(np.tile([2, 1, 1], (100_000, 1)), np.random.default_rng(1))
    share = np.bincount(d, minlength=3) / 100_000
    se = np.sqrt(np.array([0.5 * 0.5, 0.25 * 0.75, 0.25 * 0.75]) / 100_000)
    assert np.all(np.abs(share - [0.5, 0.25, 0.25]) < 4 * se), share


@pytest.mark.parametrize("test", ["sign", "paired betting", "plain", "betting"])
def test_level_at_the_boundary_skewed(test):
    """E[D] = 0 exactly: each test certifies in at most delta of 600 studies (one-sided binomial test at 0.001; a rate near 0.05
    has SE 0.009, so a true 0.09 fails with probability about 0.8). Each study: 200 gold items, its own drawn labels (seed)."""
    R, rng, hits = 600, np.random.default_rng(25), 0
    for r in range(R):
        ann, model, gold = study(200, 0.0, rng)
        hits += gold_test(ann, model, gold, test, seed=r if test in DRAWN_LABEL_TESTS else None).certified
    assert stats.binomtest(hits, R, 0.05, alternative="greater").pvalue > 0.001, hits / R


def test_power_with_a_lead():
    "A true lead of 0.1 with 300 gold items: the sign test (with a seed per study) and the default betting test certify most studies."
    R, rng = 100, np.random.default_rng(26)
    hits = sum(gold_test(*study(300, 0.1, rng), "sign", seed=r).certified for r in range(R))
    assert hits / R > 0.7, hits / R
    assert sum(gold_test(*study(300, 0.1, rng)).certified for _ in range(R)) / R > 0.7


def test_paired_terms_mean_is_the_average_annotator():
    "E[H] = E[q]: over 50,000 items the drawn label's accuracy and the average annotator's agree within 4 standard errors."
    rng = np.random.default_rng(3)
    ann, model, gold = study(50_000, 0.0, rng)
    pt = paired_terms(ann, model, gold, seed=9)
    q = ann.to_counts().to_numpy()[np.arange(50_000), gold.to_numpy()] / 3
    assert abs(pt["drawn label right"].mean() - q.mean()) < 4 * np.sqrt(0.25 / 50_000)


def test_bad_input():
    ann, model, gold = study(100, 0.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="`tau` must be 0 for test='sign'"): gold_test(ann, model, gold, "sign", tau=0.05, seed=1)
    with pytest.raises(ValueError, match="`test` must be .auto. or one of"): gold_test(ann, model, gold, "mcnemar")
    with pytest.raises(ValueError, match="`seed`"): gold_test(ann, model, gold, "sign", seed=-2)
    with pytest.raises(ValueError, match="`seed` is required with test='sign'"): gold_test(ann, model, gold, "sign")
    with pytest.raises(ValueError, match="test='auto' is deterministic"): gold_test(ann, model, gold, seed=3)
    with pytest.raises(TypeError, match="`gold` must be a pandas Series"): gold_test(ann, model, gold.to_numpy())
    with pytest.raises(ValueError, match="`wins` must be a count"): sign_test_pvalue(-1, 0)


def test_confidence_and_seed_conventions():
    "Issue 33: `confidence` in delta's place (an old positional delta is refused), the old `delta` kept; issue 42: a given seed is recorded and repeats the test."
    ann, model, gold = study(400, 0.05, np.random.default_rng(33))
    with pytest.raises(ValueError, match="looks like a failure probability: pass confidence=0.95"): gold_test(ann, model, gold, "sign", 0.05)
    t9, d9 = gold_test(ann, model, gold, confidence=0.9), gold_test(ann, model, gold, delta=0.1)
    assert (t9.confidence, d9.confidence, d9.delta) == (0.9, 0.9, 0.1) and t9.certified == (t9.score >= 0.9)
    given = gold_test(ann, model, gold, "randomised sign", seed=77)
    again = gold_test(ann, model, gold, "randomised sign", seed=given.seed)
    assert given.seed == 77 and (again.wins, again.losses, again.score) == (given.wins, given.losses, given.score)
    with pytest.raises(TypeError, match="`seed` must be an int >= 0"): gold_test(ann, model, gold, "sign", seed=np.random.default_rng(1))
