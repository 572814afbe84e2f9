"""Speed of humancert's agreement measures against the peers, in one run (wall seconds, best of `repeat`).

    python benchmarks/bench_agreement.py [--quick]      # writes benchmarks/agreement.md

Peers: krippendorff.alpha (nominal), statsmodels fleiss_kappa (+ aggregate_raters to build its table),
scikit-learn cohen_kappa_score in a loop over annotator pairs (there is no all-pairs peer). Each peer gets the
input in the form it expects, built outside the timed region; humancert gets an Annotations built outside too,
and its construction is timed separately.
"""
import argparse
import warnings
import itertools
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
import krippendorff
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa as sm_fleiss

import humancert
from humancert import Annotations, krippendorff_alpha, fleiss_kappa, cohen_kappa_pairwise, pairwise_agreement


def best(f, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)


def design(n_items, n_annot, per_item, n_classes, seed=0):
    "Codes matrix (items x annotators), -1 missing; each item labelled by `per_item` random annotators."
    rng = np.random.default_rng(seed)
    x = np.full((n_items, n_annot), -1)
    if per_item == n_annot: x[:] = rng.integers(0, n_classes, (n_items, n_annot))
    else:
        cols = np.argsort(rng.random((n_items, n_annot)), axis=1)[:, :per_item]
        x[np.arange(n_items)[:, None], cols] = rng.integers(0, n_classes, (n_items, per_item))
    return x


def run(quick):
    warnings.simplefilter("ignore")   # sklearn warns on pairs with one class in common; the timing is what matters here
    rep = 1 if quick else 3
    cases = [("running example", 1000, 10, 10, 2), ("dense 100k x 10", 100_000, 10, 10, 3),
             ("sparse 20k items, 200 annotators, 5 each", 20_000, 200, 5, 3)]
    if quick: cases = cases[:2]
    rows = []
    for name, I, K, per, C in cases:
        x = design(I, K, per, C)
        if name == "running example":
            ann = humancert.load("running_example").annotations
            item, annot, label = ann.codes(); x = np.full((ann.n_items, ann.n_annotators), -1); x[item, annot] = label
        t_build = best(lambda: Annotations.from_wide(x, missing=-1), rep)
        ann = Annotations.from_wide(x, missing=-1)
        rel = np.where(x < 0, np.nan, x).T.astype(float)
        ours = best(lambda: krippendorff_alpha(ann), rep)
        theirs = best(lambda: krippendorff.alpha(reliability_data=rel, level_of_measurement="nominal"), rep)
        rows.append((name, "Krippendorff alpha", "krippendorff 0.9", t_build, ours, theirs))
        if per == K:
            ours = best(lambda: fleiss_kappa(ann), rep)
            theirs = best(lambda: sm_fleiss(aggregate_raters(x)[0]), rep)
            rows.append((name, "Fleiss kappa", "statsmodels", t_build, ours, theirs))
        pairs = list(itertools.combinations(range(K), 2))
        def sk_loop():
            for a, b in pairs:
                both = (x[:, a] >= 0) & (x[:, b] >= 0)
                if both.any(): cohen_kappa_score(x[both, a], x[both, b])
        ours = best(lambda: cohen_kappa_pairwise(ann), rep)
        theirs = best(sk_loop, 1) if len(pairs) <= 200 or not quick else float("nan")
        rows.append((name, f"Cohen kappa, all {len(pairs)} pairs", "sklearn loop", t_build, ours, theirs))
        rows.append((name, "pairwise agreement matrix", "-", t_build, best(lambda: pairwise_agreement(ann), rep), float("nan")))
    df = pd.DataFrame(rows, columns=["data", "measure", "peer", "build Annotations (s)", "humancert (s)", "peer (s)"])
    df["peer / humancert"] = df["peer (s)"] / df["humancert (s)"]
    return df


if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    df = run(args.quick)
    txt = (f"# Agreement measures: humancert vs peers\n\nMachine: {platform.processor() or platform.machine()}, "
           f"Python {platform.python_version()}, numpy {np.__version__}, humancert {humancert.__version__}. "
           f"Wall seconds, best of {1 if args.quick else 3} (the sklearn loop: one run). Command: "
           f"`python benchmarks/bench_agreement.py{' --quick' if args.quick else ''}`.\n\n"
           + df.to_markdown(index=False, floatfmt=".4g") + "\n")
    print(txt)
    if not args.quick: (Path(__file__).parent / "agreement.md").write_text(txt)
