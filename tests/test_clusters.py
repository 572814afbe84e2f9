"""Issue 45 item 1: `clusters=` on the agreement coefficients' intervals (notebooks 03 and 07).

Coverage of the public functions on clustered data (clusters of 5 items, intra-cluster correlation 0.3 of the items'
class and difficulty; notebook 07's model): ignoring the clusters under-covers, giving them covers. Each check uses
fixed seeds; the tolerances are binomial standard errors of the coverage over the data sets drawn.
"""
import numpy as np
import pandas as pd
import pytest

import humancert
from humancert.agreement.coefficients import _cluster_coverage


def test_cluster_coverage_of_the_coefficients():
    "At 60 clusters of 5 (300 items), 400 data sets: items as the unit covers about 0.89, clusters as the unit about 0.95."
    d = _cluster_coverage(reps=400, sizes=(60,), coefficients=("fleiss_kappa", "krippendorff_alpha_interval"),
                          methods=(("analytic", False), ("analytic", True)), seed=11)
    se = np.sqrt(0.95 * 0.05 / 400)                                             # 0.0109
    items, clusters = d[d.unit == "items"].set_index("coefficient"), d[d.unit == "clusters"].set_index("coefficient")
    assert (items["coverage"] < 0.95 - 2 * se).all(), items                      # under-covers (measured 0.88-0.90)
    assert (abs(clusters["coverage"] - 0.95) < 3 * se).all(), clusters          # covers
    assert (clusters["width"] > 1.15 * items["width"]).all()                     # and is wider, by the design effect's root


def test_cebab_alpha_wider_with_clusters():
    "CEBaB's edits of one original review: alpha's interval is wider with the originals as clusters (analytic and bootstrap)."
    cb = humancert.load("cebab")
    ann, orig = cb.annotations, cb.extra["original"]
    w = lambda r: r.ci[1] - r.ci[0]
    a0, a1 = (humancert.krippendorff_alpha(ann, ci_method="analytic", clusters=c) for c in (None, orig))
    b0, b1 = (humancert.krippendorff_alpha(ann, ci_method="bootstrap", n_bootstrap=200, clusters=c) for c in (None, orig))
    assert w(a1) > 1.15 * w(a0) and w(b1) > 1.15 * w(b0)
    assert (a1.n_clusters, b1.n_clusters, a0.n_clusters) == (2299, 2299, None)
    assert "n_clusters=2299" in repr(a1) and a1.to_frame()["n_clusters"].iloc[0] == 2299 and "n_clusters" not in a0.to_frame()
    assert "<th>clusters</th><td>2299</td>" in a1._repr_html_()


@pytest.mark.parametrize("fn", ["fleiss_kappa", "krippendorff_alpha", "gwet_ac", "brennan_prediger", "conger_kappa", "cohen_kappa_mean"])
def test_cluster_bootstrap_keeps_clusters_whole(fn):
    "Clusters of identical copies of an item: the cluster bootstrap's interval is that of the items without copies (a copy adds nothing)."
    s = humancert.simulate_oracle_labels(60, [0.8, 0.7, 0.75], n_classes=3, seed=3).annotations
    wide = s.to_wide()
    rep = pd.DataFrame(np.repeat(wide.to_numpy(), 3, axis=0), columns=wide.columns, index=[f"{i}_{k}" for i in wide.index for k in range(3)])
    f = getattr(humancert, fn)
    one, three = f(wide, ci_method="bootstrap", n_bootstrap=200, seed=4), f(rep, ci_method="bootstrap", n_bootstrap=200, seed=4,
                                                                         clusters=humancert.id_prefix(rep.index))
    tol = 1e-2 if fn == "krippendorff_alpha" else 1e-12                        # alpha's expected term uses n.. - 1: copies move it a little
    assert one.ci == pytest.approx(three.ci, abs=tol) and three.n_clusters == 60


def test_cohen_and_scott_clusters():
    "Two raters: the cluster-robust analytic interval with copies in clusters equals the interval of the items alone, up to t_{G-1} vs the normal."
    s = humancert.simulate_oracle_labels(80, [0.8, 0.7], n_classes=3, seed=5).annotations.to_wide()
    a, b = s.iloc[:, 0], s.iloc[:, 1]
    ra, rb = (pd.Series(np.repeat(x.to_numpy(), 2), index=[f"{i}_{k}" for i in x.index for k in range(2)]) for x in (a, b))
    g = humancert.id_prefix(ra.index)
    one, two = humancert.cohen_kappa(a, b, ci_method="analytic"), humancert.cohen_kappa(ra, rb, ci_method="analytic", clusters=g)
    assert two.se == pytest.approx(one.se * np.sqrt(80 / 79), rel=1e-12) and two.n_clusters == 80
    sp1, sp2 = humancert.scott_pi(a, b, ci_method="analytic"), humancert.scott_pi(ra, rb, ci_method="analytic", clusters=g)
    assert sp2.value == pytest.approx(sp1.value, abs=1e-12) and sp2.n_clusters == 80 and sp2.se > 0


def test_bad_clusters_refused():
    s = humancert.simulate_oracle_labels(30, [0.8, 0.7], seed=1).annotations
    with pytest.raises(ValueError, match="`clusters` gives no cluster to 10 of the 30 items"):
        humancert.fleiss_kappa(s, ci_method="analytic", clusters=pd.Series(np.arange(20) // 2, index=s.items[:20]))
    with pytest.raises(TypeError, match="`clusters` must be a pandas Series"):
        humancert.krippendorff_alpha(s, ci_method="analytic", clusters={"a": 1})
    with pytest.raises(ValueError, match="in 1 cluster"):
        humancert.gwet_ac(s, ci_method="bootstrap", clusters=np.zeros(30))
    with pytest.raises(ValueError, match="'bootstrap_t' is not offered with `clusters`"):
        humancert.conger_kappa(s, ci_method="bootstrap_t", clusters=np.arange(30) // 3)


def test_looks_clustered():
    assert "pass clusters=humancert.id_prefix(items, '_')" in humancert.looks_clustered(humancert.load("cebab").annotations.items)
    assert humancert.looks_clustered([f"item_{k}" for k in range(50)]) is None
    assert humancert.looks_clustered(list(range(50))) is None


def _copies(n=200, seed=6):
    "A panel of n items and the same panel with three identical copies of each item (ids 'i_k'), its judges likewise."
    s = humancert.simulate_oracle_labels(n, [0.8, 0.7, 0.75, 0.65], n_classes=3, seed=seed)
    w = s.annotations.to_wide()
    j = pd.DataFrame({"good": s.oracle, "bad": (np.asarray(s.oracle) + (np.arange(n) % 3 == 0)) % 3}, index=w.index)
    ids = [f"{i}_{k}" for i in w.index for k in range(3)]
    w3 = pd.DataFrame(np.repeat(w.to_numpy(), 3, axis=0), index=ids, columns=w.columns)
    j3 = pd.DataFrame(np.repeat(j.to_numpy(), 3, axis=0), index=ids, columns=j.columns)
    return humancert.Annotations.from_wide(w), j, humancert.Annotations.from_wide(w3), j3, humancert.id_prefix(ids)


def test_board_cluster_bootstrap():
    "compare_judges: copies clustered give the intervals of the items alone; unclustered copies give narrower ones (fails without clusters=)."
    a1, j1, a3, j3, g = _copies()
    one = humancert.compare_judges(a1, j1, n_bootstrap=60, seed=2)
    three = humancert.compare_judges(a3, j3, n_bootstrap=60, seed=2, clusters=g)
    naive = humancert.compare_judges(a3, j3, n_bootstrap=60, seed=2)
    cols = ["agreement lo", "agreement hi", "humans lo", "humans hi", "advantage lo", "advantage hi", "SEQ lo", "SEQ hi"]
    pd.testing.assert_frame_equal(three.to_frame()[cols], one.to_frame()[cols], rtol=1e-12)
    width = lambda b: (b.to_frame()["agreement hi"] - b.to_frame()["agreement lo"]).to_numpy()
    assert (width(naive) < 0.8 * width(three)).all()
    assert three.to_frame()["clusters"].iloc[0] == 200 and "of 200 clusters" in repr(three) and "clusters" not in one.to_frame()


def test_survey_equivalence_clusters():
    a1, j1, a3, j3, g = _copies()
    one = humancert.survey_equivalence(j1["bad"], a1, "plurality", "agreement", n_bootstrap=80, seed=1)
    three = humancert.survey_equivalence(j3["bad"], a3, "plurality", "agreement", n_bootstrap=80, seed=1, clusters=g)
    np.testing.assert_allclose(three.samples, one.samples, rtol=1e-9)
    assert three.n_clusters == 200 and "cluster-bootstrap" in repr(three) and "item-bootstrap" in repr(one)
    with pytest.raises(ValueError, match="`clusters` gives no cluster"):
        humancert.survey_equivalence(j3["bad"], a3, "plurality", "agreement", n_bootstrap=2, clusters=g.iloc[:10])


def _gold_rep(seed, G=40, m=10):
    "40 clusters of 10 items at the boundary E[D] = 0: in half the clusters (drawn) the model is right and the 3 annotators wrong (D = +1), in the other half the reverse (D = -1)."
    rng = np.random.default_rng(seed)
    a = np.repeat(rng.random(G) < 0.5, m)
    ids = [f"c{g}_{k}" for g in range(G) for k in range(m)]
    ann = humancert.Annotations.from_wide(pd.DataFrame(np.repeat(np.where(a, 1, 0)[:, None], 3, axis=1), index=ids), labels=[0, 1])
    model, gold = pd.Series(np.where(a, 0, 1), index=ids), pd.Series(0, index=ids)
    return (humancert.certify_with_gold(ann, model, gold).certified,
            humancert.certify_with_gold(ann, model, gold, clusters=humancert.id_prefix(ids)).certified)


def test_gold_certificate_clusters_keep_the_level():
    "At the boundary with clustered D, items as units certify far more often than 5 %; clusters as units at most 5 % (+2 SE). Measured 0.21 vs 0.01 over 200."
    r = np.array([_gold_rep(s) for s in range(100)])
    assert r[:, 1].mean() <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / 100)                # 0.094
    assert r[:, 0].mean() > 0.10                                                   # ignoring the clusters: invalid (power of the check)


def test_alt_test_clusters():
    "alt_test(clusters=): copies clustered give the p-values of the items alone; the plain test on copies is far more confident; 'wilcoxon' refused."
    a1, j1, a3, j3, g = _copies()
    one, three = humancert.alt_test(a1, j1["bad"], 0.1), humancert.alt_test(a3, j3["bad"], 0.1, clusters=g)
    np.testing.assert_allclose(three.to_frame()["p_value"], one.to_frame()["p_value"], rtol=1e-9)
    assert (humancert.alt_test(a3, j3["bad"], 0.1).to_frame()["p_value"] < one.to_frame()["p_value"]).all() and three.n_clusters == 200
    with pytest.raises(ValueError, match="use test='t'"):
        humancert.alt_test(a3, j3["bad"], 0.1, test="wilcoxon", clusters=g)
