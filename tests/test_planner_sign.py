"""Issue 34 item 4: the gold planner plans the randomised sign test (notebook 25; by name since issue 42, which made the betting
test on D the default: `test_plan_betting_*` check its simulated plan).

The exact power `sign_test_power` is checked against hand-computed cases and against Monte Carlo runs of the public
`certify_with_gold(test="auto")` and `gold_test(test="randomised sign")`; the plan against the exact power at n* and n* - 1;
the observable discordance bound against the true discordance of a simulated panel; and the refusals.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.data.simulate import simulate_oracle_labels, noisy_labels
from humancert.certification.gold_certificate import certify_with_gold, gold_terms
from humancert.certification.gold_power import gold_test
from humancert.certification.planner import (plan_gold_study, plan_gold_procedures, sign_test_power, gold_discordance_bound,
                                             GoldPlan)


def test_power_by_hand_all_discordant():
    "pi = 1, n = 5: c = 4 (P(Bin(5, 1/2) > 4) = 1/32 <= 0.05 < 6/32), gamma = (0.05 - 1/32) / (5/32) = 0.12; power p^5 + 0.12 * 5 p^4 (1 - p)."
    p = 0.7                                                          # lead 0.4
    assert sign_test_power(5, 0.4, 1.0) == pytest.approx(p ** 5 + 0.12 * 5 * p ** 4 * (1 - p), abs=1e-14)
    assert sign_test_power(5, 0.4, 1.0, test="sign") == pytest.approx(p ** 5, abs=1e-14)


def test_power_by_hand_two_items():
    """n = 2, pi = 1/2, lead = 0.2 (p = 0.7). One discordant item (prob 2 pi (1 - pi)): certified only at w = 1 with gamma = 0.05 / 0.5;
    two (prob pi^2): only at w = 2 with gamma = 0.05 / 0.25. Power = 0.5 * 0.1 * 0.7 + 0.25 * 0.2 * 0.49 = 0.0595; the exact test never certifies."""
    assert sign_test_power(2, 0.2, 0.5) == pytest.approx(0.5 * 0.1 * 0.7 + 0.25 * 0.2 * 0.49, abs=1e-14)
    assert sign_test_power(2, 0.2, 0.5, test="sign") == 0.0


def _independent_study(n, a, b, rng, n_classes=4):
    """n i.i.d. items, 3 annotators right with probabilities a (each), the model right with probability b, independently; wrong labels
    uniform over the other classes. The drawn label is right with probability mean(a), independent of the model, so
    lead = b - mean(a) and pi_d = b (1 - mean(a)) + mean(a) (1 - b) exactly."""
    oracle = rng.integers(0, n_classes, n)
    labels = [noisy_labels(oracle, ak, n_classes, rng) for ak in a]
    ann = Annotations.from_wide(pd.DataFrame({f"a{k}": l for k, l in enumerate(labels)}))
    model = pd.Series(noisy_labels(oracle, b, n_classes, rng), index=ann.items)
    return ann, model, pd.Series(oracle, index=ann.items)


@pytest.mark.parametrize("fn", ["certify_with_gold", "gold_test"])
def test_plan_power_against_monte_carlo(fn):
    """At the planned n* (true discordance given), the share of R = 500 fresh studies certified by the public test lies within
    4 binomial SE (sqrt(0.8 * 0.2 / 500) = 0.018) of the exact power; the exact power reaches 0.8 at n* and not at n* - 1."""
    a, b = (0.7, 0.6, 0.5), 0.75
    lead, pi = b - np.mean(a), b * (1 - np.mean(a)) + np.mean(a) * (1 - b)
    plan = plan_gold_study(lead, 0.5, discordance=pi, test="randomised sign")
    assert plan.test == "randomised sign" and plan.discordance == pytest.approx(pi, abs=1e-15)
    assert sign_test_power(plan.n_gold, lead, pi) >= 0.8 > sign_test_power(plan.n_gold - 1, lead, pi)
    rng, R = np.random.default_rng(34 if fn == "gold_test" else 43), 500
    if fn == "gold_test": run = lambda s: gold_test(*_independent_study(plan.n_gold, a, b, rng), test="randomised sign", seed=s).certified
    else: run = lambda s: certify_with_gold(*_independent_study(plan.n_gold, a, b, rng), test="randomised sign", seed=s).certified
    share = np.mean([run(s) for s in range(R)])
    se = np.sqrt(plan.power_at_n * (1 - plan.power_at_n) / R)
    assert abs(share - plan.power_at_n) < 4 * se, (share, plan.power_at_n, se)


def test_level_at_no_lead():
    "Lead 0: the exact power is at most delta (the test's level), for both tests and any discordance."
    for n in (10, 200, 2000):
        for pi in (0.05, 0.5, 1.0):
            assert sign_test_power(n, 0.0, pi) <= 0.05 + 1e-12
            assert sign_test_power(n, 0.0, pi, confidence=0.9, test="sign") <= 0.1 + 1e-12


def test_plan_is_the_smallest_n_by_a_loop():
    "The randomised sign test's plan: the smallest n with exact power >= 0.8 at min(lead^2 + sd^2 + 1/4, 1), by a loop."
    lead, sd = 0.15, 0.5
    pi = lead ** 2 + sd ** 2 + 0.25
    n_loop = next(n for n in range(1, 5000) if sign_test_power(n, lead, pi) >= 0.8)
    plan = plan_gold_study(lead, sd, test="randomised sign")
    assert (plan.n_gold, plan.test, plan.tail) == (n_loop, "randomised sign", None)
    assert plan.discordance == pytest.approx(pi, abs=1e-15)
    assert "test='randomised sign'" in repr(plan) and "discordance=0.5225" in repr(plan)
    assert plan.to_frame().index.tolist() == ["randomised sign"]
    assert plan_gold_study(lead, sd, test="sign").n_gold >= n_loop             # the exact test certifies no more often
    plain = plan_gold_study(lead, sd, test="plain")
    assert plain.test == "plain" and plain.tail == "bernstein" and plain.n_gold > plan.n_gold
    assert plan_gold_study(lead, sd, tau=0.02).test == "betting"            # a margin: the betting test on D, as certify_with_gold


def test_discordance_bound_on_a_simulated_panel():
    """The observable bound (no gold) is at least the true discordance, computed exactly from the oracle as
    mean(D^2) + mean(q (1 - q)); and the plan at the bound is conservative: its exact power at the true discordance is >= 0.8."""
    sim = simulate_oracle_labels(1500, [0.8, 0.65, 0.55, 0.5], n_classes=4, hard_share=0.3, seed=11)
    model = pd.Series(noisy_labels(sim.oracle, 0.72, 4, np.random.default_rng(12)), index=sim.annotations.items)
    t = gold_terms(sim.annotations, model, pd.Series(np.asarray(sim.oracle), index=sim.annotations.items))
    d, q = t["D"].to_numpy(), t["annotators right"].to_numpy()
    pi_true = float((d ** 2).mean() + (q * (1 - q)).mean())
    bound = gold_discordance_bound(sim.annotations, model)
    assert pi_true <= bound < 1
    lead, sd = float(d.mean()), float(d.std())
    plan = plan_gold_study(lead, sd, discordance=bound, test="randomised sign")
    assert plan.discordance <= bound and sign_test_power(plan.n_gold, lead, pi_true) >= 0.8
    assert plan_gold_study(lead, sd, test="randomised sign", ann=sim.annotations, model=model) == plan   # issue 42: ann, model give the bound


def test_discordance_bound_by_hand():
    "Items (a, b), (a, a), (b, c) and a model (a, a, x): P(model != a random label) = (1/2 + 0 + 1) / 3; an item without labels is skipped."
    ann = Annotations.from_wide([["a", "b"], ["a", "a"], ["b", "c"]])
    assert gold_discordance_bound(ann, ["a", "a", "x"]) == pytest.approx(0.5, abs=1e-15)
    sparse = Annotations.from_wide(pd.DataFrame({"r1": ["a", None, "b"], "r2": ["b", None, "b"]}))
    assert gold_discordance_bound(sparse, ["a", "a", "a"]) == pytest.approx((0.5 + 1.0) / 2, abs=1e-15)


def test_procedures_plan_the_default_test():
    plan = plan_gold_procedures(0.1, 0.45, reps=60, seed=1)
    assert plan.test == "betting"
    assert plan.table.loc["fixed-size (betting test on D)", "for power"] == plan_gold_study(0.1, 0.45).n_gold
    plain = plan_gold_procedures(0.1, 0.45, reps=60, seed=1, test="plain")
    assert plain.table.loc["fixed-size (Bernstein plan)", "for power"] == plan_gold_study(0.1, 0.45, test="plain").n_gold
    assert np.array_equal(plain.table.iloc[1:].to_numpy(), plan.table.iloc[1:].to_numpy(), equal_nan=True)   # same sequential rows


@pytest.mark.parametrize("call, match", [
    (lambda: sign_test_power(100, 0.1, 0.0), r"`discordance` must be a probability in \(0, 1\]"),
    (lambda: sign_test_power(100, 0.1, 1.01), r"`discordance` must be a probability in \(0, 1\]"),
    (lambda: sign_test_power(100, 0.2, 0.1), r"is below \|lead\| = 0.2"),
    (lambda: sign_test_power(100, 0.1, np.nan), r"`discordance` must be a probability"),
    (lambda: sign_test_power(0, 0.1, 0.4), r"`n` must be an int >= 1"),
    (lambda: sign_test_power(10.0, 0.1, 0.4), r"`n` must be an int >= 1"),
    (lambda: sign_test_power(100, 1.0, 1.0), r"`lead` must be a number in \(-1, 1\)"),
    (lambda: sign_test_power(100, 0.1, 0.4, test="plain"), r"`test` must be 'randomised sign' or 'sign'"),
    (lambda: plan_gold_study(0.05, 0.4, discordance=0.1, test="randomised sign"), r"is below lead\^2 \+ sd\^2 = 0.1625"),
    (lambda: plan_gold_study(0.05, 0.4, discordance=0.3), r"`discordance` is the sign test's; the betting plan"),
    (lambda: plan_gold_study(0.05, 0.4, test="plain", discordance=0.3), r"`discordance` is the sign test's"),
    (lambda: plan_gold_study(0.05, 0.4, test="sign", tau=0.01), r"`tau` must be 0 for test='sign'"),
    (lambda: plan_gold_study(0.05, 0.4, test="e-process"), r"`test` must be 'auto' or one of"),
    (lambda: plan_gold_study(0.05, 0.4, test="randomised sign", tail="normal", proxy_correlation=0.3, n_items=1000), r"pass test='plain'"),
    (lambda: plan_gold_study(0.05, 0.4, test="sign", tail="hoeffding"), r"`tail` is the plain plan's"),
    (lambda: plan_gold_study(0.0, 0.4), r"nothing can be certified"),
    (lambda: gold_discordance_bound([["a"]], ["a"]), r"`ann` must be humancert Annotations"),
])
def test_refusals(call, match):
    with pytest.raises(ValueError if "Annotations" not in match else TypeError, match=match): call()


def test_old_plan_still_selectable():
    "test='plain' is the plan of the plain certificate that plan_gold_study gave before (the normal plan's closed form, by hand)."
    n = int(np.ceil(((stats.norm.ppf(0.95) + stats.norm.ppf(0.8)) * 0.45 / 0.05) ** 2))
    assert plan_gold_study(0.05, 0.45, tail="normal", test="plain").n_gold == n
    assert GoldPlan(1, 0.95, 0.8, 0.8, 0.05, 0.45, 0.45, "bernstein", 0.0).test == "plain"


def test_power_rises_with_n():
    "The planner's bisection needs the randomised test's power non-decreasing in n: checked at every n up to 2,000 on four designs."
    for lead, pi in ((0.05, 0.35), (0.05, 1.0), (0.1, 0.5), (0.02, 0.2)):
        p = np.array([sign_test_power(n, lead, pi) for n in range(1, 2001)])
        assert np.diff(p).min() >= -1e-12, (lead, pi)


def test_auto_with_a_plain_option_plans_the_plain_certificate():
    "A chosen tail or a PPI++ proxy is the plain plan's: 'auto' then plans the plain certificate, the same n as test='plain'; without them, the sign test."
    from humancert.certification.planner import plan_gold_study
    assert plan_gold_study(0.05, 0.4, tail="hoeffding").test == "plain"
    assert plan_gold_study(0.05, 0.4, tail="hoeffding").n_gold == plan_gold_study(0.05, 0.4, tail="hoeffding", test="plain").n_gold
    assert plan_gold_study(0.05, 0.4, tail="normal", proxy_correlation=0.3, n_items=5000).test == "plain"
    assert plan_gold_study(0.05, 0.4).test == "betting"


def _two_point_gold(n, lead, sd, rng):
    "n gold items whose D is exactly lead +- sd (1/2 each): 2 classes, 20 labels per item, D > 0 the model right with q = 1 - D."
    d = np.where(rng.random(n) < 0.5, lead + sd, lead - sd)
    k = np.round(np.where(d > 0, 1 - d, -d) * 20).astype(int)              # labels of the true class 0
    return Annotations.from_counts(np.column_stack([k, 20 - k])), np.where(d > 0, 0, 1), pd.Series(np.zeros(n, int))


@pytest.mark.parametrize("fn", ["certify_with_gold", "gold_test"])
def test_plan_betting_power_against_the_public_test(fn):
    """Issue 42: the default plan is the betting test's, simulated; at its n* the share of 300 fresh studies the public default
    certifies is within 4 SE (binomial, both simulations) of the plan's power, which is >= 0.8."""
    plan = plan_gold_study(0.1, 0.45)
    assert plan.test == "betting" and plan.power_at_n >= 0.8 and plan.discordance is None and "simulated" in repr(plan)
    assert plan_gold_study(0.1, 0.45) == plan                                  # deterministic: a fixed seed inside
    rng, R = np.random.default_rng(421 if fn == "gold_test" else 422), 300
    call = gold_test if fn == "gold_test" else certify_with_gold
    share = np.mean([call(*_two_point_gold(plan.n_gold, 0.1, 0.45, rng)).certified for _ in range(R)])
    p = plan.power_at_n
    assert abs(share - p) < 4 * np.sqrt(p * (1 - p) / R + p * (1 - p) / 400), (share, p)
