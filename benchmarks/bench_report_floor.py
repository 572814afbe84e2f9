"""`humancert report --dataset personal_attacks --quiet` against its import floor (issue 35, items 4 and 5).

The floor is what any report on these data must pay before it computes anything: a Python process that imports numpy,
pandas and scipy.special, `python -c "import numpy, pandas, scipy.special"`. Both are whole processes, started the way a
user starts them (the report through the installed console script `humancert`, or `python -m`-free `python -c main()`
when no console script is found), one after the other in turn (report, floor, report, floor, ...), so that both see the
same machine load; the ratio is the median of the per-pair ratios. With `--base DIR` a checkout of an earlier commit
runs its report in the same rounds (report of DIR, report of this tree, floor), for a before/after on the same load.

Per process: the wall time (perf_counter around the child) and the CPU time the operating system accounts to the child
(user + sys, from getrusage(RUSAGE_CHILDREN) deltas). The load average is read before and after and printed with the table.
Each child gets PYTHONPATH=<checkout>, which puts that checkout's humancert first (checked: the child's humancert.__file__);
both checkouts are byte-compiled first (this environment sets PYTHONDONTWRITEBYTECODE, and a stale .pyc costs a recompile
of the module in every process: 0.1 s here). A second table splits the report's CPU time by part, in process.

    mkdir /tmp/hc-base && git archive REV humancert data | tar -x -C /tmp/hc-base     # an earlier commit, beside the tree
    python benchmarks/bench_report_floor.py [--pairs 15] [--base /tmp/hc-base --base-rev REV] > benchmarks/report_floor.md
"""
import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FLOOR = [sys.executable, "-c", "import numpy, pandas, scipy.special"]
ARGS = ["report", "--dataset", "personal_attacks", "--quiet"]


def report_cmd():
    "The report command as a user runs it: the console script beside this Python, else `python -c` calling the CLI's main."
    script = Path(sys.executable).with_name("humancert")
    if script.is_file(): return [str(script), *ARGS], "humancert " + " ".join(ARGS)
    code = f"import sys; from humancert.report.cli import main; sys.exit(main({ARGS!r}))"
    return [sys.executable, "-c", code], f"python -c 'main({ARGS!r})'"


def which_humancert(root):
    "The humancert a child with PYTHONPATH=root imports (must be root's own)."
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", "import humancert; print(humancert.__file__)"], capture_output=True, text=True,
                         env=env, cwd="/tmp", check=True).stdout.strip()
    if not Path(out).resolve().is_relative_to(Path(root).resolve()):
        raise RuntimeError(f"PYTHONPATH={root} imports humancert from {out}, not from the checkout")
    return out


def run(cmd, root):
    "One fresh process: (wall seconds, CPU seconds user + sys as the OS accounts them to the child)."
    env = {**os.environ, "PYTHONPATH": str(root)}
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd="/tmp")
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0: raise RuntimeError(f"{cmd} failed:\n{res.stderr[-2000:]}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def med(xs): return f"{statistics.median(xs):.3f} ({min(xs):.3f}-{max(xs):.3f})"


PARTS = r"""
import json, time, io, contextlib
c = [time.process_time()]
import numpy, pandas, scipy.special
c.append(time.process_time())
import PARSER
c.append(time.process_time())
from humancert.report.cli import main
c.append(time.process_time())
import humancert.report.reporting as R, humancert.survey.survey_equivalence as SE
acc = {}
def wrap(mod, name):
    f = getattr(mod, name)
    def g(*a, **k):
        t = time.process_time()
        try: return f(*a, **k)
        finally: acc[name] = acc.get(name, 0) + time.process_time() - t
    setattr(mod, name, g)
for n in ("_model_labels", "_equivalence", "_margins", "_agreement_table", "bounds_by_annotators", "_certificates"): wrap(R, n)
for n in ("_bootstrap_equivalences", "_abc_prior_cases"): wrap(SE, n)
with contextlib.redirect_stdout(io.StringIO()): main(%r)
c.append(time.process_time())
print(json.dumps({"floor imports": c[1] - c[0], "parser module": c[2] - c[1],
                  "humancert's modules": c[3] - c[2], "the report's work": c[4] - c[3]} | acc))
""" % ARGS


def parser_module(root):
    "The module the checkout's CLI builds its parser with: fastcore.script (before issue 35 item 4) or argparse."
    return "fastcore.script" if "from fastcore.script import" in (Path(root) / "humancert/report/cli.py").read_text() else "argparse"


def parts(roots, reps):
    "CPU seconds of each part of the report, in process (process_time): per checkout, the median over `reps` fresh processes, the checkouts in turn in each round."
    runs = {k: [] for k in roots}
    keys = list(roots)
    for rnd in range(reps):
        for k in keys[rnd % len(keys):] + keys[:rnd % len(keys)]:             # the order rotates, as in the timing rounds
            root = roots[k]
            env = {**os.environ, "PYTHONPATH": str(root)}
            code = PARTS.replace("import PARSER", "import " + parser_module(root))
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/tmp", check=True)
            runs[k].append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: {p: statistics.median(r[p] for r in rs) for p in rs[0]} for k, rs in runs.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=15, help="rounds; each runs every command once")
    ap.add_argument("--warmup", type=int, default=2, help="rounds first, not counted")
    ap.add_argument("--base-rev", default=None, help="the commit --base holds, for the heading (e.g. from `git archive REV`)")
    ap.add_argument("--parts", type=int, default=5, help="fresh processes for the in-process CPU split")
    ap.add_argument("--base", default=None, help="checkout of an earlier commit (with its data/ folder), run in the same rounds")
    a = ap.parse_args()
    rep, rep_text = report_cmd()
    cmds = ({"report, baseline checkout": (rep, Path(a.base))} if a.base else {}) | {
        "report, this tree": (rep, ROOT), "floor: import numpy, pandas, scipy.special": (FLOOR, ROOT)}
    for name, (_, root) in cmds.items():
        which_humancert(root)                                              # byte-compiled first, as an installed package is
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(root) / "humancert")], check=True)
    load0 = os.getloadavg()
    times = {k: [] for k in cmds}
    names_ = list(cmds)
    for rnd in range(a.warmup + a.pairs):
        for name in names_[rnd % len(names_):] + names_[:rnd % len(names_)]:   # the order rotates: no command always runs first
            cmd, root = cmds[name]
            w, c = run(cmd, root)
            if rnd >= a.warmup: times[name].append((w, c))
    load1 = os.getloadavg()
    floor = times["floor: import numpy, pandas, scipy.special"]
    print("# The report command against its import floor (issue 35, item 4)\n")
    print(f"Written by `python benchmarks/bench_report_floor.py {' '.join(sys.argv[1:])}`"
          + (f" (the baseline: commit {a.base_rev}, checked out beside the tree)" if a.base_rev else "")
          + f" on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {load0[0]:.2f} before and {load1[0]:.2f} after (1-minute). The report is `{rep_text}`; every command is a "
          f"fresh process, the commands in turn (the order rotating) in each of {a.pairs} rounds (after {a.warmup} uncounted), ratios the median of "
          "the per-round ratios to the floor in the same round. CPU is user + sys as the OS accounts it to the child.\n")
    print("| command | wall (s), median (min-max) | CPU (s), median (min-max) | wall / floor, median of per-round ratios (min-max) | CPU / floor |")
    print("| --- | --- | --- | --- | --- |")
    for name, t in times.items():
        rw = [x[0] / f[0] for x, f in zip(t, floor)]
        rc = [x[1] / f[1] for x, f in zip(t, floor)]
        print(f"| {name} | {med([x[0] for x in t])} | {med([x[1] for x in t])} | {med(rw)} | {med(rc)} |")
    roots = ({"baseline checkout": Path(a.base)} if a.base else {}) | {"this tree": ROOT}
    split = parts(roots, a.parts)
    names = {"parser module": "the CLI's parser module (" + ", ".join(f"{k}: {parser_module(r)}" for k, r in roots.items()) + ")",
             "_model_labels": "of which the model's labels (a soft model's most probable class, checked)",
             "_equivalence": "of which survey equivalence", "_bootstrap_equivalences": "of which its item bootstrap (200 resamples)",
             "_abc_prior_cases": "of which ABC's prior-case count",
             "_margins": "of which S against the margin (certificate sweep; now run only when the margins are read)", "_agreement_table": "of which the agreement table (SPA included)",
             "bounds_by_annotators": "of which the bounds against k", "_certificates": "of which the two certificates"}
    print(f"\nWhere the CPU time goes, in one process (process_time around each part; median of {a.parts} fresh processes per checkout, the checkouts in turn, the order rotating):\n")
    print("| part | " + " | ".join(f"{k} (s)" for k in roots) + " |")
    print("| --- |" + " ---: |" * len(roots))
    order = ["floor imports", "parser module", "humancert's modules", "the report's work", "_model_labels", "_equivalence",
             "_bootstrap_equivalences", "_abc_prior_cases", "_margins", "_agreement_table", "bounds_by_annotators", "_certificates"]
    cell = lambda v: "not run" if v is None else f"{v:.3f}"           # the margin sweep is computed only when the margins are read
    for key in order:
        print(f"| {names.get(key, key)} | " + " | ".join(cell(split[k].get(key)) for k in roots) + " |")
    me = times["report, this tree"]
    rw, rc = (statistics.median(x[j] / f[j] for x, f in zip(me, floor)) for j in (0, 1))
    fc, mc = statistics.median(f[1] for f in floor), statistics.median(x[1] for x in me)
    print(f"\nGoal of issue 35 item 4, the report within 1.3 times the floor: {'met' if max(rw, rc) <= 1.3 else 'not met'} "
          f"(median ratio {rw:.2f} wall, {rc:.2f} CPU). 1.3 times the floor allows {0.3 * fc:.3f} s of CPU above it; the report "
          f"takes {mc - fc:.3f} s above it, of which its own work (second table) is {split['this tree']['the report' + chr(39) + 's work']:.3f} s.")


if __name__ == "__main__":
    main()
