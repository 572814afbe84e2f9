"""Speed of humancert's rating-agreement coefficients against the peers that compute them, in one run.

    python benchmarks/bench_coefficients.py [--quick] [--irrcac PYTHON]     # writes benchmarks/coefficients.md

Data: 10^6 items x 10 raters rating 1-5 (a latent true rating, each rater right with probability 0.6, else a uniform draw),
complete, and the same with 30 % of the labels missing (for the measures that allow missing labels). Every peer gets its
input in the form it expects, built outside the timed region (krippendorff: the raters x items reliability matrix;
statsmodels' fleiss_kappa: the items x classes count table; scikit-learn and humancert's two-rater kappa: the two label
columns; statsmodels' cohens_kappa: the two label columns, its `to_table` timed with it, since it starts from a table);
humancert's functions get an Annotations built outside too. Each row checks that both give the same number (to 1e-9)
before timing. Wall seconds, best of `repeat`.

irrCAC (which pins an old scipy, so it lives in its own environment) is the only peer for Gwet's AC, Brennan-Prediger and
Conger's kappa, and the only one giving the analytic SE of Fleiss' kappa and Krippendorff's alpha. With `--irrcac
/path/to/python` (a Python with irrCAC 0.4.4) it is timed in a subprocess in the same run, on the same 10^6 x 10 ratings
with 30 % missing, one run each (it computes the SE every time, so humancert's rows against it do too), its values
checked to its 5 rounded digits.
"""
import argparse
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import krippendorff
import numpy as np
import pandas as pd
import sklearn
import statsmodels
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa, fleiss_kappa as sm_fleiss, to_table

import humancert
from humancert.data.annotations import Annotations
from humancert.agreement.measures import fleiss_kappa, krippendorff_alpha
from humancert.agreement.coefficients import brennan_prediger, cohen_kappa, cohen_kappa_mean, conger_kappa, gwet_ac

HERE = Path(__file__).resolve().parent


def best(f, repeat):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
    return min(ts)


def ratings(n_items, n_raters, missing, seed=0):
    "Items x raters ratings 1-5 (float, NaN missing; two labels kept on every item)."
    rng = np.random.default_rng(seed)
    z = rng.choice(5, n_items, p=[0.1, 0.2, 0.4, 0.2, 0.1])
    x = (np.where(rng.random((n_items, n_raters)) < 0.6, z[:, None], rng.integers(0, 5, (n_items, n_raters))) + 1).astype(float)
    if missing:
        drop = rng.random(x.shape) < missing
        drop[:, :2] = False
        x[drop] = np.nan
    return x


def same(ours, theirs, what, tol=1e-9):
    if not abs(ours - theirs) <= tol: raise AssertionError(f"{what}: humancert {ours!r} != peer {theirs!r}")


IRRCAC_SCRIPT = r"""
import json, sys, time, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
from irrCAC.raw import CAC
x = np.load(sys.argv[1])
out = {}
for w in ("identity", "quadratic"):
    for m in ("gwet", "bp", "conger", "fleiss", "krippendorff"):
        cac = CAC(pd.DataFrame(x), weights=w)
        t = time.perf_counter(); est = getattr(cac, m)()["est"]; out[f"{w} {m}"] = (time.perf_counter() - t, est["coefficient_value"])
print(json.dumps(out))
"""


def irrcac_rows(python, n_items, repeat):
    "humancert against irrCAC (run by `python` in a subprocess) on n_items x 10 raters with 30 % missing."
    x = ratings(n_items, 10, 0.3, seed=1)
    with tempfile.TemporaryDirectory() as d:
        np.save(Path(d) / "x.npy", x)
        (Path(d) / "run.py").write_text(IRRCAC_SCRIPT)
        res = json.loads(subprocess.run([python, str(Path(d) / "run.py"), str(Path(d) / "x.npy")], check=True,
                                        capture_output=True, text=True).stdout)
    ann = Annotations.from_wide(x)
    ours = {"gwet": lambda w: gwet_ac(ann, w, ci_method="analytic"), "bp": lambda w: brennan_prediger(ann, w, ci_method="analytic"),
            "conger": lambda w: conger_kappa(ann, w, ci_method="analytic"),
            "fleiss": lambda w: fleiss_kappa(ann, chance="items", weights=w, ci_method="analytic"),
            "krippendorff": lambda w: krippendorff_alpha(ann, "nominal" if w is None else "interval", ci_method="analytic")}
    rows = []
    for key, (t_peer, value) in res.items():
        w, m = key.split()
        wt = None if w == "identity" else w
        same(ours[m](wt).value, value, key, tol=6e-6)                  # irrCAC rounds to 5 digits
        t = best(lambda: ours[m](wt), repeat)
        rows.append({"data": f"{n_items:,} x 10, 30 % missing", "coefficient": f"{m} ({w} weights), with SE",
                     "peer": "irrCAC 0.4.4", "humancert (s)": t, "peer (s)": t_peer})
    return rows


def run(quick, irrcac):
    warnings.simplefilter("ignore")
    repeat = 1 if quick else 3
    n = 100_000 if quick else 1_000_000
    rows = []
    for missing in (0.0, 0.3):
        x = ratings(n, 10, missing)
        label = f"{n:,} x 10" + (", 30 % missing" if missing else "")
        t_build = best(lambda: Annotations.from_wide(x), 1)
        ann = Annotations.from_wide(x)
        rel = x.T.copy()
        for level in ("nominal", "ordinal", "interval", "ratio"):
            a = ann.with_level(level)
            same(krippendorff_alpha(a).value, krippendorff.alpha(reliability_data=rel, level_of_measurement=level), f"alpha {level}")
            rows.append({"data": label, "coefficient": f"Krippendorff's alpha, {level}", "peer": f"krippendorff {importlib.metadata.version('krippendorff')}",
                         "build Annotations (s)": t_build, "humancert (s)": best(lambda: krippendorff_alpha(a), repeat),
                         "peer (s)": best(lambda: krippendorff.alpha(reliability_data=rel, level_of_measurement=level), repeat)})
        if missing == 0:
            counts = np.asarray(ann.counts)
            for method in ("fleiss", "randolph"):
                same(fleiss_kappa(ann, method).value, sm_fleiss(counts, method=method), f"fleiss {method}")
                rows.append({"data": label, "coefficient": f"Fleiss' kappa, method={method!r}", "peer": f"statsmodels {statsmodels.__version__}",
                             "build Annotations (s)": t_build, "humancert (s)": best(lambda: fleiss_kappa(ann, method), repeat),
                             "peer (s)": best(lambda: sm_fleiss(counts, method=method), repeat)})
            a, b = x[:, 0].astype(np.int64), x[:, 1].astype(np.int64)
            for w in (None, "linear", "quadratic"):
                same(cohen_kappa(a, b, w).value, cohen_kappa_score(a, b, weights=w), f"cohen {w}")
                rows.append({"data": f"{n:,} items, 2 raters", "coefficient": f"Cohen's kappa, weights={w!r}", "peer": f"scikit-learn {sklearn.__version__}",
                             "humancert (s)": best(lambda: cohen_kappa(a, b, w), repeat),
                             "peer (s)": best(lambda: cohen_kappa_score(a, b, weights=w), repeat)})
                sm_w = {None: None, "linear": "linear", "quadratic": "quadratic"}[w]
                res = sm_cohens_kappa(to_table(np.c_[a, b])[0], wt=sm_w)
                r = cohen_kappa(a, b, w, ci_method="analytic")
                same(r.value, res.kappa, f"statsmodels cohen {w}"); same(r.se ** 2, res.var_kappa, f"statsmodels var {w}")
                rows.append({"data": f"{n:,} items, 2 raters", "coefficient": f"Cohen's kappa, weights={w!r}, with ASE",
                             "peer": f"statsmodels {statsmodels.__version__} (to_table + cohens_kappa)",
                             "humancert (s)": best(lambda: cohen_kappa(a, b, w, ci_method="analytic"), repeat),
                             "peer (s)": best(lambda: sm_cohens_kappa(to_table(np.c_[a, b])[0], wt=sm_w), repeat)})
            codes = x.astype(np.int64)
            def sk_mean(w):
                return np.mean([cohen_kappa_score(codes[:, g], codes[:, h], weights=w) for g in range(10) for h in range(g + 1, 10)])
            same(cohen_kappa_mean(ann, "quadratic").value, sk_mean("quadratic"), "mean cohen")
            rows.append({"data": label, "coefficient": "mean Cohen's kappa over 45 pairs, quadratic", "peer": "scikit-learn, loop over pairs",
                         "build Annotations (s)": t_build, "humancert (s)": best(lambda: cohen_kappa_mean(ann, "quadratic"), 1),
                         "peer (s)": best(lambda: sk_mean("quadratic"), 1)})
        for name, f in [("Gwet's AC1", lambda: gwet_ac(ann)), ("Gwet's AC2, quadratic, with SE", lambda: gwet_ac(ann, "quadratic", ci_method="analytic")),
                        ("Brennan-Prediger", lambda: brennan_prediger(ann)), ("Conger's kappa", lambda: conger_kappa(ann)),
                        ("Conger's kappa, quadratic, with SE", lambda: conger_kappa(ann, "quadratic", ci_method="analytic")),
                        ("Fleiss' kappa, quadratic, with SE", lambda: fleiss_kappa(ann, weights="quadratic", ci_method="analytic")),
                        ("Krippendorff's alpha, ordinal, with SE", lambda: krippendorff_alpha(ann, "ordinal", ci_method="analytic"))]:
            rows.append({"data": label, "coefficient": name, "peer": "- (irrCAC: below)", "build Annotations (s)": t_build,
                         "humancert (s)": best(f, repeat)})
    if irrcac: rows += irrcac_rows(irrcac, n, repeat)
    df = pd.DataFrame(rows)
    df["peer / humancert"] = df["peer (s)"] / df["humancert (s)"]
    return df


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="10^5 items, one repetition (a smoke run; does not write the .md)")
    p.add_argument("--irrcac", default=None, help="a Python interpreter with irrCAC 0.4.4 installed, to time it too")
    args = p.parse_args()
    load0 = os.getloadavg()
    df = run(args.quick, args.irrcac)
    load1 = os.getloadavg()
    fmt = lambda v: "" if pd.isna(v) else f"{v:.4g}"
    table = df.to_markdown(index=False, floatfmt=".4g").replace(" nan ", "     ")
    print(table)
    if args.quick: return
    slower = df[df["peer / humancert"] < 1]
    text = f"""# Rating-agreement coefficients: humancert vs peers

Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__}, humancert {humancert.__version__};
run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load0[0]:.2f} before and {load1[0]:.2f} after (1-minute).
Wall seconds, best of 3 (the loop over 45 pairs and irrCAC: one run). The machine was shared with other jobs while
this ran, so single timings are noisy; the ratios compare runs seconds apart. Every row first checks that humancert and the peer
give the same number (to 1e-9; irrCAC to its 5 rounded digits). Command:
`python benchmarks/bench_coefficients.py{' --irrcac ' + args.irrcac if args.irrcac else ''}` (irrCAC in its own venv:
`python -m venv /tmp/irrcac && /tmp/irrcac/bin/pip install irrCAC==0.4.4`).

Peers get their input in the form they expect, built outside the timed region; humancert's functions get an Annotations
built outside too (its build time is the column "build Annotations"). "with SE" rows also compute the analytic standard
error and interval, which the peer for that row computes too (statsmodels' ASE, irrCAC's SE) or which no peer computes.

{table}

{"Every coefficient is at least as fast as the fastest peer that computes it." if slower.empty else "Slower than the peer: " + ", ".join(slower["coefficient"] + " (" + slower["data"] + ")")}
"""
    (HERE / "coefficients.md").write_text(text)
    print(f"wrote {HERE / 'coefficients.md'}")


if __name__ == "__main__":
    main()
