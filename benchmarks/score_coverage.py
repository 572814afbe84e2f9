"""Coverage and width of every interval `humancert.corrected_score` prints, through the public function (issue 43).

Makes nbs/cache/60_score_coverage.csv, read by nbs/system_score/60_corrected_score.ipynb:

    nice python benchmarks/score_coverage.py [--reps 1000] [--out nbs/cache/60_score_coverage.csv] [--designs clustered,...]

(--designs: only those designs are run; their rows replace theirs in --out, the other designs' rows are kept.)

Each cell (design, n) draws `reps` populations of N = 4,000 judged items, labels n of them (a uniform random subset, or
whole clusters of 5 in the clustered designs), calls `corrected_score` with its default arguments (and `clusters=` in
the clustered designs) and records, for every row it prints, whether the interval holds the estimand (the mean over
the N items of the truth, the panel's majority or the average annotator) and its width.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from humancert.data.annotations import Annotations  # noqa: E402
from humancert.system_score.corrected_score import corrected_score  # noqa: E402

N, CLUSTER = 4000, 5
IDS = pd.Index([f"i{k}" for k in range(N)])


def binary(rng, p=0.7, sens=0.9, spec=0.6):
    "Truth ~ Bernoulli(p); the judge passes a true pass with probability sens and a true fail with 1 - spec."
    t = rng.random(N) < p
    return t.astype(float), np.where(t, rng.random(N) < sens, rng.random(N) >= spec).astype(float)


def classes(rng, shares=(0.5, 0.3, 0.2), acc=0.8):
    "Three classes; the judge is right with probability acc, else picks one of the other two at random."
    t = rng.choice(3, N, p=shares)
    j = np.where(rng.random(N) < acc, t, (t + rng.integers(1, 3, N)) % 3)
    return np.array(list("abc"))[t], np.array(list("abc"))[j]


def ratings(rng, probs=(0.1, 0.15, 0.25, 0.3, 0.2)):
    "1-5 ratings; the judge is the truth plus a rounded N(0.4, 0.8) error (lenient and noisy), clipped to 1-5."
    t = rng.choice(5, N, p=probs) + 1
    return t.astype(float), np.clip(np.rint(t + rng.normal(0.4, 0.8, N)), 1, 5)


def clustered(rng, p=0.7, icc=0.3, sens=0.9, spec=0.6):
    "Clusters of 5 (runs of one prompt): each cluster's pass probability ~ Beta with mean p and intra-cluster correlation icc."
    s = 1 / icc - 1
    pc = np.repeat(rng.beta(p * s, (1 - p) * s, N // CLUSTER), CLUSTER)
    t = rng.random(N) < pc
    return t.astype(float), np.where(t, rng.random(N) < sens, rng.random(N) >= spec).astype(float)


def panel(rng, k, p=0.7, acc=0.8, sens=0.9, spec=0.6):
    "A truth, a judge of it, and k annotators each right with probability acc: the (items x k) panel's pass votes."
    t, j = binary(rng, p, sens, spec)
    votes = np.where(rng.random((N, k)) < acc, t[:, None], 1 - t[:, None])
    return t, j, votes


DESIGNS = {"binary": dict(kind="binary"), "binary skewed": dict(kind="binary"), "3 classes": dict(kind="classes"),
           "ratings 1-5": dict(kind="rating"), "clustered": dict(kind="binary"), "clustered ignored": dict(kind="binary")}
for k in (3, 5):
    for est in ("majority", "average annotator"): DESIGNS[f"panel {k} {est}"] = dict(kind="binary", k=k, estimand=est)


def one(design, n, rng):
    "The to_frame() of one study and its estimand(s) by outcome."
    spec = DESIGNS[design]
    kw = {}
    if design.startswith("panel"):
        t, j, votes = panel(rng, spec["k"])
        share = votes.mean(1)
        target = share if spec["estimand"] == "average annotator" else np.where(share > 0.5, 1.0, np.where(share == 0.5, 0.5, 0.0))
        g = rng.choice(N, n, replace=False)
        counts = pd.DataFrame({0: (1 - votes[g]).sum(1), 1: votes[g].sum(1)}, index=IDS[g])
        gold, kw = Annotations.from_counts(counts), dict(estimand=spec["estimand"])
        truth = {"pass": target.mean()}
    else:
        if design.startswith("clustered"):
            t, j = clustered(rng)
            g = (rng.choice(N // CLUSTER, n // CLUSTER, replace=False)[:, None] * CLUSTER + np.arange(CLUSTER)).ravel()
            if design == "clustered": kw = dict(clusters=pd.Series(np.arange(N) // CLUSTER, index=IDS))
        else:
            t, j = {"binary": binary, "binary skewed": lambda r: binary(r, 0.97, 0.99, 0.6), "3 classes": classes,
                    "ratings 1-5": ratings}[design](rng)
            g = rng.choice(N, n, replace=False)
        gold = pd.Series(t[g], index=IDS[g])
        if spec["kind"] == "rating": kw = dict(scale=(1, 5))
        truth = ({c: np.mean(t == c) for c in "abc"} if spec["kind"] == "classes" else
                 {"mean": t.mean()} if spec["kind"] == "rating" else {"pass": t.mean()})
    res = corrected_score(pd.Series(j, index=IDS), gold, kind=spec["kind"], **kw)
    return res.to_frame(), truth


def cell(design, n, reps, seed):
    "Coverage (simultaneous over classes) and mean width of every method in one (design, n) cell."
    rng, hits, widths, seen = np.random.default_rng(seed), {}, {}, {}   # seen: the studies that printed the row (betting is printed only where it heads)
    for _ in range(reps):
        df, truth = one(design, n, rng)
        df = df.assign(covers=[lo <= truth[o] <= hi for o, lo, hi in zip(df.outcome, df.lower, df.upper)])
        for m, d in df.groupby("method"):
            hits[m], seen[m] = hits.get(m, 0) + bool(d.covers.all()), seen.get(m, 0) + 1
            widths[m] = widths.get(m, 0.0) + float((d.upper - d.lower).mean())
        head = df[df.headline]
        hits["headline"], seen["headline"] = hits.get("headline", 0) + bool(head.covers.all()), seen.get("headline", 0) + 1
        widths["headline"] = widths.get("headline", 0.0) + float((head.upper - head.lower).mean())
    return [dict(design=design, n=n, method=m, coverage=hits[m] / seen[m], width=widths[m] / seen[m], reps=seen[m]) for m in hits]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "nbs/cache/60_score_coverage.csv"))
    ap.add_argument("--designs", default=",".join(DESIGNS))
    ap.add_argument("--ns", default="50,100,300,1000")
    a = ap.parse_args()
    rows, t0, run = [], time.time(), a.designs.split(",")
    old = pd.read_csv(a.out) if Path(a.out).exists() else pd.DataFrame(columns=["design"])
    kept = old[~old.design.isin(run)].to_dict("records")          # the designs not run keep their rows
    for design in run:
        for n in map(int, a.ns.split(",")):
            rows += cell(design, n, a.reps, seed=1000 * list(DESIGNS).index(design) + n)   # the same seed whichever designs are run
            print(f"{design:>28} n={n:<5} {time.time() - t0:7.0f} s", flush=True)
            out = pd.DataFrame(kept + rows)
            out.iloc[np.argsort([list(DESIGNS).index(d) for d in out.design], kind="stable")].to_csv(a.out, index=False)


if __name__ == "__main__":
    main()
