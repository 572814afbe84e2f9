"""Speed of the IAA-ceiling simulations: the full Experiment 2 grid (54 conditions x 400 simulations = 21,600
logistic-regression fits) with humancert's batched Newton fit, against scikit-learn fitting one model at a time.

    python benchmarks/bench_iaa.py        # writes benchmarks/iaa.md

The scikit-learn loop is timed on one condition (400 fits) and scaled to the grid; both fit the same objective
(L2 penalty 1 on the slope, scikit-learn's default C = 1), as the notebook's cross-check shows.
"""
import platform
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

import humancert
from humancert.ceiling.iaa import iaa_experiment2, fit_logistic


def main():
    t = time.perf_counter(); df = iaa_experiment2(400, seed=0); grid_s = time.perf_counter() - t
    rng = np.random.default_rng(1)
    x = rng.standard_normal((400, 1000)); y = (rng.random((400, 1000)) < expit(x)).astype(float)
    t = time.perf_counter(); fit_logistic(x, y); ours = time.perf_counter() - t
    t = time.perf_counter()
    for s in range(400): LogisticRegression().fit(x[s][:, None], y[s])
    theirs = time.perf_counter() - t
    rows = [("full Experiment 2 grid (21,600 fits, simulation + metrics)", grid_s, np.nan),
            ("400 fits of 1,000 samples", ours, theirs),
            ("21,600 fits (scaled from 400)", ours * 54, theirs * 54)]
    tab = pd.DataFrame(rows, columns=["work", "humancert (s)", "scikit-learn loop (s)"])
    tab["ratio"] = tab["scikit-learn loop (s)"] / tab["humancert (s)"]
    txt = (f"# IAA-ceiling simulations: speed\n\nMachine: {platform.machine()}, {len(df)} simulations, Python "
           f"{platform.python_version()}, humancert {humancert.__version__}. Command: `python benchmarks/bench_iaa.py`.\n\n"
           + tab.to_markdown(index=False, floatfmt=".3g") + "\n")
    print(txt)
    (Path(__file__).parent / "iaa.md").write_text(txt)


if __name__ == "__main__":
    main()
