"""Label until certified (issue 34 item 2): the e-process by hand, its validity at the boundary over all looks by simulation,
GoldSequence's refusals, and `humancert gold-status` as a subprocess."""
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gold_panels import toy_panel
from humancert.certification.gold_certificate import gold_terms
from humancert.certification.gold_sequence import GoldSequence, log_capital, null_means, stopping_times
from report_run import COMMAND

ROOT = Path(__file__).resolve().parent.parent


def toy(n=400, C=3, K=3, acc=0.6, model_acc=0.75, seed=0):
    "The shared simulated panel (tests/gold_panels.py) at this file's sizes and accuracies."
    return toy_panel(n, C, K, acc, model_acc, seed)


def test_capital_by_hand():
    # by hand: pool N = 4, tau = 0, values 1, 1 -> bets 0 then 0.75 (cap 0.5 / (m_2 + 1) with m_2 = -1/3), K_2 = 1 + 0.75 * 4/3 = 2;
    # pool N = 3: after 1, 1 the last item is >= -1, so the mean is >= 1/3 > 0: proved at the 2nd value (issue 42: it
    # registered one value late, at the 3rd), and 4 of 6 values at 1 prove it at the 4th (mean >= 1/3), not the 5th
    lk = log_capital([1.0, 1.0], 0.0, -1, 1, pool=4)
    assert lk[0] == 0 and abs(lk[1] - np.log(2)) < 1e-12
    assert log_capital([1.0, 1.0, 1.0], 0.0, -1, 1, pool=3).tolist() == [0.0, np.inf, np.inf]
    assert np.isinf(log_capital(np.ones(4), 0.0, -1, 1, pool=6)).tolist() == [False, False, False, True]
    assert log_capital([0.5, 0.3], 0.4, -1, 1, pool=2)[-1] < np.inf          # the whole pool seen, mean exactly tau: no proof
    np.testing.assert_allclose(null_means([0.5, 0.5, -1], 0.1, pool=10), [0.1, (1 - 0.5) / 9, (1 - 1) / 8], atol=1e-15)


@pytest.mark.parametrize("replacement", [False, True])
def test_false_certification_over_all_looks_at_the_boundary(replacement):
    # Pool mean exactly tau = 0.1 (the boundary); a user who looks after every item and stops at the first certificate.
    # 3000 sequences: SE of a rate near delta = 0.05 is sqrt(0.05 * 0.95 / 3000) = 0.004; allow 3 SE above delta.
    rng = np.random.default_rng(34)
    pool = np.repeat([-0.5, 0.0, 0.1, 1.0], [250, 250, 400, 100]).astype(float)
    pool = pool - pool.mean() + 0.1                        # mean exactly tau, values within [-1, 1]
    R, N = 3000, len(pool)
    x = rng.choice(pool, (R, N)) if replacement else rng.permuted(np.broadcast_to(pool, (R, N)), axis=1)
    t = stopping_times(x, 0.1, -1, 1, 0.05, None if replacement else N)
    assert np.isfinite(t).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / R)


def test_power_at_a_true_lead():
    # mean D = 0.1 on {-1, 0, 1}: the e-process certifies within the pool of 1000 in nearly every sequence
    rng = np.random.default_rng(3)
    pool = np.repeat([-1.0, 0.0, 1.0], [150, 600, 250])
    x = rng.permuted(np.broadcast_to(pool, (500, 1000)), axis=1)
    t = stopping_times(x, 0.0, -1, 1, 0.05, 1000)
    assert np.isfinite(t).mean() > 0.95 and np.median(t) < 500


def test_sequence_terms_and_refusals():
    ann, model, gold = toy()
    seq = GoldSequence(ann, model, seed=0)
    seq.update(gold.iloc[:50]); seq.update(gold.iloc[50:120])
    np.testing.assert_allclose(np.sort(seq.x), np.sort(gold_terms(ann, model, gold.iloc[:120])["D"].to_numpy()), atol=1e-15)
    assert abs(np.log(seq.certificate.capital) - log_capital(seq.x, 0.0, -1, 1, 400)[-1]) < 1e-9
    with pytest.raises(ValueError, match="already have a gold label"): seq.update(gold.iloc[100:130])
    with pytest.raises(ValueError, match="not items of the annotations"): seq.update(pd.Series([0], index=["zz"]))
    with pytest.raises(TypeError, match="pandas Series"): seq.update(gold.iloc[200:210].to_numpy())
    with pytest.raises(ValueError, match="`tau` must be"): GoldSequence(ann, model, tau=1.5)
    with pytest.raises(ValueError, match="`draws` is for an active design"): seq.update(gold.iloc[300:301], draws=pd.DataFrame())


def cli(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([*COMMAND, *args],
                          capture_output=True, text=True, cwd=cwd, env=env)


def test_gold_status_cli(tmp_path):
    ann, model, gold = toy(n=600)
    ann.to_wide().assign(m=model).to_csv(tmp_path / "labels.csv", index_label="item")
    gold.iloc[:20].rename("gold").rename_axis("item").to_csv(tmp_path / "gold.csv")
    res = cli("gold-status", "labels.csv", "--model", "m", "--gold", "gold.csv", "--reps", "50", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "SequentialCertificate(" in res.stdout and ("more gold items" in res.stdout or "Certified" in res.stdout)
    gold.iloc[:400].rename("gold").rename_axis("item").to_csv(tmp_path / "gold.csv")
    res = cli("gold-status", "labels.csv", "--model", "m", "--gold", "gold.csv", cwd=tmp_path)
    assert res.returncode == 0 and "Certified: stop labelling" in res.stdout, res.stdout + res.stderr
    res = cli("gold-status", "labels.csv", "--model", "m", cwd=tmp_path)
    assert res.returncode == 2 and "--gold is needed" in res.stderr
    res = cli("gold-status", "labels.csv", "--model", "nope", "--gold", "gold.csv", cwd=tmp_path)
    assert res.returncode == 2 and "--model" in res.stderr.splitlines()[0]
    pd.Series(["x"], index=pd.Index(["i1"], name="item"), name="gold").to_csv(tmp_path / "bad.csv")
    res = cli("gold-status", "labels.csv", "--model", "m", "--gold", "bad.csv", cwd=tmp_path)
    assert res.returncode == 2 and "--gold" in res.stderr and "not classes" in res.stderr
    res = cli("--help", cwd=tmp_path)
    assert "gold-status" in res.stdout


def test_rounding_at_the_end_of_the_pool_is_no_proof():
    # Fails on the first version: tau = the pool's float mean and the last items at lo = -1 made N tau - S_{t-1} fall a hair
    # below lo, read as "the rest cannot reach tau" (capital inf): 0.105 false certification in the benchmark's 2-class design.
    r = np.random.default_rng(0)
    x = np.r_[r.choice([1 / 3, 2 / 3, 1.0, 0.0, -1 / 3], 30), -np.ones(10)]
    assert np.isfinite(log_capital(x, x.mean(), -1, 1, len(x))).all()
    pool = np.repeat([-1.0, -1 / 3, 0.0, 2 / 3, 1.0], [300, 700, 1200, 600, 200])     # mean not exactly representable
    rng = np.random.default_rng(5)
    t = stopping_times(rng.permuted(np.broadcast_to(pool, (400, len(pool))), axis=1), pool.mean(), -1, 1, 0.05, len(pool))
    assert np.isfinite(t).mean() <= 0.05 + 3 * np.sqrt(0.05 * 0.95 / 400)   # 400 studies: SE 0.011


def test_skipped_labels_are_refused_and_iid_draws_may_repeat():
    # found by an independent review: a NaN in a batch was dropped silently (a labeller who skips hard items biases the
    # certificate), and with replacement=True an item drawn again was refused as if drawn without replacement
    ann, model, gold = toy()
    seq = GoldSequence(ann, model)
    batch = gold.iloc[:10].astype(float); batch.iloc[3] = np.nan
    with pytest.raises(ValueError, match=r"`gold`: 1 label\(s\) are missing"):
        seq.update(batch)
    assert not seq.history                                                  # nothing taken from the refused batch
    iid = GoldSequence(ann, model, replacement=True)
    iid.update(gold.iloc[:10]); iid.update(gold.iloc[:10])                  # the same items drawn again
    assert iid.certificate.n_gold == 20
    with pytest.raises(ValueError, match="already have a gold label"):
        seq.update(gold.iloc[:5]); seq.update(gold.iloc[:5])


def test_confidence_and_seed_conventions():
    "Issue 33: `confidence` in delta's place (an old positional delta is refused), `delta` kept; seed=None draws a fresh seed, recorded on the sequence and its certificates, and repeating it repeats the capital path."
    ann, model, gold = toy()
    with pytest.raises(ValueError, match="looks like a failure probability: pass confidence=0.95"): GoldSequence(ann, model, 0.05)
    a, b = GoldSequence(ann, model, confidence=0.9), GoldSequence(ann, model, delta=0.1)
    assert a.delta == b.delta == 0.1 and a.confidence == b.confidence == 0.9
    fresh = GoldSequence(ann, model, seed=None)
    c = fresh.update(gold.iloc[:80])
    assert isinstance(fresh.seed, int) and c.seed == fresh.seed and c.to_frame()["seed"].iloc[0] == fresh.seed
    again = GoldSequence(ann, model, seed=c.seed)
    again.update(gold.iloc[:80])
    assert np.array_equal(again.x, fresh.x)                                   # the same within-batch order
    with pytest.raises(TypeError, match="`seed` must be an int >= 0"): GoldSequence(ann, model, seed=np.random.default_rng(0))
    plan = fresh.plan_more(reps=50, seed=None)
    assert isinstance(plan["seed"], int)


def test_gold_status_confidence_option(tmp_path):
    "--confidence sets the level; the old --delta still works and gives the same status; a level that looks like delta is refused (exit 2, naming --confidence)."
    ann, model, gold = toy(n=600)
    ann.to_wide().assign(m=model).to_csv(tmp_path / "labels.csv", index_label="item")
    gold.iloc[:60].rename("gold").rename_axis("item").to_csv(tmp_path / "gold.csv")
    base = ("gold-status", "labels.csv", "--model", "m", "--gold", "gold.csv", "--reps", "20")
    conf, old = cli(*base, "--confidence", "0.9", cwd=tmp_path), cli(*base, "--delta", "0.1", cwd=tmp_path)
    assert conf.returncode == 0 and old.returncode == 0, conf.stderr + old.stderr
    assert "level 90% valid over all looks" in conf.stdout and conf.stdout == old.stdout
    bad = cli(*base, "--confidence", "0.05", cwd=tmp_path)
    assert bad.returncode == 2 and "--confidence" in bad.stderr and "looks like a failure probability" in bad.stderr
