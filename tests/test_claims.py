"""Claims exactly as strong as their proofs (issue 26): what the texts say is proved, eq. 6 stated exactly, a betting tail
that is an e-value for the function as called, a stable OMS, the proved upper bound by default, ABC's prior counted,
curve points from few items flagged, and nb 36's hand case (the README's planner example: tests/test_planner_readme.py).

Each test's docstring says what the code before the fix did; the exact-enumeration, Table 3 and eq. 6 simulation checks
guard properties that already held (they passed before too)."""
import itertools
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import humancert
from humancert import Annotations, certify, confidence, upper_bound
from humancert.certification.upper import upper_terms
from humancert.certification.finite import upper_bound_at
from humancert.certification.tails import upper_tail_delta
from humancert.survey.power_curve import power_curve
from humancert.survey.survey_equivalence import survey_equivalence
from humancert.report.reporting import make_report

ROOT = Path(__file__).resolve().parents[1]


def _hand_counts(rng, n=300, K=5):
    "Counts of K annotators on two classes and a model that agrees with the majority 97 % of the time."
    ones = rng.binomial(K, np.where(rng.random(n) < 0.8, 0.9, 0.4))
    counts = np.column_stack([K - ones, ones])
    majority = (ones > K / 2).astype(int)
    model = np.where(rng.random(n) < 0.97, majority, 1 - majority)
    return Annotations.from_counts(counts), model, counts


# ---- what is proved: README, certificate, report, CLI ----------------------------------------------------------------

def test_readme_says_what_is_proved():
    "The README claimed 'with probability >= S'; the default split is proved at 2 delta only, and S is not a probability."
    text = (ROOT / "README.md").read_text()
    assert "with probability $\\ge S$" not in text
    reading = text.split("**Reading the numbers.**")[1].split("\n")[0]      # the README's one paragraph on S
    assert "$2S - 1$" in reading and "not a probability" in reading and 'method="balanced"' in reading


def test_certificate_states_the_proved_confidence():
    "The repr and caveats now give 2S - 1 for a split chosen from the data and S for the balanced one (before: only S)."
    ann, model, _ = _hand_counts(np.random.default_rng(1))
    c = certify(ann, model)
    assert c.method == "optimal" and c.score > 0.5
    assert f"proved confidence 2S-1={2 * c.score - 1:.4f}" in repr(c)
    assert any(f"2S - 1 = {2 * c.score - 1:.4f}" in x for x in c.caveats)
    assert any("not the probability that the claim is true" in x for x in c.caveats)
    b = certify(ann, model, method="balanced")
    assert "proved confidence S)" in repr(b) and b.proved == b.score
    bad = certify(ann, np.where(model == 0, 1, 0))               # the model disagrees with the majority: S = -1
    assert "proved confidence none" in repr(bad)


def test_report_puts_the_verdict_first_and_says_what_is_proved():
    "The certificate block opened with eight S rows; now the verdict, then the proved confidence, then the numbers."
    ann, model, counts = _hand_counts(np.random.default_rng(2))
    r = make_report(ann, pd.Series(model, index=ann.items), n_bootstrap=0)
    text = r.to_text()
    block = text.split("Agreement-only certificate (confidence 0.95, delta = 0.05)\n")[1].split("\n\n")[0].splitlines()
    assert block[0].split()[0] == "verdict" and block[1].split()[:2] == ["proved", "confidence"]
    assert not any(line.split()[0] == "S" for line in block)         # the tails' comparison is a block of its own
    assert "Agreement-only certificate: other splits and tails, for comparison only (not the verdict)" in text
    # U_N on the kept items, beside the same bound on all items (computed here by hand from the counts)
    ut_all = np.sqrt(((counts ** 2).sum(1) / counts.sum(1) ** 2).mean())
    line = next(x for x in block if x.split()[0] == "U_N^(t)")
    assert "kept items" in line and f"on all items with two or more labels: {ut_all:.4f}" in line
    assert "2S - 1" in " ".join(r.assumptions)
    assert r.to_dict()["certificate"]["proved_confidence"] == pytest.approx(2 * r.certificate.score - 1, abs=1e-12)


def test_report_collapses_infeasible_rows():
    "An infeasible certificate printed '-1.0000 infeasible' seven times; now one row says so."
    ann, model, _ = _hand_counts(np.random.default_rng(3))
    r = make_report(ann, pd.Series(1 - model, index=ann.items), n_bootstrap=0)
    comp = r.to_text().split("Agreement-only certificate: other splits and tails, for comparison only (not the verdict)\n")[1].split("\n\n")[0]
    assert comp.count("infeasible") == 1 and len(comp.splitlines()) == 1


def test_cli_help_says_what_delta_proves():
    "The --delta help said 'certify at level 1 - delta'; the default split proves 1 - 2 delta, i.e. 2 confidence - 1 (--confidence, issue 33)."
    import inspect
    from humancert.report.cli import report
    assert "so 2 confidence - 1 is proved" in inspect.getsource(report)


# ---- eq. 6 ------------------------------------------------------------------------------------------------------------

_PARAPHRASES = ("does not copy it (eq. 6)", "does not share the annotators' systematic mistakes")


def test_eq6_is_stated_exactly_wherever_it_was_paraphrased():
    "README, the report's assumptions and the notebooks paraphrased eq. 6 as 'does not copy the majority'."
    texts = {"README.md": (ROOT / "README.md").read_text()}
    texts |= {p.name: "\n".join("".join(c["source"]) for c in json.loads(p.read_text())["cells"])   # sources; outputs follow them
              for p in [*(ROOT / "nbs").rglob("[0-9]*.ipynb"), ROOT / "nbs" / "contributing.ipynb"]}
    ann, model, _ = _hand_counts(np.random.default_rng(4))
    texts["report"] = " ".join(make_report(ann, pd.Series(model, index=ann.items), n_bootstrap=0).assumptions)
    for name, t in texts.items():
        for bad in _PARAPHRASES: assert bad not in t, (name, bad)
    assert "P(model = oracle | majority wrong) >= 1/2" in texts["report"]
    assert "majority wrong" in texts["README.md"] and "\\tfrac12" in texts["README.md"]


def test_eq6_fails_for_an_independent_model_poor_on_hard_items():
    "The exact binary reading: a model that never sees the labels still breaks eq. 6, and then L_N overstates its accuracy."
    rng = np.random.default_rng(7)
    N, K = 100_000, 5
    hard, oracle = rng.random(N) < 0.2, rng.integers(0, 2, N)
    right = rng.binomial(K, np.where(hard, 0.6, 0.95))
    majority = np.where(right > K / 2, oracle, 1 - oracle)
    model = np.where(rng.random(N) < np.where(hard, 0.3, 0.99), oracle, 1 - oracle)     # independent of the annotators
    wrong = majority != oracle
    q = (model[wrong] == oracle[wrong]).mean()
    assert q < 0.5 - 4 * np.sqrt(0.25 / wrong.sum())                                      # eq. 6 fails (4 worst-case SE)
    ann = Annotations.from_counts(np.column_stack([np.where(oracle == 0, right, K - right), np.where(oracle == 1, right, K - right)]))
    c = certify(ann, model)
    d = (model == majority).astype(float) - (model == oracle)
    assert c.lower - (model == oracle).mean() > 4 * d.std(ddof=1) / np.sqrt(N)          # L_N above the true accuracy


# ---- the betting tail: an e-value for every call --------------------------------------------------------------------

def _capital(v, k, m):
    "The betting tail's capital at mean m for the histogram (v, k): the package's function, or the former one rebuilt."
    import humancert.certification.tails as T
    if hasattr(T, "_betting_capital"): return float(T._betting_capital(v, k, m)[0])
    o = T._Orders(v, k, T.N_ORDERS, 0)                            # the former construction, seed 0 (the default)
    lam = np.minimum(o.lam, 0.5 / (1 - m))
    return float(np.exp(np.add.reduceat(o.cnt * np.log1p(lam * (m - o.val)), o.starts)).mean())


def _exact_mean(support, probs, n, f):
    "E f(values, counts) over n i.i.d. draws from a finite distribution, summed over the multinomial count vectors."
    support, total = np.asarray(support, dtype=np.float64), 0.0
    for head in itertools.product(range(n + 1), repeat=len(support) - 1):
        if sum(head) > n: continue
        k = np.array(head + (n - sum(head),))
        total += stats.multinomial.pmf(k, n, probs) * f(support[k > 0], k[k > 0])
    return total


@pytest.mark.parametrize("support,probs,n", [((0.0, 1.0), (0.1, 0.9), 30), ((0.0, 1.0), (0.2, 0.8), 30),
                                             ((0.0, 1.0), (0.5, 0.5), 40), ((0.5, 0.68, 1.0), (0.1, 0.3, 0.6), 14)])
def test_betting_capital_is_an_e_value_by_exact_enumeration(support, probs, n):
    "E[capital at the true mean] <= 1, exactly. The former construction (64 orders, seed 0) gave 1.0429 at N = 30, p = 0.9."
    mu = float(np.dot(support, probs))
    assert _exact_mean(support, probs, n, lambda v, k: _capital(v, k, mu)) <= 1 + 1e-12


@pytest.mark.parametrize("alpha", [0.01, 0.05, 0.2])
def test_betting_tail_is_a_valid_p_value_through_the_public_function(alpha):
    "Pr(upper_tail_delta at the true mean <= alpha) <= alpha, by exact enumeration over Binomial(30, 0.9) data."
    def rejects(v, k):
        x = np.repeat(v, k)
        return float(upper_tail_delta(0.9 - x.mean(), 30, x.mean(), x, "betting")[0] <= alpha)
    assert _exact_mean((0.0, 1.0), (0.1, 0.9), 30, rejects) <= alpha


def test_betting_tail_has_no_seed_to_choose():
    "The certificate cannot depend on a seed any more: every seed gives the same S (before: 0.9329 to 0.9336)."
    import inspect
    assert "seed" not in inspect.signature(upper_tail_delta).parameters
    ds = humancert.load("running_example")
    scores = {certify(ds.annotations, ds.predictions["hard"], seed=s).score for s in range(4)}
    assert len(scores) == 1


# ---- OMS ---------------------------------------------------------------------------------------------------------------

def test_oms_is_stable_when_the_inputs_move_in_the_last_bits():
    "Personal attacks, U^(t), Hoeffding tails (N = 22,878): S(OMS) moved between 0.16 and 0.84 under nudges of 1e-16..1e-14."
    pa = humancert.load("personal_attacks")
    c = certify(pa.annotations, pa.predictions["predictor"].idxmax(axis=1), tails=("hoeffding", "hoeffding"))
    assert c.n_items == 22878
    s = [confidence(c.lower + e, c.upper, c.n_items, "oms").score for e in (0.0, 1e-16, -1e-16, 1e-15, 3e-15, 1e-14, -1e-14)]
    assert np.ptp(s) < 1e-9
    assert min(s) >= confidence(c.lower, c.upper, c.n_items, "hms").score - 1e-12       # never below its start


def test_oms_keeps_table_3():
    "The halving only acts where a step would lower S: the paper's Table 3 OMS values are unchanged (to four decimals)."
    for (L, U, N), want in [((0.971, 0.939, 1821), 0.6208), ((0.899, 0.879, 10000), 0.9267), ((0.919, 0.879, 10000), 0.9999)]:
        assert round(confidence(L, U, N, "oms").score, 4) == want


# ---- the upper bound's default -----------------------------------------------------------------------------------------

def test_upper_bound_defaults_to_the_proved_form():
    "upper_bound() defaulted to U^(e); now U^(t), and U^(e) says what it assumes. By hand: (U^(t))^2 = 23/27, (U^(e))^2 = 7/9."
    ann = Annotations.from_wide(pd.DataFrame({"r1": ["x", "y", "x"], "r2": ["y", "y", "x"], "r3": ["x", None, "x"]}))
    assert upper_bound(ann).value == pytest.approx(np.sqrt(23 / 27), abs=1e-12)
    assert upper_terms(ann).mean() == pytest.approx(23 / 27, abs=1e-12)
    e = upper_bound(ann, "empirical")
    assert e.value == pytest.approx(np.sqrt(7 / 9), abs=1e-12)
    assert "equally accurate" in repr(e) and "eq. 2" in e.note
    assert "note" not in repr(upper_bound(ann))
    assert "equally accurate" in upper_bound_at(ann, 0.95, "empirical").note


# ---- ABC's prior, counted ----------------------------------------------------------------------------------------------

def _prior_cases_by_hand(counts, K, r=1):
    "(item, k) pairs with some k of the item's labels held by no other item with k + 1 or more labels: a plain loop."
    n, total = counts.sum(1), 0
    for i, w in enumerate(counts):
        for k in range(K):
            if n[i] < k + r: continue
            for y in itertools.product(*[range(c + 1) for c in w]):
                if sum(y) != k: continue
                if not any(j != i and n[j] >= k + 1 and all(a >= b for a, b in zip(counts[j], y)) for j in range(len(counts))):
                    total += 1
                    break
    return total


def test_abc_prior_is_counted_in_a_hand_case():
    "Two items, x x and y y: at k = 1 neither has a precedent for its seen label. Before, nothing counted this."
    ann = Annotations.from_counts(np.array([[2, 0], [0, 2]]))
    pc = power_curve(ann, clip=0.01)
    assert pc.n_prior == 2 and "ABC's prior for 0/0 on 2 (item, k) pairs" in repr(pc)
    seq = survey_equivalence(np.array([[0.5, 0.5], [0.5, 0.5]]), ann, "abc", "cross_entropy", clip=0.01)
    assert seq.curve.n_prior == 2 and "ABC's prior" in repr(seq)


@pytest.mark.parametrize("seed", range(3))
def test_abc_prior_count_matches_a_plain_loop(seed):
    "A sparse 51-item case (the issue's size) with three classes: the count equals a loop over every subset of labels."
    rng = np.random.default_rng(seed)
    counts = np.array([rng.multinomial(m, [0.6, 0.3, 0.1]) for m in rng.integers(2, 7, 51)])
    ann = Annotations.from_counts(counts)
    pc = power_curve(ann, clip=0.01)
    assert pc.n_prior == _prior_cases_by_hand(counts, len(pc.k)) > 0
    ds = humancert.load("running_example")
    assert power_curve(ds.annotations).n_prior == 0 and "prior" not in repr(power_curve(ds.annotations))


def test_report_shows_abc_prior_and_few_item_points():
    "The report now says how many items stand behind each curve point, flags the few, and counts ABC's prior."
    rng = np.random.default_rng(5)
    counts = np.array([rng.multinomial(m, [0.7, 0.3]) for m in np.r_[np.full(150, 3), np.full(60, 5), np.full(4, 8)]])
    ann = Annotations.from_counts(counts)
    probs = pd.DataFrame(np.column_stack([np.full(len(counts), 0.7), np.full(len(counts), 0.3)]), index=ann.items, columns=ann.classes)
    r = make_report(ann, soft_model=probs, n_bootstrap=0, clip=0.01)
    e = r.equivalence
    n = counts.sum(1)
    assert e.few_items == {k: int((n >= k + 1).sum()) for k in range(len(e.curve.k)) if (n >= k + 1).sum() < 100}
    assert e.few_items and "curve points from fewer than 100 items" in repr(e)
    text = r.to_text()
    assert "few items" in text and "items behind c_k" in text
    assert ("ABC's prior used" in text) == (e.curve.n_prior > 0)


# ---- nb 36's hand case -------------------------------------------------------------------------------------------------

def test_nb36_hand_case_numbers():
    "maj3(0.88) = 0.9603 and lambda_3 = 0.6785 (the markdown said 0.963 and 0.681)."
    maj3 = lambda q: q ** 3 + 3 * q ** 2 * (1 - q)
    nb = json.loads((ROOT / "nbs" / "survey" / "36_reference_panels.ipynb").read_text())
    md = next("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown" and "A hand case: two labels" in "".join(c["source"]))
    for value in (maj3(0.88), maj3(0.35), maj3(0.88) - maj3(0.35)):
        assert f"{value:.4f}" in md
    assert "0.963$" not in md and "0.681" not in md


def test_caveat_names_no_negative_confidence():
    "Where 2S - 1 <= 0 the certificate says nothing is proved, instead of printing a negative 'proved confidence'."
    import humancert as hc
    tw = hc.load("tweeteval")
    c = hc.certify(tw.annotations, tw.predictions["llm"])
    assert c.score == -1 and c.proved <= 0
    text = " ".join(c.caveats)
    assert "proves no confidence (2S - 1 <= 0)" in text and "proved confidence of 2S - 1 = -" not in text
