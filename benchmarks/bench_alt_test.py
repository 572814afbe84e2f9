"""Speed of `alt_test` against a plain-loop implementation of the same procedure, on the same data, in one run.

    python benchmarks/bench_alt_test.py [--quick]      # writes benchmarks/alt_test.md

Target (issue 22): 10^5 items x 10 annotators x 10 judges under 1 s. The data: 4 classes, each annotator right (equal to a
hidden true label) with probability 0.55-0.85 and missing on 10 % of the items, each judge right with probability 0.5-0.9,
missing on 5 % of the items and answering "other" (no annotator's class) on 2 %. The plain loops are `literal_alt_test` of
tests/test_alt_test.py (items, annotators and the other annotators in Python, scipy for the per-annotator tests, a hand-written
Benjamini-Yekutieli): run once per judge (family "judge": each judge's BY family is its own), with a progress bar. Every
per-annotator p-value, rho_f and rho_h must agree to 1e-12 and every rejection exactly, or the script fails.
humancert is timed best of 3, with the Annotations built outside the timed region (its construction is reported apart).
"""
import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from tqdm import tqdm

import humancert
from humancert.data.annotations import Annotations
from humancert.judges.alt_test import alt_test

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from test_alt_test import literal_alt_test   # noqa: E402  (the plain-loop reference lives with the tests)


def data(n_items, n_annot, n_judges, seed=0):
    rng = np.random.default_rng(seed)
    classes = np.array(["a", "b", "c", "d"], dtype=object)
    truth = rng.integers(0, 4, n_items)
    def noisy(p, shape):
        right = rng.random(shape) < p
        return np.where(right, truth[:, None], rng.integers(0, 4, shape))
    wide = classes[noisy(rng.uniform(0.55, 0.85, n_annot), (n_items, n_annot))]
    wide[rng.random(wide.shape) < 0.1] = None
    judges = classes[noisy(rng.uniform(0.5, 0.9, n_judges), (n_items, n_judges))]
    judges[rng.random(judges.shape) < 0.02] = "other"
    judges[rng.random(judges.shape) < 0.05] = None
    annotators = [f"h{k}" for k in range(n_annot)]
    return (pd.DataFrame(wide, columns=annotators), pd.DataFrame(judges, columns=[f"judge{g}" for g in range(n_judges)]))


def best(f, repeat):
    ts, out = [], None
    for _ in range(repeat):
        t = time.perf_counter(); out = f(); ts.append(time.perf_counter() - t)
    return min(ts), out


def check_same(res, lit):
    for name, L in lit.items():
        tab = res[name].to_frame()
        for a, row in L["table"].items():
            assert tab.loc[a, "items"] == row["items"], (name, a)
            assert abs(tab.loc[a, "rho_f"] - row["rho_f"]) <= 1e-12 and abs(tab.loc[a, "rho_h"] - row["rho_h"]) <= 1e-12, (name, a)
            if row["p"] is not None:
                assert abs(tab.loc[a, "p_value"] - row["p"]) <= 1e-12, (name, a, tab.loc[a, "p_value"], row["p"])
                assert bool(tab.loc[a, "rejected"]) == row["rejected"], (name, a)
        assert res[name].passed == L["passed"] and abs(res[name].winning_rate - L["winning_rate"]) <= 1e-12


def run(quick):
    cases = [(10_000, 10, 10), (100_000, 10, 10)] if not quick else [(10_000, 10, 3)]
    rows = []
    for n_items, n_annot, n_judges in cases:
        wide, judges = data(n_items, n_annot, n_judges)
        t = time.perf_counter(); ann = Annotations.from_wide(wide); t_build = time.perf_counter() - t
        for test in ("t",):
            t_hc, res = best(lambda: alt_test(ann, judges, 0.1, test=test), 1 if quick else 3)
            recs = [{h: v for h, v in zip(wide.columns, r) if not pd.isna(v)} for r in wide.itertuples(index=False)]
            t0, lit = time.perf_counter(), {}
            for name in tqdm(judges.columns, desc=f"plain loops, {n_items} items", file=sys.stderr):
                lit.update(literal_alt_test(recs, list(wide.columns), {name: [None if pd.isna(v) else v for v in judges[name]]}, 0.1, test=test))
            t_loop = time.perf_counter() - t0
            check_same(res, lit)
            rows.append({"items x annotators x judges": f"{n_items:,} x {n_annot} x {n_judges}", "test": test,
                         "labels": int(ann.n_labels.sum()), "build Annotations (s)": t_build, "alt_test (s)": t_hc,
                         "plain loops (s)": t_loop, "loops / alt_test": t_loop / t_hc, "same numbers": "yes"})
            print(rows[-1], file=sys.stderr)
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one small case, to check the script runs")
    args = ap.parse_args()
    table = run(args.quick)
    head = (f"# The alternative annotator test: `alt_test` vs plain loops\n\n"
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end of the run (other jobs share the cores), "
            f"Python {platform.python_version()}, numpy {np.__version__}, humancert {humancert.__version__}. "
            f"Wall seconds; `alt_test` best of {1 if args.quick else 3}, the loops one run. Command: "
            f"`python benchmarks/bench_alt_test.py{' --quick' if args.quick else ''}`.\n\n"
            "Same numbers: every per-annotator p-value, rho_f and rho_h equal to 1e-12 and every rejection and verdict equal, "
            "checked in the run. The target is 10^5 items x 10 annotators x 10 judges under 1 s (test 't').\n\n")
    out = Path(__file__).with_name("alt_test.md")
    out.write_text(head + table.to_markdown(index=False, floatfmt=".4g") + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
