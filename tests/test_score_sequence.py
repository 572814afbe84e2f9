"""The corrected score's confidence sequence (issue 43 item 6): coverage over all looks through the public class.

* Time-uniform coverage: 120 simulated studies of the issue's design (N = 2,000, gold in 4 batches of 50 in a random order),
  the share whose interval holds the truth at every look is at least 0.95 - 3 standard errors; width beside it (the
  interval is useful: narrower than 0.26 at 200 labels, on average at most 1.3x nb 60's fixed-n betting interval). The full study
  (500 studies, 16 looks, 3 designs) is the cached nbs/cache/63_sequence_coverage.csv (benchmarks/score_sequence_coverage.py).
* Deterministic given the data: the rows of a batch in any order give the same looks; the bets see the hashed order.
"""
import numpy as np
import pandas as pd
import pytest

from humancert import ScoreSequence, SequentialScore
from humancert.certification.gold_certificate import hashed_order
from humancert.system_score.corrected_score import betting_ci

N = 2000
IDS = pd.Index([f"i{k}" for k in range(N)])


def population(rng, p=0.7, sens=0.9, spec=0.6):
    t = rng.random(N) < p
    return pd.Series(np.where(t, rng.random(N) < sens, rng.random(N) >= spec), index=IDS), pd.Series(t, index=IDS)


def test_coverage_over_all_looks_and_width():
    rng, reps, covered, widths, ratio = np.random.default_rng(63), 120, 0, [], []
    for _ in range(reps):
        judge, gold = population(rng)
        order, seq, ok = rng.permutation(N), ScoreSequence(judge), True
        for k in range(4):
            r = seq.update(gold.iloc[order[k * 50:(k + 1) * 50]])
            ok &= r.lower <= gold.mean() <= r.upper
        covered += ok
        widths.append(r.upper - r.lower)
        g = order[:200]
        ratio.append(widths[-1] / np.diff(betting_ci(gold.iloc[g].to_numpy(float), judge.iloc[g].to_numpy(float), judge.to_numpy(float), 0.05))[0])
    assert covered / reps >= 0.95 - 3 * np.sqrt(0.95 * 0.05 / reps), covered / reps
    assert np.mean(widths) < 0.26 and np.mean(ratio) < 1.3, (np.mean(widths), np.mean(ratio))   # the price of looking is small


def test_deterministic_hashed_order_and_stop_rule():
    judge, gold = population(np.random.default_rng(1))
    batches = [gold.iloc[k * 80:(k + 1) * 80] for k in range(3)]
    a, b = ScoreSequence(judge, half_width=0.08), ScoreSequence(judge, half_width=0.08)
    for x in batches: a.update(x); b.update(x.sample(frac=1, random_state=3))
    pd.testing.assert_frame_equal(a.to_frame(), b.to_frame())
    one = ScoreSequence(judge).update(batches[0])
    h = hashed_order(batches[0].index)
    lo, hi = betting_ci(batches[0].to_numpy(float)[h], judge[batches[0].index].to_numpy(float)[h], judge.to_numpy(float), 0.05)
    assert (one.lower, one.upper) == (lo, hi) and isinstance(one, SequentialScore)
    f = a.to_frame()
    assert f.lower.is_monotonic_increasing and f.upper.is_monotonic_decreasing
    assert list(f.stop) == [(u - l) / 2 <= 0.08 for l, u in zip(f.lower, f.upper)] and a.stop == f.stop.iloc[-1]
    census = ScoreSequence(judge.iloc[:60])
    r = census.update(gold.iloc[:60])
    assert r.stop and r.lower <= gold.iloc[:60].mean() <= r.upper and float(r) == r.estimate


@pytest.mark.parametrize("make, err, msg", [
    (lambda j, g: ScoreSequence(j.to_numpy()), TypeError, "`judge` must be a pandas Series"),
    (lambda j, g: ScoreSequence(j, half_width=-0.1), ValueError, "`half_width` must be a positive number"),
    (lambda j, g: ScoreSequence(j, confidence=1.5), ValueError, "`confidence`"),
    (lambda j, g: ScoreSequence(j).result, ValueError, "no gold labels yet"),
    (lambda j, g: ScoreSequence(j).update(g.iloc[:5].where(np.arange(5) != 2)), ValueError, "missing"),
    (lambda j, g: (lambda s: (s.update(g.iloc[:5]), s.update(g.iloc[3:8])))(ScoreSequence(j)), ValueError, "already have a gold label"),
    (lambda j, g: ScoreSequence(j).update(g.iloc[:5].tolist()), TypeError, "`gold` must be a pandas Series"),
])
def test_bad_input_names_the_argument(make, err, msg):
    judge, gold = population(np.random.default_rng(2))
    with pytest.raises(err, match=msg): make(judge, gold)
