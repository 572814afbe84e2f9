"""Pairwise A/B/tie judgements (issue 45 item 5): coverage of the public functions' intervals, with a power check beside each.

Each test simulates studies with a known estimand, calls the public function with its default arguments and checks that
its interval holds the estimand at least 0.95 - 3 SE of the time (SE of a coverage near 0.95 over the replicates), and
that the same data without the design's correction (clusters ignored, or the judge alone) covers less.
"""
import numpy as np
import pandas as pd
import pytest

from humancert.pairwise.judgements import (read_pairwise, position_consistency, preference_agreement, simulate_pairwise,
                                          TIE_HALF, chance_level)
from humancert.pairwise.ranking import rank_systems, simulated_estimand


def _floor(reps, level=0.95):
    return level - 3 * np.sqrt(level * (1 - level) / reps)


def _consistency_table(rng, n_prompts, per_prompt):
    "A judge seen in both orders; prompt c keeps its verdict with probability 0.2 or 0.95 (half the prompts each): mean 0.575."
    p = np.where(rng.random(n_prompts) < 0.5, 0.2, 0.95)
    rows = []
    for c in range(n_prompts):
        for k in range(per_prompt):
            a, b = f"s{k}", f"s{k + 1}"
            first = rng.choice(["A", "B"])
            second_same = rng.random() < p[c]
            # order 1: a shown first; order 2: b shown first (row's system_a is the one shown first)
            win = a if first == "A" else b
            win2 = win if second_same else (b if win == a else a)
            rows += [(c, a, b, win, "judge"), (c, b, a, win2, "judge")]
    return pd.DataFrame(rows, columns=["prompt", "system_a", "system_b", "label", "rater"])


def test_position_consistency_covers_with_clusters():
    "Consistency that varies by prompt (ICC about 0.58, 4 pairs per prompt): the clustered interval covers 0.575, the unclustered one does not."
    rng, reps = np.random.default_rng(0), 200
    hit, hit_free = [], []
    for _ in range(reps):
        pw = read_pairwise(_consistency_table(rng, 50, 4), judges="judge")
        r, f = position_consistency(pw).table.iloc[0], position_consistency(pw, clusters=None).table.iloc[0]
        hit.append(r.lower <= 0.575 <= r.upper); hit_free.append(f.lower <= 0.575 <= f.upper)
    assert np.mean(hit) >= _floor(reps), np.mean(hit)
    assert np.mean(hit_free) < np.mean(hit) - 0.08, (np.mean(hit_free), np.mean(hit))     # ignoring the prompts under-covers


def _agreement_table(rng, n, joint):
    "n items, one judge (both orders, consistent) and one human, their verdicts drawn from `joint` (3 x 3 over A, B, tie)."
    code = rng.choice(9, n, p=joint.ravel())
    v = np.array(["A", "B", "tie"], dtype=object)
    j, h = v[code // 3], v[code % 3]
    word = lambda x: np.where(x == "A", "s0", np.where(x == "B", "s1", "tie"))
    base = pd.DataFrame({"prompt": np.arange(n), "system_a": "s0", "system_b": "s1"})
    return pd.concat([base.assign(label=word(j), rater="judge"), base.assign(system_a="s1", system_b="s0", label=word(j), rater="judge"),
                      base.assign(label=word(h), rater="human")], ignore_index=True)


def test_preference_agreement_covers():
    "Agreement, chance level and kappa of a known joint distribution of judge and human verdicts, at 150 items."
    joint = np.array([[0.25, 0.05, 0.06], [0.04, 0.22, 0.06], [0.07, 0.05, 0.20]])
    a = float((joint * TIE_HALF).sum())
    c = chance_level(joint[2].sum(), joint[:, 2].sum(), "tie as half")[0]
    truth = {"agreement": a, "chance": c, "kappa": (a - c) / (1 - c)}
    rng, reps = np.random.default_rng(1), 200
    hits = {k: [] for k in truth}
    for _ in range(reps):
        r = preference_agreement(read_pairwise(_agreement_table(rng, 150, joint), judges="judge")).table.loc[("judge", "tie as half")]
        for k, t in truth.items(): hits[k].append(r[f"{k} lower"] <= t <= r[f"{k} upper"])
    cov = {k: np.mean(v) for k, v in hits.items()}
    assert all(v >= _floor(reps) for v in cov.values()), cov


def test_rank_systems_ppi_covers_and_is_narrower():
    "The notebook's leaderboard, humans on a quarter of 1,200 pairs: PPI++ covers each difference, is narrower than the humans alone; the judge alone misses."
    design = dict(strengths=(0.0, 0.3, 0.6, 0.9), judge_strengths=(0.0, 0.3, 1.2, 0.6), judge_accuracy=0.6, position_bias=0.1,
                  n_humans=1, prompt_sd=0.5)
    star = simulated_estimand(design["strengths"], 0.8, 0.2, design["prompt_sd"])
    names, reps = [f"sys{k}" for k in range(4)], 100
    cov, width = {m: [] for m in ("PPI++", "judge only", "humans only")}, {m: [] for m in ("PPI++", "humans only")}
    for rep in range(reps):
        r = rank_systems(read_pairwise(simulate_pairwise(600, 2, human_share=0.25, seed=50_000 + rep, **design), judges="judge"))
        for m in cov:
            d = r.differences.loc[m]
            rows = [d.loc[(names[j], names[k])] for j in range(4) for k in range(j + 1, 4)]
            cov[m].append(np.mean([x.lower <= star[j] - star[k] <= x.upper for x, (j, k) in zip(rows, [(j, k) for j in range(4) for k in range(j + 1, 4)])]))
            if m in width: width[m].append(np.mean([x.upper - x.lower for x in rows]))
    c = {m: np.mean(v) for m, v in cov.items()}
    assert c["PPI++"] >= _floor(reps), c                      # the mean over six differences: its SE is at most one difference's
    assert c["judge only"] < 0.8, c                           # the judge alone is biased: the check has power
    assert np.mean(width["PPI++"]) < 0.95 * np.mean(width["humans only"]), (np.mean(width["PPI++"]), np.mean(width["humans only"]))


def test_public_names_from_the_package():
    "The four public functions run from the lazy namespace (not a notebook's), on a table in Chatbot Arena's column names."
    import humancert
    df = simulate_pairwise(60, 2, seed=3).rename(columns={"prompt": "question_id", "system_a": "model_a", "system_b": "model_b",
                                                          "label": "winner", "rater": "judge"})
    df["winner"] = df["winner"].map({"A": "model_a", "B": "model_b", "tie": "tie (bothbad)"})
    pw = humancert.read_pairwise(df, judges=["judge"])
    assert isinstance(pw, humancert.Pairwise) and len(pw.systems) == 4 and pw.table["item"].nunique() == 120
    assert isinstance(humancert.position_consistency(pw), humancert.PositionConsistency)
    assert isinstance(humancert.preference_agreement(pw), humancert.PreferenceAgreement)
    r = humancert.rank_systems(pw)
    assert isinstance(r, humancert.SystemRanking) and set(r.ranking) == set(pw.systems)
    assert humancert.tie_half_score("A", ["tie"]) == 0.5


def test_first_position_rate_size_and_power():
    "A judge without position bias: the first-position interval holds 1/2 in at least 0.95 - 3 SE of 150 studies; with bias 0.15 it excludes 1/2 in most."
    def run(bias, seed):
        pw = read_pairwise(simulate_pairwise(100, 2, n_humans=0, position_bias=bias, prompt_sd=0.5, seed=seed), judges="judge")
        r = position_consistency(pw).table.iloc[0]
        return r["first lower"] <= 0.5 <= r["first upper"]
    reps = 150
    size = np.mean([run(0.0, 70_000 + s) for s in range(reps)])
    power = 1 - np.mean([run(0.15, 80_000 + s) for s in range(reps)])
    assert size >= _floor(reps), size
    assert power >= 0.8, power


def test_first_and_item_columns_by_hand():
    "A table that keeps system_a/system_b fixed and names the order shown in a `first` column (names or A/B), with its own item ids."
    df = pd.DataFrame({"prompt": ["p", "p", "p"], "system_a": ["x", "x", "x"], "system_b": ["y", "y", "y"],
                       "label": ["A", "x", "tie"], "rater": ["j", "j", "h"], "shown": ["x", "B", "A"], "pair": ["q1", "q1", "q1"]})
    pw = read_pairwise(df, first="shown", item="pair", judges="j")
    t = pw.table
    assert list(t["item"]) == ["q1", "q1", "q1"] and not pw.notes
    j = t[t.rater == "j"].set_index("first")
    assert j.loc["x", "winner"] == "x" and j.loc["y", "winner"] == "x"          # x won in both orders: consistent
    r = position_consistency(pw).table.loc["j"]
    assert (r["consistent"], r["pairs in both orders"], r["first preferred"]) == (1, 1, 0.5)
    with pytest.raises(ValueError, match="`item`: item 'q1' has more than one prompt or pair"):
        read_pairwise(df.assign(system_b=["y", "z", "y"]), first="shown", item="pair", judges="j")
