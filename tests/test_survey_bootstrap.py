"""The survey-equivalence item bootstrap (issue 35 item 4): the fast path (integer multiplicities, `_sample_tallies`) gives
the numbers of the previous procedure bit for bit (float multiplicities through `_units` and `_matched`), and both agree
with the bootstrap written out as a plain loop over items and label orders on small data (plurality + agreement and
ABC + cross-entropy, the report's two defaults)."""
import itertools

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations, hard_predictions, row_sums, soft_predictions
from humancert.data.datasets import load
from humancert.survey.combiners import make_combiner
from humancert.survey.power_curve import _curve_data
from humancert.survey.survey_equivalence import _read_equivalence, _sample_reader, survey_equivalence


def previous_bootstrap(pred, ann, combiner, scorer, K, n_bootstrap, seed, matched=True):
    "The bootstrap as it was before the fast path: float multiplicities, the sample reader's `one`, then `_read_equivalence`."
    counts = np.asarray(ann.counts)
    prof, inv = _curve_data(ann)
    one = _sample_reader("exact", make_combiner(combiner, ann, None), prof, inv, pred, counts, row_sums(counts), K, scorer, 1, 200, None)
    rng, N, out = np.random.default_rng(seed), len(inv), []
    for _ in range(n_bootstrap):
        im = np.bincount(rng.integers(0, N, N), minlength=N).astype(np.float64)
        lb, _, hkb, hb = one(im)
        out.append(_read_equivalence(hkb if matched else np.full(K, hb), lb, K))
    return out


@pytest.mark.parametrize("name, model, combiner, scorer, max_k, n_bootstrap", [
    ("running_example", "calibrated", "abc", "cross_entropy", None, 40),
    ("running_example", "hard", "plurality", "agreement", None, 40),
    ("personal_attacks", "predictor", "abc", "cross_entropy", 12, 15),
])
def test_same_numbers_as_before_bit_for_bit(name, model, combiner, scorer, max_k, n_bootstrap):
    d = load(name)
    ann, raw = d.annotations, d.predictions[model]
    pred = soft_predictions(ann, raw, "p") if scorer == "cross_entropy" else hard_predictions(ann, raw, "p")   # as the reader sees it
    for matched in (True, False):
        res = survey_equivalence(raw if scorer == "agreement" else pred, ann, combiner, scorer, n_bootstrap, 7, max_k, matched=matched)
        old = previous_bootstrap(pred, ann, combiner, scorer, len(res.curve.k), n_bootstrap, 7, matched)
        assert np.asarray([v for v, _ in old]).tobytes() == np.asarray(res.samples, dtype=np.float64).tobytes()
        assert [b for _, b in old] == list(res.sample_bounds)


# ---- the plain loop: every order of every item's labels, Algorithm 4 by its definition ----

def fall(a, b):
    "a (a - 1) ... (a - b + 1)."
    return float(np.prod([a - j for j in range(b)])) if b <= a else 0.0


def q_term(c, z):
    "Probability that an item with label counts c shows the counts z in one given order of its first |z| labels."
    return fall(c[0], z[0]) * fall(c[1], z[1]) / fall(c[0] + c[1], z[0] + z[1])


def predict(combiner, y, counts, m, i):
    "The combiner's law of the next label after seen counts y, for item i; ABC learns from the other items (weights m, i left out)."
    if combiner == "plurality":
        top = [c for c in (0, 1) if y[c] == max(y)]
        return np.array([1.0 / len(top) if c in top else 0.0 for c in (0, 1)])
    num = np.array([sum(m[j] * q_term(counts[j], (y[0] + (c == 0), y[1] + (c == 1))) for j in range(len(counts)) if j != i)
                    for c in (0, 1)])
    assert num.sum() > 0, "the test data must give every seen set a precedent"
    return num / num.sum()


def item_curve_score(combiner, scorer, counts, m, i, k):
    "s_i(k): the mean over every order of item i's labels of the score of the first k labels' prediction against label k + 1."
    labels = [c for c in (0, 1) for _ in range(counts[i][c])]
    scores, laws = [], {}
    for order in itertools.permutations(labels):
        y = (order[:k].count(0), order[:k].count(1))
        if y not in laws: laws[y] = predict(combiner, y, counts, m, i)       # the same seen counts, the same law
        p = laws[y][order[k]]
        scores.append(p if scorer == "agreement" else np.log2(p))
    return np.mean(scores)


def loop_equivalence(combiner, scorer, counts, pred, m, K):
    "Algorithm 4 on one sample (item multiplicities m): c_k and h_k over the items with k + 1 labels, then the first crossing."
    n = counts.sum(1)
    c, h = [], []
    for k in range(K):
        items = [i for i in range(len(counts)) if m[i] > 0 and n[i] >= k + 1]
        w = np.array([m[i] for i in items], dtype=np.float64)
        c.append(np.dot(w, [item_curve_score(combiner, scorer, counts, m, i, k) for i in items]) / w.sum())
        hs = [(counts[i] / n[i]) @ (np.log2(pred[i]) if scorer == "cross_entropy" else (np.arange(2) == pred[i])) for i in items]
        h.append(np.dot(w, hs) / w.sum())
    d = np.array(c) - np.array(h)
    if d[0] >= 0: return 0.0, "<"
    for k in range(1, K):
        if d[k] > 0: return k - 1 + -d[k - 1] / (d[k] - d[k - 1]), "="
    return float(K - 1), ">"


@pytest.mark.parametrize("combiner, scorer", [("plurality", "agreement"), ("abc", "cross_entropy")])
def test_bootstrap_against_a_plain_loop(combiner, scorer):
    rng = np.random.default_rng(11)
    N = 40
    n = rng.integers(3, 6, N)
    zeros = rng.binomial(n, np.where(rng.uniform(size=N) < 0.5, 0.15, 0.85))   # two kinds of item: the raters mostly agree
    counts = np.c_[zeros, n - zeros]
    ann = Annotations.from_counts(pd.DataFrame(counts, columns=["a", "b"]))
    p1 = np.clip(0.4 * counts[:, 1] / n + 0.6 * rng.uniform(0, 1, N), 0.05, 0.95)   # a classifier worth about one rater
    pred = np.c_[1 - p1, p1] if scorer == "cross_entropy" else (p1 > 0.5).astype(int)
    K, B, seed = 3, 12, 5
    res = survey_equivalence(pred if scorer == "cross_entropy" else np.array(["a", "b"])[pred], ann, combiner, scorer, B, seed, K - 1)
    draws = np.random.default_rng(seed)
    loop = [loop_equivalence(combiner, scorer, counts, pred, np.bincount(draws.integers(0, N, N), minlength=N), K) for _ in range(B)]
    # the fast path sums the same terms in another order: equal to rounding (1e-12 is ~10^4 ulps of values near 1)
    np.testing.assert_allclose(res.samples, [v for v, _ in loop], rtol=0, atol=1e-12)
    assert list(res.sample_bounds) == [b for _, b in loop]
    assert len(set(np.round(res.samples, 6))) > 3                         # the samples differ: the draws matter
