"""certify against its single-pass floor (issue 35, item 1), time and memory.

The floor is what any implementation must do: one pass building the profile key from the count columns and the model's
integer codes (radices known in advance, no range scan), one `bincount` of it, then `certify` on that histogram. With
string labels the floor also needs one `pd.factorize` of the model's labels, timed on its own. Data: n binary items with
10 labels each (counts_data of bench_speed.py), the model's labels as a Series of int (0/1) or str ('neg'/'pos').

Time: each variant runs in a fresh Python process; the floor, the factorize and certify run interleaved in that process
(`--reps` rounds), and the ratios are medians of the per-round ratios, so that both sides see the same machine load.
Memory: another fresh process per variant builds the data, warms the imports up on a small case, reads VmRSS (the resident
data), resets the kernel's peak-RSS counter (`echo 5 > /proc/self/clear_refs`), runs one call and reads VmHWM: the
operating system's own accounting of the peak, minus the resident data. The memory processes fix glibc's mmap threshold
(MALLOC_MMAP_THRESHOLD_=131072): with its default dynamic threshold, arrays freed while the data were built stay in the
heap, count as resident, and hide the call's own temporaries.

    python benchmarks/bench_certify_floor.py [--reps 9] [--sizes 6 7]

writes benchmarks/certify_floor.md. The load average is read before and after and printed with the table. The worker
processes import the humancert that `python -c` finds from the current directory: run it from the repository's root for
the working copy, or from elsewhere with PYTHONPATH set to measure another copy (the table's "before" section).
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

from _peak_probe import PEAK_PROBE

PRELUDE = r'''
import gc, json, sys, time, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
from humancert.data.annotations import Annotations
from humancert.data.profiles import Profiles
from humancert.certification.certify import certify
n, labels = int(sys.argv[1]), sys.argv[2]
R = 10
def counts_data(n, seed=0):
    "n binary items with R labels each: each rater right w.p. 0.8 about a truth; a model right w.p. 0.9."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    pos = np.where(truth == 1, rng.binomial(R, 0.8, n), rng.binomial(R, 0.2, n))
    m = np.where(rng.random(n) < 0.9, truth, 1 - truth)
    if labels == "int":
        ann = Annotations.from_counts(pd.DataFrame({0: R - pos, 1: pos}))
        return ann, pd.Series(m, index=ann.items)
    ann = Annotations.from_counts(pd.DataFrame({"neg": R - pos, "pos": pos}))
    return ann, pd.Series(np.array(["neg", "pos"], dtype=object)[m], index=ann.items)
def floor(ann, codes):
    "One pass for the key (radices R + 1, R + 1, 2 known), one bincount, certify on the histogram."
    c = ann.counts
    key = c[:, 0].astype(np.int64); key *= R + 1; key += c[:, 1]; key *= 2; key += codes
    h = np.bincount(key, minlength=2 * (R + 1) ** 2)
    p = np.flatnonzero(h)
    return certify(Profiles(np.column_stack([p // (2 * (R + 1)), p // 2 % (R + 1)]), h[p], ann.classes, p % 2))
def factorize(model):
    "The one factorize the issue allows: pandas' own call on the Series (its string dtype: faster than on an object array)."
    return pd.factorize(model)[0]
ann, model = counts_data(n)
codes = model.to_numpy() if labels == "int" else pd.factorize(model, sort=True)[0]   # the floor's codes, in class order, made once
'''

TIMING = r'''
reps = int(sys.argv[3])
a, b = certify(ann, model), floor(ann, codes)
if (a.score, a.lower, a.upper, a.n_items, a.count) != (b.score, b.lower, b.upper, b.n_items, b.count):
    sys.exit(f"the floor's certificate differs: {a} vs {b}")
tf, tz, tc = [], [], []
for _ in range(reps):
    t = time.perf_counter(); floor(ann, codes); tf.append(time.perf_counter() - t)
    if labels == "str":
        t = time.perf_counter(); factorize(model); tz.append(time.perf_counter() - t)
    t = time.perf_counter(); certify(ann, model); tc.append(time.perf_counter() - t)
print(json.dumps({"floor": tf, "factorize": tz, "certify": tc, "S": a.score}))
'''

MEMORY = r'''
what = sys.argv[3]
warm_ann, warm_model = counts_data(1000)                       # imports and lazy caches first: they are not data
certify(warm_ann, warm_model); floor(warm_ann, codes[:1000]); factorize(warm_model)
del warm_ann, warm_model
gc.collect()
''' + PEAK_PROBE + r'''if what == "certify": certify(ann, model)
elif what == "floor": floor(ann, codes)
else: factorize(model)
print(json.dumps({"resident_mb": rss, "peak_mb": status("VmHWM:")}))
'''


def run(code, *args, env=None):
    out = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code), *map(str, args)], capture_output=True, text=True,
                         env=None if env is None else {**os.environ, **env})
    if out.returncode: sys.exit(f"benchmark failed ({args}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


FIXED_MMAP = {"MALLOC_MMAP_THRESHOLD_": "131072"}   # glibc: large arrays mapped and unmapped at once, so RSS is the live data


def median(x):
    x = sorted(x); k = len(x)
    return (x[k // 2] + x[(k - 1) // 2]) / 2


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--sizes", type=int, nargs="+", default=[6, 7])
    ap.add_argument("--out", default=str(Path(__file__).with_name("certify_floor.md")))
    args = ap.parse_args()
    load0 = os.getloadavg()
    rows = []
    for e in args.sizes:
        for labels in ("int", "str"):
            n = 10 ** e
            t = run(TIMING, n, labels, args.reps)
            mem = {w: run(MEMORY, n, labels, w, env=FIXED_MMAP) for w in ("floor", "certify") + (("factorize",) if labels == "str" else ())}
            f, c, z = t["floor"], t["certify"], t["factorize"] or [0.0] * len(t["floor"])
            ratio = median([ci / fi for ci, fi in zip(c, f)])
            goal = median([ci / (2 * fi + zi) for ci, fi, zi in zip(c, f, z)])    # <= 1: within 2x the floor (+ one factorize)
            rows.append({"items": f"10^{e}", "labels": labels, "floor s": median(f), "factorize s": median(z) if labels == "str" else None,
                         "certify s": median(c), "certify / floor": ratio, "certify / (2 floor + factorize)": goal,
                         "resident MB": mem["certify"]["resident_mb"],
                         "certify peak above resident MB": mem["certify"]["peak_mb"] - mem["certify"]["resident_mb"],
                         "floor peak above resident MB": mem["floor"]["peak_mb"] - mem["floor"]["resident_mb"],
                         "factorize peak above resident MB": mem["factorize"]["peak_mb"] - mem["factorize"]["resident_mb"] if labels == "str" else None,
                         "S": t["S"]})
            print(rows[-1], flush=True)
    load1 = os.getloadavg()
    import pandas as pd
    df = pd.DataFrame(rows)
    fmt = {"floor s": "{:.3f}", "factorize s": "{:.3f}", "certify s": "{:.3f}", "certify / floor": "{:.2f}",
           "certify / (2 floor + factorize)": "{:.2f}", "resident MB": "{:.0f}", "certify peak above resident MB": "{:.0f}",
           "floor peak above resident MB": "{:.0f}", "factorize peak above resident MB": "{:.0f}", "S": "{:.4f}"}
    show = df.copy()
    for k, f in fmt.items(): show[k] = [("-" if v is None or v != v else f.format(v)) for v in df[k]]
    text = (f"# certify against its single-pass floor (issue 35, item 1)\n\n"
            f"`python benchmarks/bench_certify_floor.py --reps {args.reps}` on {platform.machine()}, {os.cpu_count()} cores shared with "
            f"other jobs: load average {load0[0]:.1f} / {load0[1]:.1f} / {load0[2]:.1f} (1 / 5 / 15 min) before and "
            f"{load1[0]:.1f} / {load1[1]:.1f} / {load1[2]:.1f} after, Python {platform.python_version()}.\n\n"
            "Binary items with 10 labels each (`Annotations.from_counts`), the model's labels a Series of int (0/1) or str. "
            "*floor*: one pass building the profile key from the count columns and the model's integer codes, one `bincount`, "
            "`certify` on the histogram (the same certificate, checked); *factorize*: one `pd.factorize` of the string labels. "
            "Times are medians of the rounds; the ratios are medians of the per-round ratios (floor, factorize and certify "
            "interleaved in one process). The goal of issue 35 is `certify / (2 floor + factorize)` <= 1 (factorize = 0 for int "
            "labels) and a peak at most 150 MB above the resident data. Memory: a fresh process per variant, the kernel's "
            "peak-RSS counter reset after the data are built (`/proc/self/clear_refs`), then VmHWM - VmRSS around one call, with glibc's mmap threshold fixed at 128 kB (`MALLOC_MMAP_THRESHOLD_`) so that freed "
            "arrays leave the RSS at once and the resident figure is the live data.\n\n"
            + show.to_markdown(index=False, disable_numparse=True) + "\n")
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
