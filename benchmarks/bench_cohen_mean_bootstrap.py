"""The item bootstrap of `cohen_kappa_mean` (mean weighted Cohen's kappa over annotator pairs) on CEBaB's 15,090 reviews x
155 workers (4,943 pairs sharing items), against a plain loop that draws the same item indices, duplicates the rows and
recomputes scikit-learn's `cohen_kappa_score` for every pair. The loop is run on a few resamples only (seconds each) and
its SE and interval must equal the package's on the same draws; the loop's time per resample is scaled to 1,000.

    python benchmarks/bench_cohen_mean_bootstrap.py > benchmarks/cohen_mean_bootstrap.md
"""
import time
import warnings

import numpy as np
from sklearn.metrics import cohen_kappa_score

from humancert.agreement.coefficients import cohen_kappa_mean
from humancert.data.datasets import load

LOOP_RESAMPLES = 3


def plain_mean_kappa(x, C):
    "Mean quadratic cohen_kappa_score over the column pairs of x sharing two or more rows (NaN: missing), one-class pairs left out."
    ks, seen = [], ~np.isnan(x)
    for g in range(x.shape[1]):
        for h in range(g + 1, x.shape[1]):
            m = seen[:, g] & seen[:, h]
            if m.sum() >= 2 and len(np.unique(np.concatenate([x[m, g], x[m, h]]))) > 1:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ks.append(cohen_kappa_score(x[m, g], x[m, h], weights="quadratic", labels=list(range(C))))
    return np.mean(ks)


def main():
    ann = load("cebab").annotations
    item, annot, label = ann.codes()
    x = np.full((ann.n_items, ann.n_annotators), np.nan)
    x[item, annot] = label
    n = ann.n_items
    t = time.perf_counter()
    res = cohen_kappa_mean(ann, "quadratic", ci_method="bootstrap", n_bootstrap=1000, seed=0)
    t_pkg = time.perf_counter() - t
    draws = np.random.default_rng(0)
    t = time.perf_counter()
    loop = np.array([plain_mean_kappa(x[draws.integers(0, n, n)], ann.n_classes) for _ in range(LOOP_RESAMPLES)])
    t_loop = (time.perf_counter() - t) / LOOP_RESAMPLES
    few = cohen_kappa_mean(ann, "quadratic", ci_method="bootstrap", n_bootstrap=LOOP_RESAMPLES, seed=0)
    assert abs(few.se - loop.std(ddof=1)) < 1e-12 and np.allclose(few.ci, np.quantile(loop, [0.025, 0.975]), atol=1e-12, rtol=0)
    print("# `cohen_kappa_mean` item bootstrap on CEBaB\n")
    print("Command: `python benchmarks/bench_cohen_mean_bootstrap.py > benchmarks/cohen_mean_bootstrap.md` (2-core machine shared with "
          "other jobs: rough). The package's SE and interval on the loop's draws were required equal to the loop's.\n")
    print("| what | seconds for 1,000 resamples | ratio to humancert |\n| --- | ---: | ---: |")
    print(f"| humancert (sparse item x pair-cell matrix, blocks of resamples) | {t_pkg:.1f} | 1 |")
    print(f"| plain loop, scikit-learn per pair ({LOOP_RESAMPLES} resamples timed, scaled) | {1000 * t_loop:.0f} | {1000 * t_loop / t_pkg:.0f} |")
    print(f"\nResult: {res}")


if __name__ == "__main__":
    main()
