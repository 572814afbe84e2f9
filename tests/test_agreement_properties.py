"""Property tests: agreement measures against peers and brute force on many random designs, and invariances.

Peers (test-only dependencies): krippendorff.alpha, statsmodels' fleiss_kappa (fixed labels per item only),
scikit-learn's cohen_kappa_score. Brute force: explicit loops over items and annotator pairs.
"""
import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
import krippendorff
from hypothesis import given, settings, strategies as st, assume, HealthCheck
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from humancert.data.annotations import Annotations
from humancert.agreement.measures import (percent_agreement, fleiss_kappa, krippendorff_alpha, pairwise_agreement,
                                 cohen_kappa_pairwise, item_agreement)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def designs(draw, fixed_n=False):
    "A wide matrix of class codes with -1 for missing, valid for Annotations."
    I = draw(st.integers(1, 30)); K = draw(st.integers(2, 6)); C = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = rng.integers(0, C, size=(I, K))
    if fixed_n:
        n = draw(st.integers(2, K))
        for i in range(I): x[i, rng.permutation(K)[n:]] = -1
    else:
        x = np.where(rng.random((I, K)) < draw(st.floats(0, 0.6)), -1, x)
    assume(((x >= 0).sum(1) >= 2).any() and ((x >= 0).sum(0) >= 1).all())
    return x


def brute_pairs(x):
    "Per annotator pair: (agreements, common items) by explicit loops."
    K = x.shape[1]
    out = {}
    for a, b in itertools.combinations(range(K), 2):
        both = (x[:, a] >= 0) & (x[:, b] >= 0)
        out[a, b] = (int((x[both, a] == x[both, b]).sum()), int(both.sum()))
    return out


def brute_item_agreement(row):
    labs = row[row >= 0]
    pairs = [(i, j) for i in range(len(labs)) for j in range(len(labs)) if i != j]
    return np.mean([labs[i] == labs[j] for i, j in pairs]) if pairs else np.nan


def kappa_or_error(f, *args):
    try: return f(*args)
    except ValueError as e: return "undefined"


@SETTINGS
@given(designs())
def test_percent_and_pairwise_against_brute_force(x):
    ann = Annotations.from_wide(x, missing=-1)
    want = np.array([brute_item_agreement(r) for r in x])
    got = item_agreement(ann).to_numpy()
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, equal_nan=True)
    assert abs(percent_agreement(ann).value - np.nanmean(want)) < 1e-12
    pw = pairwise_agreement(ann)
    for (a, b), (agree, common) in brute_pairs(x).items():
        assert pw.n_items.iloc[a, b] == common
        if common: assert abs(pw.values.iloc[a, b] - agree / common) < 1e-12
        else: assert np.isnan(pw.values.iloc[a, b])


@SETTINGS
@given(designs())
def test_krippendorff_alpha_against_peer(x):
    ann = Annotations.from_wide(x, missing=-1)
    data = np.where(x < 0, np.nan, x).T.astype(float)
    ours = kappa_or_error(lambda: krippendorff_alpha(ann).value)
    if ours == "undefined":
        assert len(np.unique(x[(x >= 0) & ((x >= 0).sum(1, keepdims=True) >= 2)])) == 1
        return
    theirs = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert abs(ours - theirs) < 1e-9


@SETTINGS
@given(designs(fixed_n=True))
def test_fleiss_kappa_against_statsmodels(x):
    "Where humancert computes kappa it equals statsmodels'; where it says undefined, statsmodels is not finite and every label is one class."
    ann = Annotations.from_wide(x, missing=-1)
    ours = kappa_or_error(lambda: fleiss_kappa(ann).value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = sm_fleiss(np.asarray(ann.counts))
    if ours == "undefined":
        assert not np.isfinite(theirs), theirs                               # chance agreement 1: 0/0 for the peer too
        assert len(np.unique(x[x >= 0])) == 1                               # and only then: every label is one class
        return
    assert abs(ours - theirs) < 1e-9


@SETTINGS
@given(designs())
def test_cohen_kappa_against_sklearn(x):
    ann = Annotations.from_wide(x, missing=-1)
    try: ck = cohen_kappa_pairwise(ann)
    except ValueError as e:
        assert "no pair of annotators" in str(e); return
    for a, b in itertools.combinations(range(x.shape[1]), 2):
        both = (x[:, a] >= 0) & (x[:, b] >= 0)
        v = ck.values.iloc[a, b]
        if not both.any(): assert np.isnan(v); continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = cohen_kappa_score(x[both, a], x[both, b])
        if np.isnan(want) or not np.isfinite(want): assert np.isnan(v)
        else: assert abs(v - want) < 1e-9, (a, b, v, want)


@SETTINGS
@given(designs(), st.integers(0, 2**32 - 1))
def test_invariances(x, seed):
    "Permuting items or annotators, or renaming classes, changes no measure; no input is mutated."
    rng = np.random.default_rng(seed)
    x_before = x.copy()
    ann = Annotations.from_wide(x, missing=-1)
    perm_i, perm_k = rng.permutation(x.shape[0]), rng.permutation(x.shape[1])
    names = np.array(["q", "r", "s", "t"], dtype=object)[rng.permutation(4)]
    y = np.where(x >= 0, names[np.maximum(x, 0)], None)[perm_i][:, perm_k]
    other = Annotations.from_wide(y)
    for f in (percent_agreement, krippendorff_alpha, fleiss_kappa):
        a, b = kappa_or_error(lambda: f(ann).value), kappa_or_error(lambda: f(other).value)
        assert a == b == "undefined" or abs(a - b) < 1e-12
    assert abs(pairwise_agreement(ann).mean - pairwise_agreement(other).mean) < 1e-12
    np.testing.assert_array_equal(x, x_before)


@SETTINGS
@given(designs())
def test_roundtrips(x):
    ann = Annotations.from_wide(x, missing=-1)
    assert Annotations.from_wide(ann.to_wide()) == ann
    long = ann.to_long()
    assert Annotations.from_long(long, items=ann.items) == ann
    np.testing.assert_array_equal(Annotations.from_counts(ann.to_counts()).counts, ann.counts)
    assert len(long) == int((x >= 0).sum())


def test_missing_sentinels_and_dtypes():
    "NaN, None, pd.NA and a sentinel all mark missing labels; pandas nullable dtypes load."
    base = pd.DataFrame({"a": [1, 2, 1], "b": [1, None, 2], "c": [2, 2, -9]})
    ref = Annotations.from_wide(base, missing=-9)
    assert Annotations.from_wide(base.astype("Int64"), missing=-9) == ref
    assert Annotations.from_wide(base.astype(object).where(base.notna(), pd.NA), missing=-9) == ref
    assert ref.counts.tolist() == [[2, 1], [0, 2], [1, 1]]
