"""Issue 42 item 8: a direct test for each bug-like edit that passed every check before. Each test below fails on the edit
named in its docstring (each was applied to the module, the test run, and the edit reverted); the expected values are
computed here from the definitions, never read off the package's output."""
import numpy as np
import pandas as pd
import pytest

from gold_panels import toy_panel
from humancert.agreement.coefficients import _bootstrap_t
from humancert.certification.active_gold import active_design, informative_design
from humancert.certification.gold_power import gold_test, paired_terms
from humancert.certification.gold_sequence import GoldSequence
from humancert.certification.planner import gold_discordance_bound
from humancert.data.annotations import Annotations, check_confidence
from humancert.report.reporting import add_gold, make_report
from humancert.report.sections import _verdict_display
from humancert.survey.survey_equivalence import survey_equivalence


def wide(rows, items=None):
    "Annotations from rows of labels (None: no label), annotators a0, a1, ...; classes 'a', 'b', 'c' unless fewer are used."
    k = max(len(r) for r in rows)
    df = pd.DataFrame([list(r) + [None] * (k - len(r)) for r in rows], index=items or [f"i{j}" for j in range(len(rows))],
                      columns=[f"a{j}" for j in range(k)])
    return Annotations.from_wide(df, labels=["a", "b", "c"])


@pytest.mark.parametrize("test", ["sign", "randomised sign"])
def test_a_tie_scores_minus_one(test):
    "Edit: the sign tests giving a tie (wins == losses) a p-value instead of S = -1 (exact: p = P(Bin(2, 1/2) >= 1) = 0.75, S = 0.25)."
    # one human label on i0-i3, so the drawn label is that label whatever the seed: i0 a win (model right, human wrong), i1 a
    # loss, i2 and i3 both right; i4's two labels are both right: wins = losses = 1, mean of M - H = 0 = tau
    ann = wide([["b"], ["a"], ["a"], ["b"], ["a", "a"]])
    model, gold = pd.Series(["a", "b", "a", "b", "a"], index=ann.items), pd.Series(["a", "a", "a", "b", "a"], index=ann.items)
    r = gold_test(ann, model, gold, test, seed=0)
    assert (r.wins, r.losses) == (1, 1) and r.estimate == 0.0
    assert r.score == -1.0 and not r.certified


def test_paired_terms_keep_items_with_one_label():
    "Edit: paired_terms skipping gold items with a single human label (the default certificate silently used fewer items)."
    ann = wide([["a"], ["a", "b"], ["b"], [None, "c"], ["a", "a", "c"]])
    gold = pd.Series(["a", "b", "a", "c", "c"], index=ann.items)
    model = pd.Series(["a", "a", "b", "c", "a"], index=ann.items)
    pt = paired_terms(ann, model, gold, seed=0)
    assert list(pt.index) == list(ann.items)                               # every gold item with a label, one-label items too
    # one-label items: the drawn label is the label itself
    assert pt.loc["i0", "drawn label right"] == 1 and pt.loc["i2", "drawn label right"] == 0 and pt.loc["i3", "drawn label right"] == 1
    assert pt["model right"].tolist() == [1, 0, 0, 1, 0]


def test_stop_when_the_pool_is_exhausted_without_a_certificate():
    "Edit: GoldSequence.stop never True when the pool is exhausted without a certificate."
    # every annotator and the model give the same label: D = [model = gold] - share of that label = 0 on every item, whatever the gold
    ann = wide([["a", "a"], ["b", "b"], ["c", "c"], ["a", "a"]] * 3)
    model = pd.Series(["a", "b", "c", "a"] * 3, index=ann.items)
    gold = pd.Series(["b", "b", "a", "c"] * 3, index=ann.items)
    seq = GoldSequence(ann, model)
    seq.update(gold.iloc[:8])
    assert not seq.stop and not seq.certificate.certified
    seq.update(gold.iloc[8:])
    assert seq.pool == 12 and not seq.certificate.certified and seq.stop


def test_informative_mean_of_d_counts_the_known_items():
    "Edit: mean_of_d in the informative design dropping the known items' D (here -0.5 each: the model's label is no annotator's, the humans split)."
    # D is known without gold only where D(g) = [model = g] - p_g is the same for every class g: with the model's label outside the
    # classes and the humans split a/b over 2 classes, D(g) = -1/2 for both (i0, i1); where all agree with the model, D = 0 (i5)
    df = pd.DataFrame({"a0": ["a", "a", "b", "a", "b", "a"], "a1": ["b", "b", "b", "a", "a", "a"]}, index=[f"i{j}" for j in range(6)])
    ann = Annotations.from_wide(df, labels=["a", "b"])
    model = pd.Series(["z", "z", "a", "b", "a", "a"], index=ann.items)        # 'z': no annotator's class (a label outside)
    gold = pd.Series(["a", "b", "b", "a", "b", "a"], index=ann.items)
    des = informative_design(ann, model, seed=1)
    assert des.known.tolist() == [True, True, False, False, False, True]      # i5: both annotators and the model say a: D = 0
    p = df.apply(lambda r: (r == "a").mean(), axis=1).to_numpy()              # share of 'a' per item
    share_gold = np.where(gold == "a", p, 1 - p)
    d = (model == gold).to_numpy(float) - share_gold                          # D per item, by its definition
    y = des.d[des.order, pd.Index(ann.classes).get_indexer(gold.iloc[des.order])] - des.proxy[des.order]
    assert abs(des.mean_of_d(y.mean()) - d.mean()) < 1e-12                    # the mean of the terms stands for the mean of D over all 6
    assert abs(d[:2].sum() + 1.0) < 1e-12                                      # the known items' D: -0.5 each


@pytest.mark.parametrize("mix", [0.2, 0.9])
def test_active_design_mix_weighs_the_uniform(mix):
    "Edit: the assumed gold distribution with mix and 1 - mix swapped (the same at the default 0.5, the only value tested before)."
    ann, model, _ = toy_panel(60, 3, 3, 0.6, 0.7, 4)
    des = active_design(ann, model, floor=0.2, mix=mix)
    counts = ann.to_counts().to_numpy(float)
    p = counts / counts.sum(1, keepdims=True)
    m = model.to_numpy()
    d = (m[:, None] == np.arange(3)).astype(float) - p                        # D_i(c)
    f = (p * d).sum(1)                                                        # the proxy: D's mean under the item's human shares
    b = (1 - mix) * p + mix / 3                                               # gold ~ human shares, weight `mix` on the uniform
    s = np.sqrt((b * (d - f[:, None]) ** 2).sum(1))
    want = 0.8 * s / s.sum() + 0.2 / 60
    np.testing.assert_allclose(des.probability, want, rtol=1e-12)


def test_discordance_bound_divides_by_each_items_count():
    "Edit: gold_discordance_bound dividing by the most labels on any item instead of the item's own count (needs unequal counts)."
    ann = wide([["a"], ["a", "b"], ["a", "b", "b"], ["c", "c", "c"], ["b", None, "a"]])
    model = pd.Series(["a", "a", "b", "a", "b"], index=ann.items)
    # P(model != a label drawn from the item): 0, 1/2, 1/3, 1, 1/2
    assert abs(gold_discordance_bound(ann, model) - np.mean([0, 1 / 2, 1 / 3, 1, 1 / 2])) < 1e-12


def test_gold_for_one_judge_marks_only_that_judges_verdict():
    "Edit: _gold_of giving every judge the report's gold certificate, so with gold for one judge of several every verdict read '(gold)'."
    ann, truth_model, gold = toy_panel(300, 3, 3, 0.6, 0.8, 7)
    other = truth_model.copy(); other.iloc[::3] = (other.iloc[::3] + 1) % 3
    judges = pd.DataFrame({"first": truth_model, "second": other})
    rep = make_report(ann, truth_model, judges=judges, n_bootstrap=0)
    rep = add_gold(rep, ann, truth_model, gold.iloc[:150], judges=judges[["first"]])   # gold certificate for 'first' only
    verdicts = _verdict_display(rep)["verdict"]
    assert verdicts["first"].endswith("(gold)") and verdicts["second"].endswith("(agreement only)"), verdicts.to_dict()


def _ratings(seed, n_items, n_raters):
    g = np.random.default_rng(seed)
    return np.clip(np.round(g.uniform(1, 5, n_items)[:, None] + g.normal(0, 0.9, (n_items, n_raters))), 1, 5)


def test_survey_estimand_bootstrap_resamples_the_items():
    "Edit: estimand='survey''s bootstrap ignoring the resample: every sample the full data's value up to Monte Carlo noise."
    R = _ratings(11, 80, 4)
    ann = Annotations.from_wide(pd.DataFrame(R), labels=[1, 2, 3, 4, 5])
    pred = pd.Series(R[:, :2].mean(1) + np.random.default_rng(12).normal(0, 0.6, 80), index=ann.items)
    kw = dict(n_bootstrap=40, seed=3, max_subsets=100)
    survey = survey_equivalence(pred, ann, "mean", "pearson", estimand="survey", **kw)
    pooled = survey_equivalence(pred, ann, "mean", "pearson", estimand="pooled", **kw)
    sd_s, sd_p = np.nanstd(survey.samples), np.nanstd(pooled.samples)
    # the two estimands differ little on 4 ratings per item, so their item-bootstrap spreads are alike; Monte Carlo noise alone
    # (the edit) gives a spread several times smaller
    assert np.isfinite(sd_p) and sd_p > 0 and sd_s > 0.5 * sd_p, (sd_s, sd_p)


def test_check_confidence_accepts_one_half():
    "Edit: check_confidence refusing 0.5, inside its documented range [0.5, 1)."
    assert check_confidence(0.5) == 0.5
    with pytest.raises(ValueError): check_confidence(0.49)


def test_bootstrap_t_reflects_the_quantiles():
    "Edit: the bootstrap-t interval built from value + t* se instead of value - t* se (quantiles not reflected)."
    # t* = (value* - value) / se* is >= 0 on every resample (value* = value + copies of item 0 drawn, se* = 1), and above 1 on some:
    # the reflected interval (value - t*_hi se, value - t*_lo se) lies at or below the value, more than one se below at its low end
    value, se = -5.0, 2.0
    ci = _bootstrap_t(lambda idx: (value + float((idx == 0).sum()), 1.0), 200, 2000, 0, 0.95, value, se)[1]
    assert ci[1] <= value and ci[0] <= value - se, ci


def test_update_keeps_an_ordered_designs_order():
    "Edit: GoldSequence.update reordering an ordered design's terms (the informative design's terms depend on their rank)."
    ann, model, gold = toy_panel(200, 3, 3, 0.6, 0.75, 2)
    des = informative_design(ann, model, seed=5)
    seq = GoldSequence(ann, model, design=des)
    draws = des.next_items(30)
    nxt = pd.Index(draws["item"])
    seq.update(gold.loc[nxt[::-1]], draws=draws.iloc[::-1])                  # the batch passed in reverse; shuffle=True (default)
    codes = pd.Index(ann.classes).get_indexer(gold.loc[nxt])
    np.testing.assert_array_equal(seq.x, des.d[des.order[:30], codes] - des.proxy[des.order[:30]])
