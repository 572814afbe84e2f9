"""compare_judges (nbs/judges/51_judges.ipynb): every number against a literal implementation on random data, labels outside the
classes, the bootstrap intervals' coverage and power, and the errors. Each test runs in a few seconds."""
import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.judges.board import compare_judges


def _sparse_panel(rng, n_items=120, n_annot=5, classes="abc", p_missing=0.3):
    "Wide labels with missing cells (every item keeps at least one label)."
    lab = rng.choice(list(classes), (n_items, n_annot)).astype(object)
    lab[rng.random((n_items, n_annot)) < p_missing] = None
    lab[:, 0] = np.where(pd.isna(lab[:, 0]) & pd.isna(lab[:, 1:]).all(1), classes[0], lab[:, 0])
    return pd.DataFrame(lab, columns=[f"h{j}" for j in range(n_annot)])


def _literal(wide, judge):
    "a_J, a_H (eq. J1), the advantage probability, L_N and the survey equivalence's h, by plain loops over items."
    H = np.array([[None if pd.isna(v) else v for v in row] for row in wide.to_numpy(object)], dtype=object)
    aj, ah, h1 = [], [], []
    for i in range(len(H)):
        labs = [l for l in H[i] if l is not None]
        if judge[i] is None: continue
        if len(labs) >= 1: h1.append(sum(l == judge[i] for l in labs) / len(labs))
        if len(labs) < 2: continue
        aj.append(sum(l == judge[i] for l in labs) / len(labs))
        ah.append(sum(labs[a] == labs[b] for a in range(len(labs)) for b in range(len(labs)) if a != b) / (len(labs) * (len(labs) - 1)))
    per = []
    for j in range(H.shape[1]):
        w = []
        for i in range(len(H)):
            labs = [l for l in H[i] if l is not None]
            if H[i, j] is None or judge[i] is None or len(labs) < 2: continue
            others = [H[i, k] for k in range(H.shape[1]) if k != j and H[i, k] is not None]
            w.append(sum(o == judge[i] for o in others) >= sum(o == H[i, j] for o in others))
        if len(w) >= 30: per.append(np.mean(w))                         # min_items_per_annotator=30
    maj = []
    for i in range(len(H)):
        labs = [l for l in H[i] if l is not None]
        if judge[i] is None or len(labs) < 2: continue
        vals, cnt = np.unique(labs, return_counts=True)
        if cnt.max() * 2 > len(labs): maj.append(vals[cnt.argmax()] == judge[i])
    return np.mean(aj), np.mean(ah), np.mean(per), np.mean(maj), np.mean(h1)


@pytest.mark.parametrize("seed", range(4))
def test_board_equals_literal_loops(seed):
    rng = np.random.default_rng(seed)
    wide = _sparse_panel(rng)
    ann = Annotations.from_wide(wide)
    J = pd.DataFrame({"j1": rng.choice(list("abc"), len(wide)).astype(object),
                      "j2": rng.choice(list("abcz"), len(wide)).astype(object)})   # 'z': a label no annotator used
    J.loc[rng.random(len(wide)) < 0.2, "j1"] = None
    board = compare_judges(ann, J, epsilon=0.1, n_bootstrap=0, seed=seed)
    t = board.to_frame()
    for g in J:
        judge = [None if pd.isna(v) else v for v in J[g]]
        aj, ah, adv, ln, h = _literal(wide, judge)
        assert t.loc[g, "agreement"] == pytest.approx(aj, abs=1e-12)
        assert t.loc[g, "humans"] == pytest.approx(ah, abs=1e-12)
        assert t.loc[g, "advantage probability"] == pytest.approx(adv, abs=1e-12)
        assert t.loc[g, "L_N"] == pytest.approx(ln, abs=1e-12)
        assert board.equivalences[g].classifier_score == pytest.approx(h, abs=1e-12)
        assert t.loc[g, "items"] == sum(v is not None for v in judge)
        assert t.loc[g, "outside"] == sum(v == "z" for v in judge)
    assert np.isnan(t["agreement lo"]).all()                              # n_bootstrap=0: no interval, and the repr says so
    assert "no bootstrap" in repr(board)


def test_outside_label_is_a_class_nobody_used():
    """A judge label outside the classes gives the same board as a class that no annotator used (with zero counts), except the
    survey equivalence: declaring an unused class changes the humans' own power curve (the plurality of no raters guesses among
    more classes), while a label outside the classes leaves it alone; the judge's score h is the same in both."""
    rng = np.random.default_rng(11)
    wide = _sparse_panel(rng, n_items=150, classes="ab", p_missing=0.0)
    judge = pd.Series(rng.choice(["a", "b", "none"], 150, p=[0.45, 0.45, 0.1]), name="j")
    strict = compare_judges(Annotations.from_wide(wide), judge, n_bootstrap=30, seed=3)
    wider = compare_judges(Annotations.from_wide(wide, labels=["a", "b", "none"]), judge, n_bootstrap=30, seed=3)
    a, b = strict.to_frame(), wider.to_frame()
    assert a.loc["j", "outside"] == int((judge == "none").sum()) > 0 and b.loc["j", "outside"] == 0
    cols = ["agreement", "agreement lo", "agreement hi", "humans", "advantage probability", "advantage lo", "advantage hi",
            "winning rate", "S", "L_N", "U_N"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    assert strict.equivalences["j"].classifier_score == wider.equivalences["j"].classifier_score
    assert "label(s) outside the classes" in repr(strict) and "outside the classes" not in repr(wider)


def _two_type_panel(rng, n_items, n_labels):
    "Items of two kinds with P(class 0) = 0.8 or 0.3 (half each), n_labels i.i.d. labels each; counts only."
    p0 = np.where(rng.random(n_items) < 0.5, 0.8, 0.3)
    k0 = rng.binomial(n_labels, p0)
    return Annotations.from_counts(np.column_stack([k0, n_labels - k0]))

A_J, A_H = 0.55, 0.5 * (0.8 ** 2 + 0.2 ** 2) + 0.5 * (0.3 ** 2 + 0.7 ** 2)   # a judge that always says class 0


def test_agreement_interval_coverage():
    """The 95 % percentile intervals of a_J and a_H cover the population values (0.55 and 0.63) in at least 90 % of 300
    panels of 200 items. The interval is asymptotic, so its coverage is near, not above, 95 %; 300 repetitions give a
    binomial SE of 1.3 % at 95 %, so 90 % is about 4 SE below nominal: a broken interval (e.g. a wrong centring or a
    resample of labels instead of items) falls well below it."""
    rng = np.random.default_rng(2024)
    hit = np.zeros((300, 2), dtype=bool)
    for r in range(300):
        ann = _two_type_panel(rng, 200, 5)
        t = compare_judges(ann, pd.Series(0, index=ann.items, name="zero"), epsilon=None, n_bootstrap=200, seed=r, max_k=1).to_frame()
        hit[r] = [t.loc["zero", "agreement lo"] <= A_J <= t.loc["zero", "agreement hi"],
                  t.loc["zero", "humans lo"] <= A_H <= t.loc["zero", "humans hi"]]
    cover = hit.mean(axis=0)
    assert (cover >= 0.90).all(), cover


def test_agreement_interval_power():
    "With 3,000 items the two intervals (a_J = 0.55 vs a_H = 0.63) are disjoint in every one of 20 panels."
    rng = np.random.default_rng(7)
    for r in range(20):
        ann = _two_type_panel(rng, 3000, 5)
        t = compare_judges(ann, pd.Series(0, index=ann.items, name="zero"), epsilon=None, n_bootstrap=100, seed=r, max_k=1).to_frame()
        assert t.loc["zero", "agreement hi"] < t.loc["zero", "humans lo"]


def test_reproducible_and_inputs_untouched():
    rng = np.random.default_rng(5)
    wide = _sparse_panel(rng)
    ann = Annotations.from_wide(wide)
    J = pd.DataFrame({"j1": rng.choice(list("abc"), len(wide)), "j2": rng.choice(list("abc"), len(wide))})
    J0 = J.copy()
    one = compare_judges(ann, J, n_bootstrap=40, seed=9, family="all")
    two = compare_judges(ann, J, n_bootstrap=40, seed=9, family="all")
    pd.testing.assert_frame_equal(one.to_frame(), two.to_frame())
    assert repr(one) == repr(two)
    pd.testing.assert_frame_equal(J, J0)
    assert one.alt.family == "all" and one.parameters["family"] == "all"


@pytest.mark.parametrize("judges, kw, msg", [
    (["a"] * 120, {}, "`judges` must be a DataFrame"),
    (pd.DataFrame({"x": [None] * 120}), {}, "hold no label"),
    (pd.Series(["a"] * 119), {}, "`judges` has 119 rows"),
    (pd.Series(["a"] * 120), {"epsilon": "0.1"}, "`epsilon` must be a number"),
    (pd.Series(["a"] * 120), {"epsilon": 1.5}, "`epsilon` must be in [0, 1)"),
    (pd.Series(["a"] * 120), {"n_bootstrap": -1}, "`n_bootstrap` must be an integer >= 0"),
    (pd.Series(["a"] * 120), {"seed": -1}, "`seed` must be an int >= 0"),
    (pd.Series(["z"] * 120), {}, "none of its labels is one"),
])
def test_errors_name_the_argument(judges, kw, msg):
    ann = Annotations.from_wide(_sparse_panel(np.random.default_rng(0)))
    with pytest.raises((TypeError, ValueError)) as e:
        compare_judges(ann, judges, **{"n_bootstrap": 0, **kw})
    assert msg in str(e.value)
