"""Rating agreement (humancert.agreement.coefficients, notebook 07): peers on many designs, published values, levels carried by every
constructor, and the coverage of the 95 % intervals by simulation.

Reference values are written here with their source. irrCAC 0.4.4 pins scipy 1.12 and pandas < 3, so it was run once in
its own environment and its numbers copied here (never installed in the main one):
    python -m venv /tmp/irrcac && /tmp/irrcac/bin/pip install irrCAC==0.4.4
    from irrCAC.datasets import raw_5observers; from irrCAC.raw import CAC
    CAC(raw_5observers(), weights=w).gwet() / .fleiss() / .krippendorff() / .conger() / .bp()   -> ["est"]
"""
import json
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa, fleiss_kappa as sm_fleiss

from humancert.data.annotations import Annotations
from humancert.agreement.measures import fleiss_kappa, krippendorff_alpha
from humancert.agreement.coefficients import (agreement_weights, brennan_prediger, cohen_kappa, cohen_kappa_mean, conger_kappa,
                                    fleiss_kappa_at, gwet_ac, krippendorff_alpha_at, scott_pi)
import humancert.data.imports   # noqa: F401  (patches from_crowdkit, from_label_studio)
import humancert.data.tables    # noqa: F401  (patches from_table)
from humancert.data.imports import read_label_studio

LEVELS = ("nominal", "ordinal", "interval", "ratio")


def wide(seed, n_items, n_raters, values, missing):
    "A random items x raters matrix of the given values, a share `missing` of it NaN, every item keeping two labels."
    rng = np.random.default_rng(seed)
    x = rng.choice(np.asarray(values, dtype=float), (n_items, n_raters))
    drop = rng.random(x.shape) < missing
    drop[:, :2] = False                                          # two labels on every item: krippendorff's input stays valid
    x[drop] = np.nan
    return x


# --- Krippendorff's alpha: the krippendorff package (0.9.0) at every level, to 1e-9 ----------------------------------------
DESIGNS = [(0, 300, 5, [1, 2, 3, 4, 5], 0.0), (1, 500, 12, [1, 2, 3, 4, 5], 0.7), (2, 200, 3, [0, 1, 2, 3], 0.3),
           (3, 400, 8, [0.5, 1.5, 4.0, 10.0], 0.5), (4, 50, 30, [1, 2, 3, 4, 5, 6, 7], 0.9), (5, 1000, 4, [2, 3], 0.2)]


@pytest.mark.parametrize("design", DESIGNS, ids=lambda d: f"seed{d[0]}")
@pytest.mark.parametrize("level", LEVELS)
def test_alpha_equals_krippendorff_package(design, level):
    x = wide(*design)
    ann = Annotations.from_wide(x)
    want = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    assert abs(krippendorff_alpha_at(ann, level).value - want) < 1e-9
    assert abs(krippendorff_alpha(ann.with_level(level)).value - want) < 1e-9            # the annotations' own level


def test_alpha_published_examples():
    "Krippendorff (2011), 'Computing Krippendorff's alpha-reliability', sections C-F: the 4 observers x 12 units data."
    nan = np.nan
    data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
                     [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
                     [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
                     [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    ann = Annotations.from_wide(data.T)
    for level, published in {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}.items():
        assert abs(krippendorff_alpha_at(ann, level).value - published) < 5e-4    # published to 3 decimals


def test_alpha_custom_metric_is_interval_when_squared():
    x = wide(7, 300, 6, [1, 2, 3, 4, 5], 0.4)
    ann = Annotations.from_wide(x)
    assert abs(krippendorff_alpha_at(ann, metric=lambda a, b: (a - b) ** 2).value
               - krippendorff.alpha(reliability_data=x.T, level_of_measurement="interval")) < 1e-12


# --- Cohen's kappa: scikit-learn, statsmodels (SAS) ------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_equals_sklearn(seed, weights):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, 400)
    b = np.where(rng.random(400) < 0.5, a, rng.integers(0, 6, 400))
    assert abs(cohen_kappa(a, b, weights).value - cohen_kappa_score(a, b, weights=weights)) < 1e-12
    labels = list(range(8))                                          # two classes nobody used: positions fixed by `labels`
    assert abs(cohen_kappa(a, b, weights, labels=labels).value - cohen_kappa_score(a, b, weights=weights, labels=labels)) < 1e-12
    if weights is not None:                                          # a matrix gives the same as its name
        assert abs(cohen_kappa(a, b, agreement_weights(6, weights)).value - cohen_kappa(a, b, weights).value) < 1e-15


def test_cohen_sas_reference():
    "statsmodels' test_inter_rater.py: SAS output for table [[0, 4, 1], [0, 8, 0], [0, 1, 5]] (kappa, ASE, 95 % limits)."
    t = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    a = np.repeat(np.repeat(np.arange(3), 3), t.ravel())
    b = np.repeat(np.tile(np.arange(3), 3), t.ravel())
    for w, sas in [(None, (0.4842, 0.1380, 0.2137, 0.7547)), ("linear", (0.4701, 0.1457, 0.1845, 0.7558))]:
        r = cohen_kappa(a, b, w, ci_method="analytic")
        np.testing.assert_allclose([r.value, r.se, *r.ci], sas, atol=5e-5)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_variance_equals_statsmodels(seed, weights):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 12, (4, 4)) + 8 * np.eye(4, dtype=int)
    a = np.repeat(np.repeat(np.arange(4), 4), t.ravel())
    b = np.repeat(np.tile(np.arange(4), 4), t.ravel())
    res = sm_cohens_kappa(t, wt=weights)
    r = cohen_kappa(a, b, weights, ci_method="analytic")
    assert abs(r.value - res.kappa) < 1e-12 and abs(r.se ** 2 - res.var_kappa) < 1e-12


def test_cohen_mean_over_pairs_equals_sklearn():
    x = wide(11, 300, 5, [1, 2, 3, 4], 0.4)
    ref = []
    for g in range(5):
        for h in range(g + 1, 5):
            m = ~np.isnan(x[:, g]) & ~np.isnan(x[:, h])
            ref.append(cohen_kappa_score(x[m, g], x[m, h], weights="linear", labels=[1., 2., 3., 4.]))
    assert abs(cohen_kappa_mean(Annotations.from_wide(x), "linear").value - np.mean(ref)) < 1e-12


def _plain_mean_kappa(x, weights, labels):
    "Mean cohen_kappa_score over the column pairs of x sharing two or more rows (NaN: missing), pairs with one class left out."
    ks = []
    for g in range(x.shape[1]):
        for h in range(g + 1, x.shape[1]):
            m = ~np.isnan(x[:, g]) & ~np.isnan(x[:, h])
            if m.sum() >= 2 and len(np.unique(np.concatenate([x[m, g], x[m, h]]))) > 1:
                ks.append(cohen_kappa_score(x[m, g], x[m, h], weights=weights, labels=labels))
    return np.mean(ks)


@pytest.mark.parametrize("seed,weights", [(0, "quadratic"), (1, None), (2, "linear")])
def test_cohen_mean_bootstrap_equals_plain_loop(seed, weights):
    """Sparse design (70 items, 9 annotators, two labels an item: pairs share ~2 items). The bootstrap must recompute the
    estimate's statistic on each resample: a loop drawing the same item indices (rng.integers(0, n, n) per resample, the
    package's documented draws), duplicating rows and taking cohen_kappa_score over pairs sharing >= 2 rows gives the same
    replicates, so the same SE and percentile interval (to rounding)."""
    rng = np.random.default_rng(seed)
    x = np.full((70, 9), np.nan)
    for i in range(70):
        x[i, rng.choice(9, 2, replace=False)] = np.clip(rng.integers(0, 4) + rng.integers(-1, 2, 2), 0, 3)
    labels = [0., 1., 2., 3.]
    draws = np.random.default_rng(seed + 10)
    loop = np.array([_plain_mean_kappa(x[draws.integers(0, 70, 70)], weights, labels) for _ in range(60)])
    res = cohen_kappa_mean(Annotations.from_wide(x, labels=labels), weights, ci_method="bootstrap", n_bootstrap=60, seed=seed + 10)
    assert abs(res.value - _plain_mean_kappa(x, weights, labels)) < 1e-12
    assert abs(res.se - loop.std(ddof=1)) < 1e-12
    assert np.allclose(res.ci, np.quantile(loop, [0.025, 0.975]), atol=1e-12, rtol=0)


# --- Fleiss, Randolph, Scott: statsmodels and hand formulas -----------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_fleiss_and_randolph_equal_statsmodels(seed):
    x = wide(seed, 250, 2 + seed, [0, 1, 2, 3], 0.0)
    ann = Annotations.from_wide(x)
    counts = np.asarray(ann.counts)
    assert abs(fleiss_kappa(ann).value - sm_fleiss(counts)) < 1e-12
    assert abs(fleiss_kappa(ann, "randolph").value - sm_fleiss(counts, method="randolph")) < 1e-12
    assert abs(fleiss_kappa(ann, chance="items").value - sm_fleiss(counts)) < 1e-12       # constant labels per item: the same


def test_scott_pi_by_hand():
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 300)
    b = np.where(rng.random(300) < 0.6, a, rng.integers(0, 4, 300))
    p = np.bincount(np.r_[a, b], minlength=4) / 600
    pe = (p ** 2).sum()
    assert abs(scott_pi(a, b).value - ((a == b).mean() - pe) / (1 - pe)) < 1e-12


# --- irrCAC's values on raw_5observers (15 units, 5 observers, categories 0-3, missing ratings) -----------------------------
RAW_5OBSERVERS = [[1, 1, 2, None, 2], [1, 1, 0, 1, None], [2, 3, 3, 3, None], [None, 0, 0, None, 0], [0, 0, 0, None, 0],
                  [0, 0, 0, None, 0], [1, 0, 2, None, 1], [1, None, 2, 0, None], [2, 2, 2, None, 2], [2, 1, 1, 1, None],
                  [None, 1, 0, 0, None], [0, 0, 0, 0, None], [1, 2, 2, 2, None], [3, 3, 2, 2, 3], [1, 1, 1, None, 1]]
# irrCAC 0.4.4, CAC(raw_5observers(), weights=w).<method>()["est"]: (coefficient_value, se, confidence_interval)
IRRCAC_5OBS = {
    ("identity", "gwet"): (0.49662, 0.12197, (0.23502, 0.75823)), ("identity", "fleiss"): (0.45762, 0.12045, (0.19928, 0.71596)),
    ("identity", "krippendorff"): (0.48053, 0.11351, (0.23708, 0.72398)), ("identity", "conger"): (0.46927, 0.11666, (0.21906, 0.71949)),
    ("identity", "bp"): (0.48741, 0.12089, (0.22812, 0.74669)),
    ("linear", "gwet"): (0.68964, 0.08769, (0.50156, 0.87772)), ("linear", "fleiss"): (0.61185, 0.10974, (0.37648, 0.84722)),
    ("linear", "krippendorff"): (0.63521, 0.10005, (0.42063, 0.84978)), ("linear", "conger"): (0.62405, 0.10587, (0.39698, 0.85112)),
    ("linear", "bp"): (0.66578, 0.08568, (0.48202, 0.84954)),
    ("quadratic", "gwet"): (0.83043, 0.05825, (0.70551, 0.95536)), ("quadratic", "fleiss"): (0.75072, 0.09732, (0.54199, 0.95945)),
    ("quadratic", "krippendorff"): (0.77186, 0.08608, (0.58724, 0.95649)), ("quadratic", "conger"): (0.76179, 0.0925, (0.56338, 0.96019)),
    ("quadratic", "bp"): (0.80622, 0.0586, (0.68055, 0.9319))}


def _ours(ann, w, method):
    weights = None if w == "identity" else w
    if method == "gwet": return gwet_ac(ann, weights, ci_method="analytic")
    if method == "fleiss": return fleiss_kappa(ann, chance="items", weights=weights, ci_method="analytic")
    if method == "bp": return brennan_prediger(ann, weights, ci_method="analytic")
    if method == "conger": return conger_kappa(ann, weights, ci_method="analytic")
    metric = {"identity": None, "linear": lambda a, b: np.abs(a - b), "quadratic": None}[w]    # irrCAC's weights as metrics
    return krippendorff_alpha_at(ann, "interval" if w == "quadratic" else "nominal", metric, ci_method="analytic")


@pytest.mark.parametrize("key", list(IRRCAC_5OBS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_irrcac_raw_5observers(key):
    ann = Annotations.from_wide(pd.DataFrame(RAW_5OBSERVERS, dtype=float))
    value, se, ci = IRRCAC_5OBS[key]
    r = _ours(ann, *key)
    assert abs(r.value - value) < 6e-6
    assert abs(r.se - se) < 6e-6 and abs(r.ci[0] - ci[0]) < 6e-6 and abs(r.ci[1] - ci[1]) < 6e-6


# --- coverage of the 95 % intervals ---------------------------------------------------------------------------------------
# Latent-class model with known population values: items of true class z ~ PI on a 1-5 scale; each of 4 raters reports z
# with probability ACC, else a uniformly drawn class. A label on an item of class z has distribution p_z, so the population
# values below are exact (raters exchangeable, so Cohen's, Scott's and Fleiss' kappa share one value).
C, PI, ACC = 5, np.array([0.1, 0.2, 0.4, 0.2, 0.1]), 0.6
PZ = ACC * np.eye(C) + (1 - ACC) / C
PBAR = PI @ PZ
PA = PI @ (PZ ** 2).sum(1)
_V = np.arange(1, C + 1.0)
TRUTH = {"fleiss": (PA - (PBAR ** 2).sum()) / (1 - (PBAR ** 2).sum())}
_GPE = (PBAR * (1 - PBAR)).sum() / (C - 1)
TRUTH["gwet"] = (PA - _GPE) / (1 - _GPE)
TRUTH["bp"] = (PA - 1 / C) / (1 - 1 / C)
TRUTH["alpha_interval"] = 1 - PI @ (PZ @ _V ** 2 - (PZ @ _V) ** 2) / (PBAR @ _V ** 2 - (PBAR @ _V) ** 2)


def _sample(n, rng, missing):
    z = rng.choice(C, n, p=PI)
    x = np.where(rng.random((n, 4)) < ACC, z[:, None], rng.integers(0, C, (n, 4))) + 1.0
    drop = rng.random(x.shape) < missing
    drop[:, :2] = False
    x[drop] = np.nan
    return x


def _intervals(x, method, seed):
    ann = Annotations.from_wide(x, labels=[1, 2, 3, 4, 5])
    kw = dict(ci_method=method, n_bootstrap=200, seed=seed)
    if method == "bootstrap":                                        # four, one of each kind, to keep the test file short
        return {("fleiss", "fleiss"): fleiss_kappa(ann, **kw), ("gwet", "gwet"): gwet_ac(ann, **kw),
                ("alpha_interval", "alpha_interval"): krippendorff_alpha(ann, "interval", **kw),
                ("cohen", "fleiss"): cohen_kappa(x[:, 0], x[:, 1], labels=[1.0, 2.0, 3.0, 4.0, 5.0], **kw)}
    return {("fleiss", "fleiss"): fleiss_kappa(ann, **kw), ("fleiss_items", "fleiss"): fleiss_kappa(ann, chance="items", **kw),
            ("gwet", "gwet"): gwet_ac(ann, **kw), ("bp", "bp"): brennan_prediger(ann, **kw), ("conger", "fleiss"): conger_kappa(ann, **kw),
            ("alpha_nominal", "fleiss"): krippendorff_alpha(ann, "nominal", **kw),
            ("alpha_interval", "alpha_interval"): krippendorff_alpha(ann, "interval", **kw),
            ("cohen", "fleiss"): cohen_kappa(x[:, 0], x[:, 1], labels=[1.0, 2.0, 3.0, 4.0, 5.0], **{k: v for k, v in kw.items()})}


def _coverage(n_items, reps, missing, method, seed):
    rng = np.random.default_rng(seed)
    hits, width, above0 = {}, {}, {}
    for r in range(reps):
        for (name, truth), res in _intervals(_sample(n_items, rng, missing), method, r).items():
            hits[name] = hits.get(name, 0) + (res.ci[0] <= TRUTH[truth] <= res.ci[1])
            width[name] = width.get(name, 0) + (res.ci[1] - res.ci[0]) / reps
            above0[name] = above0.get(name, 0) + (res.ci[0] > 0)
    return {k: v / reps for k, v in hits.items()}, width, {k: v / reps for k, v in above0.items()}


def test_analytic_coverage_large_n():
    """1,000 items, 30 % of labels missing at random, 1,000 data sets: the coverage of each 95 % interval is binomial with
    SE sqrt(0.95 * 0.05 / 1000) = 0.0069, so each must lie within 3 SE (0.021) of 0.95; eight intervals are checked, so
    correct intervals fail this with probability about 8 x 0.003 = 2 %, once, at this fixed seed. Power: the population
    values are 0.28-0.36, and every interval of every data set excludes 0 (no agreement beyond chance)."""
    cov, width, above0 = _coverage(1000, 1000, 0.3, "analytic", 1)
    se = np.sqrt(0.95 * 0.05 / 1000)
    assert all(abs(c - 0.95) <= 3 * se for c in cov.values()), cov
    assert all(w < 0.15 for w in width.values()), width
    assert all(v == 1.0 for v in above0.values()), above0


def test_analytic_coverage_small_n():
    """30 items, complete data, 1,000 data sets. The analytic intervals are asymptotic (Gwet 2014 ch. 5; Fleiss, Cohen and
    Everitt 1969): at 30 items they under-cover, measured here at 0.91-0.95 (alpha at the interval level lowest; the
    quadratic-weighted coefficients, not run here, lower still: 0.84-0.93 in notebook 07's coverage study, where
    ci_method="bootstrap_t" brings them to 0.935-0.984, test_agreement_inputs.py keeping one of them). The test
    pins that shortfall: coverage at least 0.95 - 0.05 and at most 0.95 + 3 SE; a wrong variance (e.g. without the chance
    term's correction, or the finite-population factor misapplied) falls well outside."""
    cov, width, _ = _coverage(30, 1000, 0.0, "analytic", 2)
    se = np.sqrt(0.95 * 0.05 / 1000)
    assert all(0.90 <= c <= 0.95 + 3 * se for c in cov.values()), cov
    assert all(w > 0.25 for w in width.values()), width                 # 30 items: wide intervals, as they should be


def test_bootstrap_coverage():
    """The item bootstrap (200 resamples, percentile interval) at 200 items, 20 % missing, over 200 data sets, for Fleiss'
    kappa, Gwet's AC1, alpha at the interval level and Cohen's kappa: coverage SE sqrt(0.95 * 0.05 / 200) = 0.0154; each
    within 3 SE (0.046) of 0.95 (four intervals: a correct one fails with probability about 1 %). At 30 items the
    percentile bootstrap under-covers (about 0.90, measured with 400 data sets), like the analytic interval."""
    cov, _, _ = _coverage(200, 200, 0.2, "bootstrap", 3)
    se = np.sqrt(0.95 * 0.05 / 200)
    assert all(abs(c - 0.95) <= 3 * se for c in cov.values()), cov


def test_finite_population_factor():
    "With population = n the items are the whole population: the analytic variance is 0; with 2n it is halved."
    ann = Annotations.from_wide(_sample(100, np.random.default_rng(0), 0.0))
    full = gwet_ac(ann, ci_method="analytic")
    assert gwet_ac(ann, ci_method="analytic", population=100).se == 0
    assert abs(gwet_ac(ann, ci_method="analytic", population=200).se ** 2 - full.se ** 2 / 2) < 1e-15


# --- levels through every constructor ---------------------------------------------------------------------------------------
def test_level_carried_by_every_constructor(tmp_path):
    x = pd.DataFrame({"a": [1, 2, 3], "b": [1, 3, 3], "c": [2, 2, None]})
    base = Annotations.from_wide(x, level="ordinal")
    long = base.to_long()
    assert Annotations.from_long(long, level="ordinal") == base
    assert Annotations.from_counts(base.to_counts(), level="interval").level == "interval"
    assert Annotations.from_crowdkit(long.rename(columns={"item": "task", "annotator": "worker"}), level="ratio").level == "ratio"
    long.to_parquet(tmp_path / "l.parquet")
    assert Annotations.from_table(tmp_path / "l.parquet", level="ordinal").level == "ordinal"
    assert Annotations.from_table(tmp_path / "l.parquet", level="ordinal", annotators=True).level == "ordinal"
    tasks = [{"id": i, "annotations": [{"completed_by": w, "result": [{"type": "choices", "from_name": "q", "to_name": "t",
                                                                         "value": {"choices": [str(v)]}}]} for w, v in zip("ab", pair)]}
             for i, pair in enumerate([(1, 2), (3, 3), (2, 1)])]
    ls = read_label_studio(json.dumps(tasks), labels=["1", "2", "3"], level="ordinal")
    assert ls.annotations.level == "ordinal"
    with pytest.raises(ValueError, match="`level`='interval' needs numeric labels"):
        read_label_studio(json.dumps(tasks), level="interval")
    with pytest.raises(ValueError, match="`level`='ordinal' with text labels"):
        Annotations.from_table(long.assign(label=long["label"].map(str)), level="ordinal")
    text = long.assign(label=long["label"].map({1: "low", 2: "mid", 3: "high"}))
    assert Annotations.from_table(text, labels=["low", "mid", "high"], level="ordinal").classes == ("low", "mid", "high")
    assert Annotations.from_wide(text.pivot(index="item", columns="annotator", values="label"), labels=["low", "mid", "high"],
                                 level="ordinal").level == "ordinal"
    assert repr(base).endswith(", level='ordinal')") and "level" not in repr(base.with_level("nominal"))


# --- bad input ----------------------------------------------------------------------------------------------------------------
def test_bad_inputs_name_the_argument():
    ann = Annotations.from_wide(wide(0, 50, 3, [1, 2, 3], 0.0))
    for call, msg in [(lambda: gwet_ac(ann, ci_method="exact"), "`ci_method`"), (lambda: gwet_ac(ann, confidence=1.5), "`confidence`"),
                      (lambda: gwet_ac(ann, ci_method="bootstrap", n_bootstrap=0), "`n_bootstrap`"),
                      (lambda: gwet_ac(ann, weights="cubic"), "`weights`"), (lambda: gwet_ac(ann, weights=np.ones((2, 2))), "`weights`"),
                      (lambda: krippendorff_alpha_at(ann, "ordinary"), "`level`"), (lambda: fleiss_kappa(ann, method="x"), "`method`"),
                      (lambda: fleiss_kappa(ann, chance="x"), "`chance`"), (lambda: cohen_kappa_mean(ann, ci_method="analytic"), "`ci_method`"),
                      (lambda: gwet_ac(ann, population=-1), "`population`"), (lambda: gwet_ac(ann, ci_method="analytic", population=10), "`population`"), (lambda: cohen_kappa([1, 2, 3], [1, 2]), "`a` and `b`"),
                      (lambda: brennan_prediger(ann, weights="cubic"), "`weights`"), (lambda: brennan_prediger(ann, ci_method="exact"), "`ci_method`"),
                      (lambda: scott_pi([1, 2, 3], [1, 2]), "`a` and `b`"), (lambda: scott_pi([1, 2, 3], [1, 2, 2], ci_method="exact"), "`ci_method`")]:
        with pytest.raises((ValueError, TypeError), match=msg.replace("`", "`").replace("(", r"\(")):
            call()
    with pytest.raises(TypeError, match="`seed`"):
        gwet_ac(ann, ci_method="bootstrap", seed=1.5)
