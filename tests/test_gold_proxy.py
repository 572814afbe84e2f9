"""Coverage of the gold test 'proxy betting' (betting on D with a latent-class proxy, nb 21, issue 42 section 1)
through the public function: `certify_with_gold(ann, model, gold, test='proxy betting', seed=s)`, other arguments at
their defaults, a fresh order seed per study. The many studies of a pool are computed with the proxy once (the same
parts: D from `gold_terms`, the seed's permutation of the gold ids' hashed order, `proxy_betting_confidence` at
tau = 0 and delta = 0.05); every 50th also through the public function, which must give the same S.

The claim tested is the statement's: for a pool whose mean D is at most tau, gold labels on a uniformly random subset
of n items in the seed's order certify at 95 % in at most 5 % of studies, at every n. The pools are built so that
their mean D is EXACTLY 0 (checked in rationals), the gold subsets are seeded uniform draws, and the share of
certified studies must pass a one-sided binomial test against 0.05 at the 0.001 level; a power check on a pool with a
clear lead; and properties that fail on bad behaviour: S does not move (bit for bit) with the row order of the
annotations, the class order or the order of the gold labels, and with every pool item gold the decision is the
pool's exact mean D.
"""
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import humancert as hc
from humancert.certification import proxy_betting as pb
from humancert.certification.gold_certificate import gold_terms, hashed_order

DELTA = 0.05
CLASSES = ["neg", "neu", "pos"]
STUDIES = 200


def _draw(seed, N, acc, macc, labels):
    "Oracle classes (0.5/0.3/0.2), human label counts (labels[i % len] per item, each right w.p. acc) and the model."
    rng = np.random.default_rng(seed)
    C = len(CLASSES)
    g = rng.choice(C, N, p=[0.5, 0.3, 0.2])
    k = np.array([labels[i % len(labels)] for i in range(N)])
    counts = np.zeros((N, C), np.int64)
    for i in range(N):
        lab = np.where(rng.random(k[i]) < acc, g[i], (g[i] + rng.integers(1, C, k[i])) % C)
        np.add.at(counts[i], lab, 1)
    m = np.where(rng.random(N) < macc, g, (g + rng.integers(1, C, N)) % C)
    return rng, g, counts, m


def _scaled_d(counts, m, g, L):
    "L * D_i as integers (L a common multiple of the labels per item)."
    n_i = counts.sum(1)
    return L * (m == g) - (L // n_i) * counts[np.arange(len(g)), g]


def _balance(rng, counts, m, g, L, free, target=0):
    """Make sum L D exactly `target` by changing only the `free` items: the model right -> wrong (or back), L at a
    time, then one human label on an item with L labels, 1 at a time. Deterministic given rng."""
    C = counts.shape[1]
    s = int(_scaled_d(counts, m, g, L).sum()) - target
    for i in rng.permutation(free):                                    # whole steps of L: the model's label
        if s >= L and m[i] == g[i]:
            m[i], s = (g[i] + 1) % C, s - L
        elif s <= -L and m[i] != g[i]:
            m[i], s = g[i], s + L
    full = [i for i in rng.permutation(free) if counts[i].sum() == L]  # steps of 1: one human label of an L-label item
    for i in full:
        if s > 0 and counts[i, g[i]] < L:                              # a wrong human label made right: L D_i - 1
            j = next(c for c in range(C) if c != g[i] and counts[i, c] > 0)
            counts[i, j] -= 1
            counts[i, g[i]] += 1
            s -= 1
        elif s < 0 and counts[i, g[i]] > 1:                            # a right one made wrong: L D_i + 1
            counts[i, g[i]] -= 1
            counts[i, (g[i] + 1) % C] += 1
            s += 1
        if s == 0:
            break
    return counts, m


def zero_pool(seed, N, acc, macc, labels=(3, 6), skew=0, target=0):
    """A pool of N items whose mean D is exactly 0 (target / (L N), L the labels' common multiple); `skew` items
    have every human right and the model wrong (D = -1), the others are balanced against them."""
    rng, g, counts, m = _draw(seed, N, acc, macc, labels)
    L = int(np.lcm.reduce(np.array(labels)))
    for i in range(skew):                                              # the first `skew` items: D = -1
        counts[i] = 0
        counts[i, g[i]] = labels[i % len(labels)]
        m[i] = (g[i] + 1) % len(CLASSES)
    counts, m = _balance(rng, counts, m, g, L, np.arange(skew, N), target)
    d = [Fraction(int(m[i] == g[i])) - Fraction(int(counts[i, g[i]]), int(counts[i].sum())) for i in range(N)]
    assert sum(d) == Fraction(target, L), float(sum(d))                # exactly, in rationals
    return counts, m, g


def as_public(counts, m, g, classes=CLASSES, rows=None):
    "(Annotations, model labels, every item's oracle label) with ids 'q0000'...; `rows` reorders the items' rows."
    ids = np.array([f"q{i:04d}" for i in range(len(g))])
    rows = np.arange(len(g)) if rows is None else np.asarray(rows)
    names = np.array(CLASSES)
    ann = hc.Annotations.from_counts(pd.DataFrame(counts[rows], index=ids[rows], columns=CLASSES)[list(classes)])
    return ann, pd.Series(names[m][rows], index=ids[rows]), pd.Series(names[g][rows], index=ids[rows])


def score(ann, model, gold, seed):
    "S of test 'proxy betting' through certify_with_gold, with the order's seed (default arguments otherwise)."
    return float(hc.certify_with_gold(ann, model, gold, test="proxy betting", seed=seed).score)


def public_order(ids, seed):
    "The order certify_with_gold takes the gold items in: the seed's permutation of the ids' hashed order."
    return hashed_order(ids)[np.random.default_rng([seed, 2]).permutation(len(ids))]


def _pool_arrays(counts, m, g):
    "(Annotations, model, gold, proxy table, every pool item's D and proxy in item order, each item's hashed rank)."
    ann, model, gold = as_public(counts, m, g)
    proxy = pb.latent_proxy(ann, model)
    terms = gold_terms(ann, model, gold)                               # every pool item's D (all have human labels)
    assert len(terms) == len(g) == len(proxy) and (terms.index == gold.index).all()
    rank = np.empty(len(g), np.int64)
    rank[hashed_order(terms.index)] = np.arange(len(g))
    return ann, model, gold, proxy, terms["D"].to_numpy(), proxy.loc[terms.index, "proxy"].to_numpy(), rank


def studies(counts, m, g, n, seed, studies=STUDIES, check_every=50):
    """S of `studies` gold subsets (uniform, without replacement, seeded) of n items of the pool, study s with the order
    seed `seed * 1000 + s` (a fresh seed per study). D and the proxy are computed once per pool, each study's gold items
    taken in the order certify_with_gold takes them; every `check_every`-th study also goes through `score` (the public
    function) with the gold labels given in reverse order, and must give the same S bit for bit."""
    ann, model, gold, proxy, d, h, rank = _pool_arrays(counts, m, g)
    rng = np.random.default_rng(seed)
    out = np.empty(studies)
    for s in range(studies):
        idx = np.sort(rng.choice(len(g), n, replace=False))           # item order, as gold_terms gives the gold items
        idx = idx[public_order(gold.index[idx], seed * 1000 + s)]
        out[s] = pb.proxy_betting_confidence(d[idx], h[idx], proxy, 0.0, DELTA)[0]
        if s % check_every == 0:
            assert score(ann, model, gold.iloc[idx[::-1]], seed * 1000 + s) == out[s]
    return out


def _level_ok(S):
    "The certified share passes a one-sided binomial test against 0.05 at the 0.001 level."
    k = int((S >= 1 - DELTA).sum())
    return stats.binomtest(k, len(S), DELTA, alternative="greater").pvalue > 0.001, k


BOUNDARY = {   # name: pool arguments (seed, N, human accuracy, model accuracy, labels per item, skew), n gold, seed
    "N 1000, 3 or 6 labels, n 100": ((1, 1000, 0.75, 0.75, (3, 6), 0), 100, 11),
    "N 400, 1-6 labels, n 50": ((2, 400, 0.7, 0.7, (1, 2, 3, 6), 0), 50, 12),
    "N 1000, 1 % every human right and the model wrong, n 50": ((3, 1000, 0.8, 0.85, (3, 6), 10), 50, 13),
}


@pytest.mark.parametrize("name", list(BOUNDARY))
def test_level_at_zero_mean(name):
    """At a pool mean D of exactly 0 the default test certifies at 95 % in at most 5 % of studies (one-sided binomial
    test at 0.001; with these seeds 1, 1 and 0 of 200; with 1,000 studies 0.017, 0.008, 0.001)."""
    (seed, N, acc, macc, labels, skew), n, sseed = BOUNDARY[name]
    counts, m, g = zero_pool(seed, N, acc, macc, labels, skew)
    ok, k = _level_ok(studies(counts, m, g, n, sseed))
    assert ok, f"{k} of {STUDIES} studies certified at 95 % at mean D = 0"


# The ids' hashed order alone (no seed) is a fixed order once the subset is drawn, so for a given pool the t-th gold
# item is not a uniform draw from the items left; the independent check (indep42) measured 48 of 300 studies certified
# at mean D = 0 with n = 350 of the pool below, and 91 of 200 with a pool whose D follows the hash ranks; nb 21 measures
# two more pools under six hash keys. Hence the required seed; the two pools below check that it holds the level.
HALF = (2, 400, 0.7, 0.7, (1, 2, 3, 6))


def test_level_at_zero_mean_most_of_the_pool():
    "n = 350 of N = 400 items gold, 300 studies, a fresh order seed per study: the level holds for this pool too."
    counts, m, g = zero_pool(*HALF)
    ok, k = _level_ok(studies(counts, m, g, 350, 14, studies=300))
    assert ok, f"{k} of 300 studies certified at 95 % at mean D = 0"


def _hash_aligned_pool(N=200):
    """Mean D exactly 0, D aligned with the ids' hash ranks: the first half in hashed order has 3 humans wrong and the
    model right (D = +1), the second 3 humans right and the model wrong (D = -1)."""
    ids = np.array([f"q{i:04d}" for i in range(N)])                   # as_public's ids
    early = np.empty(N, bool)
    early[hashed_order(ids)] = np.arange(N) < N // 2
    g, counts, m = np.zeros(N, int), np.zeros((N, len(CLASSES)), np.int64), np.zeros(N, int)
    counts[early, 1], m[early] = 3, 0
    counts[~early, 0], m[~early] = 3, 1
    return counts, m, g


def test_level_at_zero_mean_hash_aligned_pool():
    "A pool whose D follows the hashed order of its ids (mean D exactly 0), n = 50 of 200: with the seeded order the level holds."
    counts, m, g = _hash_aligned_pool()
    assert sum(Fraction(int(m[i] == g[i])) - Fraction(int(counts[i, g[i]]), 3) for i in range(len(g))) == 0
    ok, k = _level_ok(studies(counts, m, g, 50, 16))
    assert ok, f"{k} of {STUDIES} studies certified at 95 % at mean D = 0"


def test_power_with_a_clear_lead():
    """A pool where the model leads clearly (humans 70 % right with 3 or 6 labels, the model 90 %): at n = 100 the
    pool's own mean D is z = mean * sqrt(n) / sd(D) >= 5 standard errors above 0 (checked). A plug-in bettor on D
    alone certifies when its running mean is about sqrt(2 ln 20) = 2.45 standard errors above 0 (log K ~ sqrt(2 ln(1/
    delta) n / v) mean - ln(1/delta)); the proxy only lowers v. So the study's mean falls short only if it is 2.5 or
    more standard errors below the pool's: about 1 % of studies; the test asks 90 % of 200 (180; expected ~198, the
    binomial sd 1.4 at 0.99)."""
    rng, g, counts, m = _draw(4, 1000, 0.7, 0.9, (3, 6))
    dd = (m == g) - counts[np.arange(len(g)), g] / counts.sum(1)
    assert dd.mean() * np.sqrt(100) / dd.std() >= 5
    S = studies(counts, m, g, 100, 15)
    assert (S >= 1 - DELTA).mean() >= 0.9, (S >= 1 - DELTA).mean()


def _some_golds(N, n, k, seed):
    "k seeded uniform subsets of n of the N items (positions)."
    rng = np.random.default_rng(seed)
    return [rng.choice(N, n, replace=False) for _ in range(k)]


def test_same_score_whatever_the_row_or_class_order():
    """S (bit for bit) does not move when the annotations' rows are shuffled, the class order is reversed or rotated,
    or the gold labels are given in another order: four gold subsets of 20 items of a 200-item pool (their S from
    checked: at least two strictly between 0 and 0.99)."""
    rng, g, counts, m = _draw(5, 200, 0.7, 0.85, (2, 3, 5))
    base = as_public(counts, m, g)
    variants = [as_public(counts, m, g, rows=np.random.default_rng(1).permutation(len(g))),
                as_public(counts, m, g, classes=CLASSES[::-1]),
                as_public(counts, m, g, classes=CLASSES[1:] + CLASSES[:1], rows=np.arange(len(g))[::-1])]
    assert variants[1][0].classes != base[0].classes and variants[0][0].items[0] != base[0].items[0]
    got = []
    for idx in _some_golds(len(g), 20, 4, 6):
        S = score(base[0], base[1], base[2].iloc[idx], 3)
        got.append(S)
        for ann, model, gold in variants:
            assert score(ann, model, gold.loc[base[2].index[idx[::-1]]], 3) == S
    assert sum(0 < s < 0.99 for s in got) >= 2, got


ALL_GOLD = [   # (pool seed, N, labels, target: the pool's sum of L * D, L the labels' common multiple)
    pytest.param(1, 1000, (3, 6), -1, id="mean D -1/6000: S = -1"),
    pytest.param(1, 1000, (3, 6), 0, id="mean D 0: S = -1"),        # the estimate is 0 up to rounding: not above tau
    pytest.param(1, 1000, (3, 6), 60, id="mean D 0.01: certified"),
]


@pytest.mark.parametrize("seed, N, labels, target", ALL_GOLD)
def test_every_pool_item_gold_is_the_exact_decision(seed, N, labels, target):
    """With every pool item gold the pool's mean D is known exactly (in rationals here): certified iff it exceeds
    tau = 0, S = -1 iff it does not (the statement's rule, the estimate being the pool's mean)."""
    counts, m, g = zero_pool(seed, N, 0.75, 0.75, labels, target=target)
    ann, model, gold = as_public(counts, m, g)
    S = score(ann, model, gold, 5)
    if target > 0:
        assert S >= 1 - DELTA, S
    else:
        assert S == -1.0, S


def test_every_pool_item_gold_zero_mean_not_certified():
    "The decision, not S: with every item gold and the pool's mean D exactly 0 the default test does not certify."
    for seed, N, labels in ((1, 1000, (3, 6)), HALF[:2] + HALF[4:]):
        counts, m, g = zero_pool(seed, N, 0.75, 0.75, labels)
        assert score(*as_public(counts, m, g), 5) < 1 - DELTA


def test_bad_arguments_name_what_to_do():
    "Without a seed, with clusters: a ValueError naming the argument and what to do (never a silent hashed order)."
    counts, m, g = zero_pool(0, 60, 0.8, 0.8)
    ann, model, gold = as_public(counts, m, g)
    with pytest.raises(ValueError, match="`seed` is required with test='proxy betting': it draws the gold items' order"):
        hc.certify_with_gold(ann, model, gold.iloc[:20], test="proxy betting")
    with pytest.raises(ValueError, match="`clusters`: test='proxy betting' bets on single gold items in a seeded order; with clusters"):
        hc.certify_with_gold(ann, model, gold.iloc[:20], test="proxy betting", seed=1, clusters=np.arange(60) // 3)
    with pytest.raises(ValueError, match="`seed` is required with test='proxy betting'"):
        hc.gold_test(ann, model, gold.iloc[:20], "proxy betting")
