"""Survey equivalence on scales (issue 24, item 3): the exact curves of the mean and median combiners under minus RMSE,
minus MAE, Pearson, Spearman and Kendall, checked against a plain loop written here (every item, every k-subset of its
raters, every held-out rater), scored by numpy and by scipy.stats (pearsonr, spearmanr, kendalltau), with items that
have different numbers of ratings and with bootstrap-like integer weights; and the public survey_equivalence against
Algorithm 4 written out."""
import itertools
import json
from math import lcm

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.survey.power_curve import power_curve
from humancert.survey.survey_equivalence import survey_equivalence
from humancert.survey.scoring import scale_curve_samples, scale_classifier_samples, SCALE_SCORERS

V = np.arange(1.0, 6.0)


def peer(xs, ys, s):
    "The scorer on paired lists: numpy for the errors, scipy for the correlations."
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    if s == "neg_mae": return -np.abs(xs - ys).mean()
    if s == "neg_rmse": return -np.sqrt(((xs - ys) ** 2).mean())
    return {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[s](xs, ys)[0]


def literal_curve(ratings, k, combine, copies=None):
    """(xs, ys) listing every (item, k-subset, held-out rater) once per copy of the item, each item's combinations
    repeated so that every item carries the same total weight (the lcm of the combination counts)."""
    copies = [1] * len(ratings) if copies is None else copies
    rows = []
    for r, m in zip(ratings, copies):
        if len(r) < k + 1 or m == 0: continue
        combos = [(combine([r[j] for j in S]), r[h]) for S in itertools.combinations(range(len(r)), k) for h in range(len(r)) if h not in S]
        rows.append((combos, m))
    L = lcm(*[len(c) for c, _ in rows])
    xs, ys = [], []
    for combos, m in rows:
        for x, y in combos * (L // len(combos) * m):
            xs.append(x); ys.append(y)
    return xs, ys


def counts_of(ratings):
    return np.array([[sum(1 for x in r if x == v) for v in V] for r in ratings])


def median(vals):
    s = sorted(vals); n = len(s)
    return (s[(n - 1) // 2] + s[n // 2]) / 2


COMBINE = {"mean": lambda vals: sum(vals) / len(vals), "median": median}


@pytest.mark.parametrize("combiner", ["mean", "median"])
@pytest.mark.parametrize("scorer", SCALE_SCORERS)
def test_curve_equals_literal_loop_with_unequal_items_and_weights(combiner, scorer):
    rng = np.random.default_rng(11)
    ratings = [list(rng.integers(1, 6, int(n))) for n in rng.choice([2, 3, 4], 30)]
    copies = list(rng.integers(0, 3, 30))                    # a bootstrap-like sample: some items twice, some absent
    prof, inv = np.unique(counts_of(ratings), axis=0, return_inverse=True)
    Wp = np.bincount(inv.ravel(), weights=copies, minlength=len(prof))[None]
    got = scale_curve_samples(prof, V, combiner, scorer, 4, Wp)[0]
    for k in (1, 2, 3):
        xs, ys = literal_curve(ratings, k, COMBINE[combiner], copies)
        assert got[k] == pytest.approx(peer(xs, ys, scorer), abs=1e-10)


def test_k0_is_the_best_constant_of_its_loss():
    rng = np.random.default_rng(3)
    ratings = [list(rng.integers(1, 6, 3)) for _ in range(25)]
    ys = [y for r in ratings for y in r]                     # one rater of a random item: every rating, items equal (3 each)
    prof, inv = np.unique(counts_of(ratings), axis=0, return_inverse=True)
    Wp = np.bincount(inv.ravel())[None]
    mean = sum(ys) / len(ys)
    assert scale_curve_samples(prof, V, "mean", "neg_rmse", 1, Wp)[0, 0] == pytest.approx(-np.sqrt(np.mean([(y - mean) ** 2 for y in ys])), abs=1e-12)
    best = min(np.mean([abs(y - c) for y in ys]) for c in np.linspace(1, 5, 401))   # a grid over constants, ratings on it
    assert scale_curve_samples(prof, V, "median", "neg_mae", 1, Wp)[0, 0] == pytest.approx(-best, abs=1e-12)
    assert scale_curve_samples(prof, V, "mean", "kendall", 1, Wp)[0, 0] == 0.0


@pytest.mark.parametrize("scorer", SCALE_SCORERS)
def test_classifier_score_equals_scipy_on_every_rater(scorer):
    rng = np.random.default_rng(5)
    ratings = [list(rng.integers(1, 6, int(n))) for n in rng.choice([2, 4], 40)]
    pred = rng.normal(3, 1, 40).round(1)                     # rounded: ties among the predictions too
    got = scale_classifier_samples(pred, counts_of(ratings), V, scorer, 3, np.ones((1, 40)))[0]
    for k in range(3):
        keep = [i for i, r in enumerate(ratings) if len(r) >= k + 1]
        L = lcm(*[len(ratings[i]) for i in keep])
        xs = [pred[i] for i in keep for _ in range(L)]
        ys = [y for i in keep for y in ratings[i] * (L // len(ratings[i]))]
        assert got[k] == pytest.approx(peer(xs, ys, scorer), abs=1e-10)


def algorithm4(h, c):
    "Algorithm 4 written out: the leftmost crossing of h by the curve, interpolated linearly."
    if c[0] >= h[0]: return 0.0, "<"
    for k in range(1, len(c)):
        if c[k] > h[k]:
            return k - 1 + (h[k - 1] - c[k - 1]) / ((c[k] - h[k]) - (c[k - 1] - h[k - 1])), "="
    return float(len(c) - 1), ">"


@pytest.mark.parametrize("combiner,scorer", [("mean", "neg_rmse"), ("median", "neg_mae"), ("mean", "pearson"), ("mean", "spearman"), ("median", "kendall")])
def test_survey_equivalence_equals_literal(combiner, scorer):
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, 80)
    ratings = [list(np.clip(t + rng.integers(-1, 2, 4), 1, 5)) for t in truth]
    pred = truth + rng.normal(0, 0.9, 80)
    ann = Annotations.from_wide(pd.DataFrame(ratings), labels=[1, 2, 3, 4, 5])
    s = survey_equivalence(pd.Series(pred, index=ann.items), ann, combiner, scorer, n_bootstrap=30, seed=1)
    c = [0.0 if scorer in ("pearson", "spearman", "kendall") else None] + [peer(*literal_curve(ratings, k, COMBINE[combiner]), scorer) for k in (1, 2, 3)]
    if c[0] is None:
        ys = [y for r in ratings for y in r]
        c0 = sum(ys) / len(ys) if combiner == "mean" else median(ys)
        c[0] = peer([c0] * len(ys), ys, scorer)
    h = peer(np.repeat(pred, 4), [y for r in ratings for y in r], scorer)
    assert s.curve.values == pytest.approx(c, abs=1e-10)
    assert s.classifier_score == pytest.approx(h, abs=1e-10)
    value, bound = algorithm4([h] * 4, c)
    assert (s.value, s.bound) == (pytest.approx(value, abs=1e-10), bound)
    assert len(s.samples) == 30 and np.isfinite(s.samples).all()
    lo, hi = s.interval
    assert lo <= hi


def test_bootstrap_spread_matches_resampling_the_population():
    """The bootstrap's spread of c_1 (minus MAE) matches the spread of c_1 over independent datasets drawn from the same
    population (50 datasets of 400 items): the ratio of the two standard deviations lies within 0.7-1.4, a band wider than
    the sampling error of an SD from 50 draws (about 10 %, so the band is over 3 SE each way)."""
    rng = np.random.default_rng(21)
    def dataset(r):
        t = r.integers(1, 6, 400)
        return np.clip(t[:, None] + r.integers(-2, 3, (400, 3)), 1, 5)
    c1 = []
    for _ in range(50):
        R = dataset(rng)
        a = Annotations.from_wide(pd.DataFrame(R), labels=[1, 2, 3, 4, 5])
        c1.append(power_curve(a, "mean", "neg_mae", max_k=1).values[1])
    a = Annotations.from_wide(pd.DataFrame(dataset(rng)), labels=[1, 2, 3, 4, 5])
    boot = power_curve(a, "mean", "neg_mae", max_k=1, n_bootstrap=400, seed=0).samples[:, 1]
    ratio = np.std(boot, ddof=1) / np.std(c1, ddof=1)
    assert 0.7 < ratio < 1.4, ratio


def test_bad_inputs_name_the_argument():
    ann = Annotations.from_wide(pd.DataFrame([["a", "b"], ["b", "b"]]))
    with pytest.raises(TypeError, match="`ann`: numeric scorers"):
        power_curve(ann, "mean", "neg_mae")
    num = Annotations.from_wide(pd.DataFrame([[1, 2], [2, 2], [3, 1]]), labels=[1, 2, 3])
    with pytest.raises(ValueError, match="`combiner`"):
        survey_equivalence(np.array([1.0, 2.0, 3.0]), num, "plurality", "neg_rmse")
    with pytest.raises(ValueError, match="`scorer`"):
        survey_equivalence(np.array([1.0, 2.0, 3.0]), num, "mean", "cross_entropy")
    with pytest.raises(ValueError, match="`predictions` must hold one rating per item"):
        survey_equivalence(np.array([1.0, 2.0]), num, "mean", "neg_rmse")
    with pytest.raises(ValueError, match="`predictions`: the classifier's pearson is undefined"):
        survey_equivalence(np.array([2.0, 2.0, 2.0]), num, "mean", "pearson")
    with pytest.raises(ValueError, match="`clip`"):
        power_curve(num, "mean", "neg_rmse", clip=0.1)


def _ratings(n=300, seed=4):
    rng = np.random.default_rng(seed)
    t = rng.integers(1, 6, n)
    R = np.clip(t[:, None] + rng.integers(-1, 2, (n, 4)), 1, 5)
    return R, t + rng.normal(0, 0.7, n)


def test_report_on_ratings_leads_with_the_level_and_its_intervals():
    import krippendorff
    from humancert.report.reporting import make_report
    R, pred = _ratings()
    ann = Annotations.from_wide(pd.DataFrame(R), labels=[1, 2, 3, 4, 5], level="ordinal")
    rep = make_report(ann, pd.Series(pred, index=ann.items), n_bootstrap=20)
    rows = list(rep.agreement.index)
    assert rows[:2] == ["krippendorff_alpha_ordinal", "fleiss_kappa_quadratic"]
    assert rows.count("krippendorff_alpha_ordinal") == 1                 # not twice
    a = rep.agreement.loc["krippendorff_alpha_ordinal"]
    assert a["value"] == pytest.approx(krippendorff.alpha(reliability_data=R.T.astype(float), level_of_measurement="ordinal"), abs=1e-9)
    assert a["ci_low"] < a["value"] < a["ci_high"]
    assert any(n.startswith("level: ordinal") for n in rep.notes)
    assert any("predicted rating" in n for n in rep.notes)
    e = rep.equivalence                                                  # a predicted rating: mean + minus MAE by default
    assert (e.curve.combiner, e.curve.scorer) == ("mean", "neg_mae")
    h = -np.abs(np.repeat(pred, 4) - R.ravel()).mean()
    assert e.classifier_score == pytest.approx(h, abs=1e-12)


def test_report_on_nominal_labels_is_unchanged_and_scorer_is_passed_through():
    from humancert.report.reporting import make_report
    R, pred = _ratings()
    ann = Annotations.from_wide(pd.DataFrame(R), labels=[1, 2, 3, 4, 5])          # nominal: the table it always had
    hard = pd.Series(np.clip(np.round(pred), 1, 5).astype(int), index=ann.items)
    rep = make_report(ann, hard, n_bootstrap=10)
    assert list(rep.agreement.index) == ["percent", "fleiss_kappa", "krippendorff_alpha", "mean pairwise agreement",
                                         "mean pairwise cohen_kappa", "SPA (annotations weighting)"]
    assert not any(n.startswith("level:") or "predicted rating" in n for n in rep.notes)
    assert (rep.equivalence.curve.combiner, rep.equivalence.curve.scorer) == ("plurality", "agreement")
    rep2 = make_report(ann, pd.Series(pred, index=ann.items), n_bootstrap=10, scorer="spearman", combiner="median")
    assert (rep2.equivalence.curve.combiner, rep2.equivalence.curve.scorer) == ("median", "spearman")
    xs, ys = literal_curve([list(r) for r in R], 1, median)
    assert rep2.equivalence.curve.values[1] == pytest.approx(stats.spearmanr(xs, ys)[0], abs=1e-10)


def test_cli_scorer_and_combiner(tmp_path):
    from humancert.report.cli import main
    R, pred = _ratings(120)
    df = pd.DataFrame(R, columns=[f"r{j}" for j in range(4)]).assign(model=pred)
    df.index.name = "item"
    df.to_csv(tmp_path / "ratings.csv")
    f = str(tmp_path / "ratings.csv")
    assert main(["report", f, "--model", "model", "--level", "ordinal", "--scorer", "neg_rmse", "--combiner", "mean",
                 "--n-bootstrap", "10", "--out", str(tmp_path / "rep"), "--quiet"]) == 0
    js = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert js["parameters"]["survey"] == "mean + neg_rmse"
    assert "krippendorff_alpha_ordinal" in js["agreement"] and js["agreement"]["krippendorff_alpha_ordinal"]["ci_low"] is not None
    assert main(["report", f, "--scorer", "neg_mae", "--quiet"]) == 2         # no model: refused, naming --scorer
