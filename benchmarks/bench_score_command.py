"""Whole-command wall time of `humancert score FILE` against `truescore audit FILE` on the same file, as a ratio in one run
(issue 43's Checks: the command at least 10x faster than `truescore audit`).

    python benchmarks/bench_score_command.py [--items 1000000] [--gold 100000] [--runs 3]   # writes benchmarks/score_command.md

The file: a CSV with an item id, the judge's 0/1 verdict on every item and a gold column blank where unlabelled (the issue's
design: 70 % truly pass, judge sensitivity 0.9 and specificity 0.6, gold on a uniform random subset), written once to a
temporary folder. Each command runs as a user runs it (a new process: interpreter start, imports, reading, estimating,
printing), `humancert score FILE --judge judge --gold gold --item id` and `truescore audit FILE --judge judge --gold gold
--id-column id`, in turns: humancert, truescore, humancert, ... (`--runs` of humancert, `--runs` - 1 of truescore, at
least one). The ratio is truescore's median wall time over humancert's median; the CPU seconds (user + system of the child)
are beside them, since the machine is shared and wall time depends on its load (the 1-minute load average is in the table).
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def make_file(path, N, n, seed=0):
    "The CSV: item id, the judge's 0/1 verdict, the gold 0/1 label on n items at random (blank elsewhere); the truth's mean."
    rng = np.random.default_rng(seed)
    t = rng.random(N) < 0.7
    f = np.where(t, rng.random(N) < 0.9, rng.random(N) < 0.4).astype(np.int64)
    gold = np.full(N, "", dtype=object)
    gi = rng.choice(N, n, replace=False)
    gold[gi] = t[gi].astype(np.int64).astype(str)
    pd.DataFrame({"id": [f"item{k}" for k in range(N)], "judge": f, "gold": gold}).to_csv(path, index=False)
    return float(t.mean())


def run(cmd):
    "(wall s, child CPU s, standard output) of one command."
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    w = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - w
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if not out.stdout.strip():     # exit codes differ (a finding: humancert 3, truescore 2); a printed report is what counts
        raise RuntimeError(f"{cmd[0]} failed ({out.returncode}): {out.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out.stdout


def headline(text, start):
    "The first line of the output that starts with `start` (the corrected score as each tool prints it)."
    return next((l.strip() for l in text.splitlines() if l.strip().startswith(start)), "?")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--gold", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "score_command.md"))
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        f = str(Path(d) / "eval.csv")
        truth = make_file(f, a.items, a.gold)
        hc_cmd = ["humancert", "score", f, "--judge", "judge", "--gold", "gold", "--item", "id"]
        ts_cmd = ["truescore", "audit", f, "--judge", "judge", "--gold", "gold", "--id-column", "id"]
        hc, ts, loads = [], [], []
        for k in range(a.runs):
            hc.append(run(hc_cmd)); loads.append(os.getloadavg()[0])
            print(f"humancert score  {hc[-1][0]:7.2f} s wall {hc[-1][1]:7.2f} s CPU", flush=True)
            if k < max(1, a.runs - 1):
                ts.append(run(ts_cmd)); loads.append(os.getloadavg()[0])
                print(f"truescore audit  {ts[-1][0]:7.2f} s wall {ts[-1][1]:7.2f} s CPU", flush=True)
    med = lambda rs, i: float(np.median([r[i] for r in rs]))
    hw, hcpu, tw, tcpu = med(hc, 0), med(hc, 1), med(ts, 0), med(ts, 1)
    runs = lambda rs: ", ".join(f"{r[0]:.2f}" for r in rs)
    lines = ["# `humancert score` against `truescore audit`: whole-command time", "",
             "Written by `python benchmarks/bench_score_command.py`; never edited by hand.", "",
             "| items | gold | truescore audit: wall / CPU s (median; runs) | humancert score: wall / CPU s (median; runs) "
             "| ratio truescore / humancert: wall / CPU | truescore's corrected line | humancert's answer | load (1 min) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |",
             f"| {a.items:,} | {a.gold:,} | {tw:.2f} / {tcpu:.2f} ({runs(ts)}) | {hw:.2f} / {hcpu:.2f} ({runs(hc)}) "
             f"| **{tw / hw:.1f}** / {tcpu / hcpu:.1f} | {headline(ts[-1][2], 'corrected:')} "
             f"| {headline(hc[-1][2], 'The system')[:110]} | {min(loads):.1f}-{max(loads):.1f} |", "",
             f"The truth's mean over the items is {truth:.4f}. Each command is a new process as a user runs it: interpreter start, "
             "imports, reading the CSV, the estimates and the printed report (humancert: every row, judge only, gold only, PPI++ "
             "and Rogan-Gladen; truescore: its corrected score and its judge-agreement table). Wall time depends on the shared "
             "machine's load; the CPU seconds are the child's user + system time. The goal is a wall ratio of at least 10."]
    Path(a.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
