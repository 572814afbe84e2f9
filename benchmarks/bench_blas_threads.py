"""The Python API's bootstraps and numpy's BLAS threads (issue 42 item 5): CPU and wall time of each heavy call with today's
code (the bootstraps run on one BLAS thread, `humancert.data.annotations.single_blas_thread`) against an earlier checkout
whose bootstraps ran on numpy's default BLAS threads, in the same rounds.

Each call runs in a fresh process, as a Python user runs it: no thread variable set (the child's environment drops every
variable the command reads, `humancert.report.console.THREAD_SETTINGS`), so OpenBLAS starts one thread per core. The child
builds its data (seeded), makes one small warm-up call (imports, thread pools), then times the call: wall time
(perf_counter) and the CPU time of every thread of the process (process_time). Per round the two checkouts run each call in
turn (the order alternating); the ratio is the median of the per-round ratios. The numbers each call returns are compared
between the two checkouts: threaded BLAS sums in another order, so they may differ in the last digits (the largest absolute
difference is printed).

    mkdir /tmp/hc-base && git archive REV humancert data | tar -x -C /tmp/hc-base     # the code before, beside the tree
    python benchmarks/bench_blas_threads.py --base /tmp/hc-base --base-rev REV [--rounds 3] > benchmarks/blas_threads.md
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

from humancert.report.console import THREAD_SETTINGS

ROOT = Path(__file__).resolve().parents[1]

SETUP = r"""
import json, time, numpy as np, pandas as pd, humancert
def panel(n, raters, classes=4, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n)
    wide = np.where(rng.random((n, raters)) < 0.7, truth[:, None], rng.integers(0, classes, (n, raters))).astype(float)
    return wide, np.where(rng.random(n) < 0.75, truth, rng.integers(0, classes, n)).astype(float)
"""

CASES = {   # name: (data, the call with B resamples, B)
    "gwet_ac, bootstrap, 10^5 items x 4 raters": (
        "w, m = panel(100_000, 4); ann = humancert.Annotations.from_wide(w)",
        "humancert.gwet_ac(ann, ci_method='bootstrap', n_bootstrap=B, seed=0).ci", 500),
    "krippendorff_alpha ordinal, bootstrap, 10^5 items x 4 raters": (
        "w, m = panel(100_000, 4); ann = humancert.Annotations.from_wide(w + 1, level='ordinal')",
        "humancert.krippendorff_alpha(ann, level='ordinal', ci_method='bootstrap', n_bootstrap=B, seed=0).ci", 200),
    "cohen_kappa_mean, bootstrap, 2x10^4 items x 5 raters": (
        "w, m = panel(20_000, 5); ann = humancert.Annotations.from_wide(w)",
        "humancert.cohen_kappa_mean(ann, ci_method='bootstrap', n_bootstrap=B, seed=0).ci", 200),
    "survey_equivalence (plurality, agreement), 10^4 items x 10 raters": (
        "w, m = panel(10_000, 10); ann = humancert.Annotations.from_wide(w)",
        "str(humancert.survey_equivalence(m, ann, 'plurality', 'agreement', n_bootstrap=B, seed=0))", 200),
    "power_curve (plurality, agreement), 10^4 items x 10 raters": (
        "w, m = panel(10_000, 10); ann = humancert.Annotations.from_wide(w)",
        "humancert.power_curve(ann, 'plurality', 'agreement', n_bootstrap=B, seed=0).to_frame().to_numpy().tolist()", 200),
    "survey_equivalence on ratings (mean, neg_mae), 10^4 items x 5 raters": (
        "w, m = panel(10_000, 5, 5); ann = humancert.Annotations.from_wide(w + 1, level='ordinal')",
        "str(humancert.survey_equivalence(pd.Series(m + 1), ann, 'mean', 'neg_mae', n_bootstrap=B, seed=0))", 200),
    "compare_judges, 2x10^4 items x 10 raters x 3 judges": (
        "w, m = panel(20_000, 10); ann = humancert.Annotations.from_wide(w); J = pd.DataFrame({f'j{g}': np.roll(m, g) for g in range(3)})",
        "humancert.compare_judges(ann, J, n_bootstrap=B, seed=0).to_frame().select_dtypes('number').to_numpy().tolist()", 200),
}

CHILD = SETUP + r"""
{data}
B = 3; {call}                                                    # warm-up: imports, thread pools
B = {B}
t, c = time.perf_counter(), time.process_time()
out = {call}
c, t = time.process_time() - c, time.perf_counter() - t
print(json.dumps({{"cpu": c, "wall": t, "numbers": repr(out)}}))
"""


def run(root, case):
    "One fresh process with PYTHONPATH=root and no thread variable: the call's CPU and wall seconds and its numbers."
    data, call, B = CASES[case]
    env = {k: v for k, v in os.environ.items() if k not in THREAD_SETTINGS} | {"PYTHONPATH": str(root)}
    res = subprocess.run([sys.executable, "-c", CHILD.format(data=data, call=call, B=B)], capture_output=True, text=True, env=env, cwd="/tmp")
    if res.returncode != 0: raise RuntimeError(f"{case} with {root} failed:\n{res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def numbers(s):
    "Every number in a repr, in order."
    import re
    return [float(x) for x in re.findall(r"-?\d+\.\d+(?:e[-+]?\d+)?|-?\d+e[-+]?\d+|nan", s)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="checkout of the code before (with its data/ folder)")
    ap.add_argument("--base-rev", default="the base checkout", help="what --base holds, for the heading")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    roots = {"before": Path(args.base).resolve(), "after": ROOT}
    load = os.getloadavg()
    rows = []
    for case in CASES:
        got = {k: [] for k in roots}
        for r in range(args.rounds):
            for k in (list(roots) if r % 2 == 0 else list(roots)[::-1]):
                got[k].append(run(roots[k], case))
                print(f"{case} [{k}] round {r}: cpu {got[k][-1]['cpu']:.2f} s, wall {got[k][-1]['wall']:.2f} s", file=sys.stderr)
        cpu = statistics.median(b["cpu"] / a["cpu"] for b, a in zip(got["before"], got["after"]))
        wall = statistics.median(b["wall"] / a["wall"] for b, a in zip(got["before"], got["after"]))
        x, y = numbers(got["before"][0]["numbers"]), numbers(got["after"][0]["numbers"])
        same = got["before"][0]["numbers"] == got["after"][0]["numbers"]
        diff = "identical" if same else (f"max abs diff {max(abs(a - b) for a, b in zip(x, y) if a == a and b == b):.1e}" if len(x) == len(y) else "DIFFERENT")
        reps = all(g["numbers"] == got[k][0]["numbers"] for k in got for g in got[k])
        med = lambda k, f: statistics.median(g[f] for g in got[k])
        rows.append(f"| {case} | {CASES[case][2]} | {med('before', 'cpu'):.2f} | {med('after', 'cpu'):.2f} | **{cpu:.1f}x** | "
                    f"{med('before', 'wall'):.2f} | {med('after', 'wall'):.2f} | {wall:.1f}x | {diff}{'' if reps else '; runs differ'} |")
    print(f"# The Python API's bootstraps on one BLAS thread (issue 42 item 5)\n")
    print(f"Written by `python benchmarks/bench_blas_threads.py --base <{args.base_rev}> --rounds {args.rounds}` on the "
          f"{os.cpu_count()}-core development machine ({platform.machine()}, Python {platform.python_version()}, numpy "
          f"{__import__('numpy').__version__}), load average {load[0]:.1f} before and {os.getloadavg()[0]:.1f} after (a shared machine).\n")
    print(f"Before: {args.base_rev}, the bootstraps on numpy's default BLAS threads (one per core). After: this tree, each bootstrap "
          "under `single_blas_thread` (threadpoolctl, one BLAS thread while it runs). Each call in a fresh process with no thread "
          "variable set, as a Python user runs it; CPU = every thread of the process (process_time) around the call alone; "
          f"medians over {args.rounds} rounds, ratios the medians of per-round ratios (before / after).\n")
    print("| call | resamples | CPU before (s) | CPU after (s) | CPU ratio | wall before (s) | wall after (s) | wall ratio | numbers, before vs after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
