"""Time-uniform coverage and width of `humancert.ScoreSequence` (issue 43 item 6), through the public class.

Makes nbs/cache/63_sequence_coverage.csv, read by nbs/system_score/63_score_sequence.ipynb:

    nice python benchmarks/score_sequence_coverage.py [--reps 500] [--out nbs/cache/63_sequence_coverage.csv]

Each study draws a population of N = 4,000 judged items (the designs of benchmarks/score_coverage.py: the issue's binary
design, the skewed one, 1-5 ratings), a uniform random order of the items, and feeds their gold labels to a
ScoreSequence in batches of 25 up to 400 (16 looks). Per look it records whether the interval holds the truth (the mean
over the N items) and its width; a study covers "over all looks" when every look up to n holds it. Beside it, the
fixed-n PPI++ normal interval recomputed at every look (a user who peeks), and the fixed-n betting interval's width.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from humancert.system_score.corrected_score import betting_ci, ppi_lambda, ppi_mean  # noqa: E402
from humancert.system_score.sequence import ScoreSequence  # noqa: E402
from score_coverage import binary, ratings, N, IDS  # noqa: E402

DESIGNS = {"binary": lambda r: binary(r), "binary skewed": lambda r: binary(r, 0.97, 0.99, 0.6), "ratings 1-5": ratings}
BATCH, LAST = 25, 400


def study(design, rng):
    "Per look: (n, sequence covers, width, PPI++ covers, betting width at the last look only)."
    t, j = DESIGNS[design](rng)
    scale = (1, 5) if design.startswith("ratings") else None
    truth, order = t.mean(), rng.permutation(N)
    seq = ScoreSequence(pd.Series(j, index=IDS), scale=scale)
    gold = pd.Series(t, index=IDS)
    rows = []
    for end in range(BATCH, LAST + 1, BATCH):
        r = seq.update(gold.iloc[order[end - BATCH:end]])
        g = order[:end]
        a, span = (1.0, 4.0) if scale else (0.0, 1.0)
        y, fg, fa = (t[g] - a) / span, (j[g] - a) / span, (j - a) / span
        e, v = ppi_mean(y, fg, fa, ppi_lambda(y, fg, fa))
        ppi_cov = abs(a + span * e - truth) <= 1.959964 * span * np.sqrt(v)
        bw = np.diff(betting_ci(y, fg, fa, 0.05))[0] * span if end in (100, LAST) else np.nan
        rows.append((end, r.lower <= truth <= r.upper, r.upper - r.lower, ppi_cov, bw))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "nbs/cache/63_sequence_coverage.csv"))
    ap.add_argument("--designs", default=",".join(DESIGNS))
    a = ap.parse_args()
    out, t0 = [], time.time()
    for k, design in enumerate(a.designs.split(",")):
        rng = np.random.default_rng(6300 + list(DESIGNS).index(design))
        res = np.array([study(design, rng) for _ in range(a.reps)], dtype=float)     # reps x looks x 5
        ever_seq = np.minimum.accumulate(res[:, :, 1], 1).mean(0)                     # covered at every look so far
        ever_ppi = np.minimum.accumulate(res[:, :, 3], 1).mean(0)
        for i, n in enumerate(res[0, :, 0].astype(int)):
            out.append(dict(design=design, n=n, covers_all_looks=ever_seq[i], covers_at_n=res[:, i, 1].mean(), width=res[:, i, 2].mean(),
                            ppi_peeking_covers_all_looks=ever_ppi[i], betting_fixed_n_width=np.nanmean(res[:, i, 4]) if n in (100, LAST) else np.nan,
                            reps=a.reps))
        print(f"{design:>16} {time.time() - t0:7.0f} s", flush=True)
        pd.DataFrame(out).to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
