"""Speed of `corrected_score` against truescore's `ppi_estimate` on the same arrays, as a ratio in one run (issue 43's Checks).

    python benchmarks/bench_corrected_score.py [--quick]      # writes benchmarks/corrected_score.md

The issue's design: a binary outcome, 70 % truly pass, a judge with sensitivity 0.9 and specificity 0.6 on every item, gold
labels on a uniform random subset: 10^6 items with 10^5 gold (--quick: 10^5 with 10^4). truescore (test-only, in the dev extra)
takes the arrays and the gold positions; humancert takes the same arrays as Series by item id (built once, outside the timing)
and computes its whole default result: judge only, gold only, PPI++ (the headline at this n) and Rogan-Gladen, each with its
interval. Best of 5 (wall and process CPU seconds); the 1-minute load average beside each row (the machine is shared). The
goal is a ratio (humancert / truescore) of at most 1.
"""
import argparse
import os
from pathlib import Path

import numpy as np
import pandas as pd
from truescore import ppi_estimate

from humancert import corrected_score
from _timing import timed


def data(N, n, seed=0):
    "The judge's 0/1 verdict on N items, the gold positions (n, sorted) and their 0/1 gold labels."
    rng = np.random.default_rng(seed)
    t = rng.random(N) < 0.7
    f = np.where(t, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(np.int64)
    gi = np.sort(rng.choice(N, n, replace=False))
    return f, gi, t[gi].astype(np.int64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10^5 items with 10^4 gold")
    a = ap.parse_args()
    N, n = (100_000, 10_000) if a.quick else (1_000_000, 100_000)
    f, gi, y = data(N, n)
    judge, gold = pd.Series(f, index=pd.RangeIndex(N)), pd.Series(y, index=gi)
    (tw, tc), ts = timed(lambda: ppi_estimate(f, y, gi), 5)
    (hw, hc), hs = timed(lambda: corrected_score(judge, gold), 5)
    row = (f"| {N:,} | {n:,} | {tw:.3f} / {tc:.3f} | {hw:.3f} / {hc:.3f} | **{hw / tw:.2f}** / {hc / tc:.2f} | "
           f"{ts.point:.4f} [{ts.low:.4f}, {ts.high:.4f}] | {hs.estimate:.4f} [{hs.ci[0]:.4f}, {hs.ci[1]:.4f}] ({hs.headline}) | "
           f"{os.getloadavg()[0]:.2f} |")
    print(row)
    out = ["# corrected_score against truescore: speed", "",
           "Written by `python benchmarks/bench_corrected_score.py" + (" --quick" if a.quick else "") + "`; never edited by hand.", "",
           "| items | gold | truescore ppi_estimate: wall / CPU s | humancert corrected_score (every row): wall / CPU s | ratio humancert / truescore: wall / CPU | truescore PPI++ | humancert headline | load (1 min) |",
           "| --- | --- | --- | --- | --- | --- | --- | --- |", row, "",
           "Both PPI++ points tune lambda on the gold items; truescore averages the judge over the unlabelled items only, humancert over "
           "all items (as ppi_py), so the two points can differ in the fourth decimal."]
    Path(__file__).with_name("corrected_score.md").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
