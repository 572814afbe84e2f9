"""Speed of `compare_judges` against one `alt_test` on the same data, and against the implementation before issue 32, in one run.

    python benchmarks/bench_judges.py [--quick] [--skip-before]      # writes benchmarks/judges.md

Target (issue 32): `compare_judges` within 20x one `alt_test` at 10^5 items x 10 annotators x 5 judges, 200 bootstraps, with the
same numbers for a fixed seed. The data are bench_alt_test.py's: 4 classes, annotators right with probability 0.55-0.85 and
missing on 10 % of the items, judges right with probability 0.5-0.9, missing on 5 % and answering "other" on 2 %. A second
case has judges without missing labels (the board before is run on the first case only). "before" is `humancert/judges/board.py` as of commit 78961fc (alt_test re-run on every
resample, one survey-equivalence bootstrap per judge), loaded from git and run on the same data; every number of the two
boards must agree (to 1e-12), or the script fails. "previous" is the board as of commit PREVIOUS (before its dense products were
summed in slices that keep OpenBLAS on the calling thread), run on the same data with the same seed: every number must agree
to 1e-12, and its time is the before/after of that change in one run. "BLAS workers' CPU" is the CPU time spent by every thread
but the calling one (OpenBLAS's workers) during the three timed compare_judges calls, read from /proc (Linux). Where threadpoolctl is installed, compare_judges is timed again with one
BLAS thread (its numbers must agree with the default's to 1e-12). `alt_test` and `compare_judges` best of 3, the board before one run; wall seconds;
the 1-minute load average is recorded beside each row (the machine is shared: threaded BLAS slows most under load).
"""
import argparse
import importlib.util
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

import humancert
from humancert.data.annotations import Annotations
from humancert.judges.alt_test import alt_test
from humancert.judges.board import compare_judges

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alt_test import data, best   # noqa: E402

try: from threadpoolctl import threadpool_limits       # a dev dependency (scikit-learn's); not one of humancert's
except ImportError: threadpool_limits = None

BEFORE = "78961fc"
PREVIOUS = "5e922f8"
NOTE = '"previous" is the board at commit {PREVIOUS} (the dense products in one BLAS call each), timed best of 3 in the same run on the same data with the same seed; "difference to previous" is the largest absolute difference over every number, SEQ interval included (asserted at most 1e-12). "BLAS workers\' CPU" is the CPU time of every thread but the calling one (OpenBLAS\'s workers) during the three timed calls, from /proc. "1 BLAS thread" is compare_judges under threadpoolctl (a dev dependency only), its numbers asserted equal to the default\'s to 1e-12.\n\n'.format(PREVIOUS=PREVIOUS)
ROOT = Path(__file__).resolve().parent.parent


def board_before(commit=BEFORE):
    "compare_judges as of `commit`, loaded as a module of the package (its relative imports resolve to today's other parts)."
    src = subprocess.run(["git", "show", f"{commit}:humancert/judges/board.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader(f"humancert.judges._board_{commit}", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "humancert.judges"
    exec(compile(src, "board_before.py", "exec"), mod.__dict__)
    return mod.compare_judges


def same(new, old, missing):
    "Largest absolute difference over every number both boards have (NaN where both are NaN counts as equal); with missing judge labels the survey equivalence's interval is left out (the stated change of random stream)."
    a, b = new.to_frame(), old.to_frame()
    skip = ("SEQ lo", "SEQ hi") if missing else ()
    cols = [c for c in b.columns if c in a.columns and c not in skip and pd.api.types.is_numeric_dtype(b[c]) and not pd.api.types.is_bool_dtype(b[c])]
    x, y = a.loc[b.index, cols].to_numpy(float), b[cols].to_numpy(float)
    assert (np.isnan(x) == np.isnan(y)).all(), "NaN in different places"
    assert (a.loc[b.index, "alt-test passed"] == b["alt-test passed"]).all() and (a.loc[b.index, "certified"] == b["certified"]).all()
    assert list(a.index) == list(b.index), (list(a.index), list(b.index))
    gap = float(np.nanmax(np.abs(x - y)))
    assert gap <= 1e-12, gap
    return gap


def worker_cpu():
    "CPU seconds used so far by every thread of this process but the calling one (OpenBLAS's workers among them); NaN off Linux."
    if not os.path.isdir("/proc/self/task"): return float("nan")
    me, tot = threading.get_native_id(), 0
    for t in os.listdir("/proc/self/task"):
        if int(t) == me: continue
        try: f = open(f"/proc/self/task/{t}/stat").read().rsplit(")", 1)[1].split()
        except FileNotFoundError: continue
        tot += int(f[11]) + int(f[12])
    return tot / os.sysconf("SC_CLK_TCK")


def run(quick, skip_before):
    cases = [(10_000, 10, 5)] if quick else [(10_000, 10, 5), (100_000, 10, 5)]
    B = 20 if quick else 200
    old = None if skip_before else board_before()
    prev = board_before(PREVIOUS)
    rows = []
    for n_items, n_annot, n_judges in cases:
        wide, judges = data(n_items, n_annot, n_judges)
        ann = Annotations.from_wide(wide)
        for missing in (True, False):
            J = judges if missing else judges.fillna("other")
            t_alt, _ = best(lambda: alt_test(ann, J, 0.1), 3)
            c0 = worker_cpu()
            t_new, new = best(lambda: compare_judges(ann, J, n_bootstrap=B, seed=0), 3)
            c_new = worker_cpu() - c0
            c0 = worker_cpu()
            t_prev, before_change = best(lambda: prev(ann, J, n_bootstrap=B, seed=0), 3)
            c_prev = worker_cpu() - c0
            row = {"items x annotators x judges": f"{n_items:,} x {n_annot} x {n_judges}", "judges' labels": "5 % missing" if missing else "complete",
                   "bootstraps": B, "alt_test (s)": t_alt, "compare_judges (s)": t_new, "compare_judges / alt_test": t_new / t_alt, "load (1 min)": os.getloadavg()[0],
                   "BLAS workers' CPU (s)": c_new, f"previous {PREVIOUS} (s)": t_prev, "previous / alt_test": t_prev / t_alt,
                   "previous: BLAS workers' CPU (s)": c_prev, "difference to previous": same(new, before_change, False)}
            if old is not None and missing:                              # the data; the old board takes minutes
                t = time.perf_counter(); before = old(ann, J, n_bootstrap=B, seed=0); t_old = time.perf_counter() - t
                row |= {"before (s)": t_old, "before / alt_test": t_old / t_alt, "largest difference": same(new, before, missing)}
            if threadpool_limits is not None:                            # the same board with one BLAS thread: threaded BLAS waits on a shared machine
                with threadpool_limits(1, user_api="blas"): t_one, one = best(lambda: compare_judges(ann, J, n_bootstrap=B, seed=0), 3)
                a, b = new.to_frame(), one.to_frame()
                num = [c for c in a.columns if pd.api.types.is_numeric_dtype(a[c]) and not pd.api.types.is_bool_dtype(a[c])]
                gap = float(np.nanmax(np.abs(a[num].to_numpy(float) - b.loc[a.index, num].to_numpy(float))))
                assert gap <= 1e-12 and list(a.index) == list(b.index), gap
                row |= {"1 BLAS thread (s)": t_one, "1 BLAS thread / alt_test": t_one / t_alt}
            rows.append(row)
            print(row, file=sys.stderr)
    return pd.DataFrame(rows), B


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one small case with 20 bootstraps, to check the script runs")
    ap.add_argument("--skip-before", action="store_true", help="do not run the implementation before issue 32 (it takes minutes)")
    args = ap.parse_args()
    table, B = run(args.quick, args.skip_before)
    flags = (" --quick" if args.quick else "") + (" --skip-before" if args.skip_before else "")
    head = (f"# The judges' board: `compare_judges` vs one `alt_test`, and vs the board before issue 32\n\n"
            f"Machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end of the run (other jobs "
            f"share the cores), Python {platform.python_version()}, numpy {np.__version__}, humancert {humancert.__version__}. Wall seconds; "
            f"`alt_test` and `compare_judges` best of 3, the board before one run, {B} bootstraps, seed 0. Command: `python benchmarks/bench_judges.py{flags}`.\n\n"
            f"\"before\" is `humancert/judges/board.py` at commit {BEFORE}, run on the same data in the same process; \"largest difference\" is "
            "the largest absolute difference between the two boards over every number (values and interval ends), checked in the run "
            "together with the verdicts and the ranking. The target is `compare_judges / alt_test` at most 20 at 10^5 items. With missing judge labels "
            "the survey equivalence's interval is left out of the comparison: the board now reads each judge's items within its own "
            "resamples of all the items (a stated change of random stream, tested in tests/test_judges.py), where the board before "
            "drew each judge's items afresh; every other number, the SEQ itself included, is compared. "
            + NOTE)
    out = Path(__file__).with_name("judges.md")
    out.write_text(head + table.to_markdown(index=False, floatfmt=".4g") + "\n")
    print(out.read_text())


if __name__ == "__main__":
    main()
