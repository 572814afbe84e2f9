"""Issue 42 item 8: behaviour that only a notebook cell checked (an assert or a stored repr in the notebooks issue 42
touched: certification 17, 19, 25, 26, 27 and agreement 07), now checked directly here. Every expected value is worked
out by hand in the comment beside it (or comes from scipy, the peer), never read off the code's own output; each test
was seen to fail on a deliberate bug in the code it checks (listed in the report of the branch that added this file)."""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.certification.gold_certificate import (plugin_log_capital, betting_confidence, _asymptotic_row, _power_table,
                                                      _check_sizes)
from humancert.certification.gold_power import GoldTest, _test_from_arrays, _uniform
from humancert.certification.gold_sequence import agrapa_bets, _proved_after
from humancert.certification.planner import _sign_critical, _gold_slack
from humancert.certification.active_gold import _sampling_scores
from humancert.certification.gold_certificate import proxy_differences
from humancert.certification.active_gold import differences_by_class
from humancert.agreement.coefficients import _jackknife, _bca_levels, _t_interval, _z_interval, _sampled_fraction

L20 = np.log(20)                                                    # ln(1 / delta) at delta = 0.05


def test_plugin_capital_bets_from_the_past_only():
    "nb 19: each bet uses the values before it (a prior variance 1/4 as one pseudo-value), capped at 3/4; by hand on 3 values."
    x = np.array([0.5, -0.25, 1.0])
    m2 = (0.5 - 0.25) / 2                                            # the mean of the first two values
    var = np.array([0.25, (0.25 + 0.0) / 2, (0.25 + (0.5 - m2) ** 2 + (-0.25 - m2) ** 2) / 3])   # before t = 1, 2, 3
    lam = np.minimum(np.sqrt(2 * L20 / (3 * var)), 0.75)
    np.testing.assert_allclose(plugin_log_capital(x, 0.0, -1, 1, 3), np.cumsum(np.log1p(lam * x)), rtol=0, atol=1e-12)
    one = plugin_log_capital([-1.0], 0.0, -1, 1, 1000)[0]            # a single loss at the uncapped bet sqrt(2 ln 20 / (1000 / 4))
    assert np.exp(one) == pytest.approx(1 - np.sqrt(2 * L20 / 250), abs=1e-12)


def test_betting_confidence_by_hand():
    "nb 19: ten values of 1: the variance is the prior alone, 1/4 over t + 1; S = 1 - 1 / (the capital's product); a tie gives -1."
    lam = np.minimum(np.sqrt(2 * L20 / (10 * (0.25 / np.arange(1, 11)))), 0.75)
    assert betting_confidence(np.ones(10), 0.0, 0.05) == pytest.approx(1 - 1 / np.prod(1 + lam), abs=1e-12)
    assert betting_confidence(np.r_[np.ones(5), -np.ones(5)], 0.0, 0.05) == -1.0


def test_chosen_tests_from_arrays_by_hand():
    "nb 25: 8 wins, 2 losses, 5 ties: exact p = P(Bin(10, 1/2) >= 8) = 56/1024; randomised with u = 1/4: (11 + 45/4)/1024; aGRAPA 1.5."
    M = np.array([1] * 8 + [0] * 2 + [1] * 5); H = np.array([0] * 8 + [1] * 2 + [1] * 5)
    s, _, w, l = _test_from_arrays("sign", M, H, M - 0.5, 0.05, 0.0)
    assert (w, l) == (8, 2) and s == pytest.approx(1 - 56 / 1024, abs=1e-15)
    assert _test_from_arrays("randomised sign", M, H, None, 0.05, 0.0, 0.25)[0] == pytest.approx(1 - (11 + 45 / 4) / 1024, abs=1e-15)
    assert _test_from_arrays("sign", H, M, None, 0.05, 0.0)[0] == -1.0            # more losses than wins
    # aGRAPA on D = 1, 1, -1: lambda_1 = 0; lambda_2 = (1/2) / (1/8 + 1/4) = 4/3, capped at 1/2: capital 1.5, then 0.75
    assert _test_from_arrays("e-process", None, None, np.array([1.0, 1.0, -1.0]), 0.05, 0.0)[0] == pytest.approx(1 - 1 / 1.5, abs=1e-12)


def test_uniform_is_a_stream_of_its_own():
    "nb 25: the randomised sign test's uniform lies in [0, 1), changes with the seed, and is not the labels' first draw of that seed."
    us = [_uniform(s) for s in range(50)]
    assert all(0 <= u < 1 for u in us) and len(set(us)) == 50
    assert all(_uniform(s) != np.random.default_rng(s).random() for s in range(50))
    assert _uniform(7) == np.random.default_rng([7, 1]).random()                  # the documented stream: seed, then 1


def test_gold_test_repr_written_by_hand():
    "nb 25's stored repr of GoldTest, written out by hand from its fields."
    toy = GoldTest("sign", True, 0.9453, 0.06, 100, 8, 2, 0.05, 0.0, 3)
    assert repr(toy) == "GoldTest(certified at 95%: S=0.9453 (sign), estimate=+0.0600, n_gold=100, wins=8, losses=2, tau=0, seed=3)"
    assert toy.confidence == pytest.approx(0.95) and toy.to_frame().loc["sign", ["wins", "losses"]].tolist() == [8, 2]


def test_asymptotic_rows_are_withheld_where_unmeasured():
    "nb 19: a normal-limit row gives Phi(z) and est - z_{1-delta} se only at or above its measured size and at delta >= 0.05."
    s, lo, why = _asymptotic_row(0.2, 0.1, 0.0, 0.05, 5000, "plain, normal limit")
    assert (s, lo, why) == (pytest.approx(stats.norm.cdf(2.0), abs=1e-12), pytest.approx(0.2 - stats.norm.ppf(0.95) * 0.1, abs=1e-12), "")
    assert _asymptotic_row(0.2, 0.0, 0.0, 0.05, 5000, "plain, normal limit")[:2] == (None, None)       # no spread: no normal limit
    assert _asymptotic_row(0.2, 0.1, 0.0, 0.05, 999, "plain, normal limit")[:2] == (None, None)        # measured from 1,000
    assert _asymptotic_row(0.2, 0.1, 0.0, 0.05, 49, "prediction-powered, PPI++")[:2] == (None, None)    # measured from 50
    assert _asymptotic_row(0.2, 0.1, 0.0, 0.05, 50, "prediction-powered, PPI++")[0] is not None
    assert "delta = 0.01" in _asymptotic_row(0.2, 0.1, 0.0, 0.01, 5000, "prediction-powered, PPI++")[2]


def test_power_table_by_hand():
    "nb 19: per size, the mean of each S column and the share of subsets with S >= 0.95, by hand."
    raw = pd.DataFrame({"n_gold": [10, 10, 20], "subset": [0, 1, 0], "S plain": [0.5, 0.97, 0.99], "S other": [-1.0, 0.2, 0.96]})
    assert _power_table(raw, 0.05).to_dict("list") == {"S plain": [0.735, 0.99], "S other": [-0.4, 0.96], "power plain": [0.5, 1.0],
                                                       "power other": [0.0, 1.0], "subsets": [2, 1]}


def test_check_sizes_names_what_is_wrong():
    "nb 19: sizes are whole numbers from 2 to the gold labels there are."
    assert _check_sizes([50, np.int64(100)], 100) == [50, 100] and _check_sizes(7, 10) == [7]
    with pytest.raises(ValueError, match=r"`sizes` has \[200\] above the 120 gold labels"): _check_sizes([50, 200], 120)
    with pytest.raises(ValueError, match="at least 2 gold items"): _check_sizes([1], 120)
    for bad in ([2.5], [], [True]):
        with pytest.raises(TypeError, match="whole numbers"): _check_sizes(bad, 120)


def test_agrapa_bets_by_hand():
    "nb 26: lambda_t = (mu - m) / (var + (mu - m)^2) from the past (one pseudo-value at m, prior variance (hi - lo)^2 / 16), in [0, cap / (m - lo)]."
    # two values 0.2 with m = 0: t = 1 has no past (bet 0); t = 2: gap = 0.2 / 2 = 0.1, var = (1/4 + 0.04 - 0.04) / 2 = 0.125: 0.1 / 0.135
    np.testing.assert_allclose(agrapa_bets([0.2, 0.2], [0, 0], -1, 1, cap=0.9), [0, 0.1 / 0.135], rtol=0, atol=1e-12)
    assert agrapa_bets([1, 1], [0, 0], -1, 1).tolist() == [0.0, 0.5]                     # 0.5 / 0.375 = 4/3, capped at 0.5 / 1
    assert agrapa_bets([-0.5, -0.5], [0, 0], -1, 1).tolist() == [0.0, 0.0]               # evidence against the claim: no bet


def test_proved_after_by_hand():
    "nb 26: without replacement, 4 of 6 items at D = 1 prove mean D >= (4 - 2) / 6 > 0 at the 4th; a pool mean exactly tau is no proof."
    assert _proved_after(np.ones(4), 0.0, 6, -1, 2).tolist() == [False, False, False, True]
    assert _proved_after([0.5, 0.5], 0.4, 2, -1, 2).tolist() == [False, True]            # the whole pool seen: mean 0.5 > 0.4
    assert _proved_after([0.5, 0.3], 0.4, 2, -1, 2).tolist() == [False, False]           # mean exactly 0.4
    assert not _proved_after(np.ones(4), 0.0, None, -1, 2).any()                          # i.i.d.: nothing is proved


def test_sign_critical_by_hand():
    "nb 17: m = 5: P(Bin(5, 1/2) > 4) = 1/32 <= 0.05 < P(> 3) = 6/32, so c = 4 and gamma = (0.05 - 1/32) / P(= 4) = (0.05 - 1/32) / (5/32)."
    c, g = _sign_critical(np.array([5, 1]), 0.05)
    assert c.tolist() == [4, 1]                                   # m = 1: P(Bin(1, 1/2) > 1) = 0 <= 0.05 < P(> 0) = 1/2
    np.testing.assert_allclose(g, [(0.05 - 1 / 32) / (5 / 32), 0.05 / 0.5], rtol=0, atol=1e-12)


def test_sampling_scores_by_hand():
    "nb 27: an item where every label and the model agree has score 0 (D is the same whatever the gold label); f is the proxy."
    un = Annotations.from_wide(pd.DataFrame({"x": ["a", "a", "a"], "y": ["a", "a", "b"]}, index=["agree", "differ", "split"]))
    judge = pd.Series(["a", "b", "a"], index=un.items)
    s, f = _sampling_scores(differences_by_class(un, judge), un.to_counts().to_numpy() / 2, 0.5)
    assert s[0] == 0.0 and s[1] > s[2] > 0
    np.testing.assert_allclose(f, proxy_differences(un, judge).to_numpy(), rtol=0, atol=1e-15)


def test_jackknife_leaves_each_item_out():
    "nb 07: the weighted mean of 1, 2, 4, 8 with item i left out is (15 - x_i) / 3, in one call per item or in batches."
    x = np.array([1., 2., 4., 8.])
    np.testing.assert_allclose(_jackknife(lambda w: float(w @ x / w.sum()), 4), (15 - x) / 3, rtol=0, atol=1e-15)
    np.testing.assert_allclose(_jackknife(lambda w: w @ x / w.sum(1), 4, batch=3), (15 - x) / 3, rtol=0, atol=1e-15)


def test_gold_slack_by_hand():
    "nb 17: the planner's slack at 100 gold items, sd 0.5, delta 0.05: Hoeffding 2 sqrt(ln 20 / 200); Bernstein sqrt(2 sd^2 ln 40 / n) + 14 ln 40 / (3 (n - 1)); normal z_0.95 sd / sqrt(n)."
    assert _gold_slack(100, 0.5, 0.05, "hoeffding") == pytest.approx(2 * np.sqrt(np.log(20) / 200), abs=1e-15)
    assert _gold_slack(100, 0.5, 0.05, "bernstein") == pytest.approx(np.sqrt(0.5 * np.log(40) / 100) + 14 * np.log(40) / 297, abs=1e-15)
    assert _gold_slack(100, 0.5, 0.05, "normal") == pytest.approx(stats.norm.ppf(0.95) * 0.05, abs=1e-12)


def test_rating_intervals_by_hand():
    "nb 07: value -/+ t_{n-1} se (or z) with the upper end capped at 1; Gwet's sampled fraction n / N, refused when N < n."
    assert _t_interval(0.5, 0.1, 11, 0.95)[0] == pytest.approx(0.5 - stats.t.ppf(0.975, 10) * 0.1, abs=1e-12)
    assert _t_interval(0.5, 0.1, 11, 0.95)[1] == pytest.approx(0.5 + stats.t.ppf(0.975, 10) * 0.1, abs=1e-12)
    assert _t_interval(0.95, 0.1, 11, 0.95)[1] == 1.0
    np.testing.assert_allclose(_z_interval(0.5, 0.1, 0.95), (0.5 - 1.959964 * 0.1, 0.5 + 1.959964 * 0.1), rtol=0, atol=1e-6)   # z_0.975, from the table
    assert _z_interval(0.95, 0.1, 0.95)[1] == 1.0
    assert (_sampled_fraction(50, None), _sampled_fraction(50, 200)) == (0.0, 0.25)
    with pytest.raises(ValueError, match="`population`=40 is smaller than the 50 items rated"): _sampled_fraction(50, 40)


def test_bca_levels_match_scipy():
    "nb 07: the BCa quantile levels equal scipy's (the peer), and stay finite when every resample lies on one side."
    resampling = pytest.importorskip("scipy.stats._resampling")
    if not hasattr(resampling, "_bca_interval"): pytest.skip("this scipy has no _bca_interval to compare with")
    xs = np.random.default_rng(8).exponential(size=40)
    vals = np.array([xs[np.random.default_rng(s).integers(0, 40, 40)].mean() for s in range(500)])
    lv = _bca_levels(vals, xs.mean(), _jackknife(lambda w: float(w @ xs / w.sum()), 40), 0.9)
    a1, a2, _ = resampling._bca_interval((xs,), lambda x, axis: x.mean(axis=axis), -1, 0.05, vals, None, np)
    np.testing.assert_allclose(lv, (float(a1), float(a2)), rtol=0, atol=1e-12)
    np.testing.assert_allclose(_bca_levels(np.array([0., 1., 2., 3.]), 1.5, np.array([1., 1., 1.]), 0.9), (0.05, 0.95), rtol=0, atol=1e-12)
    assert np.isfinite(_bca_levels(np.array([2., 3.]), 1.0, np.array([1., 2.]), 0.9)).all()
