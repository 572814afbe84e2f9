"""Issue 43: a finite-sample (betting) interval for the corrected score with clusters (nb 60, `cluster_betting_ci`).

Whole clusters are the random draws (the gold chosen by cluster, every item of a gold cluster labelled); the item-level mean
is a ratio of cluster totals, tested at each m by betting on (T_c - m N_c + m s) / s in the hashed order of the cluster ids.
Deterministic checks: hand cases (clusters of one item are `betting_ci`; equal sizes are `betting_ci` on cluster means; a
census holds the ratio, not the mean of cluster means), nesting in the level and in n, the headline rule of
`corrected_score`, refusals; and the cached coverage study (benchmarks/score_coverage.py, clusters of 5 at ICC 0.3): the
clustered betting headline covers at least 0.95 - 2 SE.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humancert import corrected_score
from humancert.system_score.corrected_score import betting_ci, cluster_betting_ci

ROOT = Path(__file__).resolve().parent.parent


def clustered(seed, G=200, size=5, icc=0.3, p=0.7):
    "G clusters of `size` items, pass probability per cluster ~ Beta (mean p, intra-cluster correlation icc); a judge 85 % right."
    rng = np.random.default_rng(seed)
    s = 1 / icc - 1
    pc = np.repeat(rng.beta(p * s, (1 - p) * s, G), size)
    y = (rng.random(G * size) < pc).astype(float)
    return rng, y, np.where(rng.random(G * size) < 0.85, y, 1 - y), np.repeat(np.arange(G), size)


def test_hand_cases():
    rng, y, f, cl = clustered(0)
    gold = np.sort(rng.choice(200, 40, replace=False))
    gi = np.flatnonzero(np.isin(cl, gold))
    one, ids = np.arange(len(y)), np.array([f"i{k}" for k in range(len(y))])
    # clusters of one item: the item-level interval, bets in the same hashed order of the same ids
    np.testing.assert_allclose(cluster_betting_ci(y[gi], f[gi], f, 0.05, one[gi], one, ids), betting_ci(y[gi], f[gi], f, 0.05, ids[gi]),
                               rtol=0, atol=1e-12)
    # equal sizes: the shift cancels, the interval is betting_ci on the cluster means
    m = lambda v: v.reshape(-1, 5).mean(1)
    cid = np.array([f"c{k}" for k in range(200)])
    np.testing.assert_allclose(cluster_betting_ci(y[gi], f[gi], f, 0.05, cl[gi], cl, cid),
                               betting_ci(m(y)[gold], m(f)[gold], m(f), 0.05, cid[gold]), rtol=0, atol=1e-12)
    # unequal sizes, every cluster labelled and a perfect judge: the ratio is held, the mean of the cluster means is not
    sizes = rng.integers(1, 9, 60)
    cu = np.repeat(np.arange(60), sizes)
    yu = (rng.random(len(cu)) < np.repeat(np.where(sizes > 4, 0.9, 0.2), sizes)).astype(float)
    lo, hi = cluster_betting_ci(yu, yu, yu, 0.05, cu, cu)
    assert lo <= yu.mean() <= hi and not lo <= (np.bincount(cu, weights=yu) / sizes).mean() <= hi, (lo, hi)


def test_nesting_and_width():
    "Wider at a higher level, narrower with more gold clusters, wider than the cluster-robust PPI++ at the same n, and a reflection."
    rng, y, f, cl = clustered(1)
    gi = np.flatnonzero(np.isin(cl, rng.choice(200, 30, replace=False)))
    g2 = np.flatnonzero(np.isin(cl, rng.choice(200, 90, replace=False)))
    w = {a: np.subtract(*cluster_betting_ci(y[gi], f[gi], f, a, cl[gi], cl)[::-1]) for a in (0.2, 0.1, 0.05, 0.01)}
    assert w[0.2] < w[0.1] < w[0.05] < w[0.01], w
    assert np.subtract(*cluster_betting_ci(y[g2], f[g2], f, 0.05, cl[g2], cl)[::-1]) < w[0.05]
    lo, hi = cluster_betting_ci(y[gi], f[gi], f, 0.05, cl[gi], cl)
    rlo, rhi = cluster_betting_ci(1 - y[gi], 1 - f[gi], 1 - f, 0.05, cl[gi], cl)
    np.testing.assert_allclose((lo, hi), (1 - rhi, 1 - rlo), rtol=0, atol=1e-9)
    ids = pd.Index([f"i{k}" for k in range(len(y))])
    res = corrected_score(pd.Series(f, index=ids), pd.Series(y[gi], index=ids[gi]), clusters=pd.Series(cl, index=ids))
    rows = res.to_frame().set_index("method")
    assert (rows.upper - rows.lower)["betting"] > (rows.upper - rows.lower)["PPI++"]


def test_corrected_score_heads_with_clustered_betting():
    rng, y, f, cl = clustered(2, G=800)
    ids = pd.Index([f"a{k}" for k in range(len(y))])
    judge, clusters = pd.Series(f, index=ids), pd.Series(np.char.add("conv", cl.astype(str)), index=ids)
    gi = np.flatnonzero(np.isin(cl, rng.choice(800, 20, replace=False)))          # 100 gold items in 20 whole clusters
    res = corrected_score(judge, pd.Series(y[gi], index=ids[gi]), clusters=clusters)
    assert res.headline == "betting" and "cluster ids" in res.to_frame().set_index("method").assumes["betting"]
    lo, hi = res.ci
    assert lo <= y.mean() <= hi
    # the gold rows in another order: the same interval (the bets follow the hashed cluster ids, not the rows)
    perm = rng.permutation(len(gi))
    assert corrected_score(judge, pd.Series(y[gi][perm], index=ids[gi][perm]), clusters=clusters).ci == res.ci
    # a partly labelled gold cluster: PPI++ heads and a note says why; asking for betting is refused naming the fix
    part = pd.Series(y[gi[1:]], index=ids[gi[1:]])
    res2 = corrected_score(judge, part, clusters=clusters)
    assert res2.headline == "PPI++" and any("partly labelled" in n for n in res2.notes)
    with pytest.raises(ValueError, match="headline='betting' with `clusters` needs the gold drawn by cluster"):
        corrected_score(judge, part, clusters=clusters, headline="betting")
    with pytest.raises(ValueError, match="with `strata` use 'PPI\\+\\+' or 'auto'"):
        corrected_score(judge, pd.Series(y[gi], index=ids[gi]), strata=pd.Series(np.arange(len(y)) % 2, index=ids), headline="betting")


def test_cached_coverage_at_icc_03():
    "The cached study (nbs/cache/60_score_coverage.csv; benchmarks/score_coverage.py --designs clustered): betting heads below 300 gold items and covers >= 0.95 - 2 SE."
    cov = pd.read_csv(ROOT / "nbs/cache/60_score_coverage.csv")
    c = cov[cov.design == "clustered"].set_index(["n", "method"])
    for n in (50, 100):
        bet, head = c.loc[(n, "betting")], c.loc[(n, "headline")]
        assert head.coverage == bet.coverage and head.width == bet.width and bet.reps == 1000
        assert bet.coverage >= 0.95 - 2 * np.sqrt(0.95 * 0.05 / bet.reps), (n, bet.coverage)
