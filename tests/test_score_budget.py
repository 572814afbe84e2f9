"""The corrected score's budget (issue 43 item 5): labels for a target half-width, n_eff, the Dorner-Nastl-Hardt bound.

* Hand case: the issue's design (pass rate 0.7, sensitivity 0.9, specificity 0.6) needs 323 gold-only labels and 233
  PPI++ labels for +-0.05 at 95 % (closed forms in nb 62).
* Simulation through nb 60's own estimator: at the planned n the mean PPI++ half-width is the target within 3 standard
  errors (plus one label's step); the betting headline's n, re-simulated with another seed, likewise.
* The bound: every binary judge no more accurate than the system (and positively correlated) is worth at most 2x the labels.
"""
import numpy as np
import pandas as pd
import pytest

from humancert import ScoreBudget, corrected_score, score_budget
from humancert.system_score.budget import SIM_POOL, _betting_half_width, _binary_pilot
from humancert.system_score.corrected_score import ppi_lambda, ppi_mean

Z = 1.959963984540054
DESIGN = dict(pass_rate=0.7, sensitivity=0.9, specificity=0.6)


def test_hand_case_and_result():
    b = score_budget(0.05, **DESIGN, reps=0)
    assert (b.n_gold, b.n_ppi) == (int(np.ceil(Z ** 2 * 0.21 / 0.05 ** 2)), int(np.ceil(Z ** 2 * 0.1512 / 0.05 ** 2))) == (323, 233)
    assert b.gain == pytest.approx(0.21 / 0.1512, abs=1e-9) and b.n_eff == pytest.approx(233 * 0.21 / 0.1512, abs=1e-6)
    assert b.correlation == pytest.approx(0.105 / np.sqrt(0.21 * 0.1875), abs=1e-12)
    assert (b.headline, b.n_headline) == ("PPI++", 300)                        # below 300 corrected_score prints betting
    assert isinstance(b, ScoreBudget) and list(b.to_frame().labels) == [323, 233, 300] and "<table" in b._repr_html_()
    assert "ScoreBudget" in repr(b) and "not simulated" in " ".join(b.notes)
    finite = score_budget(0.05, **DESIGN, n_items=1000, reps=0)
    assert finite.n_ppi > b.n_ppi and finite.n_gold == b.n_gold                 # the judge term lambda^2 var f / N costs labels
    assert score_budget(0.001, **DESIGN, n_items=1000, reps=0).n_gold is None   # not reachable with N items


def test_planned_n_gives_the_target_half_width():
    "600 simulated studies (standard error about 1e-4) through ppi_lambda / ppi_mean at the planned n."
    N = 4000
    plan = score_budget(0.05, **DESIGN, n_items=N, reps=0)
    sample, rng = _binary_pilot(0.7, 0.9, 0.6)["sample"], np.random.default_rng(12)
    def mean_hw(n, reps=600):
        hw = []
        for _ in range(reps):
            y, f = sample(rng, N)
            g = rng.choice(N, n, replace=False)
            hw.append(Z * np.sqrt(ppi_mean(y[g], f[g], f, ppi_lambda(y[g], f[g], f))[1]))
        return np.mean(hw), np.std(hw, ddof=1) / np.sqrt(reps)
    m, se = mean_hw(plan.n_ppi)
    assert abs(m - 0.05) <= 3 * se + 0.05 / plan.n_ppi, (m, se)
    assert mean_hw(int(0.8 * plan.n_ppi), 200)[0] > 0.054                      # power of the check: fewer labels miss the target


def test_betting_headline_by_simulation():
    wide = score_budget(0.12, **DESIGN, reps=20, seed=4)
    assert wide.headline == "betting" and wide.n_ppi < wide.n_headline < 300 and wide.betting[2] == 20
    m, se = _betting_half_width(_binary_pilot(0.7, 0.9, 0.6)["sample"], wide.n_headline, SIM_POOL, 0.05, 40, 99, 1.0)
    assert abs(m - 0.12) <= 3 * np.hypot(se, wide.betting[1]) + 0.12 / wide.n_headline, (m, se, wide.betting)
    assert score_budget(0.12, **DESIGN, reps=20, seed=4).n_headline == wide.n_headline       # seeded
    assert score_budget(0.12, **DESIGN, reps=20, seed=None).seed is not None


def test_dorner_nastl_hardt_bound():
    held, over = [], []
    for p in (0.55, 0.7, 0.9, 0.97):
        for se in (0.6, 0.8, 0.95, 0.995):
            for sp in (0.2, 0.5, 0.8, 0.95):
                b = score_budget(0.05, pass_rate=p, sensitivity=se, specificity=sp, reps=0)
                (held if "the bound applies" in b.dnh else over).append(b.gain)
    assert len(held) >= 15 and max(held) <= 2.0
    assert max(over) > 2.0                                                     # without the condition the gain can exceed 2
    assert "not checked" in score_budget(0.1, correlation=0.9, sd=1.0, reps=0).dnh


def test_pilots_agree():
    rng = np.random.default_rng(5)
    N, ids = 4000, pd.Index([f"a{k}" for k in range(4000)])
    truth = rng.random(N) < 0.7
    judge = pd.Series(np.where(truth, rng.random(N) < 0.9, rng.random(N) >= 0.6), index=ids)
    gold = pd.Series(truth, index=ids).iloc[rng.choice(N, 200, replace=False)]
    a, b = score_budget(0.05, (judge, gold), reps=0), score_budget(0.05, corrected_score(judge, gold), reps=0)
    assert abs(a.n_ppi - b.n_ppi) <= 0.05 * a.n_ppi and abs(a.n_gold - b.n_gold) <= 0.05 * a.n_gold, (a, b)   # two readings of one pilot
    assert a.n_items == b.n_items == N


@pytest.mark.parametrize("kw, err, msg", [
    (dict(half_width=-1, **DESIGN), ValueError, "`half_width` must be a positive number"),
    (dict(half_width=0.05), ValueError, "give a `pilot`"),
    (dict(half_width=0.05, pilot=pd.Series([1, 0])), TypeError, "`pilot` must be a"),
    (dict(half_width=0.05, pass_rate=0.7, sensitivity=0.9), ValueError, "give all of"),
    (dict(half_width=0.05, pass_rate=0.7, sensitivity=1.0, specificity=0.6), ValueError, "`sensitivity` must be a number in (0, 1)"),
    (dict(half_width=0.05, correlation=0.5), ValueError, "`sd`"),
    (dict(half_width=0.05, **DESIGN, reps=5), ValueError, "`reps` must be"),
    (dict(half_width=0.05, **DESIGN, n_items=0), ValueError, "`n_items` must be"),
    (dict(half_width=0.05, **DESIGN, confidence=0.05), ValueError, "failure probability"),
    (dict(half_width=0.05, **DESIGN, seed=1.5), TypeError, "`seed`"),
])
def test_bad_input_names_the_argument(kw, err, msg):
    with pytest.raises(err, match=msg.replace("(", r"\(").replace(")", r"\)")): score_budget(**kw)
