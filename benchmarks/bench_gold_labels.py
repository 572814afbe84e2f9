"""Gold labels needed to certify (issue 34 goal): sequential + active selection against today's default fixed-size plain certificate.

Remake the table:  PYTHONPATH=. python benchmarks/bench_gold_labels.py  (writes benchmarks/gold_labels.md; about 2-5 minutes on one core)

Per design (TweetEval-Annotated's LLM with its 3,000 real gold labels as the pool, and three simulated pools of 4,000 items
with every gold label known):
* fixed-size: the smallest n (bisection) at which the default plain certificate (`certify_with_gold`'s plain S: `mean_pvalue`
  with the betting tail on D in [-1, 1]) certifies at 95 % in at least 80 % of 300 random subsets drawn without replacement;
* fixed-size sign tests (issue 34 item 1; beside the baseline, not replacing it): the same bisection for the exact sign test and
  the randomised sign test (`certify_with_gold(test='randomised sign', seed=...)`; the default from issue 34 to issue 42, now a betting test on D), one human label drawn per gold item (own random stream, seed
  [34, length of the design's name]);
* sequential, uniform: median number of gold items (drawn uniformly without replacement) until `GoldSequence`'s e-process
  certifies, a user looking after every item (400 studies);
* sequential + active i.i.d.: the same with draws from `active_design` (floor 0.2, mix 0.5) and the weighted terms (400
  studies, up to 2N draws);
* sequential + active without replacement: `informative_design` with its defaults (control variate on, weighted order; both
  chosen on the three simulated designs before TweetEval's result): the items whose D is known without gold (every annotator
  gave the judge's label) are never labelled, the others come one at a time with probability proportional to the i.i.d. active
  design's pi among those left, and the e-process bets on the scaled terms of D - f against the shifted null (400 studies, its
  own random stream, seed [34, 1, length of the design's name], so the other columns are unchanged); beside it the same design
  with a uniform order (`sampling="uniform"`, seed [34, 3, length of the name]);
* "sequential + active" in the goal columns is the without-replacement design if it meets the goal in all four designs, else
  the i.i.d. one (the rule fixed before the run);
* like with like (issue 42): the fixed-size n is the size at which 80 % of studies certify, so the sequential number that
  compares with it is the 80th percentile of the gold labels until the certificate (by then 80 % of studies have certified),
  not the median (by then half have). The "80th percentile" columns and the "ratio, 80th percentiles" columns make that
  comparison; the medians and issue 34's goal (stated on medians) are kept beside them, and flatter the sequential designs;
* false certification at the boundary: tau set to the pool's own mean of D, 1,000 studies per procedure, over all looks
  (uniform and without replacement: the whole pool; active i.i.d.: up to 2N draws). SE = sqrt(0.05 * 0.95 / 1000) = 0.0069.
"""
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.data.datasets import load
from humancert.certification.gold_certificate import gold_terms, mean_pvalue
from humancert.certification.gold_sequence import stopping_times
from humancert.certification.active_gold import active_design, active_terms, informative_design, successive_log_capital

OUT = Path(__file__).resolve().parent / "gold_labels.md"
DELTA = 0.05


def simulate(n, C, K, acc_easy, acc_hard, hard_share, model_easy, model_hard, corr, seed):
    "Annotations, model labels and gold labels of n items: hard items, annotator errors shared with probability corr."
    r = np.random.default_rng(seed)
    truth = r.integers(0, C, n)
    hard = r.random(n) < hard_share
    shared = (truth + r.integers(1, C, n)) % C                     # the wrong label annotators share on an item
    wrong = np.where(r.random((n, K)) < corr, shared[:, None], (truth[:, None] + r.integers(1, C, (n, K))) % C)
    labels = np.where(r.random((n, K)) < np.where(hard, acc_hard, acc_easy)[:, None], truth[:, None], wrong)
    m_wrong = np.where(r.random(n) < corr, shared, (truth + r.integers(1, C, n)) % C)
    model = np.where(r.random(n) < np.where(hard, model_hard, model_easy), truth, m_wrong)
    items = [f"i{j}" for j in range(n)]
    ann = Annotations.from_wide(pd.DataFrame(labels, index=items, columns=[f"a{k}" for k in range(K)]))
    return ann, pd.Series(model, index=items), pd.Series(truth, index=items)


def designs():
    tw = load("tweeteval")
    yield "TweetEval-Annotated LLM (real gold, 4 classes)", tw.annotations, tw.predictions["llm"], tw.extra["gold"]
    yield "2 classes, 3 independent annotators (acc 0.70, model 0.75)", *simulate(4000, 2, 3, 0.70, 0.70, 0.0, 0.75, 0.75, 0.0, 1)
    yield "4 classes, 5 annotators, correlated errors (acc 0.60, corr 0.5, model 0.66)", *simulate(4000, 4, 5, 0.60, 0.60, 0.0, 0.66, 0.66, 0.5, 2)
    yield "3 classes, 30% hard items (acc 0.85/0.40, model 0.90/0.45)", *simulate(4000, 3, 3, 0.85, 0.40, 0.3, 0.90, 0.45, 0.0, 3)


def chunked(fn, R, chunk=100):
    return np.concatenate([fn(min(chunk, R - a)) for a in range(0, R, chunk)])


def fixed_size_n80(d, rng, R=300):
    "Smallest n certified (plain, betting tail) in >= 80 % of R subsets without replacement; inf if not within the pool."
    power = lambda n: np.mean([mean_pvalue(s, -1, 1, 0.0, "betting") <= DELTA
                               for s in (rng.choice(d, n, replace=False) for _ in range(R))])
    return smallest_n80(power, len(d))


def sign_n80(right, q, randomised, rng, R=300):
    "The same for the (randomised) sign test: per subset one label drawn per gold item (right with probability q), w wins, l losses."
    N = len(right)
    def power(n):
        idx = np.argsort(rng.random((R, N)), axis=1)[:, :n]                  # R subsets of n items without replacement
        x = right[idx].astype(int) - (rng.random((R, n)) < q[idx])
        w, l = (x > 0).sum(1), (x < 0).sum(1)
        p = (stats.binom.sf(w, w + l, 0.5) + rng.random(R) * stats.binom.pmf(w, w + l, 0.5) if randomised
             else stats.binom.sf(w - 1, w + l, 0.5))
        return np.mean((w > l) & (p <= DELTA))
    return smallest_n80(power, N)


def smallest_n80(power, N):
    "Bisection on n for power(n) >= 0.8 (to 1 % or 5 items); inf if even all N items fall short."
    if power(N) < 0.8: return np.inf
    lo, hi = 1, N
    while hi - lo > max(5, hi // 100):                            # bisection to 1 % (or 5 items)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if power(mid) >= 0.8 else (mid, hi)
    return float(hi)


def uniform_times(d, tau, rng, R):
    N = len(d)
    return chunked(lambda r: stopping_times(rng.permuted(np.broadcast_to(d, (r, N)), axis=1), tau, -1, 1, DELTA, N), R)


def active_times(des, z_pool, tau, rng, R):
    M = 2 * des.n_items
    return chunked(lambda r: stopping_times(z_pool[rng.choice(des.n_items, (r, M), p=des.probability)], tau, des.lo, des.hi, DELTA), R)


def informative_times(des, codes, tau, rng, R):
    "Gold labels until the certificate of the design without replacement: each study a fresh order of the informative items, drawn as the design draws it."
    at = np.sort(des.order)
    y = des.d[at, codes[at]] - des.proxy[at]
    if des.sampling == "uniform":
        return chunked(lambda r: stopping_times(rng.permuted(np.broadcast_to(y, (r, len(y))), axis=1), des.terms_tau(tau), des.lo, des.hi,
                                                DELTA, des.pool), R)
    w, yc = des.w[at], des.d[at] - des.proxy[at, None]
    def times(r):
        o = np.argsort(rng.exponential(size=(r, len(y))) / w, axis=1)            # r orders by the exponential race
        with np.errstate(over="ignore", invalid="ignore"):
            hit = successive_log_capital(y[o], w[o], yc.min(1)[o], yc.max(1)[o], des.terms_tau(tau)) >= np.log(1 / DELTA)
        return np.where(hit.any(1), hit.argmax(1) + 1.0, np.inf)
    return chunked(times, R)


def row(name, ann, model, gold, rng):
    terms = gold_terms(ann, model, gold)
    d = terms["D"].to_numpy()
    des = active_design(ann, model)
    codes = pd.Index(ann.classes).get_indexer(gold.loc[des.items])
    z = active_terms(des, np.arange(des.n_items), codes)
    mu = float(d.mean())
    n80 = fixed_size_n80(d, rng)
    sign_rng = np.random.default_rng([34, len(name)])                 # its own stream (by the name's length): the baseline's numbers are unchanged
    right, q = terms["model right"].to_numpy(), terms["annotators right"].to_numpy()
    s80, r80 = sign_n80(right, q, False, sign_rng), sign_n80(right, q, True, sign_rng)
    uni, act = uniform_times(d, 0.0, rng, 400), active_times(des, z, 0.0, rng, 400)
    med = float(np.quantile(act, 0.5, method="higher"))
    p80 = {k: float(np.quantile(v, 0.8, method="higher")) for k, v in (("uniform", uni), ("i.i.d.", act))}   # like with like: 80 % certified
    fu = np.isfinite(uniform_times(d, mu, rng, 1000)).mean()
    fa = np.isfinite(active_times(des, z, float(des.probability @ z), rng, 1000)).mean()
    wor_rng, ides = np.random.default_rng([34, 1, len(name)]), informative_design(ann, model, seed=0)       # the default: weighted order
    wor = informative_times(ides, codes, 0.0, wor_rng, 400)
    wmed = float(np.quantile(wor, 0.5, method="higher"))
    p80["w/o repl."] = float(np.quantile(wor, 0.8, method="higher"))
    boot = np.random.default_rng([34, 2, len(name)])                 # Monte Carlo SE of that median: a bootstrap of the 400 studies
    wse = float(np.std([np.quantile(wor[boot.integers(0, len(wor), len(wor))], 0.5, method="higher") for _ in range(1000)]))
    fw = np.isfinite(informative_times(ides, codes, mu, wor_rng, 1000)).mean()
    uni_rng, udes = np.random.default_rng([34, 3, len(name)]), informative_design(ann, model, sampling="uniform", seed=0)
    umed = float(np.quantile(informative_times(udes, codes, 0.0, uni_rng, 400), 0.5, method="higher"))
    fuw = np.isfinite(informative_times(udes, codes, mu, uni_rng, 1000)).mean()
    return {"design": name, "N": len(d), "lead (mean D)": round(mu, 4), "sd D": round(float(d.std()), 3),
            "fixed-size plain, n for 80% power": n80, "fixed-size sign, n for 80% power": s80,
            "fixed-size randomised sign, n for 80% power": r80, "sequential uniform, median": float(np.median(uni)),
            "sequential + active i.i.d., median": med, "sequential + active without replacement, median": wmed,
            "w/o repl.: SE of the median (bootstrap)": round(wse, 1), "w/o repl., uniform order, median": umed,
            "sequential uniform, 80th percentile": p80["uniform"], "sequential + active i.i.d., 80th percentile": p80["i.i.d."],
            "sequential + active without replacement, 80th percentile": p80["w/o repl."],
            "known share": round(float(ides.known.mean()), 3),
            "ratio (active i.i.d. / fixed)": round(med / n80, 3), "ratio (active w/o repl. / fixed)": round(wmed / n80, 3),
            "ratio, 80th percentiles (uniform / fixed)": round(p80["uniform"] / n80, 3),
            "ratio, 80th percentiles (active i.i.d. / fixed)": round(p80["i.i.d."] / n80, 3),
            "ratio, 80th percentiles (active w/o repl. / fixed)": round(p80["w/o repl."] / n80, 3),
            "_r80": r80, "false cert. sequential uniform": fu, "false cert. sequential + active i.i.d.": fa,
            "false cert. sequential + active w/o repl.": fw, "false cert. w/o repl., uniform order": fuw}


def goal_columns(tab):
    "The goal columns for 'sequential + active': the design without replacement if it meets the goal in every design, else the i.i.d. one."
    n80 = tab["fixed-size plain, n for 80% power"]
    wor = tab["sequential + active without replacement, median"]
    chosen = "without-replacement" if (wor <= 0.5 * n80).all() else "i.i.d."
    med = wor if chosen == "without-replacement" else tab["sequential + active i.i.d., median"]
    at = list(tab.columns).index("ratio (active w/o repl. / fixed)") + 1
    tab.insert(at, "goal (ratio of medians <= 0.5)", np.where(med <= 0.5 * n80, "met", "not met"))
    tab.insert(at + 1, "ratio (active / fixed randomised sign)", (med / tab.pop("_r80")).round(3))
    p80 = tab["sequential + active without replacement, 80th percentile" if chosen == "without-replacement" else "sequential + active i.i.d., 80th percentile"]
    tab["like with like: 80th percentile <= 0.5 n80"] = np.where(p80 <= 0.5 * n80, "met", "not met")
    return tab, chosen


def note_two(tab, chosen):
    "Note (2), from the table's numbers: which design the goal columns use, and TweetEval's case."
    tw = tab.iloc[0]
    gap = 0.5 * tw["fixed-size plain, n for 80% power"] - tw["sequential + active without replacement, median"]
    se = tw["w/o repl.: SE of the median (bootstrap)"]
    return (f"(2) 'Sequential + active' in the goal columns is the {chosen} design (the rule: the design without replacement if it "
            f"meets the goal in all four designs). On TweetEval-Annotated the i.i.d. active design needs "
            f"{tw['sequential + active i.i.d., median']:g} gold labels in the median, more than uniform draws without replacement "
            f"({tw['sequential uniform, median']:g}): on a pool of 3,000 items it loses the finite-population gain. The design without "
            f"replacement keeps it, never labels the {tw['known share']:.1%} of items whose D is known without gold, and draws the "
            f"others with the active design's probabilities: {tw['sequential + active without replacement, median']:g} (bootstrap SE "
            f"{tw['w/o repl.: SE of the median (bootstrap)']:g}), a ratio of {tw['ratio (active w/o repl. / fixed)']:.3f} to the fixed-size "
            f"n; with a uniform order of the informative items it needs {tw['w/o repl., uniform order, median']:g}. Its settings (the "
            "control variate D - f, the weighted order) were chosen on the three simulated designs before TweetEval's result; on "
            "TweetEval the control variate widens the terms (sd 0.527 against 0.490 for D alone, range [-0.5, 2]) and helps little "
            "(notebook 27, 500 studies: 430.5 with it, 440.5 without, in the weighted order), "
            "and the rule is kept. The goal is " + ("met" if gap >= 0 else "missed") + f" on TweetEval by {abs(gap):g} labels "
            f"(the goal is {0.5 * tw['fixed-size plain, n for 80% power']:g}), "
            + (f"{abs(gap) / se:.1f} bootstrap SEs of the median: beyond Monte Carlo error. " if abs(gap) > 3 * se else
               "within 3 bootstrap SEs of the median: another seed can land on the other side. ")
            + "On the simulated pools both active designs more than halve the uniform sequential median.")


def split_tables(tab):
    "Three tables a reader can take in: gold labels needed, the goal, false certification at the boundary (each keyed by design)."
    key = ["design"]
    false = [c for c in tab.columns if c.startswith("false cert.")]
    goal = [c for c in tab.columns if c.startswith(("ratio", "goal", "like with like"))]
    need = [c for c in tab.columns if c not in key + false + goal]
    return [("Gold labels needed", tab[key + need]), ("The goal: sequential + active over fixed-size plain", tab[key + goal]),
            ("False certification at the boundary (1,000 studies each)", tab[key + false])]


def main():
    t0 = time.time()
    rng = np.random.default_rng(34)
    rows = []
    for name, ann, model, gold in designs():
        rows.append(row(name, ann, model, gold, rng))
        print(rows[-1], file=sys.stderr)
    tab, chosen = goal_columns(pd.DataFrame(rows))
    se = np.sqrt(DELTA * (1 - DELTA) / 1000)
    text = [__doc__.split("\n\n")[0].strip(), "", f"Made by `PYTHONPATH=. python benchmarks/bench_gold_labels.py` in {time.time() - t0:.0f} s (seed 34).", "",
            "\n".join(l for l in __doc__.split("\n\n", 2)[2].splitlines()), "",
            *[f"{head}:\n\n{t.to_markdown(index=False)}\n" for head, t in split_tables(tab)],
            f"False certification is at the boundary (tau = the pool's own mean of D) over all looks; its Monte Carlo SE is {se:.4f}, "
            f"so a rate up to {DELTA + 3 * se:.3f} is within 3 SE of delta = {DELTA}.", "",
            "Notes. (1) The first run of this benchmark found 0.105 and 0.094 false certification for the uniform sequential "
            "certificate in the 2-class and hard-items designs: at the end of the pool, with tau the pool's float mean and the last "
            "items at -1, N tau - S_{t-1} fell a hair below -1 by rounding and was read as a proof. `log_capital` now allows a relative "
            "rounding of 1e-9 (tests/test_gold_sequence.py::test_rounding_at_the_end_of_the_pool_is_no_proof fails on the old code). "
            + note_two(tab, chosen) + " (3) The goal's baseline stays the plain certificate, as the issue defines it (today's default when the "
            "issue was filed). Beside it, the fixed-size sign tests of the issue's item 1: the randomised sign test, "
            "(the default from issue 34 to issue 42; since issue 42 the default is a deterministic betting test on D, nb 19) needs fewer gold items than the plain certificate for 80 % power, so against it the "
            "sequential + active ratio is larger (last ratio column). The two sign columns come from independent draws (300 subsets "
            "per n: SE 0.023 at 80 % power, bisection to 1 %), so where they are close their order is noise: the randomised test "
            "certifies whenever the exact one does on the same draws. (4) A sign-test-style e-process (betting on the discordant "
            "pairs of a random annotator) is valid under optional stopping but grows no faster than the e-process on D (Jensen; "
            "notebook 25 measures it slower in all five designs of its grid), so `GoldSequence` is unchanged and the sequential "
            "columns are its. (5) Like with like (issue 42): the fixed-size n gives 80 % power, so the sequential design's comparable "
            "number is its 80th percentile, not its median; the ratios of 80th percentiles are larger than the ratios of medians "
            f"(active without replacement: {tab['ratio, 80th percentiles (active w/o repl. / fixed)'].min():.2f}-"
            f"{tab['ratio, 80th percentiles (active w/o repl. / fixed)'].max():.2f} against {tab['ratio (active w/o repl. / fixed)'].min():.2f}-"
            f"{tab['ratio (active w/o repl. / fixed)'].max():.2f} on medians; uniform: {tab['ratio, 80th percentiles (uniform / fixed)'].min():.2f}-"
            f"{tab['ratio, 80th percentiles (uniform / fixed)'].max():.2f}). Issue 34's goal is stated on medians and kept as it was; "
            "the last goal column applies it to the 80th percentiles."]
    OUT.write_text("\n".join(text) + "\n")
    print(OUT.read_text())


if __name__ == "__main__":
    main()
