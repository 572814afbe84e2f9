"""Bias given the truth (issue 45 item 6; nbs/judges/55_judge_bias): `judge_bias` against statsmodels' Logit to 1e-6, a covariate
that only tracks the truth is not flagged at the level (false-positive rate over seeded replicates) while the naive regression
flags it, a covariate that causes errors is found (power), a panel reference, bad input refused, inputs not changed."""
import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from statsmodels.stats.multitest import multipletests

import humancert as hc


def simulate(n, effect, seed):
    "True 0/1 labels, a length that tracks them (N(y, 1)), a random position, a judge erring on 10 % of 1s and 40 % of 0s, its log-odds of error rising by `effect` per unit of length within each class."
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(y, 1.0)
    base = np.log(np.where(y == 1, 0.1 / 0.9, 0.4 / 0.6))
    err = rng.random(n) < 1 / (1 + np.exp(-(base + effect * (x - y))))
    idx = [f"i{k}" for k in range(n)]
    return (pd.Series(np.where(err, 1 - y, y), index=idx), pd.Series(y, index=idx),
            pd.DataFrame({"length": x, "position": rng.choice(["first", "second", "third"], n)}, index=idx))


def test_matches_statsmodels_logit():
    "Odds ratios, Wald intervals, the one-term p, the joint Wald p of the 3-level category, Holm: statsmodels to 1e-6."
    j, g, c = simulate(800, 0.3, 11)
    r = hc.judge_bias(j, g, c, confidence=0.9)
    vc = c.position.value_counts()
    levels = sorted(vc.index, key=lambda v: (-vc[v], v))       # the most common level is the baseline, the others in that order
    X = np.column_stack([g == 0, g == 1, (c.length - c.length.mean()) / c.length.std(ddof=0),
                         c.position == levels[1], c.position == levels[2]]).astype(float)
    assert list(r.table.index.get_level_values(1)[1:]) == levels[1:]
    fit = sm.Logit((j != g).to_numpy(float), X).fit(disp=0, tol=1e-12)
    t = r.table
    np.testing.assert_allclose(t["odds ratio"], np.exp(fit.params[2:]), atol=1e-6)
    np.testing.assert_allclose(t[["lo", "hi"]], np.exp(fit.conf_int(0.1)[2:]), atol=1e-6)
    R = np.zeros((2, 5)); R[0, 3] = R[1, 4] = 1
    p = [fit.pvalues[2], float(fit.wald_test(R, scalar=True).pvalue)]
    np.testing.assert_allclose(t["p"], [p[0], p[1], p[1]], atol=1e-6)
    np.testing.assert_allclose(t["p Holm"].iloc[:2], multipletests(p, method="holm")[1], atol=1e-6)
    assert list(t["flagged"]) == list(t["p Holm"] < 0.1)
    naive = hc.judge_bias(j, g, c, stratify=False)
    fit0 = sm.Logit((j != g).to_numpy(float), np.column_stack([np.ones(800), X[:, 2:]])).fit(disp=0, tol=1e-12)
    np.testing.assert_allclose(naive.table["odds ratio"], np.exp(fit0.params[1:]), atol=1e-6)


def test_label_outcome_matches_statsmodels():
    j, g, c = simulate(500, 0.0, 3)
    r = hc.judge_bias(j.map({0: "fail", 1: "pass"}), g.map({0: "fail", 1: "pass"}), c[["length"]], outcome="label", positive="pass")
    X = np.column_stack([g == 0, g == 1, (c.length - c.length.mean()) / c.length.std(ddof=0)]).astype(float)
    fit = sm.Logit(j.to_numpy(float), X).fit(disp=0, tol=1e-12)
    assert r.table["odds ratio"].iloc[0] == pytest.approx(np.exp(fit.params[2]), abs=1e-6)
    assert r.table["p"].iloc[0] == pytest.approx(fit.pvalues[2], abs=1e-6)


def test_truth_tracking_covariate_not_flagged_at_the_level():
    "200 replicates at n = 400 (SE of a 5 % rate: 0.0154): the stratified fit flags any covariate at most 0.05 + 3 SE of the time, the naive fit flags length most of the time."
    R, hits, naive = 200, 0, 0
    for s in range(R):
        j, g, c = simulate(400, 0.0, 1000 + s)
        hits += hc.judge_bias(j, g, c).table["flagged"].any()
        naive += hc.judge_bias(j, g, c, stratify=False).table.loc[("length", "per SD"), "flagged"]
    assert hits / R <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / R)
    assert naive / R >= 0.6


def test_causing_covariate_found():
    "Effect 0.6 per unit of length within each class (odds ratio about 1.9 per SD) at n = 400: flagged in >= 90 % of 100 replicates; the position (no effect) rarely."
    R = 100
    flags = np.array([hc.judge_bias(*simulate(400, 0.6, 5000 + s)).table["flagged"].to_numpy() for s in range(R)])
    assert flags[:, 0].mean() >= 0.9
    assert flags[:, 1:].any(axis=1).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / R)


def test_panel_reference_majority_ties_left_out():
    "Against a panel: the majority label; a tied item is left out and counted in a note."
    j, g, c = simulate(300, 0.6, 7)
    rng = np.random.default_rng(0)
    wide = pd.DataFrame({f"h{k}": np.where(rng.random(300) < 0.9, g, 1 - g) for k in range(4)}, index=g.index)
    ann = hc.Annotations.from_wide(wide)
    ties = int((wide.sum(axis=1) == 2).sum())
    r = hc.judge_bias(j, ann, c)
    assert r.reference == "panel majority (ties left out)" and r.n_items == 300 - ties
    assert any(f"{ties} tied item(s) left out" in n for n in r.notes)
    maj = g.where(wide.sum(axis=1) != 2)
    same = hc.judge_bias(j, maj.dropna(), c)                   # the same as gold = the majority on the untied items
    np.testing.assert_allclose(r.table["odds ratio"], same.table["odds ratio"], atol=1e-12)


def test_inputs_unchanged_and_result_api():
    j, g, c = simulate(200, 0.0, 9)
    c.iloc[3, 0] = np.nan
    copies = j.copy(), g.copy(), c.copy()
    r = hc.judge_bias(j, g, c)
    pd.testing.assert_series_equal(j, copies[0]); pd.testing.assert_series_equal(g, copies[1]); pd.testing.assert_frame_equal(c, copies[2])
    assert r.n_items == 199 and any("1 item(s) without every covariate left out" in n for n in r.notes)
    f = r.to_frame()
    assert list(f.columns[:3]) == ["covariate", "term", "unit"] and (f["items"] == 199).all()
    assert repr(r).startswith("JudgeBias(judge error given the reference label") and "<table" in r._repr_html_()


@pytest.mark.parametrize("call, message", [
    (lambda j, g, c: hc.judge_bias(list(j), g, c), "`judge` must be a pandas Series"),
    (lambda j, g, c: hc.judge_bias(j, {"a": 1}, c), "`reference` must be gold labels"),
    (lambda j, g, c: hc.judge_bias(j, g, c.to_numpy()), "`covariates` must be a DataFrame"),
    (lambda j, g, c: hc.judge_bias(j, g, c, outcome="bias"), "`outcome` must be one of"),
    (lambda j, g, c: hc.judge_bias(j, g, c, stratify="yes"), "`stratify` must be True or False"),
    (lambda j, g, c: hc.judge_bias(j, g, c.assign(k=2.0)), "column 'k' is constant"),
    (lambda j, g, c: hc.judge_bias(j, g, c.assign(k="a")), "column 'k' has one level"),
    (lambda j, g, c: hc.judge_bias(j, g, c, confidence=1.5), "`confidence` must be a level"),
    (lambda j, g, c: hc.judge_bias(j, g.set_axis([f"x{i}" for i in range(len(g))]), c), "share no labelled item"),
    (lambda j, g, c: hc.judge_bias(j.map({0: "n", 1: "y"}), g, c), "share no label value"),
    (lambda j, g, c: hc.judge_bias(pd.concat([j, j.iloc[:1]]), g, c), "`judge` has duplicated item ids"),
    (lambda j, g, c: hc.judge_bias(j.map({0: "n", 1: "y"}), g, c, outcome="label"), "`positive`"),
    (lambda j, g, c: hc.judge_bias(g, g, c), "too few informative items"),
])
def test_bad_input(call, message):
    j, g, c = simulate(100, 0.0, 1)
    with pytest.raises((TypeError, ValueError), match=message.replace("(", r"\(").replace(")", r"\)")):
        call(j, g, c)


def test_zero_one_covariate_is_an_indicator():
    "A 0/1 number (judge and system share a family) enters as it is, 1 against 0: statsmodels' coefficient of the raw column, and found when it doubles the odds of error."
    j, g, c = simulate(1500, 0.0, 21)
    r = np.random.default_rng(21)
    shared = (r.random(1500) < 0.4).astype(int)
    err = (j != g).to_numpy()
    flip = (shared == 1) & ~err & (r.random(1500) < 0.25)              # shared family: extra errors
    j = j.where(~flip, 1 - j)
    res = hc.judge_bias(j, g, c.assign(shared=shared)[["shared"]])
    X = np.column_stack([g == 0, g == 1, shared]).astype(float)
    fit = sm.Logit((j != g).to_numpy(float), X).fit(disp=0, tol=1e-12)
    assert res.table.index.tolist() == [("shared", "1")] and res.table["unit"].iloc[0] == "1 vs 0"
    assert res.table["odds ratio"].iloc[0] == pytest.approx(np.exp(fit.params[2]), abs=1e-6)
    assert res.table["flagged"].iloc[0]
