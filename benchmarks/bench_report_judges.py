"""The report with six judges against the report with one model, on the same data (issue 32's speed goal: within 3x).

Data: 10^4 items x 5 annotators (accuracy 0.75, three classes, errors uniform over the other classes), six judges of
accuracies 0.95 to 0.60, simulated with a fixed seed. Both reports use the default 200 bootstrap resamples; the one-judge
report is `make_report(ann, model)` (today's report: agreement, certificate, survey equivalence), the judges' report is
`make_report(ann, model, judges=six, alt_test=0.1)` (the verdict table, compare_judges' intervals, each judge's details and
the tolerance sweep). Runs alternate (one-judge, six-judge, ...) so that both see the same machine load; the ratio is
of the medians. A cProfile of one six-judge run is summarised by the top functions.

    python benchmarks/bench_report_judges.py [--repeats 3] [--items 10000]

writes benchmarks/report_judges.md.
"""
import argparse
import cProfile
import io
import platform
import pstats
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from humancert import __version__
from humancert.data.annotations import Annotations
from humancert.report.reporting import make_report


def panel(n_items, seed=0, annotators=(0.75,) * 5, judges=(0.95, 0.9, 0.85, 0.8, 0.7, 0.6), classes=("a", "b", "c")):
    "(annotations, six judges) with known accuracies."
    rng = np.random.default_rng(seed)
    C, cls = len(classes), np.asarray(classes, dtype=object)
    truth = rng.integers(0, C, n_items)
    rater = lambda acc: cls[np.where(rng.random(n_items) < acc, truth, (truth + rng.integers(1, C, n_items)) % C)]
    wide = pd.DataFrame({f"h{k}": rater(a) for k, a in enumerate(annotators)})
    return Annotations.from_wide(wide, labels=list(classes)), pd.DataFrame({f"judge_{int(a * 100)}": rater(a) for a in judges})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--items", type=int, default=10_000)
    a = ap.parse_args()
    ann, judges = panel(a.items)
    model = judges.iloc[:, 0]
    one = lambda: make_report(ann, model)
    six = lambda: make_report(ann, model, judges=judges, alt_test=0.1)
    one(); six()                                                         # warm imports and caches
    t1, t6 = [], []
    for _ in range(a.repeats):
        s = time.perf_counter(); one(); t1.append(time.perf_counter() - s)
        s = time.perf_counter(); six(); t6.append(time.perf_counter() - s)
    m1, m6 = statistics.median(t1), statistics.median(t6)
    prof = cProfile.Profile()
    prof.enable(); six(); prof.disable()
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(18)
    top = "\n".join(l for l in buf.getvalue().splitlines() if l.strip())[:6000]
    st = pstats.Stats(prof).stats                                         # (file, line, name) -> (cc, nc, tt, ct, callers)
    total = max(v[3] for v in st.values())
    seq = next((v for k, v in st.items() if k[2] == "survey_equivalence" and k[0].endswith("survey_equivalence.py")), None)
    cj = next((v for k, v in st.items() if k[2] == "compare_judges"), None)
    why = ("" if seq is None or cj is None else
           f"Where the six-judge run's {total:.1f} s under cProfile go: {cj[3]:.1f} s ({cj[3] / total:.0%}) in `compare_judges` (the "
           "verdict numbers and their bootstrap intervals; the judges' survey equivalences share one human curve per resample), "
           f"{seq[3]:.1f} s ({seq[3] / total:.0%}) in {seq[1]} call(s) of `survey_equivalence` (the report's own), and the rest in the "
           "report's agreement, certificate and its judge additions (confusion tables, disagreements, per-annotator tables, "
           "tolerance sweep, HTML).")
    md = [f"# The report with six judges against the one-model report",
          "", f"Machine: {platform.machine()}, Python {platform.python_version()}, humancert {__version__}. "
          f"Command: `python benchmarks/bench_report_judges.py --repeats {a.repeats} --items {a.items}`. Data: {a.items:,} items x 5 "
          "annotators, three classes, six judges (simulated, seed 0); 200 bootstrap resamples in both reports; runs alternate.",
          "", "| report | runs (s) | median (s) |", "| --- | --- | ---: |",
          f"| one model: `make_report(ann, model)` | {', '.join(f'{t:.2f}' for t in t1)} | {m1:.2f} |",
          f"| six judges: `make_report(ann, model, judges=six, alt_test=0.1)` | {', '.join(f'{t:.2f}' for t in t6)} | {m6:.2f} |",
          "", f"Ratio (six judges / one model): **{m6 / m1:.2f}** (goal: at most 3).",
          "", why, "", "cProfile of one six-judge run (cumulative):", "", "```", top, "```", ""]
    out = Path(__file__).with_name("report_judges.md")
    out.write_text("\n".join(md))
    print("\n".join(md[:12]))


if __name__ == "__main__":
    sys.exit(main())
