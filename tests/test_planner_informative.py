"""Issue 34 item 4: the planner plans the informative design (sequential + active, without replacement) before any gold label.

Hand-computed families on a tiny pool, the stopping time against `GoldSequence` fed one label per look (exact), the plan against a
direct Monte Carlo of `GoldSequence` where the assumed family is true (tolerance from the binomial SE), refusals, the conventions."""
import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.data.simulate import simulate_oracle_labels, noisy_labels
from humancert.certification.active_gold import informative_design
from humancert.certification.gold_sequence import GoldSequence
from humancert.certification.planner import (plan_informative_design, plan_gold_procedures, InformativeDesignPlan, _gold_family,
                                             _human_shares, _stopping_in_orders, _DESIGN_ROW)

TINY = Annotations.from_wide([["a", "b"], ["a", "a"], ["b", "c"]])
TINY_DES = informative_design(TINY, ["a", "a", "x"], seed=0)          # judge a, a, and x (not a human class)


def _panel(n, acc, judge_acc, seed):
    s = simulate_oracle_labels(n, acc, n_classes=3, seed=seed)
    return s.annotations, pd.Series(noisy_labels(s.oracle, judge_acc, 3, np.random.default_rng(seed + 1)), index=s.annotations.items)


def test_family_by_hand():
    "D_1 = (1/2, -1/2, 0), D_2 = 0, D_3 = (0, -1/2, -1/2); b with mix 1/2: L_b = -5/36, L_max = 1/6, L_min = -1/3 (by hand)."
    g, lam, (lmin, lb, lmax) = _gold_family(TINY_DES, 0.0, 0.5)
    assert (lmin, lb, lmax) == pytest.approx((-1 / 3, -5 / 36, 1 / 6), abs=1e-12)
    assert lam == pytest.approx(5 / 11, abs=1e-12)                       # (0 + 5/36) / (1/6 + 5/36), by hand
    np.testing.assert_allclose(g[0], [6 / 11 * 5 / 12 + 5 / 11, 6 / 11 * 5 / 12, 6 / 11 / 6], atol=1e-12)
    g, lam, _ = _gold_family(TINY_DES, -0.2, 0.5)
    assert lam == pytest.approx(-11 / 35, abs=1e-12)                     # (-0.2 + 5/36) / (-5/36 + 1/3), by hand
    np.testing.assert_allclose(g[0], 24 / 35 * np.array([5 / 12, 5 / 12, 1 / 6]) + 11 / 35 * np.array([0, 1, 0]), atol=1e-12)
    for lead in (-0.3, -0.1, 0.05, 0.15):                                # the mean of D under g is the lead asked
        g, _, _ = _gold_family(TINY_DES, lead, 0.3)
        assert (g * TINY_DES.d).sum(1).mean() == pytest.approx(lead, abs=1e-12)
        np.testing.assert_allclose(g.sum(1), 1.0, atol=1e-12)


def test_shares_read_back_from_the_design():
    ann, judge = _panel(300, [0.8, 0.6, 0.6], 0.7, 3)
    des = informative_design(ann, judge, seed=1)
    counts = ann.to_counts().to_numpy(dtype=float)
    np.testing.assert_allclose(_human_shares(des)[~des.known], (counts / counts.sum(1, keepdims=True))[~des.known], atol=1e-12)


def _gold_sequence_time(ann, judge, des, codes):
    "Gold labels until GoldSequence certifies, one label per look in the design's order; inf if the pool runs out first."
    cls, seq, lab = np.asarray(ann.classes), GoldSequence(ann, judge, design=des), []
    while not seq.stop:
        nxt = des.next_items(1, lab)
        seq.update(pd.Series(cls[codes[len(lab)]], index=nxt["item"].to_numpy())); lab += nxt["item"].tolist()
    return float(seq.last.n_gold) if seq.last.certified else np.inf


@pytest.mark.parametrize("sampling, control", [("active", True), ("uniform", True), ("active", False)])
def test_stopping_time_is_gold_sequence_s(sampling, control):
    "The plan's stopping time equals the look at which GoldSequence first certifies, label by label (exact), including never."
    ann, judge = _panel(60, [0.7, 0.6, 0.6], 0.85, 7)
    des = informative_design(ann, judge, control=control, sampling=sampling, seed=5)
    g = _gold_family(des, 0.2, 0.5)[0]
    for r in range(3):
        rr = np.random.default_rng([r, 9])
        codes = np.array([rr.choice(g.shape[1], p=g[a]) for a in des.order])
        assert _stopping_in_orders(des, des.order[None], codes[None], 0.0, 0.05)[0] == _gold_sequence_time(ann, judge, des, codes)
    worst = np.argmin(des.d[des.order], axis=1)                          # every gold label the worst for the judge
    assert _stopping_in_orders(des, des.order[None], worst[None], 0.0, 0.05)[0] == _gold_sequence_time(ann, judge, des, worst) == np.inf


def test_plan_against_direct_gold_sequence():
    """Where the family is true, the plan's P(T_25 <= n) at its median and 90th percentile is the share of direct GoldSequence studies
    certified by n (fresh designs, gold drawn item by item, looks every 25 labels), within 3 SE of the difference (binomial: R = 100
    direct studies, 3,000 planned)."""
    ann, judge = _panel(500, [0.7, 0.65, 0.6], 0.78, 21)
    lead, R, b = 0.09, 100, 25
    cls, direct = np.asarray(ann.classes), []
    for r in range(R):
        des = informative_design(ann, judge, seed=500 + r)
        g = _gold_family(des, lead, 0.5)[0]
        rng, seq, lab = np.random.default_rng([77, r]), GoldSequence(ann, judge, design=des), []
        while not seq.stop:
            nxt = des.next_items(b, lab)
            at = des.items.get_indexer(nxt["item"])
            seq.update(pd.Series([cls[rng.choice(len(cls), p=g[a])] for a in at], index=nxt["item"].to_numpy())); lab += nxt["item"].tolist()
        direct.append(float(seq.last.n_gold) if seq.last.certified else np.inf)
    direct = np.array(direct)
    des = informative_design(ann, judge, seed=0)
    plan = plan_informative_design(des, lead, reps=3000, seed=8)
    t = np.minimum(np.ceil(plan.times / b) * b, des.pool)                # the plan's times at looks every b labels
    for q in (0.5, 0.9):
        n = np.quantile(t, q, method="higher")
        p = np.mean(t <= n)
        se = np.sqrt(p * (1 - p) * (1 / R + 1 / len(t)))
        assert abs(np.mean(direct <= n) - p) <= 3 * se, (q, n, p, np.mean(direct <= n), se)


def test_a_margin_needs_more_labels():
    "The claim mean D > tau with tau > 0 is harder: on the same simulated studies the median stopping time is larger (terms_tau shifts the null)."
    ann, judge = _panel(400, [0.7, 0.6, 0.6], 0.85, 11)
    des = informative_design(ann, judge, seed=3)
    at0, at5 = plan_informative_design(des, 0.15, reps=200, seed=1), plan_informative_design(des, 0.15, tau=0.05, reps=200, seed=1)
    assert at5.median > at0.median and at5.tau == 0.05


@pytest.mark.parametrize("call, err, match", [
    (lambda: plan_informative_design("design", 0.05), TypeError, "`design` must be an InformativeDesign"),
    (lambda: plan_informative_design(TINY_DES, 0.2), ValueError, r"`lead` = 0.2 is outside \[-0.3333, 0.1667\]"),
    (lambda: plan_informative_design(TINY_DES, -0.4), ValueError, "is outside"),
    (lambda: plan_informative_design(TINY_DES, True), ValueError, "`lead` must be a number"),
    (lambda: plan_informative_design(TINY_DES, 0.05, power=1.2), ValueError, "`power` must lie strictly between 0 and 1"),
    (lambda: plan_informative_design(TINY_DES, 0.05, tau=1.0), ValueError, r"`tau` must be a number in \[0, 1\)"),
    (lambda: plan_informative_design(TINY_DES, 0.05, mix=0), ValueError, r"`mix` must be a number in \(0, 1\]"),
    (lambda: plan_informative_design(TINY_DES, 0.05, reps=10), ValueError, "`reps` must be an int >= 50"),
    (lambda: plan_informative_design(TINY_DES, 0.05, orders="random"), ValueError, "`orders` must be 'fresh'"),
    (lambda: plan_informative_design(TINY_DES, 0.05, 0.05), ValueError, "looks like a failure probability"),
    (lambda: plan_informative_design(TINY_DES, 0.05, seed=-1), ValueError, "`seed`"),
    (lambda: plan_gold_procedures(0.05, 0.45, reps=60, design=TINY), TypeError, "`design` must be an InformativeDesign"),
])
def test_refusals(call, err, match):
    with pytest.raises(err, match=match): call()


def test_seed_and_level_conventions():
    ann, judge = _panel(300, [0.8, 0.6, 0.6], 0.8, 4)
    des = informative_design(ann, judge, seed=2)
    fresh = plan_informative_design(des, 0.1, reps=60, seed=None)
    assert isinstance(fresh.seed, int) and fresh.to_frame()["seed"].iloc[0] == fresh.seed
    np.testing.assert_array_equal(plan_informative_design(des, 0.1, reps=60, seed=fresh.seed).times, fresh.times)
    by_conf, by_delta = plan_informative_design(des, 0.1, confidence=0.9, reps=60, seed=1), plan_informative_design(des, 0.1, reps=60, seed=1, delta=0.1)
    np.testing.assert_array_equal(by_conf.times, by_delta.times)
    assert by_conf.confidence == by_delta.confidence == 0.9 and by_conf.delta == pytest.approx(0.1)
    with pytest.raises(ValueError, match="disagree"): plan_informative_design(des, 0.1, confidence=0.9, delta=0.2)


def test_procedures_add_the_design_row():
    ann, judge = _panel(300, [0.8, 0.6, 0.6], 0.8, 4)
    des = informative_design(ann, judge, seed=2)
    with_design = plan_gold_procedures(0.1, 0.45, reps=60, seed=4, design=des)
    assert isinstance(with_design.design_plan, InformativeDesignPlan) and with_design.table.index[-1] == _DESIGN_ROW
    np.testing.assert_array_equal(with_design.design_plan.times, plan_informative_design(des, 0.1, reps=60, seed=6).times)   # seed + 2
    without = plan_gold_procedures(0.1, 0.45, reps=60, seed=4)
    assert without.design_plan is None
    np.testing.assert_array_equal(with_design.table.drop(_DESIGN_ROW).to_numpy(), without.table.to_numpy())
