"""The alternative annotator test (nbs/judges/50_alt_test.ipynb) against a literal implementation and by simulation.

`literal_alt_test` is written from the procedure's text (issue 22, Calderon, Reichart & Dror 2025) with plain Python loops over
items and annotators, scipy.stats.ttest_1samp / wilcoxon for the per-annotator tests and a hand-written Benjamini-Yekutieli
step-up; it shares no code with humancert. The one rule it takes from the notebook rather than from the paper is the p-value of a
constant sample of differences (scipy gives 0 or NaN there): ((1 - epsilon) / (1 - c))^n when every d equals c < epsilon, 1 when
c >= epsilon (the notebook derives it).
"""
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from humancert.data.annotations import Annotations
from humancert.judges.alt_test import alt_test, AltTest, AltTests


# ---------------------------------------------------------------- literal implementation, from the text

def literal_score(name, label, others):
    if name == "accuracy": return sum(1 for o in others if o == label) / len(others)
    if name == "neg_rmse": return -math.sqrt(sum((label - o) ** 2 for o in others) / len(others))
    if name == "neg_mae": return -sum(abs(label - o) for o in others) / len(others)
    return name(label, others)


def literal_pvalue(d, epsilon, test):
    n = len(d)
    if len(set(d)) == 1:
        c = d[0]
        return (((1 - epsilon) / (1 - c)) ** n if c < epsilon else 1.0), ("wilcoxon" if test == "wilcoxon" or (test == "auto" and n < 30) else "t")
    if test == "wilcoxon" or (test == "auto" and n < 30):
        return float(stats.wilcoxon([x - epsilon for x in d], alternative="less").pvalue), "wilcoxon"
    return float(stats.ttest_1samp(d, epsilon, alternative="less").pvalue), "t"


def literal_by(pvals, q):
    "Indices rejected by Benjamini-Yekutieli: the k smallest, k the largest with p_(k) <= k q / (m c(m))."
    m = len(pvals)
    c = sum(1 / i for i in range(1, m + 1))
    order = sorted(range(m), key=lambda i: pvals[i])
    k = 0
    for rank, i in enumerate(order, start=1):
        if pvals[i] <= rank * q / (m * c): k = rank
    return set(order[:k])


def literal_alt_test(rows, annotators, judges, epsilon, score="accuracy", q=0.05, min_labels_per_item=2,
                     min_items_per_annotator=30, test="t", family="judge"):
    """rows: list of dicts annotator -> label (absent = missing); judges: dict name -> list of labels (None = missing).
    Returns dict judge -> dict(table={annotator: (items, rho_f, rho_h, p, test, rejected)}, winning_rate, advantage, passed)."""
    per = {}
    for name, jl in judges.items():
        kept = [i for i, r in enumerate(rows) if len(r) >= min_labels_per_item and jl[i] is not None]
        tab = {}
        for a in annotators:
            mine = [i for i in kept if a in rows[i]]
            if not mine: continue
            wf, wh = [], []
            for i in mine:
                others = [lab for b, lab in rows[i].items() if b != a]
                sf = literal_score(score, jl[i], others)
                sh = literal_score(score, rows[i][a], others)
                wf.append(1 if sf >= sh else 0)
                wh.append(1 if sh >= sf else 0)
            d = [h - f for h, f in zip(wh, wf)]
            if len(mine) >= min_items_per_annotator: p, used = literal_pvalue(d, epsilon, test)
            else: p, used = None, ""
            tab[a] = dict(items=len(mine), rho_f=sum(wf) / len(wf), rho_h=sum(wh) / len(wh), p=p, test=used, rejected=False)
        per[name] = tab
    keys = [(name, a) for name in per for a in per[name] if per[name][a]["p"] is not None]
    groups = [keys] if family == "all" else [[k for k in keys if k[0] == name] for name in per]
    for g in groups:
        for idx in literal_by([per[n][a]["p"] for n, a in g], q): per[g[idx][0]][g[idx][1]]["rejected"] = True
    out = {}
    for name, tab in per.items():
        tested = [a for a in tab if tab[a]["p"] is not None]
        wins = sum(tab[a]["rejected"] for a in tested) / len(tested)
        out[name] = dict(table=tab, winning_rate=wins, passed=wins >= 0.5,
                         advantage=sum(tab[a]["rho_f"] for a in tested) / len(tested))
    return out


# ---------------------------------------------------------------- random data

def random_case(seed, numeric=False, n_items=120, n_annotators=5, n_judges=3):
    rng = np.random.default_rng(seed)
    classes = [1, 2, 3, 4, 5] if numeric else ["a", "b", "c"]
    truth = rng.integers(0, len(classes), n_items)
    skill = rng.uniform(0.3, 0.9, n_annotators)
    wide = np.empty((n_items, n_annotators), dtype=object)
    for k in range(n_annotators):
        right = rng.random(n_items) < skill[k]
        lab = np.where(right, truth, rng.integers(0, len(classes), n_items))
        wide[:, k] = [classes[v] for v in lab]
        wide[rng.random(n_items) < 0.25, k] = None
    judges = {}
    outside = 9 if numeric else "zzz"
    for g in range(n_judges):
        right = rng.random(n_items) < rng.uniform(0.4, 0.95)
        lab = [classes[v] for v in np.where(right, truth, rng.integers(0, len(classes), n_items))]
        lab = [None if rng.random() < 0.1 else (outside if rng.random() < 0.05 else v) for v in lab]
        judges[f"j{g}"] = lab
    annotators = [f"r{k}" for k in range(n_annotators)]
    rows = [{annotators[k]: wide[i, k] for k in range(n_annotators) if wide[i, k] is not None} for i in range(n_items)]
    ann = Annotations.from_wide(pd.DataFrame(wide, columns=annotators, index=pd.RangeIndex(100, 100 + n_items)))
    jframe = pd.DataFrame(judges, index=ann.items, dtype=object)
    return ann, jframe, rows, annotators, judges


def compare(res, lit):
    assert isinstance(res, AltTests)
    assert list(res.results) == list(lit)
    for name, L in lit.items():
        r = res[name]
        tab = r.to_frame()
        assert list(tab.index) == list(L["table"]), name
        for a, row in L["table"].items():
            assert tab.loc[a, "items"] == row["items"]
            assert abs(tab.loc[a, "rho_f"] - row["rho_f"]) <= 1e-12 and abs(tab.loc[a, "rho_h"] - row["rho_h"]) <= 1e-12
            if row["p"] is None:
                assert not tab.loc[a, "tested"] and np.isnan(tab.loc[a, "p_value"]) and not tab.loc[a, "rejected"]
            else:
                assert tab.loc[a, "tested"] and tab.loc[a, "test"] == row["test"]
                assert abs(tab.loc[a, "p_value"] - row["p"]) <= 1e-12, (name, a, tab.loc[a, "p_value"], row["p"])
                assert bool(tab.loc[a, "rejected"]) == row["rejected"]
        assert abs(r.winning_rate - L["winning_rate"]) <= 1e-12 and r.passed == L["passed"]
        assert abs(r.advantage_probability - L["advantage"]) <= 1e-12


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("test", ["t", "wilcoxon", "auto"])
@pytest.mark.parametrize("family", ["judge", "all"])
def test_matches_literal_accuracy(seed, test, family):
    ann, jf, rows, annotators, judges = random_case(seed)
    eps = [0.0, 0.1, 0.2, 0.3, 0.05, 0.15][seed]
    kw = dict(epsilon=eps, q=0.2, min_items_per_annotator=25 + 5 * (seed % 3), test=test, family=family)
    compare(alt_test(ann, jf, **kw), literal_alt_test(rows, annotators, judges, **kw))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("score", ["neg_rmse", "neg_mae"])
def test_matches_literal_numeric(seed, score):
    ann, jf, rows, annotators, judges = random_case(100 + seed, numeric=True)
    kw = dict(epsilon=0.1 * seed, score=score, q=0.3, min_labels_per_item=2 + seed % 2, min_items_per_annotator=20,
              test=["t", "auto"][seed % 2], family=["judge", "all"][seed // 2])
    compare(alt_test(ann, jf, **kw), literal_alt_test(rows, annotators, judges, **kw))


def test_matches_literal_callable():
    ann, jf, rows, annotators, judges = random_case(7, numeric=True, n_items=60, n_annotators=4, n_judges=2)
    def closeness(label, others): return -min(abs(label - o) for o in others)   # distance to the nearest other label
    kw = dict(epsilon=0.1, score=closeness, q=0.3, min_items_per_annotator=15)
    compare(alt_test(ann, jf, **kw), literal_alt_test(rows, annotators, judges, **kw))


def test_series_judge_and_peers():
    "A Series judge gives the AltTest of the DataFrame's column; p-values equal scipy's; BY rejections equal statsmodels'."
    ann, jf, rows, annotators, judges = random_case(3, n_items=400)
    many = alt_test(ann, jf, 0.1, q=0.3)
    one = alt_test(ann, jf["j1"], 0.1, q=0.3)
    assert isinstance(one, AltTest) and one.judge == "j1"
    pd.testing.assert_frame_equal(one.to_frame(), many["j1"].to_frame())
    tab = one.to_frame()
    wide = ann.to_wide()
    for a in tab.index:                                       # scipy on the differences computed here, by loops
        d = []
        for i, item in enumerate(ann.items):
            lab, jl = wide.loc[item, a], judges["j1"][i]
            if pd.isna(lab) or jl is None: continue
            others = [v for b, v in wide.loc[item].items() if b != a and not pd.isna(v)]
            if not others: continue
            sh, sf = sum(o == lab for o in others), sum(o == jl for o in others)
            d.append(int(sh >= sf) - int(sf >= sh))
        assert len(d) == tab.loc[a, "items"]
        assert abs(stats.ttest_1samp(d, 0.1, alternative="less").pvalue - tab.loc[a, "p_value"]) <= 1e-12
    for r in many:
        t = r.to_frame().query("tested")
        np.testing.assert_array_equal(multipletests(t["p_value"], alpha=0.3, method="fdr_by")[0], t["rejected"].to_numpy())


# ---------------------------------------------------------------- edge cases

def test_errors_name_the_argument():
    ann, jf, *_ = random_case(0)
    for kw, word in [(dict(epsilon=1.0), "epsilon"), (dict(epsilon=-0.1), "epsilon"), (dict(epsilon="0.1"), "epsilon"),
                     (dict(epsilon=0.1, q=0), "`q`"), (dict(epsilon=0.1, q=1.5), "`q`"), (dict(epsilon=0.1, score="f1"), "score"),
                     (dict(epsilon=0.1, test="z"), "test"), (dict(epsilon=0.1, family="x"), "family"),
                     (dict(epsilon=0.1, min_labels_per_item=1), "min_labels_per_item"),
                     (dict(epsilon=0.1, min_items_per_annotator=1), "min_items_per_annotator"),
                     (dict(epsilon=0.1, min_items_per_annotator=2.5), "min_items_per_annotator"),
                     (dict(epsilon=0.1, min_items_per_annotator=10_000), "min_items_per_annotator"),
                     (dict(epsilon=0.1, score="neg_rmse"), "score")]:
        with pytest.raises((ValueError, TypeError), match=word):
            alt_test(ann, jf, **kw)
    with pytest.raises(TypeError, match="judge"): alt_test(ann, "llm", 0.1)
    ones = Annotations.from_wide(pd.DataFrame({"A": [0, 1] * 20, "B": [1, 1] * 20}))
    with pytest.raises(TypeError, match="judge.*booleans"): alt_test(ones, [True, False] * 20, 0.1)
    with pytest.raises(ValueError, match="judge"): alt_test(ann, jf["j0"].iloc[:5], 0.1)
    with pytest.raises(TypeError, match="ann"): alt_test(ann.to_wide(), jf, 0.1)
    with pytest.raises(ValueError, match="`score` must return a finite"):
        alt_test(ann, jf, 0.1, score=lambda l, o: float("nan"))


def test_outside_labels_agree_with_nobody():
    """A judge label no annotator used agrees with nobody: the test equals the one where that label is a declared class that no
    annotator chose, and the result counts those items. A judge none of whose labels is a class is refused (issue 36, item 4)."""
    wide = pd.DataFrame({"A": list("aabb" * 10), "B": list("abab" * 10), "C": list("aaab" * 10)})
    ann = Annotations.from_wide(wide)
    judge = pd.Series(["none"] * 30 + ["a", "b"] * 5, name="odd")
    r = alt_test(ann, judge, 0.1, min_items_per_annotator=10)
    wider = alt_test(Annotations.from_wide(wide, labels=["a", "b", "none"]), judge, 0.1, min_items_per_annotator=10)
    assert r.n_outside == 30 and r.n_items == 40 and wider.n_outside == 0
    pd.testing.assert_frame_equal(r.to_frame(), wider.to_frame())
    on_outside = alt_test(Annotations.from_wide(wide.iloc[:30], labels=["a", "b", "none"]), judge.iloc[:30], 0.1, min_items_per_annotator=10)
    assert (on_outside.to_frame()["rho_h"] == 1).all() and on_outside.winning_rate == 0   # the human's score is >= 0, the judge's 0
    for bad in (pd.Series(["none"] * 40, name="odd"), pd.Series(["none"] * 32 + [None] * 8, name="odd")):
        with pytest.raises(ValueError, match="none of its labels is one"):
            alt_test(ann, bad, 0.1, min_items_per_annotator=10)
    missing = judge.astype(object).copy(); missing.iloc[:8] = None
    r2 = alt_test(ann, missing, 0.1, min_items_per_annotator=10)
    assert r2.n_items == 32 and r2.n_outside == 22 and (r2.to_frame()["items"] == 32).all()


def test_constant_differences():
    "A judge equal to the majority label of 3 annotators on items where they all agree: d = 0 on every item."
    wide = pd.DataFrame({"A": ["a", "b"] * 20, "B": ["a", "b"] * 20, "C": ["a", "b"] * 20})
    ann = Annotations.from_wide(wide)
    r = alt_test(ann, wide["A"].rename("copy"), 0.05, min_items_per_annotator=10)
    tab = r.to_frame()
    np.testing.assert_allclose(tab["p_value"], 0.95 ** 40, rtol=1e-12)   # the least favourable null: P(d <= 0) = 1 - eps
    assert not tab["rejected"].any()                # 0.95^40 = 0.129: 40 ties do not show the judge within 0.05 of the humans
    r = alt_test(ann, wide["A"].rename("copy"), 0.2, min_items_per_annotator=10)
    np.testing.assert_allclose(r.to_frame()["p_value"], 0.8 ** 40, rtol=1e-12)
    assert r.passed and r.winning_rate == 1         # 0.8^40 = 1.3e-4 <= q / c(3) = 0.05 / (11/6)
    for test in ("wilcoxon", "auto"):               # the same rule whatever the test
        np.testing.assert_allclose(alt_test(ann, wide["A"], 0.2, min_items_per_annotator=10, test=test).to_frame()["p_value"],
                                   0.8 ** 40, rtol=1e-12)


# ---------------------------------------------------------------- simulations of the public function

def sign_mean(K, a):
    "s_K = E sign(2M - K + 1), M ~ Bin(K - 1, 1 - a): E d = s_K (b - a) when annotators err w.p. a and the judge w.p. b."
    m = np.arange(K)
    return float(np.sum(stats.binom.pmf(m, K - 1, 1 - a) * np.sign(2 * m - K + 1)))


def panel(rng, n_items, K, a, b, n_judges):
    truth = rng.integers(0, 2, n_items)
    wide = np.where(rng.random((n_items, K)) < a, 1 - truth[:, None], truth[:, None])
    judges = np.where(rng.random((n_items, n_judges)) < b, 1 - truth[:, None], truth[:, None])
    return Annotations.from_wide(wide), pd.DataFrame(judges, columns=[f"g{g}" for g in range(n_judges)])


def test_every_null_on_the_boundary_single_judge():
    """E(W_h - W_f) = epsilon for every annotator (b = a + eps / s_K), so every null is true and the FDR is P(reject any).
    2,500 studies: the standard error of the estimated rate at q = 0.05 is <= 0.0044, so 'rate <= q + 4 SE = 0.067' fails with
    probability < 1e-4 when BY holds, and the uncorrected rule (p < q per annotator, about 0.15 here) fails it: the check has teeth."""
    rng = np.random.default_rng(2024)
    R, n, K, a, eps, q = 2500, 100, 5, 0.2, 0.2, 0.05
    b = a + eps / sign_mean(K, a)
    by = raw = 0
    for _ in range(R):
        ann, j = panel(rng, n, K, a, b, 1)
        tab = alt_test(ann, j["g0"], eps, q=q).to_frame()
        by += tab["rejected"].any(); raw += (tab["p_value"] < q).any()
    line = q + 4 * np.sqrt(q * (1 - q) / R)
    assert by / R <= line < raw / R, (by / R, raw / R, line)


def test_every_null_on_the_boundary_several_judges():
    """Three judges, all on the boundary, 4 annotators, 60 items, family 'all': one BY over the 12 judge x annotator p-values.
    (Family 'judge' is three single-judge families, the previous test's case.) 1,500 studies: SE <= 0.0078 at q = 0.1, so the
    line q + 4 SE is 0.131; the uncorrected rule (p < q anywhere among 12 dependent tests) is far above it."""
    rng = np.random.default_rng(7)
    R, n, K, a, eps, q = 1500, 60, 4, 0.15, 0.1, 0.1
    b = a + eps / sign_mean(K, a)
    by = raw = 0
    for _ in range(R):
        ann, j = panel(rng, n, K, a, b, 3)
        res = alt_test(ann, j, eps, q=q, family="all")
        by += any(r.n_rejected > 0 for r in res)
        raw += any((r.to_frame()["p_value"] < q).any() for r in res)
    line = q + 4 * np.sqrt(q * (1 - q) / R)
    assert by / R <= line < raw / R, (by / R, raw / R, line)


def test_power_grows_with_items():
    "A judge that errs 15 % of the time against annotators at 25 %, epsilon 0.1: passing is likely with 200 items, not with 30."
    rng = np.random.default_rng(5)
    def power(n, K, R=150):
        return np.mean([alt_test(*(lambda p: (p[0], p[1]["g0"]))(panel(rng, n, K, 0.25, 0.15, 1)), 0.1).passed for _ in range(R)])
    small, large = power(30, 5), power(200, 5)
    # binomial SE at 150 studies <= 0.041; the notebook's grid has about 0.3 and 1.0 here
    assert small < 0.6 and large > 0.9 and power(200, 3) > 0.9, (small, large)


def test_judge_names_are_kept():
    "Column names that are not strings stay as they are: AltTests is indexed by them."
    ann, jf, *_ = random_case(1)
    res = alt_test(ann, jf.set_axis([10, 20, 30], axis=1), 0.1, min_items_per_annotator=20)
    assert list(res.results) == [10, 20, 30] and res[20].judge == 20
    assert list(res.to_frame().index) == [10, 20, 30] and len(res) == 3
    assert alt_test(ann, list(jf["j0"]), 0.1, min_items_per_annotator=20).judge == "judge"
