"""Direct checks of four behaviours that, before these tests, only a stored notebook output or a notebook cell guarded
(issue 36, item 19): the empirical Bernstein tail's inverse, `alt_test(test="auto")` at exactly 30 items, a winning
rate of exactly 0.5 passing, and which label `duplicates="first"` / `"last"` keeps.

Every expected value is computed by hand here (or by scipy on data whose differences are written out by hand), never
read off the package's own output. Each test was run against a deliberately broken copy of the code and failed:
the Bernstein inverse with `4 * b * t` changed to `2 * b * t` in `_bernstein_delta`; the "auto" switch with
`t["n"] < AUTO_MIN_ITEMS` changed to `<=`; the verdict with `win >= 0.5` changed to `>`; the duplicates with
`end if duplicates == "last" else start` swapped.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.certification.tails import upper_limit, upper_tail_delta
from humancert.data.annotations import Annotations
from humancert.judges.alt_test import AUTO_MIN_ITEMS, alt_test


# --- the empirical Bernstein tail and its inverse -----------------------------------------------------------------
# Maurer & Pontil's bound: with probability >= 1 - delta the mean is below the sample mean plus
# slack(delta) = sqrt(2 V ln(2/delta) / n) + 7 ln(2/delta) / (3 (n - 1)), V the sample variance (ddof = 1).
# upper_tail_delta(t, tail="bernstein") inverts it: the delta at which the slack equals t.

def _hand_slack(values, delta):
    "Maurer and Pontil's slack, written out from the formula with the sample variance summed by hand."
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    L = np.log(2 / delta)
    return (2 * var * L / n) ** 0.5 + 7 * L / (3 * (n - 1))


@pytest.mark.parametrize("delta", [0.2, 0.05, 0.01, 1e-4])
def test_bernstein_inverse_of_hand_slack(delta):
    "delta_u(slack(delta)) = delta, and the Bernstein upper limit is U^2 + slack(delta), on 60 zeros and 140 ones."
    values = [0.0] * 60 + [1.0] * 140                     # mean 0.7, variance 0.21 * 200 / 199
    slack = _hand_slack(values, delta)
    np.testing.assert_allclose(upper_tail_delta(slack, 200, 0.7, values, tail="bernstein"), [delta], rtol=1e-9)
    assert upper_limit(0.7, 200, delta, tail="bernstein", values=values) == pytest.approx(0.7 + slack, abs=1e-12)


def test_bernstein_inverse_exact_case():
    "A case worked on paper: values 0, 1, 0, 1 (n = 4, V = 1/3) and delta = 2 e^-1, so ln(2/delta) = 1 and slack = sqrt(1/6) + 7/9."
    slack = (1 / 6) ** 0.5 + 7 / 9
    np.testing.assert_allclose(upper_tail_delta(slack, 4, 0.5, [0, 1, 0, 1], tail="bernstein"), [2 * np.exp(-1)], rtol=1e-12)
    # a slack below it means a larger delta, above it a smaller one: the inverse falls with t
    below, above = upper_tail_delta([slack - 0.1, slack + 0.1], 4, 0.5, [0, 1, 0, 1], tail="bernstein")
    assert below > 2 * np.exp(-1) > above


# --- alt_test: the panel worked by hand ----------------------------------------------------------------------------
# Three annotators A, B, C and one judge J, two classes, score 'accuracy'. For annotator A on an item, W_h = 1 when A's
# label agrees with the other two at least as well as J's label does, W_f = 1 when J's does at least as well as A's;
# d = W_h - W_f. Three kinds of item:
#   "dissent":  A = 1, B = C = 0, J = 0  -> A agrees with 0 of 2 others, J with 2 of 2: d_A = -1
#   "miss":     A = B = C = 0, J = 1     -> A agrees with 2, J with 0: d_A = +1
#   "agree":    A = B = C = J = 0        -> tie: d_A = 0

def _panel(dissent, miss, agree):
    "Annotations of A, B, C and the judge's labels over `dissent` + `miss` + `agree` items of the three kinds above."
    rows = [(1, 0, 0, 0)] * dissent + [(0, 0, 0, 1)] * miss + [(0, 0, 0, 0)] * agree
    df = pd.DataFrame(rows, columns=["A", "B", "C", "J"], index=pd.RangeIndex(len(rows), name="item"))
    return Annotations.from_wide(df[["A", "B", "C"]]), df["J"]


def _d_of_A(dissent, miss, agree): return np.array([-1.0] * dissent + [1.0] * miss + [0.0] * agree)


def test_auto_uses_t_at_exactly_30_items():
    "At n = AUTO_MIN_ITEMS = 30 items 'auto' uses the t-test: A's p-value is scipy's one-sample t-test on the hand-written d."
    assert AUTO_MIN_ITEMS == 30                            # the documented switch ("Wilcoxon below 30 items")
    ann, judge = _panel(10, 5, 15)                         # 30 items
    res = alt_test(ann, judge, epsilon=0.1, test="auto", min_items_per_annotator=2)
    tab = res.to_frame()
    assert (tab["items"] == 30).all() and (tab["test"] == "t").all(), tab
    want = stats.ttest_1samp(_d_of_A(10, 5, 15), 0.1, alternative="less").pvalue
    assert tab.loc["A", "p_value"] == pytest.approx(want, rel=1e-9)


def test_auto_uses_wilcoxon_at_29_items():
    "One item fewer (29): 'auto' switches to Wilcoxon's signed-rank test (zero differences dropped), as scipy computes it."
    ann, judge = _panel(10, 5, 14)                         # 29 items
    tab = alt_test(ann, judge, epsilon=0.1, test="auto", min_items_per_annotator=2).to_frame()
    assert (tab["items"] == 29).all() and (tab["test"] == "wilcoxon").all(), tab
    want = stats.wilcoxon(_d_of_A(10, 5, 14) - 0.1, alternative="less", zero_method="wilcox").pvalue
    assert tab.loc["A", "p_value"] == pytest.approx(want, rel=1e-9)


def test_winning_rate_exactly_half_passes():
    """Two annotators, one rejected: winning rate 1/2 = 0.5 passes (the paper: omega >= 0.5).

    Annotators A, B and judge J; each annotator's "others" is the other annotator. 20 items A = 1, B = J = 0: d_A = -1
    (J agrees with B, A does not) and d_B = 0 (neither B nor J agrees with A: a tie).
    5 items A = B = 0, J = 1: d_A = d_B = +1. 10 items A = B = J = 0: ties. So d_A has mean -15/35 (p tiny) and d_B
    has mean +5/35 > epsilon (p > 1/2). Benjamini-Yekutieli with m = 2, c(2) = 3/2 rejects A (p <= 0.05/3) only.
    """
    rows = [(1, 0, 0)] * 20 + [(0, 0, 1)] * 5 + [(0, 0, 0)] * 10
    df = pd.DataFrame(rows, columns=["A", "B", "J"])
    d_a = np.array([-1.0] * 20 + [1.0] * 5 + [0.0] * 10)
    d_b = np.array([0.0] * 20 + [1.0] * 5 + [0.0] * 10)
    p_a = stats.ttest_1samp(d_a, 0.1, alternative="less").pvalue
    p_b = stats.ttest_1samp(d_b, 0.1, alternative="less").pvalue
    assert p_a <= 0.05 / 3 and p_b > 0.05 * 2 / 3          # the hand BY verdict: A rejected, B not
    res = alt_test(Annotations.from_wide(df[["A", "B"]]), df["J"], epsilon=0.1, min_items_per_annotator=2)
    assert (res.n_tested, res.n_rejected) == (2, 1)
    assert res.winning_rate == 0.5
    assert res.passed is True
    tab = res.to_frame()
    assert tab.loc["A", "p_value"] == pytest.approx(p_a, rel=1e-9) and tab.loc["B", "p_value"] == pytest.approx(p_b, rel=1e-9)


# --- duplicates="first" / "last" -----------------------------------------------------------------------------------

def _long_with_repeats():
    "Annotator a labels item 1 three times ('x', then 'y', then 'z', other rows between) and item 2 twice ('y', 'x')."
    return pd.DataFrame({"item":      [1,   2,   1,   3,   2,   1,   3,   1,   2],
                         "annotator": ["a", "a", "a", "b", "a", "a", "a", "b", "b"],
                         "label":     ["x", "y", "y", "x", "x", "z", "y", "x", "y"]})


@pytest.mark.parametrize("duplicates,first_of_each", [("first", True), ("last", False)])
def test_duplicates_keeps_first_or_last_in_row_order(duplicates, first_of_each):
    "duplicates='first' keeps the earliest row of each repeated (item, annotator) pair, 'last' the latest, whatever rows sit between."
    df = _long_with_repeats()
    ann = Annotations.from_long(df, duplicates=duplicates)
    wide = ann.to_wide()
    want_a = {1: "x", 2: "y", 3: "y"} if first_of_each else {1: "z", 2: "x", 3: "y"}
    assert {i: wide.loc[i, "a"] for i in (1, 2, 3)} == want_a
    assert {i: wide.loc[i, "b"] for i in (1, 2, 3)} == {1: "x", 2: "y", 3: "x"}   # b's single labels untouched
    assert ann.counts.sum() == 6                            # one label per (item, annotator) pair: 3 items x 2 annotators


def test_duplicates_error_names_the_pair():
    "The default refuses conflicting repeats, naming the argument that resolves them."
    with pytest.raises(ValueError, match="duplicates='first' or 'last'"):
        Annotations.from_long(_long_with_repeats())
