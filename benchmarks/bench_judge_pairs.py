"""Speed of the paired judge-versus-judge tests (`JudgeBoard.pairs()`, issue 45 item 4) beside the board's own bootstrap, in one run.

    python benchmarks/bench_judge_pairs.py [--quick]      # writes benchmarks/judge_pairs.md

The data are bench_alt_test.py's (4 classes, 10 annotators missing on 10 % of the items, 5 judges missing on 5 % and answering
"other" on 2 %): one set of item resamples serves every pair, and each pair takes the tallies of the items it leaves out (a
judge's missing labels) off the board's. A second case has judges without missing labels (nothing to take off).
`compare_judges(n_bootstrap=200)` is timed on the same data as the yardstick; `pairs(n_bootstrap=2000)` (its default) after it.
Best of 2 (1 with --quick), wall seconds and the process's CPU seconds; the 1-minute load average beside each row (the
machine is shared).
"""
import argparse
import os
import sys
from pathlib import Path


from humancert.data.annotations import Annotations
from humancert.judges.board import compare_judges

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_alt_test import data   # noqa: E402
from _timing import timed   # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="10^4 items only, one repeat")
    a = ap.parse_args()
    sizes, repeat = ((10_000,), 1) if a.quick else ((10_000, 100_000), 2)
    rows = []
    for n in sizes:
        for complete in (False, True):
            wide, judges = data(n, 10, 5)
            ann = Annotations.from_wide(wide)
            if complete: judges = judges.fillna("other")
            (bw, bc), board = timed(lambda: compare_judges(ann, judges, n_bootstrap=200, seed=0), repeat)
            (pw, pc), pairs = timed(lambda: board.pairs(n_bootstrap=2000), repeat)
            rows.append(f"| {n:,} | {'complete' if complete else '5 % missing'} | {bw:.2f} / {bc:.2f} | {pw:.2f} / {pc:.2f} | "
                        f"{len(pairs.table)} | {os.getloadavg()[0]:.2f} |")
            print(rows[-1], flush=True)
    out = ["# Paired judge tests: speed", "", "Written by `python benchmarks/bench_judge_pairs.py" + (" --quick" if a.quick else "") + "`; never edited by hand.", "",
           "| items | judges' labels | compare_judges, 200 bootstraps: wall / CPU s | pairs(), 2000 resamples: wall / CPU s | pairs | load (1 min) |",
           "| --- | --- | --- | --- | --- | --- |"] + rows
    Path(__file__).with_name("judge_pairs.md").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
