"""Active gold selection (issue 34 item 3): unbiasedness by an exact finite sum, validity at the boundary by simulation,
draws that follow the design, and the refusals."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from gold_panels import toy_panel
from humancert.certification.gold_certificate import gold_terms, mean_pvalue
from humancert.certification.gold_sequence import GoldSequence, stopping_times
from humancert.certification.active_gold import active_design, active_terms, next_gold_items, certify_active


def toy(n=500, C=4, K=3, acc=0.55, model_acc=0.6, seed=1):
    "The shared simulated panel (tests/gold_panels.py) at this file's sizes and accuracies."
    return toy_panel(n, C, K, acc, model_acc, seed)


@pytest.mark.parametrize("floor,mix", [(0.2, 0.5), (0.05, 1.0), (1.0, 0.5)])
def test_weighted_terms_are_unbiased_exactly(floor, mix):
    ann, model, gold = toy()
    des = active_design(ann, model, floor, mix)
    z = active_terms(des, np.arange(des.n_items), gold.to_numpy())
    assert abs((des.probability * z).sum() - gold_terms(ann, model, gold)["D"].mean()) < 1e-12   # E Z = mu as a finite sum
    assert des.lo <= z.min() and z.max() <= des.hi and des.weight.max() <= 1 / floor + 1e-9


def test_false_certification_at_the_boundary():
    # tau = the pool mean; 2000 sequences of up to 800 draws, looked at after every draw; fixed size at 150 draws.
    # SE of a rate near 0.05 with 2000 runs: sqrt(0.05 * 0.95 / 2000) = 0.0049; allow 3 SE.
    ann, model, gold = toy()
    des = active_design(ann, model)
    z_pool = active_terms(des, np.arange(des.n_items), gold.to_numpy())
    mu = float(des.probability @ z_pool)
    rng = np.random.default_rng(8)
    z = z_pool[rng.choice(des.n_items, (2000, 800), p=des.probability)]
    bound = 0.05 + 3 * np.sqrt(0.05 * 0.95 / 2000)
    assert np.isfinite(stopping_times(z, mu, des.lo, des.hi, 0.05)).mean() <= bound
    assert np.mean([mean_pvalue(row[:150], des.lo, des.hi, mu, "betting") <= 0.05 for row in z]) <= bound


def test_draws_follow_the_design():
    ann, model, _ = toy()
    des = active_design(ann, model)
    d = next_gold_items(ann, model, 30000, seed=4)
    counts = d["item"].value_counts().reindex(des.items, fill_value=0).to_numpy()
    top = np.argsort(des.probability)[-20:]          # the 20 most likely items against their expected counts (chi-square)
    exp = des.probability[top] * 30000
    chi = ((counts[top] - exp) ** 2 / exp).sum()
    assert stats.chi2.sf(chi, 20) > 1e-3
    np.testing.assert_allclose(d["weight"], 1 / (des.n_items * d["probability"]), rtol=1e-12)


def test_refusals():
    ann, model, gold = toy()
    des = active_design(ann, model)
    draws = next_gold_items(ann, model, 20, seed=0)
    with pytest.raises(ValueError, match="`n` must be an int >= 1"): next_gold_items(ann, model, 2.5, seed=0)
    with pytest.raises(TypeError, match="`seed` must be an int"): next_gold_items(ann, model, 5, seed="x")
    with pytest.raises(ValueError, match="not this design's"): certify_active(ann, model, gold, draws, floor=0.5)
    with pytest.raises(ValueError, match="have no gold label"): certify_active(ann, model, gold.loc[draws["item"].unique()[1:]], draws)
    seq = GoldSequence(ann, model, design=des)
    seq.update(gold.loc[draws["item"].unique()], draws)
    with pytest.raises(ValueError, match="already have a gold label"): seq.update(gold.loc[draws["item"].unique()], draws)
    with pytest.raises(ValueError, match="an active sequence needs"): seq.update(gold.iloc[:2])


def test_sequence_refuses_a_foreign_design():
    ann, model, _ = toy()
    other, omodel, _ = toy(n=50, seed=9)
    other = Annotations.from_wide(other.to_wide().rename(lambda i: "x" + i))
    with pytest.raises(ValueError, match="its items are not items of `ann`"):
        GoldSequence(ann, model, design=active_design(other, omodel.rename(lambda i: "x" + i)))
    with pytest.raises(ValueError, match="`replacement` applies to the plain design"):
        GoldSequence(ann, model, design=active_design(ann, model), replacement=True)
    with pytest.raises(TypeError, match="`design` must be an active design"): GoldSequence(ann, model, design="yes")


def test_a_design_of_another_judge_or_other_annotations_is_refused():
    # found by an independent review: with a design built for judge J, GoldSequence(ann, model, design=...) bet on J's terms and
    # certified a model at exactly zero lead 200 times in 200; a design built on other annotations with the same ids went through too
    ann, model, gold = toy()
    judge = model.copy(); judge.iloc[:50] = gold.iloc[:50]                 # a better judge than the model
    with pytest.raises(ValueError, match="`design` was built from other annotations or another judge"):
        GoldSequence(ann, model, design=active_design(ann, judge))
    same_ids = Annotations.from_counts(pd.DataFrame(np.ones((ann.n_items, 4), int), index=ann.items))
    with pytest.raises(ValueError, match="`design` was built from other annotations or another judge"):
        GoldSequence(ann, model, design=active_design(same_ids, model))
    assert GoldSequence(ann, model, design=active_design(ann, model)).design is not None   # the matching design is taken


def test_confidence_and_seed_conventions():
    "Issue 33: next_gold_items draws with a fresh seed by default and records it (repeating it repeats the draws); certify_active takes `confidence`, keeps `delta`, and refuses an old positional delta."
    ann, model, gold = toy()
    fresh = next_gold_items(ann, model, 40)
    s = fresh["seed"].unique()
    assert len(s) == 1 and s[0] >= 0
    assert next_gold_items(ann, model, 40, seed=int(s[0]))["item"].tolist() == fresh["item"].tolist()
    draws = next_gold_items(ann, model, 200, seed=3)
    g = gold.loc[draws["item"].unique()]
    with pytest.raises(ValueError, match="looks like a failure probability"): certify_active(ann, model, g, draws, 0.05)
    c9, d9 = certify_active(ann, model, g, draws, confidence=0.9), certify_active(ann, model, g, draws, delta=0.1)
    assert (c9.confidence, d9.confidence, d9.delta) == (0.9, 0.9, 0.1) and c9.lower == d9.lower
    c95 = certify_active(ann, model, g, draws)
    assert c95.delta == 0.05 and c95.lower < c9.lower                  # a higher level, a lower limit
