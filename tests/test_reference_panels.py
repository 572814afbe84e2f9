"""Reference panels beyond what the notebook runs: Theorem 5's limit (the spread of SEQ^r - SEQ* shrinks with the
number of items), Lemma 1 with three labels, and properties of the panel distributions."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from humancert.reference_panels import panel_matrix, panel_scale, uniform_noise, hscore_star, seq_by_reference
from humancert.scoring import plurality_distribution, classifier_score

T2 = np.array([[0.88, 0.12], [0.35, 0.65]])


def _seq_gap(n_items, rep):
    sim = uniform_noise(n_items, T2, 12, 0.8, seed=2000 + rep)
    t = seq_by_reference({"dmi": sim.classifier}, sim.annotations, (3,), sim.states, max_k=7, max_subsets=12, seed=rep)
    s = t.set_index("reference").SEQ
    return s["r = 3"] - s["state"]


def test_theorem5_gap_shrinks_with_items():
    "SEQ^3 - SEQ* (DMI, uniform noise): centred on 0 at both sizes, and its spread smaller with 32x the items."
    small = np.array([_seq_gap(500, rep) for rep in range(12)])
    large = np.array([_seq_gap(16_000, rep) for rep in range(12)])
    for gaps in (small, large):
        assert abs(gaps.mean()) < 4 * gaps.std(ddof=1) / np.sqrt(len(gaps)), gaps
    # sd ratio: sqrt(32) ~ 5.7 in the limit; F-test style margin: require at least a factor 2
    assert large.std(ddof=1) * 2 < small.std(ddof=1), (small.std(ddof=1), large.std(ddof=1))


def test_lemma1_three_labels():
    "Lemma 1 with three labels and a non-symmetric noise matrix: HScore^r / HScore* -> |det T^(r)|."
    T3 = np.array([[0.7, 0.2, 0.1], [0.15, 0.6, 0.25], [0.1, 0.2, 0.7]])
    for r in (1, 3):
        ratios = []
        for rep in range(8):
            sim = uniform_noise(6000, T3, 9, 0.75, seed=300 + rep)
            star = hscore_star(sim.classifier, sim.annotations, sim.states).value
            ratios.append(classifier_score(sim.classifier, sim.annotations, "dmi", n_rounds=10, seed=rep, n_reference=r).value / star)
        se = np.std(ratios, ddof=1) / np.sqrt(len(ratios))
        assert abs(np.mean(ratios) - panel_scale(T3, r)) < 4 * se, (r, np.mean(ratios), panel_scale(T3, r), se)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=3, max_size=3), min_size=1, max_size=6), st.integers(1, 6))
def test_plurality_distribution_is_a_distribution(rows, r):
    counts = np.array(rows)
    q = plurality_distribution(counts, r)
    ok = counts.sum(1) >= r
    assert np.isnan(q[~ok]).all()
    assert np.allclose(q[ok].sum(1), 1) and (q[ok] >= -1e-15).all()
    # a class without labels can never win a panel
    assert (q[ok][counts[ok] == 0] < 1e-15).all()


@settings(max_examples=40, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0.05, 0.95), st.integers(1, 7))
def test_panel_matrix_is_stochastic_and_lambda_bounded(a, b, r):
    T = np.array([[a, 1 - a], [b, 1 - b]])
    P = panel_matrix(T, r)
    assert np.allclose(P.sum(1), 1)
    assert 0 <= panel_scale(T, r) <= 1 + 1e-12


def test_panel_matrix_does_not_mutate():
    T = np.array([[0.8, 0.2], [0.3, 0.7]])
    before = T.copy()
    panel_matrix(T, 3)
    assert (T == before).all()


@pytest.mark.parametrize("r", [1, 2, 3])
def test_odd_panels_sharpen(r):
    "For two labels lambda_{2j} = lambda_{2j-1} (a split tie adds nothing) and odd panels sharpen the reference."
    assert panel_scale(T2, 2 * r) == pytest.approx(panel_scale(T2, 2 * r - 1), abs=1e-12)
    assert panel_scale(T2, 2 * r + 1) > panel_scale(T2, 2 * r - 1)
