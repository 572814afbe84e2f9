"""corrected_score(..., estimand="oracle") (issue 43 item 2; nbs/system_score/60_corrected_score): the latent-class (Dawid-Skene)
fit reaches the likelihood's maximum, its delta-method standard error matches an item bootstrap that refits EM, the public
interval covers the true rate where the model holds (annotators conditionally independent given the truth) and fails where it
does not, and designs it cannot identify are refused with what is needed."""
import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from humancert import Annotations, corrected_score
from humancert.system_score.corrected_score import latent_class, lc_loglik, oracle_rows, _oriented

SE, SP = np.array([0.85, 0.8, 0.9]), np.array([0.8, 0.75, 0.7])


def study(n, hard, seed, N=20_000):
    "The judge (sensitivity 0.9, specificity 0.6) on N items with a 70 % true pass rate; three annotators on n random gold items, all wrong together on a `hard` share of items."
    r = np.random.default_rng(seed)
    t = r.random(N) < 0.7
    lab = np.where(t[:, None], r.random((N, 3)) < SE, r.random((N, 3)) > SP)
    h = r.random(N) < hard
    lab[h] = ~t[h, None]
    idx = pd.Index([f"a{i}" for i in range(N)])
    judge = pd.Series(np.where(t, r.random(N) < 0.9, r.random(N) < 0.4).astype(int), index=idx)
    gi = r.choice(N, n, replace=False)
    return t.mean(), judge, Annotations.from_wide(pd.DataFrame(lab[gi].astype(int), index=idx[gi]))


def test_em_reaches_the_maximum():
    "EM's log-likelihood equals BFGS's maximum (1e-6), its parameters agree (1e-4); the labels' swap fixed by better-than-chance annotators."
    r = np.random.default_rng(0)
    t = r.random(500) < 0.3
    L = np.where(t[:, None], r.random((500, 4)) < 0.8, r.random((500, 4)) > 0.85).astype(float)
    L[r.random((500, 4)) < 0.2] = np.nan
    pi, se, sp, q, _ = latent_class(L)
    opt = minimize(lambda th: -lc_loglik(L, expit(th[0]), expit(th[1:5]), expit(th[5:])), np.r_[0.0, np.ones(8)], method="BFGS", options=dict(gtol=1e-10))
    assert lc_loglik(L, pi[0], se[0], sp[0]) == pytest.approx(-opt.fun, abs=1e-6)
    np.testing.assert_allclose(np.r_[pi, se[0], sp[0]], expit(opt.x), atol=1e-4)
    fl = _oriented(1 - pi, 1 - sp, 1 - se, 1 - q)                    # the swapped solution, named back
    np.testing.assert_allclose(np.r_[fl[0], fl[1][0], fl[2][0]], np.r_[pi, se[0], sp[0]], atol=1e-12)


def test_delta_method_matches_refitting_bootstrap():
    "The delta-method SE of the gold-only and PPI++ rows within 12 % of an item bootstrap refitting EM on 300 resamples."
    r = np.random.default_rng(4)
    t = r.random(500) < 0.6
    L = np.where(t[:, None], r.random((500, 3)) < SE, r.random((500, 3)) > SP).astype(float)
    f = np.where(t, r.random(500) < 0.9, r.random(500) < 0.4).astype(float)
    fa = np.r_[f, (r.random(5000) < 0.7).astype(float)]
    g, p, lam, _ = oracle_rows(L, f, fa, 0.05)
    q = _oriented(*latent_class(L)[:4])[3][0]
    W = np.stack([np.bincount(r.integers(0, 500, 500), minlength=500) for _ in range(300)]).astype(float)
    bp, _, _, bq = _oriented(*latent_class(L, W, q0=q, tol=1e-8)[:4])
    boot = [bp.std(ddof=1), np.sqrt(lam ** 2 * np.var(fa) / len(fa) + np.var((W * (bq - lam * f)).sum(1) / 500, ddof=1))]
    delta = [(g[2] - g[1]) / (2 * 1.959964), (p[2] - p[1]) / (2 * 1.959964)]
    np.testing.assert_allclose(np.divide(delta, boot), [1, 1], atol=0.12)


def test_coverage_where_the_model_holds_and_fails():
    "120 studies of 1,000 gold items (SE of a 95 % coverage: 0.02): the headline covers >= 0.95 - 3 SE with independent annotators, and < 0.5 when they err together on 20 % of items."
    R = 120
    for hard, check in ((0.0, lambda c: c >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / R)), (0.2, lambda c: c < 0.5)):
        hits = 0
        for s in range(R):
            truth, judge, ann = study(1000, hard, 7000 + s)
            lo, hi = corrected_score(judge, ann, estimand="oracle").ci
            hits += lo <= truth <= hi
        assert check(hits / R), (hard, hits / R)


def test_result_rows_and_inputs_unchanged():
    truth, judge, ann = study(300, 0.0, 1, N=3000)
    before = judge.copy()
    res = corrected_score(judge, ann, estimand="oracle")
    pd.testing.assert_series_equal(judge, before)
    f = res.to_frame()
    assert list(f.method) == ["PPI++", "gold only", "judge only"] and res.headline == "PPI++" and f.headline.tolist() == [True, False, False]
    assert "latent-class model" in res.estimand and any("latent-class fit on 300 gold items x 3 annotators" in n for n in res.notes)
    assert f.set_index("method").loc["gold only", "n"] == 300 and f.set_index("method").loc["judge only", "n"] == 3000
    same = corrected_score(judge.map({0: "fail", 1: "pass"}), Annotations.from_wide(ann.to_wide().replace({0: "fail", 1: "pass"})),
                           estimand="oracle", positive="pass")
    np.testing.assert_allclose(same.to_frame()[["estimate", "lower", "upper"]], f[["estimate", "lower", "upper"]], atol=1e-12)


@pytest.mark.parametrize("make, message", [
    (lambda j, a: corrected_score(j, Annotations.from_wide(a.to_wide().iloc[:, :2]), estimand="oracle"), "at least 3 labels per gold item"),
    (lambda j, a: corrected_score(j, a, estimand="oracle", headline="betting"), "the true label is latent"),
    (lambda j, a: corrected_score(j, a, estimand="oracle", kind="rating"), "needs a pass/fail outcome or classes"),
])
def test_refused_where_not_identified(make, message):
    _, judge, ann = study(100, 0.0, 2, N=500)
    with pytest.raises(ValueError, match=message): make(judge, ann)


def test_two_word_labels_are_two_class_shares():
    "Labels 'pass'/'fail' without positive= are two classes: the multi-class fit's 'pass' share is the binary oracle's estimate (to 1e-6), its interval Bonferroni-wider."
    _, judge, ann = study(300, 0.0, 3, N=3000)
    words = {0: "fail", 1: "pass"}
    two = corrected_score(judge.map(words), Annotations.from_wide(ann.to_wide().replace(words)), estimand="oracle")
    one = corrected_score(judge, ann, estimand="oracle")
    assert two.kind == "classes" and list(two.estimate.index) == ["fail", "pass"]
    assert two.estimate["pass"] == pytest.approx(one.estimate, abs=1e-6) and two.estimate.sum() == pytest.approx(1, abs=1e-6)
    lo, hi = one.ci
    assert two.ci.loc["pass", "lower"] < lo and two.ci.loc["pass", "upper"] > hi   # each class at 97.5 %: simultaneous over 2


def em_by_hand(L, C, tol=1e-10, max_iter=5000):
    "Dawid-Skene EM written item by item with plain loops (independent of the library's matrix code): shares, confusion matrices, posteriors."
    n, K = len(L), len(L[0])
    q = []
    for row in L:                                                          # start: each item's shares of its labels
        got = [l for l in row if l >= 0]
        q.append([got.count(c) / len(got) for c in range(C)])
    for _ in range(max_iter):
        pi = [sum(q[i][c] for i in range(n)) / n for c in range(C)]
        th = [[[0.0] * C for _ in range(C)] for _ in range(K)]
        for i in range(n):
            for k in range(K):
                if L[i][k] >= 0:
                    for c in range(C): th[k][c][L[i][k]] += q[i][c]
        th = [[[max(v / sum(r), 1e-12) for v in r] for r in m] for m in th]
        new = []
        for i in range(n):
            w = [np.log(pi[c]) + sum(np.log(th[k][c][L[i][k]]) for k in range(K) if L[i][k] >= 0) for c in range(C)]
            top = max(w)
            e = [np.exp(v - top) for v in w]
            new.append([v / sum(e) for v in e])
        moved = max(abs(a - b) for r, s in zip(new, q) for a, b in zip(r, s))
        q = new
        if moved < tol: break
    return np.array(pi), np.array(th), np.array(q)


def three_class_labels(n, seed, acc=(0.8, 0.7, 0.75), missing=0.1):
    r = np.random.default_rng(seed)
    t = r.choice(3, n, p=[0.5, 0.3, 0.2])
    L = np.where(r.random((n, 3)) < acc, t[:, None], (t[:, None] + r.integers(1, 3, (n, 3))) % 3)
    L[r.random((n, 3)) < missing] = -1
    L[:, 0] = np.where(L[:, 0] < 0, t, L[:, 0])                          # every item keeps at least one label
    return t, L


def test_dawid_skene_matches_an_independent_em():
    "The library's EM (three classes, labels missing) equals a loop-by-loop EM written here: shares, confusion matrices and posteriors to 1e-6."
    from humancert.system_score.corrected_score import dawid_skene
    _, L = three_class_labels(80, 11)
    pi, th, q, _ = dawid_skene(L, 3)
    hp, hth, hq = em_by_hand(L.tolist(), 3)
    np.testing.assert_allclose(pi, hp, atol=1e-6)
    np.testing.assert_allclose(th, hth, atol=1e-6)
    np.testing.assert_allclose(q, hq, atol=1e-6)


def test_label_switching_rule_names_classes_back():
    "A fit with its latent classes permuted is named back by the summed-diagonal assignment."
    from humancert.system_score.corrected_score import dawid_skene, ds_named
    _, L = three_class_labels(300, 12)
    pi, th, q, _ = dawid_skene(L, 3)
    perm = [1, 2, 0]
    named = ds_named(pi[perm], th[:, perm], q[:, perm])
    for a, b in zip(named, ds_named(pi, th, q)): np.testing.assert_allclose(a, b, atol=0)
    assert (np.einsum("kcc->kc", named[1]) > 0.5).all()


def classes_study(n, hard, seed, N=6000):
    "Three classes (shares 0.5, 0.3, 0.2), a judge right 80 %, three annotators right 85/80/75 % on n gold items (the same wrong class together on a `hard` share)."
    r = np.random.default_rng(seed)
    t = r.choice(3, N, p=[0.5, 0.3, 0.2])
    lab = np.where(r.random((N, 3)) < [0.85, 0.8, 0.75], t[:, None], (t[:, None] + r.integers(1, 3, (N, 3))) % 3)
    h = r.random(N) < hard
    lab[h] = ((t[h] + 1) % 3)[:, None]
    idx, names = pd.Index([f"i{k}" for k in range(N)]), np.array(list("abc"))
    judge = pd.Series(names[np.where(r.random(N) < 0.8, t, (t + r.integers(1, 3, N)) % 3)], index=idx)
    gi = r.choice(N, n, replace=False)
    return pd.Series(np.bincount(t, minlength=3) / N, index=list("abc")), judge, Annotations.from_wide(pd.DataFrame(names[lab[gi]], index=idx[gi]))


def test_class_shares_small_case_model_true_and_wrong():
    "A small case (the cached study in nb 60 has the coverage): with independent annotators the simultaneous intervals hold every true share and each is within 0.06 of the truth; with annotators wrong together on 20 % of items they miss."
    truth, judge, ann = classes_study(2000, 0.0, 21)
    res = corrected_score(judge, ann, estimand="oracle")
    ci = res.ci
    assert res.kind == "classes" and res.headline == "PPI++" and "Dawid-Skene" in res.estimand
    assert ((ci.lower <= truth) & (truth <= ci.upper)).all() and (abs(res.estimate - truth) < 0.06).all()
    assert ((ci.upper - ci.lower) < 0.12).all()                             # power: the intervals are informative
    assert any("Bonferroni" in n for n in res.notes) and any("largest entry on the diagonal" in n for n in res.notes)
    truth, judge, ann = classes_study(2000, 0.2, 22)
    ci = corrected_score(judge, ann, estimand="oracle").ci
    assert not ((ci.lower <= truth) & (truth <= ci.upper)).all()


def test_class_unseen_by_the_annotators_is_refused():
    truth, judge, ann = classes_study(200, 0.0, 23, N=1000)
    judge = judge.copy(); judge.iloc[:5] = "d"
    with pytest.raises(ValueError, match="by no annotator on the gold items"):
        corrected_score(judge, ann, estimand="oracle")
