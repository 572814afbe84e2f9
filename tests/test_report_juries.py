"""Juries and effective judges in the report (issue 45, item 3): with two judges or more the report carries the judges'
effective number (effective_judges against the panel, then against the gold labels after add_gold) in the text, markdown,
HTML and JSON forms and in judges.csv, each number the API's own; `humancert report --jury A,B,C[:RULE]` adds the jury
(humancert.jury) as one more judge, evaluated beside its members."""
import json

import numpy as np
import pandas as pd
import pytest

import humancert as h
from humancert.report.reporting import make_report, add_gold
from humancert.report.writer import _judges_csv
from report_run import command as _run


def _data(seed=4, n=60, K=4):
    "Wide binary labels, three judges sharing part of their errors (so their error correlation is positive), the truth."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    flip = lambda p, u: np.where(u < p, 1 - truth, truth)
    wide = pd.DataFrame({f"a{k}": flip(0.25, rng.random(n)) for k in range(K)}, index=pd.Index([f"i{j}" for j in range(n)], name="item"))
    shared = rng.random(n)
    judges = pd.DataFrame({f"j{k}": flip(0.2, np.where(rng.random(n) < 0.6, shared, rng.random(n))) for k in range(3)}, index=wide.index)
    return wide, judges, pd.Series(truth, index=wide.index)


@pytest.fixture(scope="module")
def case():
    wide, judges, truth = _data()
    ann = h.Annotations.from_wide(wide)
    rep = make_report(ann, judges["j0"], judges=judges, n_bootstrap=50, tolerance=False)
    return ann, judges, truth, rep


def test_effective_judges_are_the_apis(case):
    ann, judges, truth, rep = case
    e = h.effective_judges(judges, ann, n_bootstrap=50, seed=0)
    assert (rep.effective.value, rep.effective.ci, rep.effective.rho, rep.effective.reference) == (e.value, e.ci, e.rho, "panel")
    gold = truth.iloc[::2]
    rg = add_gold(rep, ann, judges["j0"], gold)
    g = h.effective_judges(judges, gold, n_bootstrap=50, seed=0)
    assert (rg.effective.value, rg.effective.ci, rg.effective.reference) == (g.value, g.ci, "gold") and g.value != e.value
    one = make_report(ann, judges["j0"], judges=judges[["j0"]], n_bootstrap=0, tolerance=False)
    assert one.effective is None and "Effective judges" not in one.to_text(width=100)


def test_effective_judges_in_every_form(case):
    ann, judges, truth, rep = case
    rep = add_gold(rep, ann, judges["j0"], truth.iloc[::3])             # with gold: no gold-planning advice to simulate in each form
    e = rep.effective
    text = " ".join(rep.to_text(width=100).split())
    assert f"Effective judges (how many independent votes the judges carry) effective judges {e.value:.2f} of 3" in text
    assert f"percentile interval [{e.ci[0]:.2f}, {e.ci[1]:.2f}] (50 item resamples, seed 0" in text
    assert f"mean error correlation {e.rho:.4f} [{e.rho_ci[0]:.4f}, {e.rho_ci[1]:.4f}]" in text
    assert f"{e.value:.2f}" in rep.to_markdown() and "Effective judges" in rep.to_html()
    d = json.loads(json.dumps(rep.to_dict()))["effective_judges"]
    assert (d["effective judges"], d["lo"], d["hi"], d["mean error correlation"]) == (e.value, e.ci[0], e.ci[1], e.rho)
    assert d["correlations"]["j0"]["j1"] == e.correlations.loc["j0", "j1"]
    csv = _judges_csv(rep)
    assert (csv["effective judges"] == e.value).all() and (csv["effective judges lo"] == e.ci[0]).all() and (csv["effective judges hi"] == e.ci[1]).all()


def test_cli_jury(tmp_path, case):
    ann, judges = case[0], case[1]
    ann.to_wide().join(judges).rename_axis("item").to_csv(tmp_path / "w.csv")
    code, out, err = _run("report", str(tmp_path / "w.csv"), "--model", "j0,j1,j2", "--jury", "j0,j1,j2", "--n-bootstrap", "20")
    assert code == 0, err
    with_jury = judges.assign(jury_majority=h.jury(judges, "majority"))
    b = h.compare_judges(ann, with_jury, epsilon=None, n_bootstrap=20, seed=0)
    r = b.table.loc["jury_majority"]
    row = next(l for l in out.splitlines() if l.startswith("  jury_majority"))
    assert f"{r['agreement']:.3f} [{r['agreement lo']:.3f}, {r['agreement hi']:.3f}]" in row
    e = h.effective_judges(judges, ann, n_bootstrap=20, seed=0)          # the members: the jury is made from them, no vote of its own
    assert f"effective judges {e.value:.2f} of 3" in " ".join(out.split()) and "left out 'jury_majority' made from the other judges" in " ".join(out.split())
    assert "'jury_majority': the majority of judges 'j0', 'j1', 'j2' on each item" in " ".join(out.split())
    for argv, words in ((["--model", "j0,j1", "--jury", "j0,j1:vote"], "--jury: unknown rule 'vote'"),
                        (["--model", "j0", "--jury", "j0,j1"], "--jury combines several judges"),
                        (["--model", "j0,j1", "--jury", "j0,q"], "--jury: 'q' is not one of the judges")):
        code, out, err = _run("report", str(tmp_path / "w.csv"), *argv)
        assert code == 2 and words in err.splitlines()[0], err


def test_repeated_runs_are_the_apis(case, tmp_path):
    "runs= (and --runs FILE): a 'Repeated runs' block per judge equal to judge_consistency, the stated choice, judges.csv's and report.json's columns."
    ann, judges, truth = case[:3]
    rng = np.random.default_rng(7)
    runs = pd.DataFrame({f"r{k}": np.where(rng.random(ann.n_items) < 0.2, 1 - judges["j0"], judges["j0"]) for k in range(3)}, index=judges.index)
    rep = make_report(ann, judges["j0"], judges=judges, n_bootstrap=0, tolerance=False, runs={"j0": runs})
    c = h.judge_consistency(runs)
    assert rep.runs["j0"].flip_ci == c.flip_ci and rep.runs["j0"].percent_ci == c.percent_ci and rep.runs["j0"].kappa.ci == c.kappa.ci
    rg = add_gold(rep, ann, judges["j0"], truth.iloc[::3])
    text = " ".join(rg.to_text(width=100).split())
    assert f"Repeated runs of judge 'j0' (3 runs, {c.n_items} items with two or more; confidence 0.95)" in text
    assert f"flip rate {c.flip_rate:.4f} [{c.flip_ci[0]:.4f}, {c.flip_ci[1]:.4f}] (Clopper-Pearson); {c.flips} of {c.n_items} items" in text
    assert "how runs enter as given the other sections use the judge's labels as given" in text
    csv = _judges_csv(rg)
    assert csv.loc["j0", "flip rate"] == c.flip_rate and csv.loc["j0", "flip rate hi"] == c.flip_ci[1] and np.isnan(csv.loc["j1", "flip rate"])
    d = json.loads(json.dumps(rg.to_dict()))
    assert d["repeated_runs"]["j0"]["numbers"][3]["value"] == c.flip_rate and "Repeated runs of judge" in rg.to_html() + rg.to_markdown()
    ann.to_wide().join(judges).rename_axis("item").to_csv(tmp_path / "w.csv")
    runs.rename_axis("item").to_csv(tmp_path / "runs.csv")
    code, out, err = _run("report", str(tmp_path / "w.csv"), "--model", "j0", "--runs", str(tmp_path / "runs.csv"), "--n-bootstrap", "0")
    assert code == 0 and f"flip rate {c.flip_rate:.4f} [{c.flip_ci[0]:.4f}, {c.flip_ci[1]:.4f}]" in " ".join(out.split()), err
    code, out, err = _run("report", str(tmp_path / "w.csv"), "--runs", str(tmp_path / "runs.csv"))
    assert code == 2 and "--runs are repeated runs of the report's judge: pass --model" in err
