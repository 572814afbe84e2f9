"""Active gold selection without replacement (issue 34, the TweetEval goal): `informative_design` never labels the items whose D
is known without gold, labels the others in a random order fixed by the seed, and bets on D - f against a shifted null.
Exact hand cases of the terms and null means, validity at the boundary by simulation, the batches and their refusals."""
import dataclasses
import itertools

import numpy as np
import pandas as pd
import pytest

from gold_panels import toy_panel
from humancert.data.annotations import Annotations
from humancert.certification.gold_certificate import gold_terms
from humancert.certification.gold_sequence import GoldSequence, log_capital, null_means, stopping_times
from humancert.certification.active_gold import (informative_design, next_gold_items, certify_active, active_design,
                                                 differences_by_class, successive_log_capital)
from report_run import COMMAND


def toy(n=500, C=3, K=3, acc=0.6, model_acc=0.7, seed=2):
    "The shared simulated panel (tests/gold_panels.py) at this file's sizes and accuracies."
    return toy_panel(n, C, K, acc, model_acc, seed)


def hand():
    "Four items, two annotators, classes a, b: `agree` (a, a; judge a), `differ` (a, a; judge b), `split` (a, b; judge a), `split2` (a, b; judge b)."
    ann = Annotations.from_wide(pd.DataFrame({"x": ["a", "a", "a", "a"], "y": ["a", "a", "b", "b"]},
                                             index=["agree", "differ", "split", "split2"]))
    return ann, pd.Series(["a", "b", "a", "b"], index=ann.items)


def test_terms_and_shifted_null_by_hand():
    # D_i(c) = [judge = c] - p_ic.  agree: (0, 0) known.  differ: p = (1, 0), judge b -> D = (-1, 1), f = -1, Y = D - f = (0, 2).
    # split: p = (.5, .5), judge a -> D = (.5, -.5), f = 0, Y = (.5, -.5).  split2: D = (-.5, .5), f = 0, Y = (-.5, .5).
    ann, judge = hand()
    des = informative_design(ann, judge, sampling="uniform", seed=3)
    assert des.known.tolist() == [True, False, False, False] and des.pool == 3 and des.weight.tolist() == [0.75] * 3
    assert (des.lo, des.hi) == (-0.5, 2.0)
    np.testing.assert_array_equal(des.proxy, [0.0, -1.0, 0.0, 0.0])
    # tau' = (N tau - known sum - F_I) / N_I = (4 * 0.1 - 0 + 1) / 3 = 1.4 / 3
    assert abs(des.terms_tau(0.1) - 1.4 / 3) < 1e-15
    # gold (b, a, a) on differ, split, split2: D = (1, .5, -.5), mean of D over the 4 items = 1/4; Y = (2, .5, -.5), mean 2/3
    gold = pd.Series(["b", "a", "a"], index=["differ", "split", "split2"])
    rank = {it: r for r, it in enumerate(des.items[des.order])}
    y = np.array([{"differ": 2.0, "split": 0.5, "split2": -0.5}[it] for it in sorted(rank, key=rank.get)])
    seq = GoldSequence(ann, judge, tau=0.1, design=des)
    c = seq.update(gold.loc[list(des.items[des.order])][::-1], shuffle=False)     # any order within the batch: bets in the design's order
    np.testing.assert_array_equal(seq.x, y)
    assert abs(c.estimate - 0.25) < 1e-15 and abs(des.mean_of_d(2 / 3) - 0.25) < 1e-15
    # null means of the e-process: m_t = (N_I tau' - S_{t-1}) / (N_I - t + 1)
    np.testing.assert_allclose(null_means(y, des.terms_tau(0.1), pool=3), [1.4 / 3, (1.4 - y[0]) / 2, (1.4 - y[:2].sum()) / 1], atol=1e-15)
    assert np.log(c.capital) == log_capital(y, 1.4 / 3, -0.5, 2.0, 3)[-1]


def test_only_unanimous_items_that_agree_with_the_judge_are_known():
    ann, model, _ = toy()
    des = informative_design(ann, model, seed=0)
    counts = ann.to_counts().to_numpy()
    unanimous_agree = counts[np.arange(ann.n_items), np.asarray(model)] == counts.sum(1)
    np.testing.assert_array_equal(des.known, unanimous_agree)
    assert np.all(differences_by_class(ann, model)[des.known] == 0)


def test_weighted_order_by_hand():
    # active_design's scores (mix 0.5, C = 2): differ s = sqrt(0.25 * 2^2) = 1, split and split2 s = sqrt(0.25) = 0.5, agree 0;
    # pi = 0.8 s / 2 + 0.2 / 4 -> w = (0.45, 0.25, 0.25) on differ, split, split2 (sum 0.95).
    ann, judge = hand()
    des = informative_design(ann, judge, seed=0)
    np.testing.assert_allclose(des.w, [0.0, 0.45, 0.25, 0.25], atol=1e-12)
    fr = des.to_frame()
    assert list(fr.columns) == ["known", "rank", "proxy", "w"] and fr.loc["agree", "rank"] == 0
    assert sorted(fr["rank"].tolist()) == [0, 1, 2, 3]
    assert fr["rank"].iloc[des.order].tolist() == [1, 2, 3]
    first = [informative_design(ann, judge, seed=s).order[0] == 1 for s in range(4000)]
    # P(differ first) = 0.45 / 0.95; 4000 seeds: SE sqrt(p (1 - p) / 4000) = 0.0079, allow 3 SE
    assert abs(np.mean(first) - 0.45 / 0.95) < 3 * np.sqrt(0.474 * 0.526 / 4000)
    d1 = informative_design(ann, judge, seed=int(np.argmax(first)))           # an order with `differ` first
    np.testing.assert_allclose(d1.scale, [0.95 / (3 * 0.45), 1.0, 1.0], atol=1e-12)   # W_t / (R_t w): then 0.5 / (2 * 0.25), 0.25 / 0.25
    np.testing.assert_allclose(d1.weight, 0.75 * d1.scale, atol=1e-15)
    # exact unbiasedness of the estimate over all 3! orders with their successive-sampling probabilities; gold (b, a, a):
    # Y = (2, 0.5, -0.5) on differ, split, split2, and mu = (0 + 1 + 0.5 - 0.5) / 4 = 0.25
    y_of, w_of = {1: 2.0, 2: 0.5, 3: -0.5}, {1: 0.45, 2: 0.25, 3: 0.25}
    total = 0.0
    for perm in itertools.permutations([1, 2, 3]):
        left, prob = 0.95, 1.0
        for i in perm: prob, left = prob * w_of[i] / left, left - w_of[i]
        total += prob * dataclasses.replace(des, order=np.array(perm)).estimate([y_of[i] for i in perm])
    assert abs(total - 0.25) < 1e-12
    # by hand for the order (differ, split, split2): mean of S_{t-1} + R_t Z_t = (3 * 2 * 0.95 / 1.35 + (2 + 2 * 0.5) + (2.5 - 0.5)) / 3
    byhand = (-1 + (5.7 / 1.35 + 3 + 2) / 3) / 4
    assert abs(dataclasses.replace(des, order=np.array([1, 2, 3])).estimate([2.0, 0.5, -0.5]) - byhand) < 1e-12
    # the e-process: no bet at the first item (K_1 = 1); after differ (Y = 2) at tau' = 0.5, m_2 = (1.5 - 2) / 2 = -0.25 is above
    # lo_2 = (0.5 / 2) * (-0.5 / 0.25) = -0.5, and at tau' = 0.2, m_2 = (0.6 - 2) / 2 = -0.7 < lo_2: a proof (capital inf)
    ymin, ymax = np.array([0.0, -0.5, -0.5]), np.array([2.0, 0.5, 0.5])
    w = np.array([0.45, 0.25, 0.25])
    assert successive_log_capital([2.0], w, ymin, ymax, 0.5)[0] == 0.0
    # issue 42: a proof registers at the label that completes it. tau' = 0.5: after (2, 0.5) the last item is >= -0.5, so the
    # total is >= 2 > 3 * 0.5 (proved at the 2nd label); tau' = 0.7: 2 < 2.1, not proved; tau' = 0.2: 2 - 1 > 0.6 at the 1st
    assert successive_log_capital([2.0, 0.5], w, ymin, ymax, 0.5).tolist() == [0.0, np.inf]
    assert np.isfinite(successive_log_capital([2.0, 0.5], w, ymin, ymax, 0.7)).all()
    assert successive_log_capital([2.0, 0.5], w, ymin, ymax, 0.2).tolist() == [np.inf, np.inf]


@pytest.mark.parametrize("control,sampling", [(True, "active"), (False, "active"), (True, "uniform"), (False, "uniform")])
def test_false_certification_at_the_boundary(control, sampling):
    # tau = the pool's own mean of D (the boundary of H0), a user who looks after every item and stops at the first certificate,
    # each sequence a fresh random order of the informative items. 4000 sequences: SE of a rate near delta = 0.05 is
    # sqrt(0.05 * 0.95 / 4000) = 0.0034; allow 3 SE above delta.
    ann, model, gold = toy()
    des = informative_design(ann, model, control=control, sampling=sampling, seed=0)
    codes = gold.loc[des.items].to_numpy()
    at = np.sort(des.order)
    y = des.d[at, codes[at]] - des.proxy[at]
    mu = gold_terms(ann, model, gold)["D"].mean()
    assert abs(des.mean_of_d(y.mean()) - mu) < 1e-12                          # tau' is the informative items' own mean of Y
    R, rng = 4000, np.random.default_rng(34)
    if sampling == "uniform":
        x = rng.permuted(np.broadcast_to(y, (R, len(y))), axis=1)
        t = stopping_times(x, des.terms_tau(mu), des.lo, des.hi, 0.05, des.pool)
    else:                                                                    # each study its own order, drawn as the design draws it
        w, yc = des.w[at], des.d[at] - des.proxy[at, None]
        o = np.argsort(rng.exponential(size=(R, len(y))) / w, axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            lk = successive_log_capital(y[o], w[o], yc.min(1)[o], yc.max(1)[o], des.terms_tau(mu))
        t = np.where((lk >= np.log(20)).any(1), 1.0, np.inf)
    assert np.isfinite(t).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / R)


def test_power_at_a_true_lead():
    # the toy model leads the average annotator by about 0.1: within the pool, nearly every sequence (uniform order) certifies
    ann, model, gold = toy()
    des = informative_design(ann, model, sampling="uniform", seed=0)
    codes = gold.loc[des.items].to_numpy()
    at = np.sort(des.order)
    y = des.d[at, codes[at]] - des.proxy[at]
    x = np.random.default_rng(1).permuted(np.broadcast_to(y, (300, len(y))), axis=1)
    assert np.isfinite(stopping_times(x, des.terms_tau(0.0), des.lo, des.hi, 0.05, des.pool)).mean() > 0.9


def test_batches_follow_one_fixed_order():
    ann, model, gold = toy()
    des = informative_design(ann, model, seed=11)
    b1 = next_gold_items(ann, model, 30, seed=11, replacement=False)
    b2 = next_gold_items(ann, model, 50, seed=11, replacement=False, labelled=b1["item"])
    assert b1["item"].tolist() + b2["item"].tolist() == des.items[des.order[:80]].tolist()
    assert not des.known[des.items.get_indexer(pd.concat([b1["item"], b2["item"]]))].any()
    assert set(b1["seed"]) == {11} and b2["rank"].tolist() == list(range(31, 81))
    seq = GoldSequence(ann, model, design=des)
    seq.update(gold.loc[b1["item"]], b1)
    c = seq.update(gold.loc[b2["item"]])
    assert c.n_gold == 80 and c.looks == 2


def test_refusals():
    ann, model, gold = toy()
    des = informative_design(ann, model, seed=11)
    b1 = des.next_items(30)
    seq = GoldSequence(ann, model, design=des)
    with pytest.raises(ValueError, match="not the next 29"): seq.update(gold.loc[b1["item"][1:]])          # an item skipped
    with pytest.raises(ValueError, match="not the next 1"): seq.update(gold.loc[des.items[des.known][:1]])   # a known item
    with pytest.raises(ValueError, match="label\\(s\\) are missing"): seq.update(gold.loc[b1["item"]].astype(float).where(lambda s: s.index != b1["item"][0]))
    with pytest.raises(ValueError, match="`draws`: its items are not"): seq.update(gold.loc[b1["item"]], b1.iloc[1:])
    seq.update(gold.loc[b1["item"]])
    with pytest.raises(ValueError, match="not the next 30"): seq.update(gold.loc[b1["item"]])               # labelled twice
    with pytest.raises(ValueError, match="`labelled`: the 29 item"): des.next_items(5, b1["item"][1:])
    with pytest.raises(ValueError, match="`seed`: a later batch"): next_gold_items(ann, model, 5, replacement=False, labelled=b1["item"])
    with pytest.raises(ValueError, match="come from the design without replacement"): certify_active(ann, model, gold.loc[b1["item"]], b1)
    with pytest.raises(ValueError, match="`labelled` is for replacement=False"): next_gold_items(ann, model, 5, seed=0, labelled=b1["item"])
    with pytest.raises(TypeError, match="`replacement` must be True or False"): next_gold_items(ann, model, 5, seed=0, replacement="no")
    with pytest.raises(TypeError, match="`control` must be True"): informative_design(ann, model, control="yes")
    with pytest.raises(ValueError, match="`sampling` must be 'active'"): informative_design(ann, model, sampling="pps")
    with pytest.raises(ValueError, match="another judge"): GoldSequence(ann, model, design=informative_design(ann, gold))
    with pytest.raises(ValueError, match="`replacement` applies to the plain design"): GoldSequence(ann, model, design=des, replacement=True)
    everything = des.items[des.order]
    with pytest.raises(ValueError, match="no item left"): des.next_items(1, everything)


def test_seed_recorded():
    "Issue 33: seed=None draws a fresh seed, recorded on the design and in the batches; passing it back repeats the order."
    ann, model, _ = toy()
    fresh = informative_design(ann, model)
    assert isinstance(fresh.seed, int) and fresh.seed >= 0
    assert informative_design(ann, model, seed=fresh.seed).order.tolist() == fresh.order.tolist()
    b = next_gold_items(ann, model, 10, replacement=False)
    s = int(b["seed"].iloc[0])
    assert next_gold_items(ann, model, 10, seed=s, replacement=False)["item"].tolist() == b["item"].tolist()


def test_the_iid_design_is_unchanged():
    # replacement=True stays the default of next_gold_items: the same draws as active_design's probabilities with the same seed
    ann, model, _ = toy()
    d = next_gold_items(ann, model, 50, seed=4)
    des = active_design(ann, model)
    at = np.random.default_rng(4).choice(des.n_items, size=50, p=des.probability)
    assert d["item"].tolist() == des.items[at].tolist() and list(d.columns) == ["item", "weight", "probability", "seed"]


def test_gold_status_with_the_design_order(tmp_path):
    # `humancert gold-status ... --order S`: gold on the first items of informative_design(seed=S)'s order, the file in any order;
    # a file that skips an item of the order, or --order with --replacement, is refused (exit 2, naming the options)
    import os, subprocess
    from pathlib import Path
    ann, model, gold = toy(n=600)
    ann.to_wide().assign(m=model).to_csv(tmp_path / "labels.csv", index_label="item")
    des = informative_design(ann, model, seed=5)
    first = des.items[des.order[:40]]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    run = lambda *a: subprocess.run([*COMMAND,
                                     "gold-status", "labels.csv", "--model", "m", "--gold", "gold.csv", "--reps", "20", *a],
                                    capture_output=True, text=True, cwd=tmp_path, env=env)
    gold.loc[first[::-1]].rename("gold").rename_axis("item").to_csv(tmp_path / "gold.csv")
    res = run("--order", "5")
    assert res.returncode == 0, res.stderr
    assert "n_gold=40" in res.stdout and "in the order of informative_design, seed 5" in res.stdout
    assert (f"Next to label (the design's order): {des.items[des.order[40]]}," in res.stdout) or "Certified" in res.stdout
    gold.loc[first[1:]].rename("gold").rename_axis("item").to_csv(tmp_path / "gold.csv")
    res = run("--order", "5")
    assert res.returncode == 2 and "not the next 39 of the design's order" in res.stderr
    res = run("--order", "5", "--replacement")
    assert res.returncode == 2 and "--order and --replacement exclude each other" in res.stderr


def test_sequence_on_the_weighted_order_bets_as_derived():
    # GoldSequence with the default (weighted) design: its terms are Y in the design's order, whatever the batches; its capital
    # is successive_log_capital on them with the design's weights and per-item ranges; plan_more runs on the design's bets
    ann, model, gold = toy()
    des = informative_design(ann, model, seed=21)
    seq = GoldSequence(ann, model, design=des)
    b1 = des.next_items(30)
    b2 = des.next_items(45, b1["item"])
    seq.update(gold.loc[b1["item"]][::-1]); c = seq.update(gold.loc[b2["item"]].sample(frac=1, random_state=0))
    at = des.order[:75]
    yc = des.d - des.proxy[:, None]
    y = yc[at, gold.to_numpy()[at]]                                           # toy gold classes are codes 0..C-1 in item order
    np.testing.assert_array_equal(seq.x, y)
    lk = successive_log_capital(y, des.w[des.order], yc[des.order].min(1), yc[des.order].max(1), des.terms_tau(0.0))
    assert abs(np.log(c.capital) - lk[-1]) < 1e-9 and abs(np.log(c.max_capital) - lk.max()) < 1e-9
    plan = seq.plan_more(reps=30, seed=0)
    assert plan["seed"] == 0 and 0 <= plan["certified share"] <= 1


def test_known_items_when_the_judge_answers_outside_the_classes():
    "A judge label no human used: D(c) = -p_c, constant only for labels spread evenly over the classes (D = -1/C), by hand."
    import pandas as pd
    from humancert.data.annotations import Annotations
    from humancert.certification.active_gold import informative_design
    ann = Annotations.from_wide(pd.DataFrame({"r1": ["a", "a", "a", "b"], "r2": ["b", "a", "b", "b"]}, index=["x", "y", "w", "v"]))
    d = informative_design(ann, pd.Series(["z", "z", "a", "b"], index=["x", "y", "w", "v"]), seed=0)
    # x: judge z, labels a/b: D = -1/2 whatever the gold; v: unanimous b and judge b: D = 0; y (z vs a/a) and w (a vs a/b) depend on it
    assert sorted(d.items[d.known]) == ["v", "x"]
    assert abs(d.known_sum - (-0.5)) < 1e-12
