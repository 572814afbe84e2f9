"certify(clusters=): whole clusters as the i.i.d. units of the agreement-only certificate (issue 45 item 1)."
import numpy as np
import pandas as pd
import pytest
from scipy import stats

from humancert import Annotations, certify, profiles


def _panel(N=300, K=5, seed=0):
    "Two-class counts of K annotators (80 % right) and a model right 90 % of the time, items named i0..."
    rng = np.random.default_rng(seed)
    oracle = rng.integers(0, 2, N)
    ones = np.where(oracle == 1, rng.binomial(K, 0.8, N), rng.binomial(K, 0.2, N))
    ann = Annotations.from_counts(pd.DataFrame({"0": K - ones, "1": ones}, index=[f"i{n}" for n in range(N)]))
    model = np.where(rng.random(N) < 0.9, oracle, 1 - oracle).astype(str)
    return ann, model


@pytest.mark.parametrize("method", ["hms", "oms", "optimal", "balanced"])
def test_clusters_of_one_are_todays_certificate_with_hoeffding_tails(method):
    ann, model = _panel()
    paper = ("hoeffding", "hoeffding")
    a = certify(ann, model, method=method, tails=paper, tau=0.05)
    b = certify(ann, model, method=method, tails=paper, tau=0.05, clusters=np.arange(ann.n_items))
    assert b.n_clusters == a.n_items and a.n_clusters is None
    assert (b.score, b.certified, b.lower, b.upper, b.n_items, b.count) == (a.score, a.certified, a.lower, a.upper, a.n_items, a.count)
    assert b.scores == a.scores                                        # every split, bit for bit: n' = N^2 / (N * 1) = N


def test_clusters_of_one_match_todays_betting_upper_tail():
    ann, model = _panel(seed=1)
    tails = ("hoeffding", "betting")
    for method in ("hms", "optimal", "balanced"):
        a = certify(ann, model, method=method, tails=tails)
        b = certify(ann, model, method=method, tails=tails, clusters=pd.Series(ann.items, index=ann.items))
        assert abs(a.score - b.score) < 1e-9 and a.certified == b.certified and b.tails == tails


def test_binomial_lower_tail_becomes_betting_and_says_so():
    ann, model = _panel(seed=2)
    c = certify(ann, model, clusters=np.arange(ann.n_items) // 3)              # default tails ('binomial', 'betting')
    assert c.tails == ("betting", "betting") and c.n_clusters == 100
    assert any("no cluster form" in v for v in c.caveats)
    assert "100 clusters read as an i.i.d. sample of the clusters" in c.caveats[0] and "arbitrarily dependent" in c.caveats[0]
    assert "clusters=100" in repr(c)
    tf = c.to_frame()["value"]
    assert tf["clusters (G, the i.i.d. units)"] == 100 and tf["largest cluster (s)"] == 3
    assert abs(c.confidence_at([c.tau]).S[0] - c.score) < 1e-12       # re-scored from the cluster totals, not from N items
    assert c.compare_tails().index.tolist() == [("hoeffding", "hoeffding"), ("hoeffding", "betting"), ("betting", "hoeffding"), ("betting", "betting")]


def test_cluster_hoeffding_is_hoeffding_on_the_effective_size():
    "Equal clusters of s items with Hoeffding's tails: the certificate of G items with the same L_N and U_N, i.e. n' = N / s."
    ann, model = _panel(seed=3)
    paper = ("hoeffding", "hoeffding")
    c = certify(ann, model, tails=paper, clusters=np.arange(ann.n_items) // 6)
    from humancert import confidence
    ref = confidence(c.lower, c.upper, 50, "optimal")
    assert abs(c.score - ref.score) < 1e-12


def test_clusters_refused_with_clear_messages():
    ann, model = _panel(N=30)
    with pytest.raises(ValueError, match="profiles merge items"):
        certify(profiles(ann, model), clusters=np.arange(30))
    with pytest.raises(ValueError, match="'bernstein' upper tail has no cluster form"):
        certify(ann, model, tails=("hoeffding", "bernstein"), clusters=np.arange(30) // 2)
    with pytest.raises(ValueError, match="`clusters`"):
        certify(ann, model, clusters=np.zeros(30))
    with pytest.raises(ValueError, match="`clusters`"):
        certify(ann, model, clusters=np.arange(29))


def _threshold(G, k, tau, clustered):
    "The fewest agreeing clusters (of G, k items each) that certify, by bisection (the verdict rises with them): every item has four "
    "labels of four classes (X = 1/4, U = 1/2 exactly), the reference is 'a', the model says 'a' on every item of the agreeing clusters."
    N = G * k
    ann = Annotations.from_counts(pd.DataFrame(np.ones((N, 4), dtype=int), columns=list("abcd")))
    ok = lambda j: certify(ann, np.where(np.arange(N) < j * k, "a", "b"), reference=["a"] * N, tau=tau,
                           clusters=np.arange(N) // k if clustered else None).certified
    lo, hi = 0, G + 1
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if mid <= G and ok(mid) else (mid + 1, hi)
    return lo


def test_level_at_the_boundary_with_intra_cluster_correlation():
    """Exact false-certification rate at the boundary: 100 clusters of 5 items whose agreement is all or nothing (ICC 1), each
    agreeing with probability 0.8 = U + tau, so the claim 'L - tau > U' is false by nothing. The verdict depends only on how many
    clusters agree (a Binomial(100, 0.8)), so the rate is a binomial tail: no simulation error. Items read as independent the
    certificate's level fails (measured 0.129 > 0.05); with clusters it holds (7.8e-5), and it keeps power (0.77 at 0.95)."""
    G, k, tau = 100, 5, 0.3
    j_items, j_clusters = _threshold(G, k, tau, False), _threshold(G, k, tau, True)
    assert stats.binom.sf(j_items - 1, G, 0.8) > 0.1                   # the i.i.d.-item certificate certifies a false claim too often
    assert stats.binom.sf(j_clusters - 1, G, 0.8) <= 0.05              # the cluster certificate holds its level
    assert stats.binom.sf(j_clusters - 1, G, 0.95) > 0.5               # power: a true lead of 0.15 is certified most of the time


def test_board_certificate_takes_the_clusters():
    "Each judge's certificate on compare_judges' board is certify(..., clusters=) on the items it labelled (it took items as independent)."
    from humancert import compare_judges
    ann, model = _panel(N=200, seed=4)
    rng = np.random.default_rng(5)
    other = np.where(rng.random(ann.n_items) < 0.8, model, np.where(model == "1", "0", "1"))
    judges = pd.DataFrame({"a": model, "b": other}, index=ann.items)
    clusters = pd.Series(np.repeat(np.arange(50), 4), index=ann.items)
    board = compare_judges(ann, judges, clusters=clusters, epsilon=None, n_bootstrap=20)
    for g in ("a", "b"):
        direct = certify(ann, judges[g].to_numpy(), clusters=clusters)
        plain = certify(ann, judges[g].to_numpy())
        c = board.certificates[g]
        assert c.n_clusters == 50 and (c.score, c.lower, c.upper) == (direct.score, direct.lower, direct.upper)
        assert c.tails == ("betting", "betting") != plain.tails
        assert c.score < plain.score or plain.score == -1          # clusters widen the tails (judge a: 0.29 against 0.79)
    assert board.certificates["a"].score < certify(ann, model).score
