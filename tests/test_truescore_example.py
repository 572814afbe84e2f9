"""corrected_score against truescore on truescore's own example file (issue 43's Checks; truescore is a test-only peer).

tests/data/truescore_support_eval.csv is truescore's examples/data/support_eval.csv (Apache-2.0; simulated data: 4,000
support questions, an LLM judge's verdict on each, a human verdict on 600), copied unchanged; the installed package does not
ship it. The estimand is the same in both tools, the human verdict's pass rate over the 4,000 items, but the PPI++ estimators
differ: truescore averages the judge over the 3,400 unlabelled items, humancert (as ppi_py) over all 4,000, and each tunes its
own lambda. So the points cannot agree to 1e-9; what is checked exactly is that they differ by precisely that, and that the
gold-only points agree.
"""
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humancert import corrected_score
from humancert.system_score.corrected_score import ppi_lambda, ppi_mean

FILE = Path(__file__).resolve().parent / "data" / "truescore_support_eval.csv"


def test_ppi_on_truescores_example():
    tc = pytest.importorskip("truescore.correct", reason="truescore (test-only peer, in the dev extra) is not installed")
    d = pd.read_csv(FILE).set_index("example_id")
    judge, gold = d.judge_passed, d.human_passed
    gi = np.flatnonzero(gold.notna().to_numpy())
    f, y = judge.to_numpy(dtype=float), gold.to_numpy()[gi]
    ts = tc.ppi_estimate(f, y, gi, alpha=0.05)
    rows = corrected_score(judge, gold, headline="PPI++").to_frame().set_index("method")
    assert len(gi) == 600 and rows.loc["PPI++", "n"] == 600
    # the gold-only points: the same gold mean
    assert abs(rows.loc["gold only", "estimate"] - tc.gold_only_estimate(y).point) < 1e-12
    # truescore's point is humancert's prediction-powered mean with the judge averaged over the unlabelled items, at its lambda
    unl = np.delete(f, gi)
    assert abs(ppi_mean(y, f[gi], unl, ts.lambda_)[0] - ts.point) < 1e-12
    # and the two PPI++ points differ by exactly the two judge means and lambdas: l_hc (f_N - f_L) - l_ts (f_U - f_L)
    lam = ppi_lambda(y, f[gi], f)
    gap = lam * (f.mean() - f[gi].mean()) - ts.lambda_ * (unl.mean() - f[gi].mean())
    assert abs((rows.loc["PPI++", "estimate"] - ts.point) - gap) < 1e-12
    # on this file the two intervals agree to 0.001 at each end (n/N = 0.15: the two judge means are close)
    assert abs(rows.loc["PPI++", "lower"] - ts.low) < 1e-3 and abs(rows.loc["PPI++", "upper"] - ts.high) < 1e-3
