"""Conventions users bring from other tools (issue 33, item 2, data parts): a raters x items matrix (krippendorff's
`reliability_data`) read with `raters_in_rows=True` gives the krippendorff package's alpha on its own example, and the
same matrix passed as items x raters draws a warning saying how to fix it; crowd-kit's columns in `from_long` point to
`from_crowdkit`; `seed=None` draws a fresh seed that can be recorded and repeats the draws."""
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest

from humancert.agreement.measures import krippendorff_alpha
from humancert.data.annotations import Annotations, check_seed, seed_used

# the krippendorff package's README example: 3 coders (rows) x 15 units (columns); units 2 and 14 have no value
RELIABILITY = np.array([[np.nan] * 5 + [3, 4, 1, 2, 1, 1, 3, 3, np.nan, 3],
                        [1, np.nan, 2, 1, 3, 3, 4, 3] + [np.nan] * 7,
                        [np.nan, np.nan, 2, 1, 3, 4, 4, np.nan, 2, 1, 1, 3, 3, np.nan, 4]])


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_raters_in_rows_equals_the_krippendorff_package(level):
    ann = Annotations.from_wide(RELIABILITY, raters_in_rows=True, level=level)
    want = krippendorff.alpha(reliability_data=RELIABILITY, level_of_measurement=level)
    assert krippendorff_alpha(ann).value == pytest.approx(want, abs=1e-12)
    assert (ann.n_items, ann.n_annotators) == (15, 3)


def test_transposed_looking_table_warns_with_the_fix():
    rated = RELIABILITY[:, ~np.isnan(RELIABILITY).all(0)]       # without the two empty units (an error, below)
    with pytest.warns(UserWarning, match=r"looks like raters in rows .* pass raters_in_rows=True \(or x\.T\)"):
        wrong = Annotations.from_wide(rated)
    assert wrong.n_items == 3                                   # what the warning is about: 3 "items" of 13 "annotators"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Annotations.from_wide(rated, raters_in_rows=False)      # kept as given, silently
        Annotations.from_wide(rated.T)                           # items x raters: no warning
        Annotations.from_wide(np.tile([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]], (2, 1)) + [[0], [20]])  # no column repeats
    with pytest.raises(ValueError, match=r"hold no label; .* or, if rows are raters and columns items, pass raters_in_rows=True"):
        Annotations.from_wide(RELIABILITY)


def test_from_long_on_crowdkit_columns_points_to_from_crowdkit():
    ck = pd.DataFrame({"task": [1, 1, 2, 2], "worker": ["a", "b", "a", "b"], "label": ["x", "y", "x", "x"]})
    with pytest.raises(ValueError, match=r"`item`: column 'item' is not in the table, which has crowd-kit's columns .*Annotations\.from_crowdkit\(df\)"):
        Annotations.from_long(ck)
    assert Annotations.from_crowdkit(ck) == Annotations.from_long(ck, item="task", annotator="worker")


def test_seed_none_is_a_fresh_recordable_seed():
    s1, s2 = check_seed(None), seed_used(None)
    assert isinstance(s1, int) and isinstance(s2, int) and 0 <= s1 < 2**63 and s1 != s2   # equal with chance 2**-63
    assert np.array_equal(np.random.default_rng(s1).random(4), np.random.default_rng(s1).random(4))
    assert seed_used(5) == 5
    with pytest.raises(TypeError, match=r"`seed` must be an int >= 0, so that .* \(or None for a fresh seed\)"):
        seed_used(np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"`seed` must be an int >= 0, got -1"):
        seed_used(-1)
