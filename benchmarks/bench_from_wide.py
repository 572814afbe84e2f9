"""Annotations.from_wide against numpy per-class sums (issue 35, items 2 and 5), time and memory.

The floor: the per-item count of each class straight from the items x raters matrix with numpy, the classes known in advance,
`[(x == c).sum(axis=1) for c in classes]` (one comparison and one row sum per class, nothing stacked). `from_wide` must
also find the classes, check the labels, find the missing cells, and return the validated object, whose counts must equal
the floor's (checked before timing). Data: 10^6 items x 10 raters rating 1-5 (a latent true rating, each rater right with
probability 0.6, else a uniform draw; bench_coefficients.py's ratings), complete and with 20 % of the labels missing (two
raters kept on every item), held four ways: int64 (missing: the sentinel -1, `missing=-1`), float64 (missing: NaN), and text
as a numpy object array of Python str ('r1'..'r5'; missing: None).

Time: each variant runs in a fresh Python process; the floor and `from_wide` run interleaved in it (`--reps` rounds), the
ratio is the median of the per-round ratios, so both sides see the same machine load. The first `codes()` on a fresh object
(the long arrays, built on first use) is timed in the same rounds and reported on its own. Memory: another fresh process per
variant and side builds the data, warms the imports up on a small case, reads VmRSS (the resident data), resets the kernel's
peak-RSS counter (`echo 5 > /proc/self/clear_refs`), runs one call and reads VmHWM: the operating system's own accounting of
the peak, minus the resident data (glibc's mmap threshold fixed, as in bench_certify_floor.py, so freed arrays leave the RSS).

    python benchmarks/bench_from_wide.py [--reps 9] [--items 1000000]

writes benchmarks/from_wide.md, with the load average before and after. The worker processes import the humancert that
`python -c` finds from the current directory: run from the repository's root for the working copy, or from elsewhere with
PYTHONPATH set to measure another copy (`--before PATH` adds that copy's table, e.g. an extracted earlier commit:
`git archive de6e2b1 humancert | tar -x -C /tmp/before`, then `--before /tmp/before --before-name "main at de6e2b1"`).
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
import numpy as np
warnings.simplefilter("ignore")
from humancert.data.annotations import Annotations
n, kind, missing = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
R = 10
def ratings(n, seed=0):
    "n items x R raters rating 1-5 in the variant's dtype, `missing` of the labels dropped (never on the first two raters)."
    rng = np.random.default_rng(seed)
    z = rng.choice(5, n, p=[0.1, 0.2, 0.4, 0.2, 0.1])
    x = np.where(rng.random((n, R)) < 0.6, z[:, None], rng.integers(0, 5, (n, R))) + 1
    drop = rng.random(x.shape) < missing
    drop[:, :2] = False
    if kind == "int": x[drop] = -1; return x, {"missing": -1} if missing else {}, [1, 2, 3, 4, 5]
    if kind == "float": x = x.astype(float); x[drop] = np.nan; return x, {}, [1.0, 2.0, 3.0, 4.0, 5.0]
    names = np.array(["r1", "r2", "r3", "r4", "r5"], dtype=object)
    x = names[x - 1]; x[drop] = None
    return x, {}, list(names)
def floor(x, classes):
    "numpy per-class sums: the per-item count of each class, classes known."
    return [(x == c).sum(axis=1) for c in classes]
def build(x, kw): return Annotations.from_wide(x, **kw)
x, kw, classes = ratings(n)
'''

TIMING = r'''
reps = int(sys.argv[4])
ann = build(x, kw)
if not np.array_equal(ann.counts, np.column_stack(floor(x, classes))) or ann.classes != tuple(int(c) if kind != "str" else c for c in classes):
    sys.exit("from_wide's counts or classes differ from the floor's")
tf, tw, tc = [], [], []
for _ in range(reps):
    t = time.perf_counter(); floor(x, classes); tf.append(time.perf_counter() - t)
    t = time.perf_counter(); ann = build(x, kw); tw.append(time.perf_counter() - t)
    t = time.perf_counter(); ann.codes(); tc.append(time.perf_counter() - t)
print(json.dumps({"floor": tf, "from_wide": tw, "codes": tc, "labels": int(ann.n_labels.sum())}))
'''

MEMORY = r'''
what = sys.argv[4]
wx, wkw, wc = x[:1000], kw, classes
build(wx, wkw); floor(wx, wc)                                  # imports and lazy caches first: they are not data
gc.collect()
''' + PEAK_PROBE + r'''out = build(x, kw) if what == "from_wide" else floor(x, classes)
print(json.dumps({"resident_mb": rss, "peak_mb": status("VmHWM:")}))
'''

FIXED_MMAP = {"MALLOC_MMAP_THRESHOLD_": "131072"}   # glibc: large arrays mapped and unmapped at once, so RSS is the live data


def run(code, *args, env=None, cwd=None):
    out = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code), *map(str, args)], capture_output=True, text=True,
                         env={**os.environ, **(env or {})}, cwd=cwd)
    if out.returncode: sys.exit(f"benchmark failed ({args}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def median(x):
    x = sorted(x); k = len(x)
    return (x[k // 2] + x[(k - 1) // 2]) / 2


VARIANTS = [("int", 0.0), ("int", 0.2), ("float", 0.0), ("float", 0.2), ("str", 0.0), ("str", 0.2)]


def table(n, reps, env=None, cwd=None):
    rows = []
    for kind, missing in VARIANTS:
        t = run(TIMING, n, kind, missing, reps, env=env, cwd=cwd)
        mem = {w: run(MEMORY, n, kind, missing, w, env={**(env or {}), **FIXED_MMAP}, cwd=cwd) for w in ("floor", "from_wide")}
        f, w = t["floor"], t["from_wide"]
        rows.append({"labels": {"int": "int64", "float": "float64", "str": "str (object)"}[kind],
                     "missing": "none" if not missing else ("20 %, -1 sentinel" if kind == "int" else f"20 %, {'NaN' if kind == 'float' else 'None'}"),
                     "labels kept": t["labels"], "floor s": median(f), "from_wide s": median(w),
                     "from_wide / floor": median([wi / fi for wi, fi in zip(w, f)]), "first codes() s": median(t["codes"]),
                     "resident MB": mem["from_wide"]["resident_mb"],
                     "floor peak above resident MB": mem["floor"]["peak_mb"] - mem["floor"]["resident_mb"],
                     "from_wide peak above resident MB": mem["from_wide"]["peak_mb"] - mem["from_wide"]["resident_mb"]})
        print(rows[-1], flush=True)
    import pandas as pd
    df = pd.DataFrame(rows)
    fmt = {"floor s": "{:.3f}", "from_wide s": "{:.3f}", "from_wide / floor": "{:.2f}", "first codes() s": "{:.3f}", "resident MB": "{:.0f}",
           "floor peak above resident MB": "{:.0f}", "from_wide peak above resident MB": "{:.0f}", "labels kept": "{:,}"}
    worst = df.loc[df["from_wide / floor"].idxmax()]
    summary = (f"Largest `from_wide / floor`: {worst['from_wide / floor']:.2f} ({worst['labels']}, missing {worst['missing']}), "
               f"{'within' if worst['from_wide / floor'] <= 1.3 else 'outside'} the 1.3x goal on this run.")
    for k, f in fmt.items(): df[k] = [f.format(v) for v in df[k]]
    return df.to_markdown(index=False, disable_numparse=True) + "\n\n" + summary


def load(): return "{:.1f} / {:.1f} / {:.1f}".format(*os.getloadavg())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--before", help="a directory holding an earlier copy of the humancert package, measured the same way")
    ap.add_argument("--before-name", help="what the earlier copy is, for the heading (e.g. a commit)")
    ap.add_argument("--out", default=str(Path(__file__).with_name("from_wide.md")))
    args = ap.parse_args()
    l0 = load(); now = table(args.items, args.reps); l1 = load()
    text = (f"# Annotations.from_wide against numpy per-class sums (issue 35, items 2 and 5)\n\n"
            f"`python benchmarks/bench_from_wide.py --reps {args.reps} --items {args.items}"
            f"{f' --before {args.before}' if args.before else ''}{f' --before-name {args.before_name!r}' if args.before_name else ''}` on {platform.machine()}, {os.cpu_count()} cores "
            f"shared with other jobs: load average {l0} (1 / 5 / 15 min) before and {l1} after, Python {platform.python_version()}.\n\n"
            f"{args.items:,} items x 10 raters rating 1-5, complete or with 20 % of the labels missing. *floor*: "
            "`[(x == c).sum(axis=1) for c in classes]` on the matrix, the classes known; *from_wide*: `Annotations.from_wide(x)` "
            "(`missing=-1` for the int64 matrix with missing labels), whose counts equal the floor's (checked). Times are medians "
            "of the rounds; the ratio is the median of the per-round ratios (floor and from_wide interleaved in one process). "
            "*first codes()*: the long arrays (item, annotator, label), built on first use, not by from_wide. The goal of issue 35 "
            "is `from_wide / floor` <= 1.3. Memory: a fresh process per variant and side, the kernel's peak-RSS counter reset after "
            "the data are built (`/proc/self/clear_refs`), then VmHWM - VmRSS around one call (glibc's mmap threshold fixed at 128 kB).\n\n"
            + now + "\n")
    if args.before:
        l0 = load(); then = table(args.items, max(3, args.reps // 2), env={"PYTHONPATH": args.before}, cwd="/tmp"); l1 = load()
        text += (f"\n## Before: the same script on {args.before_name or f'`{args.before}`'}\n\nRun right after, with {max(3, args.reps // 2)} rounds, from /tmp with "
                 f"PYTHONPATH set to that copy: load average {l0} before and {l1} after. The first codes() there is a read of arrays "
                 "from_wide already built.\n\n" + then + "\n")
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
