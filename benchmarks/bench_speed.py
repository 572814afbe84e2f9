"""Speed and memory on one machine, against the targets of issue 15 and, where one exists, a peer in the same run.

Each case runs in a fresh Python process, so that its peak RSS (ru_maxrss) is its own; the data are generated in that
process with a fixed seed before the clock starts, and the time is the best of `--repeat` runs of the timed call.

    python benchmarks/bench_speed.py [--repeat 3] [--quick]

writes benchmarks/speed.md (and speed.csv). `--quick` skips the 10^7-item certificate (about 1.5 GB of counts).
"""
import argparse
import json
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

PRELUDE = r'''
import json, resource, sys, time, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
import humancert as hc
from humancert.data.annotations import Annotations
REPEAT = int(sys.argv[1])
def counts_data(n, r=10, seed=0):
    "n binary items with r labels each: each rater right w.p. 0.8 about a truth; a model right w.p. 0.9."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    pos = np.where(truth == 1, rng.binomial(r, 0.8, n), rng.binomial(r, 0.2, n))
    ann = Annotations.from_counts(pd.DataFrame({"neg": r - pos, "pos": pos}))
    model = pd.Series(np.where(rng.random(n) < 0.9, truth, 1 - truth), index=ann.items).map({0: "neg", 1: "pos"})
    return ann, model
def rss(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
def best(fn):
    "Best of REPEAT timed calls; the peak RSS of the process before the first call (the data) is kept."
    global DATA_RSS
    DATA_RSS, ts = rss(), []
    for _ in range(REPEAT):
        t = time.perf_counter(); out = fn(); ts.append(time.perf_counter() - t)
    return min(ts), out
def best_pair(fn, peer, k=25):
    "Best of k calls each, humancert and the peer alternating, so that both see the same machine load."
    global DATA_RSS
    DATA_RSS, ta, tb = rss(), [], []
    for _ in range(k):
        t = time.perf_counter(); a = fn(); ta.append(time.perf_counter() - t)
        t = time.perf_counter(); b = peer(); tb.append(time.perf_counter() - t)
    return min(ta), a, min(tb), b
def done(**kw):
    print(json.dumps({**kw, "data_rss_mb": DATA_RSS, "peak_rss_mb": rss()}))
'''

CASES = {
    "certify, 10^6 items x 10": ("< 1 s", None, r'''
ann, model = counts_data(10**6)
t, c = best(lambda: hc.certify(ann, model))
done(seconds=t, result=f"S = {c.score:.4f}")'''),
    "certify, 10^7 items x 10": ("< 10 s, < 2 GB", None, r'''
ann, model = counts_data(10**7)
t, c = best(lambda: hc.certify(ann, model))
done(seconds=t, result=f"S = {c.score:.4f}")'''),
    "make_report, 10^6 items x 10": ("< 10 s", None, r'''
from humancert.report.reporting import make_report
ann, model = counts_data(10**6)
t, r = best(lambda: make_report(ann, model, n_bootstrap=0))
done(seconds=t, result="report built")'''),
    "Fleiss' kappa, 10^6 items x 10": ("as fast as statsmodels", "statsmodels", r'''
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss
ann, _ = counts_data(10**6)
table = ann.to_counts().to_numpy()
t, k, tp, kp = best_pair(lambda: hc.agreement.fleiss_kappa(ann), lambda: sm_fleiss(table))
if abs(k.value - kp) > 1e-12: sys.exit(f"kappa differs: {k.value} vs {kp}")
done(seconds=t, peer_seconds=tp, result=f"kappa = {k.value:.4f} (both)")'''),
    "Krippendorff's alpha, 10^6 items x 10": ("-", "krippendorff", r'''
import krippendorff
ann, _ = counts_data(10**6)
table = ann.to_counts().to_numpy()
t, a, tp, ap = best_pair(lambda: hc.agreement.krippendorff_alpha(ann),
                         lambda: krippendorff.alpha(value_counts=table, level_of_measurement="nominal"))
if abs(a.value - ap) > 1e-9: sys.exit(f"alpha differs: {a.value} vs {ap}")
done(seconds=t, peer_seconds=tp, result=f"alpha = {a.value:.4f} (both)")'''),
    "survey equivalence, personal attacks, 500 bootstraps": ("< 1 s", "each curve read whole", r'''
from humancert.survey.power_curve import _curve_data, _curve_fn, _units
from humancert.survey.survey_equivalence import _matched, _check_predictions, equivalence
from humancert.survey.scoring import item_scores
from humancert.survey.combiners import make_combiner
pa = hc.load("personal_attacks")
ann, pred, K = pa.annotations, pa.predictions["predictor"], 20
def whole_curves():
    "The same bootstrap with every level of every sample's curve computed (the same draws, the same maths): the equivalences."
    prof, inv = _curve_data(ann)
    counts = np.asarray(ann.counts)
    levels = _curve_fn(make_combiner("abc", ann), prof, K, "cross_entropy")
    s_item = item_scores(_check_predictions(ann, pred), counts, "cross_entropy")
    levels(np.arange(len(prof)), np.bincount(inv).astype(float), 1.0)()            # the point estimate's curve
    rng, out = np.random.default_rng(0), []
    for _ in range(500):
        im = np.bincount(rng.integers(0, len(inv), len(inv)), minlength=len(inv)).astype(float)
        out.append(equivalence(_matched(s_item, counts.sum(1), K, im), levels(*_units(inv, im, len(prof)))())[0])
    return np.array(out)
t, s, tp, w = best_pair(lambda: hc.survey_equivalence(pred, ann, "abc", "cross_entropy", n_bootstrap=500, max_k=K - 1, seed=0),
                        whole_curves, k=3)
if np.abs(s.samples - w).max() > 1e-12: sys.exit("the bootstrap equivalences differ from the whole curves'")
done(seconds=t, peer_seconds=tp, result=f"equivalence = {s.value:.3f}, interval [{s.interval[0]:.3f}, {s.interval[1]:.3f}] (both)")'''),
    "power curve, personal attacks, 500 bootstraps (every k)": ("-", None, r'''
pa = hc.load("personal_attacks")
t, p = best(lambda: hc.power_curve(pa.annotations, "abc", "cross_entropy", n_bootstrap=500, max_k=19, seed=0))
done(seconds=t, result=f"c_19 = {p.values[-1]:.3f}, interval [{p.lower[-1]:.3f}, {p.upper[-1]:.3f}]")'''),
    "annotator table, 3 x 10^5 annotators, 10^6 items x 3": ("no dense K x K", None, r'''
from humancert.agreement.measures import annotator_agreement
rng = np.random.default_rng(0)
n, r, K = 10**6, 3, 300_000
item = np.repeat(np.arange(n), r)
who = rng.integers(0, K, n * r)
ok = ~pd.DataFrame({"i": item, "w": who}).duplicated().to_numpy()
truth = rng.integers(0, 2, n)
lab = np.where(rng.random(n * r) < 0.8, truth[item], 1 - truth[item])
ann = Annotations.from_long(pd.DataFrame({"item": item[ok], "annotator": who[ok], "label": lab[ok]}))
t, a = best(lambda: annotator_agreement(ann, top=20))
done(seconds=t, result=f"{a.n_annotators:,} annotators, table of the top {a.top}")'''),
    "bounds_by_annotators, an item with 5,000 labels": ("no items x max-labels array", None, r'''
from humancert.report.reporting import bounds_by_annotators
ann, model = counts_data(10**5)
c = ann.to_counts(); c.iloc[0] = [1000, 4000]
ann = Annotations.from_counts(c)
t, b = best(lambda: bounds_by_annotators(ann, model))
done(seconds=t, result=f"{len(b)} rows")'''),
}


def run(name, code, repeat):
    res = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(code), str(repeat)], capture_output=True, text=True)
    if res.returncode != 0: sys.exit(f"{name} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def show_value(df):
    "The table as text: seconds to 3 significant digits, MB as integers, '-' where there is no peer."
    sec = lambda v: "-" if v is None or v != v else f"{v:.3g}"
    out = df.copy()
    for c in ("humancert (s)", "peer (s)", "peer / humancert"): out[c] = df[c].map(sec)
    for c in ("RSS before the call (MB)", "peak RSS (MB)"): out[c] = df[c].map("{:,.0f}".format)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="skip the 10^7-item certificate")
    ap.add_argument("--only", default=None, help="run only the cases whose name contains this text (writes nothing)")
    args = ap.parse_args()
    import pandas as pd
    import humancert
    rows = []
    for name, (target, peer, code) in CASES.items():
        if args.quick and "10^7" in name or args.only and args.only not in name: continue
        r = run(name, code, args.repeat)
        rows.append({"case": name, "target": target, "humancert (s)": r["seconds"], "peer": peer or "-",
                     "peer (s)": r.get("peer_seconds"), "peer / humancert": r["peer_seconds"] / r["seconds"] if peer else None,
                     "RSS before the call (MB)": r["data_rss_mb"], "peak RSS (MB)": r["peak_rss_mb"], "result": r["result"]})
        print(rows[-1], flush=True)
    if args.only: return
    df = pd.DataFrame(rows)
    df.to_csv(Path(__file__).with_name("speed.csv"), index=False)
    cmd = "python benchmarks/bench_speed.py" + (f" --repeat {args.repeat}" if args.repeat != 3 else "") + (" --quick" if args.quick else "")
    md = (f"# Speed and memory on one machine\n\nMachine: {platform.machine()}, 2 cores, Python {platform.python_version()}, "
          f"humancert {humancert.__version__}. Command: `{cmd}`. Each case runs in a fresh process on data generated there "
          f"with a fixed seed; time is the best of {args.repeat} runs of the call alone (peers: the best of 25 runs, 3 for "
          "survey equivalence, alternating with humancert's on the same data, and the numbers must agree; the survey-equivalence "
          "'peer' is the same bootstrap reading every level of every sample's curve, where humancert reads each only as far as "
          "the classifier's crossing); RSS before the call is the process's peak once "
          "the data are built, peak RSS its peak at the end (ru_maxrss).\n\n"
          + show_value(df).to_markdown(index=False, disable_numparse=True) + "\n")
    Path(__file__).with_name("speed.md").write_text(md)
    print(md)


if __name__ == "__main__":
    main()
