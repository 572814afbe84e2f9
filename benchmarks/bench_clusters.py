"""Cost of `clusters=` on the judges' board: `compare_judges` with and without clusters, in one run.

    python benchmarks/bench_clusters.py [--quick]      # writes benchmarks/clusters.md

Target (issue 45 item 1): the board's bootstrap with clusters at 10^5 items x 10 annotators x 5 judges within 2x of today's
without. The data are bench_alt_test.py's (4 classes, annotators right with probability 0.55-0.85 and missing on 10 % of
the items, judges right with probability 0.5-0.9, missing on 5 % and answering "other" on 2 %), the items in clusters of 5
consecutive items. Both boards take 200 bootstraps with seed 0; each is timed best of 3, alternating, wall seconds; the
1-minute load average is recorded (the machine is shared). The board with every item its own cluster is checked equal to
the board without clusters (every number, to 1e-12), so the two timings compute the same kind of thing.
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import humancert
from humancert.data.annotations import Annotations
from humancert.judges.board import compare_judges

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alt_test import data   # noqa: E402

ROOT = Path(__file__).resolve().parent


def timed(f, repeat=3):
    "Best wall time of `repeat` calls of f, and its last result."
    ts, out = [], None
    for _ in range(repeat):
        t = time.perf_counter(); out = f(); ts.append(time.perf_counter() - t)
    return min(ts), out


def run(n_items, n_annot=10, n_judges=5, n_bootstrap=200, size=5):
    wide, judges = data(n_items, n_annot, n_judges)
    ann = Annotations.from_wide(wide)
    judges.index = ann.items
    clusters = pd.Series(np.arange(n_items) // size, index=ann.items)
    plain = lambda: compare_judges(ann, judges, n_bootstrap=n_bootstrap, seed=0)
    clust = lambda: compare_judges(ann, judges, n_bootstrap=n_bootstrap, seed=0, clusters=clusters)
    singles = compare_judges(ann, judges, n_bootstrap=n_bootstrap, seed=0, clusters=pd.Series(np.arange(n_items), index=ann.items))
    ts = {"without": [], "with": []}
    for _ in range(3):                                                   # alternate, so that load changes hit both alike
        t, base = timed(plain, 1); ts["without"].append(t)
        t, board = timed(clust, 1); ts["with"].append(t)
    a, b = singles.to_frame().drop(columns="clusters"), base.to_frame()
    num = [c for c in b.columns if pd.api.types.is_numeric_dtype(b[c]) and not pd.api.types.is_bool_dtype(b[c])]
    gap = float(np.nanmax(np.abs(a[num].to_numpy(float) - b[num].to_numpy(float))))
    assert gap <= 1e-12, gap
    t0, t1 = min(ts["without"]), min(ts["with"])
    return {"items x annotators x judges": f"{n_items:,} x {n_annot} x {n_judges}", "clusters": f"{n_items // size:,} of {size}",
            "bootstraps": n_bootstrap, "without clusters (s)": round(t0, 4), "with clusters (s)": round(t1, 4),
            "with / without": round(t1 / t0, 3), "singleton clusters vs none: largest difference": gap,
            "load (1 min)": round(os.getloadavg()[0], 2)}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10^4 items only (a smoke run; nothing written)")
    args = ap.parse_args()
    rows = [run(n) for n in ((10_000,) if args.quick else (10_000, 100_000))]
    table = pd.DataFrame(rows).to_markdown(index=False)
    print(table)
    if not args.quick:
        head = (f"# `clusters=` on the judges' board: `compare_judges` with and without clusters\n\nMachine: {platform.machine()}, "
                f"{os.cpu_count()} cores (shared), Python {platform.python_version()}, numpy {np.__version__}, humancert "
                f"{humancert.__version__}. Command: `python benchmarks/bench_clusters.py`. Wall seconds, best of 3 (alternating), "
                "200 bootstraps, seed 0; the target is `with / without` at most 2 at 10^5 items x 10 annotators x 5 judges.\n\n")
        (ROOT / "clusters.md").write_text(head + table + "\n")
