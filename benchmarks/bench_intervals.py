"""What an analytic interval costs on top of its point estimate, for every coefficient that has one (issue 35 items 3 and 5).

    python benchmarks/bench_intervals.py [--quick] [--repeat R] [--before COMMIT]     # writes benchmarks/intervals.md

For each coefficient, the same call is timed with the point estimate only (`ci_method=None`) and with its analytic interval
(`ci_method="analytic"`), in the same process, interleaved: each repeat times both back to back, alternating which goes
first, and the ratio interval / point of that pair is one sample; the table gives the median of those paired ratios and
the median times per call. A sample times enough calls (the same number for both) for the point estimate to take about
50 ms, so that calls of a millisecond are not all scheduler noise. The goal of issue 35 item 3 is a ratio of at most 3 for every row.

Data: items x 10 raters rating 1-5 (a latent true rating drawn from (0.1, 0.2, 0.4, 0.2, 0.1), each rater right with
probability 0.6, else a uniform draw), complete, and the same with 30 % of the labels missing (two labels kept on every
item); 10^5 and 10^6 items (`--quick`: 10^5 only). The Annotations are built once, outside the timed region. The
two-rater coefficients (Cohen's kappa, Scott's pi) take the first two raters' columns. The machine's load average
(1 minute) is read before and after each data set and printed with it: the machine is shared, so single timings are
noisy, but the two calls of a pair run seconds apart under the same load.

With `--before COMMIT` the same measurements are then made on the code of an earlier commit (its `humancert/` taken with
`git archive` into a temporary directory and run by this script in a subprocess), and its ratios are shown beside
today's: what the interval cost before.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

import humancert
from humancert.data.annotations import Annotations
from humancert.agreement.measures import fleiss_kappa, krippendorff_alpha
from bench_coefficients import ratings                          # the same rating matrices as the coefficient benchmark
from humancert.agreement.coefficients import brennan_prediger, cohen_kappa, conger_kappa, gwet_ac, krippendorff_alpha_at, scott_pi

HERE = Path(__file__).resolve().parent
GOAL = 3.0




def cases(ann, x):
    "(coefficient, weighting, call(ci_method)) for every coefficient with an analytic interval."
    a, b = x[:, 0], x[:, 1]
    out = []
    for level in ("nominal", "ordinal", "interval", "ratio"):
        out.append((f"Krippendorff's alpha, {level}", "-" if level == "nominal" else level,
                    lambda ci, level=level: krippendorff_alpha(ann, level, ci_method=ci)))
    out.append(("Krippendorff's alpha, nominal (krippendorff_alpha_at)", "-", lambda ci: krippendorff_alpha_at(ann, "nominal", ci_method=ci)))
    for w in (None, "quadratic"):
        name = "unweighted" if w is None else w
        out += [("Fleiss' kappa", name, lambda ci, w=w: fleiss_kappa(ann, weights=w, ci_method=ci)),
                ("Fleiss' kappa, chance='items'", name, lambda ci, w=w: fleiss_kappa(ann, chance="items", weights=w, ci_method=ci)),
                ("Randolph's kappa", name, lambda ci, w=w: fleiss_kappa(ann, "randolph", weights=w, ci_method=ci)),
                ("Gwet's AC1/AC2", name, lambda ci, w=w: gwet_ac(ann, w, ci_method=ci)),
                ("Brennan-Prediger", name, lambda ci, w=w: brennan_prediger(ann, w, ci_method=ci)),
                ("Conger's kappa", name, lambda ci, w=w: conger_kappa(ann, w, ci_method=ci)),
                ("Cohen's kappa (raters 1-2)", name, lambda ci, w=w: cohen_kappa(a, b, w, ci_method=ci)),
                ("Scott's pi (raters 1-2)", name, lambda ci, w=w: scott_pi(a, b, w, ci_method=ci))]
    return out


def paired(call, repeat, inner):
    "Median point and interval seconds per call and the median of the paired ratios interval / point, order alternating."
    tp, ti, ratio = [], [], []
    for k in range(repeat):
        times = {}
        for ci in ((None, "analytic") if k % 2 == 0 else ("analytic", None)):
            t = time.perf_counter()
            for _ in range(inner): call(ci)
            times[ci] = (time.perf_counter() - t) / inner
        tp.append(times[None]); ti.append(times["analytic"]); ratio.append(times["analytic"] / times[None])
    return float(np.median(tp)), float(np.median(ti)), float(np.median(ratio))


def calls_per_sample(call):
    "Calls per timed sample: enough for the point estimate to take about 50 ms, so that millisecond calls are not all noise."
    t = time.perf_counter(); call(None); t = time.perf_counter() - t
    return max(1, int(np.ceil(0.05 / max(t, 1e-6))))


def run(quick, repeat):
    warnings.simplefilter("ignore")
    rows, loads = [], []
    for n in ((100_000,) if quick else (100_000, 1_000_000)):
        for missing in (0.0, 0.3):
            x = ratings(n, 10, missing)
            ann = Annotations.from_wide(x)
            data = f"{n:,} x 10" + (", 30 % missing" if missing else ", complete")
            load0 = os.getloadavg()[0]
            for name, weighting, call in cases(ann, x):
                call(None); call("analytic")                                 # warm: imports, first-touch pages
                inner = calls_per_sample(call)
                tp, ti, r = paired(call, repeat, inner)
                rows.append({"data": data, "coefficient": name, "weights / level": weighting, "point (s)": tp,
                             "with analytic interval (s)": ti, "calls per sample": inner, "median paired ratio": r, f"within {GOAL:g}x": "yes" if r <= GOAL else "NO"})
                print(f"{data:28s} {name:55s} {weighting:10s} {tp:9.4f} {ti:9.4f} {r:6.2f}", flush=True)
            loads.append((data, load0, os.getloadavg()[0]))
    return pd.DataFrame(rows), loads


def before(commit, quick, repeat):
    "The ratios of the code at `commit`: its humancert/ from git archive, this script run on it in a subprocess."
    root = HERE.parent
    with tempfile.TemporaryDirectory() as d:
        archive = subprocess.run(["git", "-C", str(root), "archive", commit, "humancert"], check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", d], input=archive, check=True)
        out = Path(d) / "rows.json"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--repeat", str(repeat), "--json", str(out)] + (["--quick"] if quick else [])
        subprocess.run(cmd, check=True, env=dict(os.environ, PYTHONPATH=d), cwd=d)
        res = json.loads(out.read_text())
    return pd.DataFrame(res["rows"]), res["loads"]


def write(df, loads, repeat, cmd, old=None, old_loads=None, commit=None):
    worst = df.loc[df["median paired ratio"].idxmax()]
    ok = bool((df["median paired ratio"] <= GOAL).all())
    key = ["data", "coefficient", "weights / level"]
    if old is not None:
        df = df.merge(old[key + ["median paired ratio"]].rename(columns={"median paired ratio": f"ratio at {commit}"}), on=key, how="left")
    lines = ["# Analytic intervals against their point estimates", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other jobs), Python {platform.python_version()}, "
             f"numpy {np.__version__}, humancert {humancert.__version__}. Command: `{cmd}`.", "",
             "Each row times the same call with `ci_method=None` (point) and `ci_method=\"analytic\"` (with its interval), in one "
             f"process, interleaved: {repeat} pairs, back to back, alternating which runs first, each of the row's \"calls per "
             "sample\" calls (enough for the point estimate to take about 50 ms); the ratio is the median of the pairs' ratios, "
             "the times the medians per call. The Annotations are built outside the timed region. The goal of issue 35 "
             f"item 3: every ratio at most {GOAL:g}.", "",
             "Load average (1 minute) before and after each data set: " +
             "; ".join(f"{d}: {a:.2f} -> {b:.2f}" for d, a, b in loads) + "."]
    if old is not None:
        lines += ["", f"The column \"ratio at {commit}\" is the same measurement, made right after in a subprocess on the code of "
                  f"commit {commit} (before the variance passes of issue 35 item 3); its load: " +
                  "; ".join(f"{d}: {a:.2f} -> {b:.2f}" for d, a, b in old_loads) + "."]
    lines += ["", df.to_markdown(index=False, floatfmt=".4g"), "",
              (f"Every row is within {GOAL:g}x; the largest ratio is {worst['median paired ratio']:.2f} ({worst['coefficient']}, "
               f"{worst['weights / level']}, {worst['data']})." if ok else
               f"Not every row is within {GOAL:g}x: the largest ratio is {worst['median paired ratio']:.2f} ({worst['coefficient']}, "
               f"{worst['weights / level']}, {worst['data']}); the rows marked NO miss the goal."), ""]
    (HERE / "intervals.md").write_text("\n".join(lines))


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10^5 items only")
    p.add_argument("--repeat", type=int, default=9, help="pairs per row (default 9)")
    p.add_argument("--before", default=None, help="also measure the code of this earlier commit, in a subprocess")
    p.add_argument("--json", default=None, help=argparse.SUPPRESS)          # the subprocess of --before: rows to this file only
    args = p.parse_args()
    df, loads = run(args.quick, args.repeat)
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": df.to_dict("records"), "loads": loads}))
        sys.exit(0)
    old, old_loads = before(args.before, args.quick, args.repeat) if args.before else (None, None)
    write(df, loads, args.repeat, "python benchmarks/bench_intervals.py" + (" --quick" if args.quick else "") +
          ("" if args.repeat == 9 else f" --repeat {args.repeat}") + (f" --before {args.before}" if args.before else ""),
          old, old_loads, args.before)
