"""corrected_score(..., estimand="oracle") with clusters= and strata= (issue 43 items 2-3; nbs/system_score/60_corrected_score):
hand cases of the cluster-robust (Liang-Zeger) variance of the latent-class fit's influence values and of stratified PPI++ on the
posteriors. The coverage at ICC 0.3 (clusters of 5) and under disproportionate strata is the cached study of notebook 60
(nbs/cache/60_oracle_cs_coverage.csv), checked here too."""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special

from humancert import Annotations, corrected_score
from humancert.system_score.corrected_score import latent_class, oracle_rows, oracle_shares, _oriented

SE, SP = np.array([0.85, 0.8, 0.9]), np.array([0.8, 0.75, 0.7])
COLS = ["estimate", "lower", "upper"]


def binary(n, N, seed):
    "Truth 70 % pass, the judge (sensitivity 0.9, specificity 0.6) on N items, three conditionally independent annotators on n of them."
    r = np.random.default_rng(seed)
    t = r.random(N) < 0.7
    lab = np.where(t[:, None], r.random((N, 3)) < SE, r.random((N, 3)) > SP).astype(int)
    idx = pd.Index([f"a{i:05d}" for i in range(N)])
    judge = pd.Series(np.where(t, r.random(N) < 0.9, r.random(N) < 0.4).astype(int), index=idx)
    gi = np.sort(r.choice(N, n, replace=False))
    return t, judge, lab, gi, idx


def frame(res): return res.to_frame().set_index(["outcome", "method"])[COLS].astype(float)


def test_singleton_clusters_change_only_the_small_sample_factors():
    "Clusters of one item: the same estimates; each variance term times m/(m-1) (m gold items, or N for the judge's term) and t on n - 1 for z."
    t, judge, lab, gi, _ = binary(150, 1200, 1)
    L, f, fa = lab[gi].astype(float), judge.to_numpy()[gi].astype(float), judge.to_numpy().astype(float)
    n, N, z, tq = len(gi), len(fa), special.ndtri(0.975), special.stdtrit(len(gi) - 1, 0.975)
    g0, p0, lam, _ = oracle_rows(L, f, fa, 0.05)
    g1, p1, lam1, _ = oracle_rows(L, f, fa, 0.05, gcl=np.arange(n), acl=np.arange(N))
    assert lam1 == lam and g1[0] == g0[0] and p1[0] == p0[0]
    h = lambda row: (row[2] - row[1]) / 2
    assert h(g1) == pytest.approx(tq * (h(g0) / z) * np.sqrt(n / (n - 1)), rel=1e-9)
    vj = lam ** 2 * np.var(fa) / N                                       # the judge's term of PPI++'s variance; the rest is the gold term
    assert h(p1) == pytest.approx(tq * np.sqrt(vj * N / (N - 1) + ((h(p0) / z) ** 2 - vj) * n / (n - 1)), rel=1e-9)


def test_cluster_duplication_doubles_the_variance():
    "Every item twice, both copies in one cluster: clusters= gives the original's interval with clusters of one item (exactly but for lambda's ddof); "
    "ignoring the clusters halves the variance (the copies taken as new information)."
    t, judge, lab, gi, idx = binary(200, 1500, 2)
    ann = Annotations.from_wide(pd.DataFrame(lab[gi], index=idx[gi]))
    dup = lambda x: np.r_[x + "a", x + "b"]
    judge2 = pd.Series(np.r_[judge.to_numpy(), judge.to_numpy()], index=dup(idx.to_numpy()))
    ann2 = Annotations.from_wide(pd.DataFrame(np.r_[lab[gi], lab[gi]], index=dup(idx[gi].to_numpy())))
    one = corrected_score(judge, ann, estimand="oracle", clusters=pd.Series(np.arange(len(idx)), index=idx))
    two = corrected_score(judge2, ann2, estimand="oracle", clusters=pd.Series(judge2.index.str[:-1], index=judge2.index))
    np.testing.assert_allclose(frame(two).drop(("pass", "PPI++")), frame(one).drop(("pass", "PPI++")), rtol=0, atol=1e-9)
    np.testing.assert_allclose(frame(two), frame(one), rtol=0, atol=1e-5)          # PPI++: lambda's var(f, ddof=1) over 2N items, not N
    plain, naive = frame(corrected_score(judge, ann, estimand="oracle")), frame(corrected_score(judge2, ann2, estimand="oracle"))
    hw = lambda f: (f.upper - f.lower) / 2
    np.testing.assert_allclose(hw(naive), hw(plain) / np.sqrt(2), rtol=1e-5)        # ignoring clusters: half the variance (PPI++: lambda ddof)
    n, z, tq = len(gi), special.ndtri(0.975), special.stdtrit(len(gi) - 1, 0.975)
    ratio = (hw(frame(two)) / tq) ** 2 / (hw(naive) / z) ** 2                       # clustered / ignored variance: 2 (x m/(m-1))
    assert ratio.loc[("pass", "gold only")] == pytest.approx(2 * n / (n - 1), rel=1e-8)
    assert ratio.loc[("pass", "PPI++")] == pytest.approx(2, rel=0.01)
    assert "pseudo-likelihood" in two.to_frame().assumes[0] and any("pseudo-likelihood" in s for s in two.notes)


def test_one_stratum_is_the_unstratified_result():
    "strata= with a single stratum equals no strata, binary and three classes (the per-stratum fit and weights reduce to the plain ones)."
    t, judge, lab, gi, idx = binary(300, 3000, 3)
    ann = Annotations.from_wide(pd.DataFrame(lab[gi], index=idx[gi]))
    np.testing.assert_allclose(frame(corrected_score(judge, ann, estimand="oracle", strata=pd.Series("all", index=idx))),
                               frame(corrected_score(judge, ann, estimand="oracle")), rtol=0, atol=1e-9)
    cl = pd.Series(np.arange(len(idx)) // 5, index=idx)                  # and with clusters: one stratum is the clustered result
    np.testing.assert_allclose(frame(corrected_score(judge, ann, estimand="oracle", strata=pd.Series("all", index=idx), clusters=cl)),
                               frame(corrected_score(judge, ann, estimand="oracle", clusters=cl)), rtol=0, atol=1e-9)
    r = np.random.default_rng(4)
    tc = r.choice(3, 3000, p=[0.5, 0.3, 0.2])
    labc = np.where(r.random((3000, 3)) < [0.85, 0.8, 0.75], tc[:, None], (tc[:, None] + r.integers(1, 3, (3000, 3))) % 3)
    names = np.array(list("abc"))
    jc = pd.Series(names[np.where(r.random(3000) < 0.8, tc, (tc + 1) % 3)], index=idx)
    annc = Annotations.from_wide(pd.DataFrame(names[labc[gi]], index=idx[gi]))
    np.testing.assert_allclose(frame(corrected_score(jc, annc, estimand="oracle", strata=pd.Series(0, index=idx))),
                               frame(corrected_score(jc, annc, estimand="oracle")), rtol=0, atol=1e-9)


def test_strata_weighted_by_their_share():
    "Two strata (30 % hard items passing 40 %, the rest 85 %), gold half from each: the gold over-represents the hard items, so "
    "ignoring the strata is biased and misses the true rate; strata= weights each stratum by its share of the items and holds it."
    r = np.random.default_rng(5)
    N, n = 20_000, 2000
    hard = np.arange(N) < 0.3 * N
    t = r.random(N) < np.where(hard, 0.4, 0.85)
    lab = np.where(t[:, None], r.random((N, 3)) < SE, r.random((N, 3)) > SP).astype(int)
    judge = pd.Series(np.where(t, r.random(N) < 0.9, r.random(N) < 0.4).astype(int))
    gi = np.r_[r.choice(np.flatnonzero(hard), n // 2, replace=False), r.choice(np.flatnonzero(~hard), n // 2, replace=False)]
    ann = Annotations.from_wide(pd.DataFrame(lab[gi], index=gi))
    res = corrected_score(judge, ann, estimand="oracle", strata=pd.Series(np.where(hard, "hard", "easy")))
    lo, hi = res.ci
    assert lo <= t.mean() <= hi and hi - lo < 0.08                        # holds the truth, and is informative
    lo0, hi0 = corrected_score(judge, ann, estimand="oracle").ci
    assert hi0 < t.mean()                                                   # ignoring the strata: biased towards the hard items
    assert "lambda per stratum" in res.to_frame().guarantee[0] and "one prevalence per stratum" in res.to_frame().assumes[0]


def test_stratified_delta_method_matches_a_stratified_bootstrap():
    "Two strata (prevalence 0.4 and 0.85, 200 gold items each, 30 % and 70 % of the items): the stratified delta-method SEs of the "
    "gold-only and PPI++ rows within 12 % of a bootstrap resampling within strata that refits EM (300 resamples; SE of a bootstrap SD ~4 %)."
    r = np.random.default_rng(8)
    n, N = 400, 6000
    gst = np.repeat([0, 1], 200)
    t = r.random(n) < np.where(gst == 0, 0.4, 0.85)
    L = np.where(t[:, None], r.random((n, 3)) < SE, r.random((n, 3)) > SP).astype(float)
    f = np.where(t, r.random(n) < 0.9, r.random(n) < 0.4).astype(float)
    fa = np.r_[f, (r.random(N - n) < 0.7).astype(float)]
    ast = np.r_[gst, (np.arange(N - n) >= 0.3 * N - 200).astype(int)]
    g, p, lam, _ = oracle_rows(L, f, fa, 0.05, gst=gst, ast=ast)
    w, nh = np.bincount(ast) / N, np.bincount(gst)
    q = _oriented(*latent_class(L, strata=gst)[:4])[3][0]
    W = np.zeros((300, n))
    for h in (0, 1):
        idx = np.flatnonzero(gst == h)
        W[:, idx] = [np.bincount(r.integers(0, len(idx), len(idx)), minlength=len(idx)) for _ in range(300)]
    bp, _, _, bq = _oriented(*latent_class(L, W, q0=q, tol=1e-6, strata=gst)[:4])
    ym = bq - lam[gst] * f
    gold = np.stack([(W[:, gst == h] * ym[:, gst == h]).sum(1) / nh[h] for h in (0, 1)], 1) @ w
    vj = sum(w[h] ** 2 * lam[h] ** 2 * np.var(fa[ast == h]) / np.sum(ast == h) for h in (0, 1))
    boot = [(bp @ w).std(ddof=1), np.sqrt(vj + gold.var(ddof=1))]
    delta = [(g[2] - g[1]) / (2 * 1.959964), (p[2] - p[1]) / (2 * 1.959964)]
    np.testing.assert_allclose(np.divide(delta, boot), [1, 1], atol=0.12)


def test_class_shares_with_strata_over_sampled():
    "Three classes, a stratum of 30 % of the items with shares (0.2, 0.3, 0.5) and the rest (0.6, 0.3, 0.1), gold half from each: the "
    "stratified estimates are within 0.05 of every true share (about 3 SE) with informative intervals; ignoring the strata misses the first "
    "class (biased towards the over-sampled stratum). The simultaneous coverage is the cached study's (checked below)."
    r = np.random.default_rng(9)
    N, n = 20_000, 2000
    hard = np.arange(N) < 0.3 * N
    tc = np.where(hard, r.choice(3, N, p=[0.2, 0.3, 0.5]), r.choice(3, N, p=[0.6, 0.3, 0.1]))
    lab = np.where(r.random((N, 3)) < [0.85, 0.8, 0.75], tc[:, None], (tc[:, None] + r.integers(1, 3, (N, 3))) % 3)
    names = np.array(list("abc"))
    judge = pd.Series(names[np.where(r.random(N) < 0.8, tc, (tc + 1) % 3)])
    gi = np.r_[r.choice(np.flatnonzero(hard), n // 2, replace=False), r.choice(np.flatnonzero(~hard), n // 2, replace=False)]
    ann = Annotations.from_wide(pd.DataFrame(names[lab[gi]], index=gi))
    truth = pd.Series(np.bincount(tc, minlength=3) / N, index=list("abc"))
    res = corrected_score(judge, ann, estimand="oracle", strata=pd.Series(np.where(hard, "h", "e")))
    assert (abs(res.estimate - truth) < 0.05).all() and ((res.ci.upper - res.ci.lower) < 0.1).all()
    ci0 = corrected_score(judge, ann, estimand="oracle").ci
    assert ci0.upper["a"] < truth["a"]


def test_class_shares_with_clusters_and_strata():
    "Three classes: singleton clusters keep the estimates and widen by the small-sample factors only; a bad stratum is refused."
    r = np.random.default_rng(6)
    tc = r.choice(3, 2000, p=[0.5, 0.3, 0.2])
    L = np.where(r.random((400, 3)) < [0.85, 0.8, 0.75], tc[:400, None], (tc[:400, None] + r.integers(1, 3, (400, 3))) % 3)
    F = np.eye(3)[np.where(r.random(2000) < 0.8, tc, (tc + 1) % 3)]
    g0, p0, lam0, _ = oracle_shares(L, 3, F[:400], F, 0.05)
    g1, p1, lam1, _ = oracle_shares(L, 3, F[:400], F, 0.05, gcl=np.arange(400), acl=np.arange(2000))
    np.testing.assert_array_equal(lam0, lam1)
    z, tq = special.ndtri(0.975), special.stdtrit(399, 0.975)
    for a, b in zip(g0, g1):
        assert b[0] == a[0] and (b[2] - b[1]) == pytest.approx((a[2] - a[1]) * tq / z * np.sqrt(400 / 399), rel=1e-9)
    t, judge, lab, gi, idx = binary(100, 500, 7)
    ann = Annotations.from_wide(pd.DataFrame(lab[gi], index=idx[gi]))
    bad = pd.Series(np.where(np.arange(500) == gi[0], "tiny", "rest"), index=idx)
    with pytest.raises(ValueError, match="fewer than 2 gold"): corrected_score(judge, ann, estimand="oracle", strata=bad)
    with pytest.raises(ValueError, match="`clusters` must give a group"):
        corrected_score(judge, ann, estimand="oracle", clusters=pd.Series(0, index=idx[:10]))


def test_cached_coverage_study():
    "The cached study (nb 60, 400 studies per cell; SE 0.011 at 0.95). Clusters of 5 at ICC 0.3, gold whole clusters: with clusters= "
    "the oracle's PPI++ covers within 2 SE of 0.95 from 300 gold items (60 clusters); ignoring the clusters covers less at every n, "
    "0.915 pooled over n. Strata (gold half from a 30 % stratum): within 3 SE at 300, 2 SE at 1,000 (three classes at 1,000: "
    "simultaneous, within 2 SE); ignoring them fails."
    cov = pd.read_csv(Path(__file__).parents[1] / "nbs/cache/60_oracle_cs_coverage.csv").set_index(["design", "n", "method"]).coverage
    se = np.sqrt(0.95 * 0.05 / 400)
    for n in (300, 1000): assert cov["clustered", n, "PPI++"] >= 0.95 - 2 * se
    for n in (100, 300, 1000):
        for m in ("PPI++", "gold only"): assert cov["clustered", n, f"{m}, ignored"] < cov["clustered", n, m]
    assert np.mean([cov["clustered", n, "PPI++, ignored"] for n in (100, 300, 1000)]) < 0.95 - 3 * se / np.sqrt(3)
    assert cov["stratified", 300, "PPI++"] >= 0.95 - 3 * se and cov["stratified", 1000, "PPI++"] >= 0.95 - 2 * se
    assert cov["stratified", 300, "PPI++, ignored"] < 0.85 and cov["stratified", 1000, "PPI++, ignored"] < 0.5
    assert cov["stratified, 3 classes", 1000, "PPI++"] >= 0.95 - 2 * se and cov["stratified, 3 classes", 1000, "PPI++, ignored"] < 0.5
