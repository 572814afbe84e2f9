"""Start-up and the report's cost, today's code against a baseline checkout, each in fresh processes (issue 25).

    git worktree add /tmp/hc-base REV           # the baseline (a commit before the change): a separate directory, /work/main's git state untouched
    python benchmarks/bench_startup.py --base /tmp/hc-base --repeat 5 > benchmarks/startup.md

Each measurement is a new Python process with PYTHONPATH pointing at one checkout (the installed package is not used), run
alternately for the two checkouts so that both see the same machine load; the table gives the median and the range. Measured:
`import humancert` (time inside the process, around the import, and which heavy modules it loaded) and
`humancert report --dataset personal_attacks` (the whole process, as a user waits for it), split into its parts by the
report's own timing of the `confidence_at` sweep when the checkout has it."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

IMPORT = r"""
import json, sys, time
t = time.perf_counter()
import humancert
dt = time.perf_counter() - t
heavy = [m for m in ("scipy.stats", "scipy.optimize", "scipy.sparse", "tqdm", "duckdb", "narwhals", "matplotlib", "pandas") if m in sys.modules]
print(json.dumps({"import_s": dt, "heavy": heavy, "file": humancert.__file__}))
"""

REPORT = r"""
import json, sys, time, io, contextlib
t0 = time.perf_counter()
import importlib
try: main, C = importlib.import_module("humancert.report.cli").main, importlib.import_module("humancert.certification.certify")
except ImportError: main, C = importlib.import_module("humancert.cli").main, importlib.import_module("humancert.certify")   # before issue 27's layout
t1 = time.perf_counter()
sweep = [0.0]
orig = C.Certificate.confidence_at
def timed(self, taus):
    t = time.perf_counter(); out = orig(self, taus); sweep[0] += time.perf_counter() - t; return out
C.Certificate.confidence_at = timed
buf = io.StringIO()
with contextlib.redirect_stdout(buf): code = main(["report", "--dataset", "personal_attacks", "--quiet"])
t2 = time.perf_counter()
heavy = [m for m in ("scipy.stats", "scipy.optimize", "scipy.sparse", "tqdm", "duckdb", "narwhals", "matplotlib", "pandas") if m in sys.modules]
print(json.dumps({"code": code, "import_s": t1 - t0, "report_s": t2 - t1, "sweep_s": sweep[0], "heavy": heavy}))
"""


def run(code, root):
    "One fresh process with `root` first on the path; returns its JSON line and its wall time."
    env = {**os.environ, "PYTHONPATH": str(root)}
    t = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/tmp")
    wall = time.perf_counter() - t
    if res.returncode != 0: raise RuntimeError(res.stderr[-2000:])
    return json.loads(res.stdout.strip().splitlines()[-1]), wall


def med(xs): return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", default="/tmp/hc-base", help="checkout of the baseline (git worktree add /tmp/hc-base HEAD)")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    roots = {"baseline": Path(a.base), "today (working tree)": Path(__file__).resolve().parents[1]}
    imp = {k: [] for k in roots}; rep = {k: [] for k in roots}; heavy = {}; heavy_rep = {}
    for _ in range(a.repeat):
        for name, root in roots.items():                         # alternate: both see the same load
            r, wall = run(IMPORT, root)
            assert Path(r["file"]).resolve().is_relative_to(root.resolve()), r["file"]
            imp[name].append((r["import_s"], wall)); heavy[name] = r["heavy"]
            r, wall = run(REPORT, root)
            assert r["code"] == 0
            rep[name].append((wall, r["report_s"], r["sweep_s"])); heavy_rep[name] = r["heavy"]
    print("| checkout | `import humancert` (s, in process) | process wall (s) | modules loaded by the import | "
          "`humancert report --dataset personal_attacks` (s, process wall) | of which the report (s) | of which `confidence_at` (s) | "
          "modules loaded by the report |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in roots:
        i, r = imp[name], rep[name]
        print(f"| {name} | {med([x[0] for x in i])} | {med([x[1] for x in i])} | {', '.join(heavy[name])} | "
              f"{med([x[0] for x in r])} | {med([x[1] for x in r])} | {med([x[2] for x in r])} | {', '.join(heavy_rep[name])} |")
    b, t = (statistics.median([x[0] for x in imp[k]]) for k in roots)
    rb, rt = (statistics.median([x[0] for x in rep[k]]) for k in roots)
    print(f"\nratio today / baseline: import {t / b:.2f}, report command {rt / rb:.2f} (medians of {a.repeat} fresh processes each, "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}).")


if __name__ == "__main__":
    main()
