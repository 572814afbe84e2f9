"""Coverage and power of `certify_with_gold`, through the public function, on simulated studies with a known oracle.

At the boundary the model is exactly as accurate as the average annotator (E[D] = tau = 0), the hardest point for every
bound: each finite-sample version must be certified at 95 % in at most delta = 5 % of the studies (a one-sided binomial
test at the 0.001 level; 600 studies detect a true rate of 0.09 with probability about 0.9). PPI++ is asymptotic: its rate
must be within 4 standard errors of 0.05 at the larger size. Power is checked beside coverage, so that a bound passing by
never certifying would be noticed. The design is sparse (1 to 5 labels per item), so the per-item definition of the
average annotator is what is tested.
"""
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert.data.annotations import Annotations
from humancert.certification.gold_certificate import certify_with_gold, gold_terms, ASYMPTOTIC_MIN_GOLD


def gold_study(N, n, lead, rng, acc=(0.8, 0.4), model_hard=0.5, hard_share=0.3, max_labels=5, C=3):
    "Counts of 1..max_labels labels per item (accuracy acc[0] on easy, acc[1] on hard items), a model E[q] + lead accurate, gold on n random items."
    hard = rng.random(N) < hard_share
    a = np.where(hard, acc[1], acc[0])
    oracle, m = rng.integers(0, C, N), rng.integers(1, max_labels + 1, N)
    counts = np.zeros((N, C), int)
    for k in range(max_labels):
        lab = np.where(rng.random(N) < a, oracle, (oracle + rng.integers(1, C, N)) % C)
        np.add.at(counts, (np.arange(N)[k < m], lab[k < m]), 1)
    avg = (1 - hard_share) * acc[0] + hard_share * acc[1]          # E[q]: each label is right with its item's accuracy
    right = rng.random(N) < np.where(hard, model_hard, (avg + lead - hard_share * model_hard) / (1 - hard_share))
    model = np.where(right, oracle, (oracle + rng.integers(1, C, N)) % C)
    sel = np.sort(rng.choice(N, n, replace=False))
    return Annotations.from_counts(counts), model, pd.Series(oracle[sel], index=sel)


def certified_shares(R, N, n, lead, seed, tail="betting"):
    rng = np.random.default_rng(seed)
    S = np.array([[c.plain_score, c.score_ppi, -1.0 if c.score_clt is None else c.score_clt, c.score] for c in
                  (certify_with_gold(*gold_study(N, n, lead, rng), tail=tail) for _ in range(R))])
    return (S >= 0.95).sum(0)


def assert_rate_at_most(hits, R, delta, what):
    p = stats.binomtest(int(hits), R, delta, alternative="greater").pvalue
    assert p > 0.001, f"{what}: certified a false claim in {hits / R:.4f} of studies, above delta = {delta} (binomial test p = {p:.2g})"


@pytest.mark.parametrize("N,n,tail", [(500, 50, "betting"), (4000, 400, "betting"), (1000, 150, "bernstein")])
def test_finite_sample_coverage_at_the_boundary(N, n, tail):
    R = 600
    hits = certified_shares(R, N, n, 0.0, seed=N + n, tail=tail)
    assert_rate_at_most(hits[0], R, 0.05, f"plain ({tail}, N={N}, n={n})")
    assert_rate_at_most(hits[1], R, 0.05, f"prediction-powered ({tail}, N={N}, n={n})")
    assert_rate_at_most(hits[3], R, 0.05, f"sign test, the default (N={N}, n={n})")
    if n >= 400:                                                    # asymptotic: near delta at the larger size
        se = np.sqrt(0.05 * 0.95 / R)
        assert hits[2] / R < 0.05 + 4 * se, f"PPI++ rate {hits[2] / R:.4f}"


def test_power():
    R = 150
    hits = certified_shares(R, 1000, 300, 0.1, seed=7)
    assert hits[0] / R > 0.6 and hits[1] / R > 0.3 and hits[2] / R > 0.8 and hits[3] / R > 0.6, hits / R


def test_ppi_variance_formula():
    "The standard error PPI++ reports matches the spread of its estimate over repeated studies (within 4 SE of an SD estimate)."
    R, rng = 600, np.random.default_rng(3)
    est, se = [], []
    for _ in range(R):
        c = certify_with_gold(*gold_study(2000, 300, 0.05, rng, acc=(0.9, 0.6), max_labels=7, model_hard=0.7), tail="hoeffding")
        est.append(c.estimate_clt); se.append(c.se_clt)
    sd, mean_se = np.std(est, ddof=1), np.mean(se)
    assert abs(sd / mean_se - 1) < 4 / np.sqrt(2 * (R - 1)), (sd, mean_se)


def test_plain_normal_limit_against_statsmodels():
    from statsmodels.stats.weightstats import DescrStatsW
    rng = np.random.default_rng(11)
    ann, model, gold = gold_study(3000, ASYMPTOTIC_MIN_GOLD["plain, normal limit"], 0.05, rng)     # where the row is printed
    c = certify_with_gold(ann, model, gold, delta=0.05)
    d = gold_terms(ann, model, gold)["D"].to_numpy()
    lo, _ = DescrStatsW(d, ddof=1).zconfint_mean(alpha=0.10)        # two-sided 90 % = one-sided 95 %
    assert abs(c.lower_plain_clt - lo) < 1e-12


def test_gold_not_aligned_by_position():
    rng = np.random.default_rng(5)
    ann, model, gold = gold_study(300, 50, 0.0, rng)
    shifted = pd.Series(gold.to_numpy(), index=gold.index + 10_000)
    with pytest.raises(ValueError, match="never by position"):
        certify_with_gold(ann, model, shifted)


# --- direct checks of the parts (issue 36, item 19): each fails on a deliberately broken version ---------------------------

def test_hoeffding_mean_pvalue_by_hand():
    from humancert.certification.gold_certificate import mean_pvalue
    x = [1.0, 0.5, 0.5, 0.0]                                   # mean 0.5 in [-1, 1]: exp(-2 n t^2 / (hi - lo)^2), t = 0.5 - threshold
    assert abs(mean_pvalue(x, -1, 1, 0.0, "hoeffding") - np.exp(-2 * 4 * 0.25 / 4)) < 1e-15
    assert abs(mean_pvalue(x, -1, 1, 0.25, "hoeffding") - np.exp(-2 * 4 * 0.0625 / 4)) < 1e-15
    assert abs(mean_pvalue([0.2, 0.6], 0, 1, 0.1, "hoeffding") - np.exp(-2 * 2 * 0.09)) < 1e-15
    assert mean_pvalue(x, -1, 1, 0.5, "hoeffding") == 1.0 and mean_pvalue(x, -1, 1, 0.7, "hoeffding") == 1.0


def test_ppi_lambda_from_the_gold_items():
    "lambda-hat = sample Cov(D, f) / sample Var(f), both over the gold items; the standard error by hand (statistics module, no numpy)."
    import statistics
    from humancert.certification.gold_certificate import ppi_clt
    d = [1.0, 0.0, -1.0, 0.5, 0.0, -0.5]
    fg = [0.2, 0.0, -0.8, 0.1, -0.2, -0.5]
    f_all = fg + [0.25, -1.0, 0.0, 0.1, -0.3, 0.2, 0.0, -0.6]          # N = 14, the gold items among them
    lam = statistics.covariance(d, fg) / statistics.variance(fg)
    est, se, lh = ppi_clt(f_all, d, fg)
    assert abs(lh - lam) < 1e-12
    assert abs(est - (lam * statistics.fmean(f_all) + statistics.fmean([a - lam * b for a, b in zip(d, fg)]))) < 1e-12
    var = (statistics.variance(d) + (1 - 6 / 14) * (lam ** 2 * statistics.variance(fg) - 2 * lam * statistics.covariance(d, fg))) / 6
    assert abs(se - var ** 0.5) < 1e-12


def test_issue_36_reproducer_no_longer_certifies():
    "The model is worse (right on 97 of 100 gold items, every human right on all): no row certifies, PPI++ included."
    counts = np.tile([3, 0], (1000, 1)); model = np.zeros(1000, int); model[:10] = 1
    c = certify_with_gold(Annotations.from_counts(counts), model, pd.Series(0, index=np.r_[0:3, 10:107]))
    fr = c.to_frame()
    assert not fr["certified"].any(), fr
    assert c.estimate < 0 and c.estimate_clt < 0


def test_prediction_powered_split_limits_by_hand():
    "Hoeffding's closed forms: the limit is lam LCB(f, s delta) + LCB(D - lam f, (1 - s) delta), and S inverts it on a fine grid."
    from humancert.certification.gold_certificate import _ppi_gold, ppi_pvalue
    rng = np.random.default_rng(8)
    f = rng.uniform(-1, 0.25, 2000); gi = rng.choice(2000, 250, replace=False)
    d = np.clip(f[gi] + rng.normal(0.7, 0.2, 250), -1, 1)
    lam, s, delta = 0.5, 0.1, 0.05
    r = d - lam * f[gi]
    S, lower, est = _ppi_gold(f, d, f[gi], delta, 0.0, "hoeffding", lam, s)
    lcb_r = r.mean() - (2 + 1.25 * lam) * np.sqrt(np.log(1 / ((1 - s) * delta)) / (2 * 250))     # range of D - lam f: 2 + 5 lam / 4
    lcb_f = f.mean() - 1.25 * np.sqrt(np.log(1 / (s * delta)) / (2 * 2000))                        # range of f: 5/4
    assert abs(lower - (lcb_r + lam * lcb_f)) < 1e-12
    assert abs(est - (lam * f.mean() + r.mean())) < 1e-12
    room = est
    t = np.linspace(0, room, 400001)
    direct = np.min(np.maximum(np.exp(-2 * 2000 * (t / (1.25 * lam)) ** 2) / s,
                               np.exp(-2 * 250 * ((room - t) / (2 + 1.25 * lam)) ** 2) / (1 - s)))
    assert 1e-6 < direct < 0.5                                       # a p-value the grid must find, not the cap at 1
    p = ppi_pvalue(f, r, lam, s, 0.0, "hoeffding")
    assert direct * (1 - 1e-9) <= p <= direct * 1.01, (direct, p)
    assert abs(S - (1 - p)) < 1e-15


def test_proxy_model_label_outside_the_classes_agrees_with_nobody():
    "f_i = p_(model label) - sum_c p_ic^2 by a plain loop; where the model's label is no class, f_i = -sum_c p_ic^2."
    from humancert.certification.gold_certificate import proxy_differences
    rng = np.random.default_rng(36)
    counts = rng.multinomial(5, [0.4, 0.35, 0.25], 200)
    model = np.where(rng.random(200) < 0.2, 9, rng.integers(0, 3, 200))          # 9 is no class
    f = proxy_differences(Annotations.from_counts(counts), model).to_numpy()
    for i in range(200):
        p = counts[i] / 5
        agree = p[model[i]] if model[i] < 3 else 0.0
        assert abs(f[i] - (agree - (p ** 2).sum())) < 1e-12, i
    wide = Annotations.from_wide(pd.DataFrame({"a": ["x", "y", "z"], "b": ["z", "y", "z"]}))
    assert np.allclose(proxy_differences(wide, ["none", "y", "none"]).to_numpy(), [-0.5, 0.0, -1.0])


def test_boolean_gold_for_numeric_classes_refused():
    ann = Annotations.from_counts(np.array([[2, 1], [0, 3], [1, 2]]))
    with pytest.raises(TypeError, match="`gold` holds booleans but the classes are \\[0, 1\\]"):
        certify_with_gold(ann, [0, 1, 1], pd.Series([True, False, True]))
    assert certify_with_gold(ann, [0, 1, 1], pd.Series([1, 0, 1])).n_gold == 3


def test_learning_curve_size_above_the_gold_labels():
    from humancert.certification.gold_certificate import gold_learning_curve
    rng = np.random.default_rng(4)
    ann, model, gold = gold_study(300, 40, 0.0, rng)
    with pytest.raises(ValueError, match="`sizes` has \\[50\\] above the 40 gold labels"):
        gold_learning_curve(ann, model, gold, [20, 50], 2)
    assert gold_learning_curve(ann, model, gold, [40], 2).loc[40, "subsets"] == 1


def skewed_study(N, n, lead, rng, rare=0.03, acc=0.95, K=3):
    "The issue-36 design: a share `rare` of items where every human is right and the model wrong; elsewhere K humans acc accurate and a model acc + (rare + lead) / (1 - rare) accurate, so E[D] = lead."
    rare_item = rng.random(N) < rare
    oracle = rng.integers(0, 2, N)
    m_acc = acc + (rare + lead) / (1 - rare)
    if m_acc > 1: raise ValueError(f"no model reaches lead {lead} in this design (it would need accuracy {m_acc:.3f} on the common items)")
    model = np.where(rare_item | (rng.random(N) >= m_acc), 1 - oracle, oracle)
    right = (rng.random((N, K)) < acc) | rare_item[:, None]
    ones = np.where(right, oracle[:, None], 1 - oracle[:, None]).sum(1)
    sel = np.sort(rng.choice(N, n, replace=False))
    return Annotations.from_counts(np.c_[K - ones, ones]), model, pd.Series(oracle[sel], index=sel)


@pytest.mark.parametrize("n", sorted({50, *ASYMPTOTIC_MIN_GOLD.values()} - {None}))
def test_every_printed_row_holds_its_level_on_the_skewed_design(n):
    """At the boundary (E[D] = 0) of the issue's skewed design, through the public function: every row that prints an S
    certifies in at most delta of the studies (one-sided binomial test at 0.001: 800 studies, a rate near 0.05 has SE 0.008,
    so a true 0.09 fails with probability about 0.9). A withheld row is never certified. Before the fix PPI++ certified
    0.31-0.46 of such studies; the plain normal limit 0.12 at 50 gold items."""
    R, rng = 800, np.random.default_rng([36, n])
    fr = [certify_with_gold(*skewed_study(2000, n, 0.0, rng)).to_frame() for _ in range(R)]
    verdicts = [r for r in fr[0].index if r not in ASYMPTOTIC_MIN_GOLD]
    hits = sum(f.loc[verdicts, "certified"].to_numpy(dtype=int) for f in fr)
    for row, h in zip(verdicts, hits):
        assert_rate_at_most(h, R, 0.05, f"{row} at n = {n}")
    for row in ASYMPTOTIC_MIN_GOLD:                                  # issue 42: approximate estimates, never an S or a verdict
        assert all(f.loc[row, "certified"] is None and f.loc[row, "S"] == "none (approximate)" for f in fr), (row, n)


def test_skewed_design_power_where_printed():
    "With a true lead of 0.05 on the skewed design (3 % rare items, humans 85 % accurate elsewhere) and 1,000 gold items, every row still certifies most studies (not withheld everywhere)."
    R, rng = 100, np.random.default_rng(360)
    fr = [certify_with_gold(*skewed_study(4000, 1000, 0.05, rng, acc=0.85)).to_frame() for _ in range(R)]
    rows = [r for r in fr[0].index if r not in ASYMPTOTIC_MIN_GOLD]     # the rows with a verdict
    power = sum(f.loc[rows, "certified"].to_numpy(dtype=int) for f in fr) / R
    assert (power > 0.5).all(), dict(zip(rows, power))


# --- issue 34 item 2: the test chosen by the power table, selectable by name; issue 33: confidence and seed ---------------

def unanimous_study(wins, losses, ties, C=2):
    "Every item's three labels are class 0, so the drawn label is 0 whatever the seed: `wins` items where the model is right (gold 1, model 1) and the humans wrong, `losses` where the model is wrong (gold 0, model 1), `ties` where all agree (gold 0, model 0)."
    n = wins + losses + ties
    ann = Annotations.from_counts(np.tile([3] + [0] * (C - 1), (n, 1)))
    model = np.r_[np.ones(wins + losses, int), np.zeros(ties, int)]
    gold = pd.Series(np.r_[np.ones(wins, int), np.zeros(losses + ties, int)])
    return ann, model, gold


def test_sign_test_by_hand():
    "S = 1 - P(Bin(w + l, 1/2) >= w), by scipy's exact binomial test; the plain S beside it is the old certificate's (Hoeffding by hand)."
    ann, model, gold = unanimous_study(14, 5, 30)
    c = certify_with_gold(ann, model, gold, tail="hoeffding", test="sign", seed=0)
    assert (c.test, c.wins, c.losses, c.seed) == ("sign", 14, 5, 0)
    assert abs(c.score - (1 - stats.binomtest(14, 19, 0.5, alternative="greater").pvalue)) < 1e-14
    dbar = (14 - 5) / 49
    assert abs(c.plain_score - (1 - np.exp(-2 * 49 * dbar ** 2 / 4))) < 1e-14
    assert c.certified == (c.score >= 0.95) and c.to_frame().index[0] == "sign test (one random label per item)"
    p = certify_with_gold(ann, model, gold, tail="hoeffding", test="plain")
    assert p.score == p.plain_score and abs(p.score - c.plain_score) < 1e-15 and p.seed is None and len(p.to_frame()) == 4


def test_paired_betting_selectable_and_sign_refuses_a_margin():
    ann, model, gold = unanimous_study(14, 5, 30)
    pb = certify_with_gold(ann, model, gold, test="paired betting", tau=0.05, seed=0)
    assert pb.test == "paired betting" and abs(pb.estimate_test - 9 / 49) < 1e-15 and -1 < pb.score < 1
    with pytest.raises(ValueError, match="'e-process', 'plain' or 'paired betting' for a margin"):
        certify_with_gold(ann, model, gold, tau=0.05, test="randomised sign", seed=0)
    auto = certify_with_gold(ann, model, gold, tau=0.05)            # issue 42: the default 'auto' is the betting test on D, any margin
    ph = certify_with_gold(ann, model, gold, tau=0.05, tail="hoeffding", test="plain")
    assert auto.test == "betting" and ph.test == "plain" and auto.seed is None
    assert abs(ph.score - (1 - np.exp(-2 * 49 * (9 / 49 - 0.05) ** 2 / 4))) < 1e-12     # Hoeffding by hand: D in [-1, 1], mean 9/49


def test_confidence_replaces_delta():
    ann, model, gold = unanimous_study(14, 5, 30)
    with pytest.raises(ValueError, match="looks like a failure probability: pass confidence=0.95"):
        certify_with_gold(ann, model, gold, 0.05)                    # an old positional delta is refused, not a 5 % certificate
    c9, d9 = certify_with_gold(ann, model, gold, confidence=0.9), certify_with_gold(ann, model, gold, delta=0.1)
    assert c9.confidence == 0.9 and d9.confidence == 0.9 and d9.delta == 0.1
    assert c9.to_frame().columns[1] == "lower limit (90%)" and d9.to_frame().columns[1] == "lower limit (90%)"
    assert certify_with_gold(ann, model, gold).delta == 0.05         # 1 - 0.95 is stored as 0.05, as before


def test_seed_required_recorded_and_repeatable():
    "Issue 42: the randomised sign test needs a seed (none by default); a given seed is recorded and repeats the drawn labels (split labels, so the draw matters)."
    rng = np.random.default_rng(12)
    ann, model, gold = gold_study(600, 300, 0.05, rng)
    with pytest.raises(ValueError, match="`seed` is required with test='randomised sign'"):
        certify_with_gold(ann, model, gold, test="randomised sign", seed=None)
    c = certify_with_gold(ann, model, gold, test="randomised sign", seed=123)
    again = certify_with_gold(ann, model, gold, test="randomised sign", seed=c.seed)
    assert c.seed == 123 and (again.wins, again.losses, again.score) == (c.wins, c.losses, c.score)
    draws = {(x.wins, x.losses) for x in (certify_with_gold(ann, model, gold, test="randomised sign", seed=s) for s in range(5))}
    assert len(draws) > 1                                            # the seed does change the drawn labels here
    with pytest.raises(TypeError, match="`seed` must be an int >= 0"):
        certify_with_gold(ann, model, gold, test="sign", seed=np.random.default_rng(0))


def test_randomised_sign_test_by_hand():
    "The randomised sign test (by name): S = 1 - (P(B > w) + u P(B = w)), B ~ Bin(w + l, 1/2), u the seed's own uniform stream; never below the exact sign test's S."
    ann, model, gold = unanimous_study(14, 5, 30)
    c, s = certify_with_gold(ann, model, gold, seed=7, test="randomised sign"), certify_with_gold(ann, model, gold, seed=7, test="sign")
    u = np.random.default_rng([7, 1]).random()
    assert c.test == "randomised sign" and c.seed == 7
    assert abs(c.score - (1 - stats.binom.sf(14, 19, 0.5) - u * stats.binom.pmf(14, 19, 0.5))) < 1e-14
    assert c.score >= s.score


def randomised_sign_rate(R, seed, n=150):
    "Share of R studies at the boundary (the issue-36 skewed design, E[D] = 0) that the randomised sign test certifies at 95 %, each with its own seed."
    rng = np.random.default_rng(seed)
    return sum(certify_with_gold(*skewed_study(1500, n, 0.0, rng), test="randomised sign", seed=r).certified for r in range(R)) / R


def test_randomised_sign_level_at_the_boundary_with_a_seed_per_study():
    """The randomised sign test's level is exactly delta: 800 studies at E[D] = 0 certify at a rate within 3.5 SE of 0.05
    (SE = sqrt(0.05 * 0.95 / 800) = 0.0077); a test that spent more than delta (e.g. u ignored as 0, a mid-p) would be caught above."""
    rate = randomised_sign_rate(800, 341)
    assert rate <= 0.05 + 3.5 * np.sqrt(0.05 * 0.95 / 800), rate


def test_e_process_selectable():
    "The e-process on D (aGRAPA, Ville) by hand on D = (1, 1, -1): capital 1, 1.5, 0.75, so S = 1 - 1/1.5; no seed, any tau."
    ann = Annotations.from_counts(np.array([[3, 0], [3, 0], [0, 3]]))
    c = certify_with_gold(ann, [1, 1, 1], pd.Series([1, 1, 0]), test="e-process", seed=None)
    assert c.test == "e-process" and c.seed is None and abs(c.score - (1 - 1 / 1.5)) < 1e-12
    assert certify_with_gold(ann, [1, 1, 1], pd.Series([1, 1, 0]), test="e-process", tau=0.2).score < c.score
