"""`humancert report --dataset personal_attacks --quiet` against its import floor (issue 35, items 4 and 5).

The floor is what any report on these data must pay before it computes anything: a Python process that imports numpy,
pandas and scipy.special, `python -c "import numpy, pandas, scipy.special"` (the issue's floor, in the environment as it
is). The installed `humancert` command (`humancert.report.console.console_script`) asks numpy's BLAS for one thread
unless the environment names a thread count, and leaves without the interpreter's teardown (notebook 91). So two more
floors are timed in the same rounds: the same imports with one BLAS thread (the command's own environment), and the
bare imports, one BLAS thread and no teardown either (`os._exit` right after the imports): the strictest floor.

Every command is a fresh process, the commands in turn (the order rotating) in each round, so that all see the same machine
load; the ratio is the median of the per-round ratios. The report runs the two statements of the generated console script
(`from humancert.report.console import console_script; console_script()`, with sys.argv set), or, in a checkout from
before notebook 91, `sys.exit(main())` of the CLI. With `--base DIR` a checkout of an earlier commit runs its report in the
same rounds, for a before/after on the same load.

Per process: the wall time (perf_counter around the child) and the CPU time the operating system accounts to the child
(user + sys of every thread, from getrusage(RUSAGE_CHILDREN) deltas). The load average is read before and after and printed
with the table. Each child gets PYTHONPATH=<checkout>, which puts that checkout's humancert first (checked: the child's
humancert.__file__); both checkouts are byte-compiled first (this environment sets PYTHONDONTWRITEBYTECODE, and a stale
.pyc costs a recompile of the module in every process: 0.1 s here). A second table splits the report's CPU time by part,
in process, with one BLAS thread (as the command runs) and with the default threads.

    mkdir /tmp/hc-base && git archive REV humancert data | tar -x -C /tmp/hc-base     # an earlier commit, beside the tree
    python benchmarks/bench_report_floor.py [--pairs 15] [--base /tmp/hc-base --base-rev REV] [--csv nbs/cache/91_report_floor.csv] > benchmarks/report_floor.md
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

from humancert.report.console import BLAS_THREAD_VARIABLES, THREAD_SETTINGS

ROOT = Path(__file__).resolve().parents[1]
FLOOR = [sys.executable, "-c", "import numpy, pandas, scipy.special"]
BARE = [sys.executable, "-c", "import numpy, pandas, scipy.special, os; os._exit(0)"]
ONE = {v: "1" for v in BLAS_THREAD_VARIABLES}                  # what console_script sets
F_ISSUE, F_ONE, F_BARE = ("floor: import numpy, pandas, scipy.special", "floor, one BLAS thread",
                          "bare imports: one BLAS thread, no teardown (os._exit)")
ARGS = ["report", "--dataset", "personal_attacks", "--quiet"]


def report_cmd(root):
    "The report command as the installed console script runs it (its two statements), or `main` in a checkout without notebook 91."
    if (Path(root) / "humancert/report/console.py").is_file():
        code = f"import sys; sys.argv = ['humancert', *{ARGS!r}]; from humancert.report.console import console_script; console_script()"
    else: code = f"import sys; from humancert.report.cli import main; sys.exit(main({ARGS!r}))"
    return [sys.executable, "-c", code]


def which_humancert(root):
    "The humancert a child with PYTHONPATH=root imports (must be root's own)."
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run([sys.executable, "-c", "import humancert; print(humancert.__file__)"], capture_output=True, text=True,
                         env=env, cwd="/tmp", check=True).stdout.strip()
    if not Path(out).resolve().is_relative_to(Path(root).resolve()):
        raise RuntimeError(f"PYTHONPATH={root} imports humancert from {out}, not from the checkout")
    return out


def run(cmd, root, extra=None):
    "One fresh process: (wall seconds, CPU seconds user + sys as the OS accounts them to the child)."
    env = {k: v for k, v in os.environ.items() if k not in THREAD_SETTINGS} | {"PYTHONPATH": str(root)} | (extra or {})
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
    "CPU seconds of each part of the report, in process (process_time): per (checkout, environment), the median over `reps` fresh processes, in turn in each round."
    runs = {k: [] for k in roots}
    keys = list(roots)
    for rnd in range(reps):
        for k in keys[rnd % len(keys):] + keys[:rnd % len(keys)]:             # the order rotates, as in the timing rounds
            root, extra = roots[k]
            env = {k_: v for k_, v in os.environ.items() if k_ not in THREAD_SETTINGS} | {"PYTHONPATH": str(root)} | extra
            code = PARTS.replace("import PARSER", "import " + parser_module(root))
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/tmp", check=True)
            runs[k].append(json.loads(out.stdout.strip().splitlines()[-1]))
    return {k: {p: statistics.median(r[p] for r in rs) for p in rs[0]} for k, rs in runs.items()}


def ratio_line(times, name, floor):
    "The report's median per-round ratios to one floor, wall and CPU."
    t, f = times[name], times[floor]
    return tuple(statistics.median(x[j] / y[j] for x, y in zip(t, f)) for j in (0, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=15, help="rounds; each runs every command once")
    ap.add_argument("--warmup", type=int, default=2, help="rounds first, not counted")
    ap.add_argument("--base-rev", default=None, help="the commit --base holds, for the heading (e.g. from `git archive REV`)")
    ap.add_argument("--parts", type=int, default=5, help="fresh processes for the in-process CPU split")
    ap.add_argument("--base", default=None, help="checkout of an earlier commit (with its data/ folder), run in the same rounds")
    ap.add_argument("--csv", default=None, help="also write every timed process (command, round, wall, CPU) to this CSV (notebook 91's figure)")
    a = ap.parse_args()
    cmds = ({"report, baseline checkout": (report_cmd(a.base), Path(a.base), None)} if a.base else {}) | {
        "report, this tree": (report_cmd(ROOT), ROOT, None), F_ISSUE: (FLOOR, ROOT, None), F_ONE: (FLOOR, ROOT, ONE), F_BARE: (BARE, ROOT, ONE)}
    for name, (_, root, _) in cmds.items():
        which_humancert(root)                                              # byte-compiled first, as an installed package is
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(root) / "humancert")], check=True)
    load0 = os.getloadavg()
    times = {k: [] for k in cmds}
    names_ = list(cmds)
    for rnd in range(a.warmup + a.pairs):
        for name in names_[rnd % len(names_):] + names_[:rnd % len(names_)]:   # the order rotates: no command always runs first
            cmd, root, extra = cmds[name]
            w, c = run(cmd, root, extra)
            if rnd >= a.warmup: times[name].append((w, c))
    load1 = os.getloadavg()
    if a.csv:
        import csv
        with open(a.csv, "w", newline="") as f:
            wr = csv.writer(f); wr.writerow(["command", "round", "wall", "cpu"])
            for name, t in times.items(): wr.writerows([name, r, round(w, 4), round(c, 4)] for r, (w, c) in enumerate(t))
    print("# The report command against its import floor (issue 35, item 4)\n")
    print(f"Written by `python benchmarks/bench_report_floor.py {' '.join(sys.argv[1:])}`"
          + (f" (the baseline: commit {a.base_rev}, checked out beside the tree)" if a.base_rev else "")
          + f" on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load average {load0[0]:.2f} before and {load1[0]:.2f} after (1-minute). The report is `humancert {' '.join(ARGS)}` as the "
          f"installed command runs it; every command is a fresh process, the commands in turn (the order rotating) in each of {a.pairs} rounds "
          f"(after {a.warmup} uncounted), ratios the median of the per-round ratios to the floor in the same round. CPU is user + sys of every "
          "thread, as the OS accounts it to the child. The floors' environment has no BLAS thread variable set unless the row says one thread.\n")
    floors = [F_ISSUE, F_ONE, F_BARE]
    print("| command | wall (s), median (min-max) | CPU (s), median (min-max) | " + " | ".join(f"wall / CPU ratio to '{f}'" for f in floors) + " |")
    print("| --- | --- | --- |" + " --- |" * len(floors))
    for name, t in times.items():
        rs = [ratio_line(times, name, f) for f in floors]
        print(f"| {name} | {med([x[0] for x in t])} | {med([x[1] for x in t])} | " + " | ".join(f"{w:.3f} / {c:.3f}" for w, c in rs) + " |")
    roots = ({"baseline checkout, default BLAS threads (as it ran)": (Path(a.base), {})} if a.base else {}) | {"this tree, one BLAS thread (as the command)": (ROOT, ONE),
                                                                          "this tree, default BLAS threads": (ROOT, {})}
    split = parts(roots, a.parts)
    names = {"parser module": "the CLI's parser module (" + ", ".join(f"{k.split(',')[0]}: {parser_module(r)}" for k, (r, _) in roots.items()) + ")",
             "_model_labels": "of which the model's labels (a soft model's most probable class, checked)",
             "_equivalence": "of which survey equivalence", "_bootstrap_equivalences": "of which its item bootstrap (200 resamples)",
             "_abc_prior_cases": "of which ABC's prior-case count",
             "_margins": "of which S against the margin (certificate sweep; run only when the margins are read)", "_agreement_table": "of which the agreement table (SPA included)",
             "bounds_by_annotators": "of which the bounds against k", "_certificates": "of which the two certificates"}
    print(f"\nWhere the CPU time goes, in one process (process_time around each part, every thread counted; `main` called in process, so no "
          f"exit is timed; median of {a.parts} fresh processes per column, the columns in turn, the order rotating):\n")
    print("| part | " + " | ".join(f"{k} (s)" for k in roots) + " |")
    print("| --- |" + " ---: |" * len(roots))
    order = ["floor imports", "parser module", "humancert's modules", "the report's work", "_model_labels", "_equivalence",
             "_bootstrap_equivalences", "_abc_prior_cases", "_margins", "_agreement_table", "bounds_by_annotators", "_certificates"]
    cell = lambda v: "not run" if v is None else f"{v:.3f}"           # the margin sweep is computed only when the margins are read
    for key in order:
        print(f"| {names.get(key, key)} | " + " | ".join(cell(split[k].get(key)) for k in roots) + " |")
    (iw, ic), (ow, oc), (bw, bc) = (ratio_line(times, "report, this tree", f) for f in floors)
    me, bare = (statistics.median(x[1] for x in times[k]) for k in ("report, this tree", F_BARE))
    ok = lambda w, c: "met" if max(w, c) <= 1.3 else "not met"
    print(f"\nGoal of issue 35 item 4, the report within 1.3 times the floor: against the issue's floor {ok(iw, ic)} "
          f"(median ratio {iw:.2f} wall, {ic:.2f} CPU); against the floor in the command's own environment (one BLAS thread) {ok(ow, oc)} "
          f"({ow:.2f} wall, {oc:.2f} CPU); against the bare imports (one BLAS thread, no teardown) {ok(bw, bc)} ({bw:.2f} wall, {bc:.2f} CPU): the report takes "
          f"{me - bare:.3f} s of CPU above the bare imports, where 1.3 times allows {0.3 * bare:.3f} s.")


if __name__ == "__main__":
    main()
