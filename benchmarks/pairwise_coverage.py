"""Coverage and width of the Bradley-Terry intervals `humancert.rank_systems` prints, through the public function (issue 45 item 5).

Makes nbs/cache/71_bt_coverage.csv, read by nbs/pairwise/71_bradley_terry.ipynb:

    nice python benchmarks/pairwise_coverage.py [--reps 500] [--out nbs/cache/71_bt_coverage.csv]

Design (the notebook's leaderboard): four systems with strengths 0, 0.3, 0.6, 0.9; 600 prompts with 2 distinct pairs each
(N = 1,200 pairs); each system's strength shifted per prompt by N(0, 0.5^2) for humans and judge alike; one human (right
80 % of the time, else uniform over A, B and tie; ties 20 %) on a random share of the pairs, seeing one order; a judge run
in both orders that follows the pair's preference 60 % of the time, otherwise its own strengths 0, 0.3, 1.2, 0.6, and
picks the response shown first 10 % of the time. Each study calls `rank_systems` with its default arguments (clusters by
prompt, lambda tuned) and records, for each method and each of the six pairwise differences, whether the interval holds
theta*_j - theta*_k (theta* from `simulated_estimand`, exact) and its width.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from humancert.pairwise.judgements import read_pairwise, simulate_pairwise  # noqa: E402
from humancert.pairwise.ranking import rank_systems, simulated_estimand  # noqa: E402

DESIGN = dict(strengths=(0.0, 0.3, 0.6, 0.9), judge_strengths=(0.0, 0.3, 1.2, 0.6), judge_accuracy=0.6, position_bias=0.1,
              n_humans=1, prompt_sd=0.5)
SHARES = (0.05, 0.125, 0.25, 0.5)          # of N = 1,200 pairs: about 60, 150, 300 and 600 with a human preference
NAMES = [f"sys{k}" for k in range(4)]


def one_study(share, seed, star):
    "Per method: the share of the six differences covered, the mean width, and the number of human-labelled pairs."
    pw = read_pairwise(simulate_pairwise(600, 2, human_share=share, seed=seed, **DESIGN), judges="judge")
    r = rank_systems(pw)
    out = []
    for m in ("PPI++", "judge only", "humans only"):
        d = r.differences.loc[m]
        hit, width = [], []
        for j in range(4):
            for k in range(j + 1, 4):
                row = d.loc[(NAMES[j], NAMES[k])]
                hit.append(row.lower <= star[j] - star[k] <= row.upper); width.append(row.upper - row.lower)
        out.append((m, float(np.mean(hit)), float(np.mean(width)), r.n_gold, r.lam))
    return out


def main(reps, out):
    star = simulated_estimand(DESIGN["strengths"], 0.8, 0.2, DESIGN["prompt_sd"])
    rows, t0 = [], time.time()
    for share in SHARES:
        for rep in range(reps):
            for m, c, w, n, lam in one_study(share, 10_000 * int(share * 1000) + rep, star):
                rows.append((share, rep, m, c, w, n, lam))
        print(f"share {share}: {time.time() - t0:.0f} s", flush=True)
    raw = pd.DataFrame(rows, columns=["share", "rep", "method", "covered", "width", "n", "lam"])
    target = {s: int(round(s * 1200)) for s in SHARES}
    res = raw.groupby(["share", "method"]).agg(coverage=("covered", "mean"), width=("width", "mean"), mean_n=("n", "mean"),
                                               lam=("lam", "mean"), reps=("rep", "size")).reset_index()
    res.insert(0, "n_gold", res.share.map(target))
    res.to_csv(out, index=False, float_format="%.6g")
    print(res.to_string())


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=500)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "nbs" / "cache" / "71_bt_coverage.csv"))
    a = ap.parse_args()
    main(a.reps, a.out)
