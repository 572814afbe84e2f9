"""Cross-checks of humancert.survey.calibration against scikit-learn (a test-only dependency)."""
import numpy as np
import pandas as pd
import pytest
from sklearn.isotonic import IsotonicRegression

from humancert.data.annotations import Annotations
from humancert.survey.calibration import calibrate_isotonic, calibrate_by_group
from humancert.data.datasets import load


def test_isotonic_matches_sklearn_on_personal_attacks():
    pa = load("personal_attacks")
    a = pa.annotations
    s = pa.predictions["predictor"]["attack"].to_numpy()
    counts = np.asarray(a.counts)
    share = counts[:, 1] / counts.sum(1)
    ours = calibrate_isotonic(s, a, positive="attack")["attack"].to_numpy()
    # the same fit, label by label with weight 1/n per label (the authors' weighting), in scikit-learn
    n = counts.sum(1)
    x = np.repeat(s, 2); y = np.tile([0.0, 1.0], len(s))
    w = np.c_[counts[:, 0] / n, counts[:, 1] / n].ravel()
    ref = IsotonicRegression(out_of_bounds="clip").fit(x, y, sample_weight=w).predict(s)
    np.testing.assert_allclose(ours, ref, atol=1e-9)
    assert abs(ours.mean() - share.mean()) < 1e-9          # an isotonic fit preserves the (weighted) mean


@pytest.mark.parametrize("seed", range(5))
def test_isotonic_matches_sklearn_random_with_ties_and_holdout(seed):
    rng = np.random.default_rng(seed)
    I = 300
    counts = np.c_[rng.integers(0, 6, I), rng.integers(0, 6, I)]
    counts[counts.sum(1) == 0, 0] = 1
    a = Annotations.from_counts(counts)
    s = np.round(rng.random(I), 1)                         # many ties
    fit = rng.random(I) < 0.7
    ours = calibrate_isotonic(s, a, fit=fit)[1].to_numpy()
    share = counts[:, 1] / counts.sum(1)
    ref = IsotonicRegression(out_of_bounds="clip").fit(s[fit], share[fit]).predict(s)
    np.testing.assert_allclose(ours, ref, atol=1e-9)


def test_group_calibration_is_the_mean_share_per_group_and_inputs_untouched():
    counts = np.array([[3, 1], [0, 4], [2, 2], [1, 3]])
    a = Annotations.from_counts(counts)
    g = pd.Series(["x", "y", "x", "y"])
    before = g.copy()
    P = calibrate_by_group(g, a)
    np.testing.assert_allclose(P[1].to_numpy(), [(0.25 + 0.5) / 2, (1 + 0.75) / 2] * 2)
    np.testing.assert_allclose(P.sum(axis=1), 1)
    pd.testing.assert_series_equal(g, before)
