"""The control betting test (nb 23) through the public functions: its level at the boundary with the default arguments
(fresh data per study, so the check is over the data, not a seed of the test: the test draws nothing), its power against
plug-in betting on D, the choice test='auto' makes, its determinism, its hand formulas and its errors."""
import numpy as np
import pandas as pd
import pytest

import humancert as hc
from humancert.certification.control_betting import control_log_capital, control_betting_confidence, control_terms, AUTO_MIN_GOLD


def pool(N, rng, acc=0.8, macc=0.8, K=3, C=2, shared=0.0, ids="str"):
    "N items: C classes, K labels each right with probability acc; a model right with probability macc; on a share `shared` of the items every wrong label is the model's wrong class."
    tru = rng.integers(0, C, N)
    wrong = (tru + rng.integers(1, C, N)) % C
    mod = np.where(rng.random(N) < macc, tru, wrong)
    other = np.where((rng.random(N) < shared)[:, None], wrong[:, None], (tru[:, None] + rng.integers(1, C, (N, K))) % C)
    lab = np.where(rng.random((N, K)) < acc, tru[:, None], other)
    idx = pd.Index([f"i{i:05d}" for i in range(N)] if ids == "str" else np.arange(N) * 7 + 3, name="item")
    cls = np.array([f"c{c}" for c in range(C)])
    return (hc.Annotations.from_wide(pd.DataFrame(cls[lab], index=idx, columns=[f"r{k}" for k in range(K)])),
            pd.Series(cls[mod], index=idx), pd.Series(cls[tru], index=idx))


def rate(R, N, n, seed, plain_too=False, **kw):
    "Share of R fresh studies certify_with_gold (default arguments) certifies, the tests it ran, and the plug-in betting test's share (if asked)."
    rng, hits, tests, plain = np.random.default_rng(seed), 0, set(), 0
    for _ in range(R):
        a, m, t = pool(N, rng, **kw)
        g = t.iloc[rng.permutation(N)[:n]]
        c = hc.certify_with_gold(a, m, g)
        hits += c.certified; tests.add(c.test)
        plain += plain_too and hc.gold_test(a, m, g, test="betting").certified
    return hits / R, tests, plain / R


@pytest.mark.parametrize("kw", [dict(acc=0.8, macc=0.8), dict(acc=0.7, macc=0.7, C=3, K=4, shared=0.5)], ids=["independent", "shared errors"])
def test_level_at_the_boundary_with_defaults(kw):
    "E[D] = 0 exactly (the model as accurate as each annotator): certified in at most 0.05 of 250 fresh studies, within 3 standard errors."
    r, tests, _ = rate(250, 400, 150, 20261207, **kw)
    assert tests == {"control betting"}
    assert r <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 250), r


def test_power_beats_betting_on_D():
    "A lead of 0.06 with 150 gold items of 600: the default certifies clearly more often than plug-in betting on D alone."
    r, tests, plain = rate(120, 600, 150, 7, plain_too=True, acc=0.8, macc=0.86)
    assert tests == {"control betting"}
    assert r >= 0.4 and r > plain + 0.1, (r, plain)       # measured 0.475 against 0.275; one rate's standard error is 0.046


def test_auto_choice_reads_counts_only():
    "'auto': control betting from 100 gold items and 20 items without gold, no clusters; plug-in betting otherwise."
    a, m, t = pool(300, np.random.default_rng(1), macc=0.95)
    assert AUTO_MIN_GOLD == 100
    assert hc.certify_with_gold(a, m, t.iloc[:99]).test == "betting"
    assert hc.certify_with_gold(a, m, t.iloc[:100]).test == "control betting"
    assert hc.certify_with_gold(a, m, t.iloc[:280]).test == "control betting"     # 20 items without gold
    assert hc.certify_with_gold(a, m, t.iloc[:281]).test == "betting"             # 19
    cl = pd.Series(np.arange(300) // 2, index=a.items)
    assert hc.certify_with_gold(a, m, t.iloc[:200], clusters=cl).test == "betting"
    with pytest.raises(ValueError, match="`clusters`"):
        hc.certify_with_gold(a, m, t.iloc[:200], clusters=cl, test="control betting")
    with pytest.raises(ValueError, match="`seed`"):
        hc.certify_with_gold(a, m, t.iloc[:200], test="control betting", seed=3)
    with pytest.raises(ValueError, match="`gold`.*test='betting'"):
        hc.gold_test(a, m, t.iloc[:299], test="control betting")


def test_deterministic_whatever_the_order():
    "The same S whatever the order of the rows, the annotators' columns or the gold labels, and for int ids too."
    a, m, t = pool(500, np.random.default_rng(5), macc=0.86)
    g = t.iloc[np.random.default_rng(6).permutation(500)[:200]]
    base = hc.certify_with_gold(a, m, g)
    w = a.to_wide()
    p = np.random.default_rng(8).permutation(500)
    other = hc.certify_with_gold(hc.Annotations.from_wide(w.iloc[p][w.columns[::-1]]), m.iloc[p], g.iloc[::-1])
    assert (base.test, base.score) == (other.test, other.score)
    ai, mi, ti = pool(500, np.random.default_rng(5), macc=0.86, ids="int")
    gi = ti.iloc[np.random.default_rng(6).permutation(500)[:200]]
    s1, s2 = hc.certify_with_gold(ai, mi, gi).score, hc.certify_with_gold(ai, mi, gi).score
    assert s1 == s2 and 0 <= s1 <= 1


def test_capital_by_hand_with_a_learned_slope():
    "Four steps by hand: the slope after two spread-out past points, a block-less step, a margin tau."
    t4 = pd.DataFrame({"D": [0.4, -0.2, 0.3, 0.1], "proxy": [0.2, -0.3, 0.1, 0.0], "block mean": [0.0, 0.1, np.nan, -0.1],
                       "block items": [4, 4, 0, 4]})
    t4.attrs.update(proxy_variance=0.02, residual_variance=0.05)
    tau, delta, n = 0.05, 0.1, 4
    x = np.array([0.2, -0.4, 0.0, 0.1])                      # proxy - block mean (0 without a block)
    d = t4["D"].to_numpy()
    lam = [1.0, 1.0]
    cov = ((d[:2] - d[:2].mean()) * (x[:2] - x[:2].mean())).sum(); var = ((x[:2] - x[:2].mean()) ** 2).sum()
    lam.append(min(max((cov + 10 * 0.02) / (var + 10 * 0.02), 0), 1))
    cov3 = ((d[:3] - d[:3].mean()) * (x[:3] - x[:3].mean())).sum(); var3 = ((x[:3] - x[:3].mean()) ** 2).sum()
    lam.append(min(max((cov3 + 10 * 0.02) / (var3 + 10 * 0.02), 0), 1))
    y = d - np.array([lam[0], lam[1], 0.0, lam[3]]) * x - tau
    prior = 0.05 + 0.02 * 4 / 12
    logk, out = 0.0, []
    for s in range(4):
        past = y[:s]
        v = (10 * prior + (((past - past.mean()) ** 2).sum() if s else 0.0)) / (10 + s)
        b = min(np.sqrt(2 * np.log(1 / delta) / (n * v)), 0.75 / (1 + tau))
        logk += np.log1p(b * y[s]); out.append(logk)
    np.testing.assert_allclose(control_log_capital(t4, tau, delta), out, rtol=0, atol=1e-12)
    assert control_betting_confidence(t4, tau, delta) == pytest.approx(max(0.0, 1 - np.exp(-max(out))), abs=1e-12)
    assert control_betting_confidence(t4, 0.15, delta) == -1.0                    # mean D 0.15 does not exceed tau = 0.15


def test_terms_inputs_untouched_and_errors():
    a, m, t = pool(200, np.random.default_rng(2))
    g = t.iloc[:120]
    w0, m0, g0 = a.to_wide().copy(), m.copy(), g.copy()
    ct = control_terms(a, m, g)
    pd.testing.assert_frame_equal(a.to_wide(), w0); pd.testing.assert_series_equal(m, m0); pd.testing.assert_series_equal(g, g0)
    assert ct.attrs["fit_items"] == 40 and ct["block items"].sum() == 40
    with pytest.raises(TypeError, match="`terms`"):
        control_betting_confidence(ct.drop(columns="proxy"), 0.0, 0.05)
    with pytest.raises(ValueError, match="`gold`"):
        control_terms(a, m, t.iloc[:1])
