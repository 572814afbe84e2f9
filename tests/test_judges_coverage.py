"""Coverage of compare_judges' bootstrap intervals (the advantage probability of the alternative annotator test, and the
agreements a_J, a_H of eq. J1), through the public function, with a power check.

These are percentile bootstrap intervals over items, approximate, not proved bounds: the claim tested is that, for items
drawn i.i.d. from a fixed population with fixed annotators, a 95% interval covers the population value about 95% of the
time. The population value is the same statistic on 200,000 items of that population (its own sampling error is below
0.002). Coverage over R panels is asserted within 4 standard errors of 0.95 on both sides (too narrow and too wide both
fail), and an interval must exclude a value 0.12 below the truth at least 80% of the time (the power check: a test that
reports a wide interval everywhere would pass coverage alone).

Measured with these seeds (R = 250): complete design, 100 items: advantage 0.940, a_J 0.940, a_H 0.944, shifted value
excluded 0.96; sparse design (3 of 5 annotators per item), 400 items: advantage 0.944 (0.968 with 400 resamples). The
sparse design at 160 items (about 96 items per annotator) under-covers: advantage 0.900 (0.912 with 400 resamples), with
the population value 0.905 near the top of its range; the percentile interval is an approximation that needs a few hundred
items per annotator there, which the table's notes do not yet say."""
import warnings

import numpy as np
import pandas as pd
import pytest

from humancert import Annotations, compare_judges

ACC = (0.65, 0.7, 0.75, 0.8, 0.85)          # the five annotators' accuracies; two classes, symmetric noise
JUDGE_ACC = 0.8
STATS = {"advantage probability": ("advantage lo", "advantage hi"), "agreement": ("agreement lo", "agreement hi"),
         "humans": ("humans lo", "humans hi")}


def panel(n_items, rng, per_item=None):
    "Labels of the five annotators (each item labelled by all, or by `per_item` of them chosen at random) and the judge's."
    z = rng.integers(0, 2, n_items)
    H = np.where(rng.random((n_items, len(ACC))) < np.array(ACC), z[:, None], 1 - z[:, None]).astype(float)
    if per_item is not None:                                        # a sparse design: who labels an item ignores its labels
        keep = np.argsort(rng.random((n_items, len(ACC))), 1) < per_item
        H = np.where(keep, H, np.nan)
    J = np.where(rng.random(n_items) < JUDGE_ACC, z, 1 - z)
    ids = [f"i{i}" for i in range(n_items)]
    ann = Annotations.from_wide(pd.DataFrame(H, columns=[f"a{k}" for k in range(len(ACC))], index=ids))
    return ann, pd.DataFrame({"judge": J}, index=ids)


def board_row(ann, judge, n_bootstrap, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_judges(ann, judge, n_bootstrap=n_bootstrap, seed=seed).table.iloc[0]


@pytest.mark.parametrize("per_item", [None, 3])
def test_intervals_cover_and_have_power(per_item):
    truth = board_row(*panel(200_000, np.random.default_rng(7), per_item), 0, 0)
    R, n_items = 250, 100 if per_item is None else 400
    hits, excluded = {s: 0 for s in STATS}, 0
    for r in range(R):
        row = board_row(*panel(n_items, np.random.default_rng(10_000 + r), per_item), 100, r)
        for s, (lo, hi) in STATS.items(): hits[s] += row[lo] <= truth[s] <= row[hi]
        excluded += not row["advantage lo"] <= truth["advantage probability"] - 0.12 <= row["advantage hi"]
    se = np.sqrt(0.95 * 0.05 / R)
    for s in STATS:
        assert abs(hits[s] / R - 0.95) <= 4 * se, (s, hits[s] / R)
    assert excluded / R >= 0.8, excluded / R
