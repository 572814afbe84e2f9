"""The report's ABC cut known from the counts (issue 35 item 4, second pass): `_abc_first_zero` gives the k at which the
exact two-class ABC cross-entropy curve of the data raises ZeroProbabilityError (or None when it does not), checked
against the curve itself on random tables with rare label combinations; and the report on personal_attacks computes its
survey equivalence once (it used to try the whole curve, fail at k = 30 and redo it), with the same numbers and notes."""
import numpy as np
import pytest

from humancert.data.annotations import Annotations
from humancert.data.datasets import load
from humancert.report import reporting
from humancert.report.reporting import _abc_first_zero, _first_zero, make_report
from humancert.survey.power_curve import ZeroProbabilityError
from humancert.survey.survey_equivalence import survey_equivalence


def curve_raises_at(ann, max_k=None):
    "The k of the ZeroProbabilityError the data's exact ABC curve raises (no bootstrap), or None."
    try: survey_equivalence(np.full((ann.n_items, 2), 0.5), ann, "abc", "cross_entropy", 0, 0, max_k)
    except ZeroProbabilityError as e: return e.k
    return None


@pytest.mark.parametrize("seed", range(40))
def test_first_zero_matches_the_curve(seed):
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(3, 30))
    n = rng.integers(1, 9, n_items)
    p = rng.beta(0.3, 0.3, n_items)                                   # skewed items: rare label combinations, lone precedents
    ones = rng.binomial(n, p)
    counts = np.c_[n - ones, ones]
    if counts[:, 1].sum() == 0 or counts[:, 0].sum() == 0 or n.max() < 2: pytest.skip("one class only")
    ann = Annotations.from_counts(counts, labels=["x", "y"])
    top = int(n.max()) - 1
    for max_k in sorted({None, max(top // 2, 0), top}, key=lambda m: -1 if m is None else m):
        got = _abc_first_zero(counts, top if max_k is None else max_k)
        assert got == curve_raises_at(ann, max_k), (counts.tolist(), max_k)


def test_hand_case():
    # one item alone has two 'y' labels besides its 'x': after seeing (x, y) ABC has no other item with (x, y, y),
    # so P(y) = 0 while the item still holds a 'y'; k = 2
    lone = Annotations.from_counts(np.array([[3, 0]] * 6 + [[1, 2], [2, 1], [0, 3]]), labels=["x", "y"])
    assert _abc_first_zero(lone.counts, 2) == 2
    assert _abc_first_zero(lone.counts, 1) is None


def test_report_computes_the_curve_once(monkeypatch):
    d = load("personal_attacks")
    ann, soft = d.annotations, d.predictions["predictor"]
    calls = []
    real = reporting.survey_equivalence
    monkeypatch.setattr(reporting, "survey_equivalence", lambda *a, **k: calls.append(a[6]) or real(*a, **k))
    rep = make_report(ann, soft_model=soft, n_bootstrap=20)
    assert calls == [29]                                              # the old code called with max_k None, then 29
    ref = survey_equivalence(soft, ann, "abc", "cross_entropy", 20, 0, 29)
    assert rep.equivalence.value == ref.value and np.array_equal(rep.equivalence.samples, ref.samples)
    assert [n for n in rep.notes if "ABC curve ends" in n] == [
        "the ABC curve ends at k = 29: from k = 30 " + reporting._NO_PRECEDENT + "; pass clip=0.01 (--clip 0.01) for the whole curve"]
    assert _first_zero(ann, "abc", "cross_entropy", None, None) == 30
